#!/usr/bin/env python3
"""An independent verifier of pokerd's verifiable deck, version 2.

Written from docs/fairness.md alone (the page's "The construction, byte by
byte", "Which card came from where: the walk", "Reshuffles: the accounting",
"The shapes" and "Checking a record"), and checked against
docs/fairness/vectors.json; no other verifier's code was read. Python 3.11's
standard library only.

Usage:

    python3 docs/fairness/verify.py RECORD.json [--seed HEX [--list HEX] | --no-seed]
    python3 docs/fairness/verify.py --vectors docs/fairness/vectors.json

Record mode checks a hand's record as downloaded (`?format=replay`) in the
order of the page's "Checking a record", failing at the first problem:
`FILE: FAILED (code): reason` on stderr and exit status 1, where `code` is a
stable snake_case name of the failure (see FAILURE_CODES). On success it
prints one line `FILE: verified: ...` and exits 0. Bad usage exits 2.

`--seed HEX` is the seed the viewer sent for the hand (it must be the one used
at their seat); `--list HEX` the closed list's digest their client kept before
revealing; `--no-seed` says they sent none (no commitment may be listed at
their seat).

Vectors mode recomputes every value published in the vectors file, verifies
its records and checks that every forged record (`attacks`) is refused with
exactly its `error` code (`mine`: null, nothing known of the viewer's seed;
"none", --no-seed; {seed, list}, --seed and --list). A file that cannot be
read exits 2, like bad usage.

Where the page leaves a choice, this verifier takes the one the vectors agree
with, or the stricter one:

- a card `c` is its two ASCII characters in the nonce, the leaf and the tag;
  leaf(r, c) is itself the tree's leaf hash (not hashed again with 0x00);
  every hash in a hash (commitment, seed commitment, list digest) is its 32
  raw bytes;
- a hand shown, and a discard the record names, are compared with the cards
  held (or named by number) as multisets, in any order;
- every discarded event whose cards the record shows is checked against the
  numbers (the viewer's own; in the operator's record, everyone's);
- the cards "they know" for the accounting are all the cards the record shows
  or the proofs open (a board card too);
- a deal that the queue and the next reshuffle cannot cover fails
  (deck_exhausted); so does a reshuffle listed and never made
  (reshuffle_unused);
- a kept opening the accounting does not need is refused (kept_extra), as
  "exactly the openings" says; missing and extra are checked before each
  opening's path and tag;
- `up` is read only to refuse a face-up card written `??`; a hand id must be
  36 characters of lowercase hex with dashes (else `format`).
"""

import argparse
import hashlib
import json
import sys

# Every failure code this verifier gives, and what it means.
FAILURE_CODES = {
    "format": "malformed JSON, a missing or mistyped field, or a byte string not in lowercase hex",
    "version": "the record is not version 2",
    "hand_id": "the proofs' hand id is not the record's",
    "size": "the deck size is not 52 or 36",
    "rounds": "not 1 to 16 rounds",
    "commitment": "the commitment is not the hash of the hand id, the size and the rounds",
    "seed_order": "the closed list or the seeds not by strictly ascending seat",
    "seed_seat": "a seed used from a seat not dealt in",
    "seed_open": "a seed that does not open its seat's commitment (or whose seat committed none)",
    "house_withheld": "a house seat dealt in committed and did not reveal",
    "no_viewer": "the viewer's own seed checked on a record with no viewer (the operator's)",
    "own_seed": "the viewer's seed is not the one used at their seat",
    "list_changed": "the closed list is not the one the viewer was sent before revealing",
    "seed_in_my_name": "a commitment is listed at the seat of a viewer who sent none",
    "tags": "a round's tags: not one list per round dealt from, not n, not strictly ascending, or not the committed digest",
    "reshuffle_missing": "a deal needed a reshuffle the record does not list",
    "reshuffle_unused": "a reshuffle listed and never made (or as many reshuffles as rounds, or more)",
    "reshuffle_order": "a reshuffle's slots not strictly ascending below n",
    "reshuffle_count": "a reshuffle does not take as many slots as cards were thrown away since the one before",
    "reshuffle_took_kept": "a reshuffle took a slot holding a card that was held or still in the stub",
    "deck_exhausted": "a deal takes more cards than the deck holds even after the reshuffle",
    "discard": "the discards: not one list per discarded event, or a list not strictly ascending, naming cards not held, or not as many as thrown",
    "discard_cards": "a discard list names other cards than the viewer threw",
    "proof_order": "the openings (cards, or kept) not strictly ascending",
    "slot_not_dealt": "an opening of a slot no deal took",
    "burn_proved": "an opening of a burn card",
    "path": "an opening's leaf and path do not lead to its round's root",
    "tag": "an opening's tag is not the one at its slot",
    "tag_unknown": "a kept opening's tag is not among its round's tags",
    "card_mismatch": "an opening's card is not the one the record shows there",
    "not_shown": "an opening of another player's down card they did not show",
    "unproved": "a card the record shows has no opening",
    "shown_not_held": "a hand shown is not the cards its player held at the end",
    "kept_unexpected": "a kept opening the accounting does not need",
    "kept_missing": "a kept opening the accounting needs is missing",
}

RANKS = "23456789TJQKA"
SUITS = "cdhs"
HEX = "0123456789abcdef"


class Refused(Exception):
    """A record (or an argument) that does not verify: `code` names the failure."""

    def __init__(self, code, reason):
        assert code in FAILURE_CODES, code
        super().__init__(reason)
        self.code = code
        self.reason = reason


# ---------------------------------------------------------------- primitives


def H(*parts):
    """SHA-256 of the concatenation of parts (bytes, or ASCII str)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("ascii") if isinstance(p, str) else p)
    return h.digest()


def u8(v):
    """One byte."""
    return bytes([v])


def u32be(v):
    """Four bytes, big-endian."""
    return v.to_bytes(4, "big")


def card_number(card, n):
    """A card's number: 4 x rank + suit, less 16 in the short deck (n = 36)."""
    number = 4 * RANKS.index(card[0]) + SUITS.index(card[1]) - (16 if n == 36 else 0)
    if not 0 <= number < n:
        raise ValueError(card)
    return number


def card_name(number, n):
    """The card whose number is `number` in a deck of n."""
    number += 16 if n == 36 else 0
    return RANKS[number // 4] + SUITS[number % 4]


def nonce(secret, r, card):
    """N(r, c): the first 16 bytes of H("pokerd deck nonce v2" || x || u8 r || c)."""
    return H("pokerd deck nonce v2", secret, u8(r), card)[:16]


def leaf(r, card, nonce_):
    """leaf(r, c) = H(0x00 || u8 r || c || N)."""
    return H(b"\x00", u8(r), card, nonce_)


def tag(r, card, nonce_):
    """tag(r, c) = H(0x02 || u8 r || c || N)."""
    return H(b"\x02", u8(r), card, nonce_)


def node(left, right):
    """An inner node of the tree: H(0x01 || left || right)."""
    return H(b"\x01", left, right)


def split(size):
    """The largest power of two smaller than size (size > 1)."""
    k = 1
    while k * 2 < size:
        k *= 2
    return k


def tree_root(leaves):
    """RFC 6962's Merkle tree hash over leaf hashes (already the leaves)."""
    if len(leaves) == 1:
        return leaves[0]
    k = split(len(leaves))
    return node(tree_root(leaves[:k]), tree_root(leaves[k:]))


def tree_path(index, leaves):
    """RFC 6962's audit path of leaf `index`, leaf first."""
    if len(leaves) == 1:
        return []
    k = split(len(leaves))
    if index < k:
        return tree_path(index, leaves[:k]) + [tree_root(leaves[k:])]
    return tree_path(index - k, leaves[k:]) + [tree_root(leaves[:k])]


def path_leads_to(root, index, size, leaf_hash, path):
    """RFC 9162 section 2.1.3.2: does `path` prove `leaf_hash` at `index` of `size`?"""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf_hash
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node(p, r)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def tags_digest(r, tags):
    """tags_digest(r) = H("pokerd deck tags v2" || u8 r || tags(r)...)."""
    return H("pokerd deck tags v2", u8(r), *tags)


def deck_commitment(hand_id, n, rounds):
    """The commitment over the hand id, n, R and every round's (root, tags digest)."""
    parts = [hand_id, u8(n), u8(len(rounds))]
    for root, digest in rounds:
        parts += [root, digest]
    return H("pokerd deck commitment v2", *parts)


def seed_commitment(commitment, seed):
    """H("pokerd seed commitment v2" || commitment || s)."""
    return H("pokerd seed commitment v2", commitment, seed)


def list_digest(commitment, entries):
    """The closed list's digest; entries are (seat, house, seed_commitment) by seat."""
    parts = [commitment, u8(len(entries))]
    for seat, house, c in entries:
        parts += [u8(seat), u8(1 if house else 0), c]
    return H("pokerd seed list v2", *parts)


def shuffle_key(commitment, digest, seeds):
    """The key from the seeds used, seeds being (seat, seed) by ascending seat."""
    parts = [commitment, digest, u8(len(seeds))]
    for seat, seed in seeds:
        parts += [u8(seat), seed]
    return H("pokerd shuffle key v2", *parts)


def stream(key, r):
    """Round r's stream of 32-bit words, eight per block."""
    j = 0
    while True:
        block = H("pokerd shuffle stream v2", key, u8(r), u32be(j))
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i:i + 4], "big")
        j += 1


def draw_below(words, b):
    """The uniform draw below b, throwing away words at or above the limit."""
    limit = 2**32 - (2**32 % b)
    while True:
        w = next(words)
        if w < limit:
            return w % b


def round_order(key, r, n):
    """order(r): Fisher-Yates over [0, n) with round r's stream."""
    a = list(range(n))
    words = stream(key, r)
    for i in range(n - 1, 0, -1):
        j = draw_below(words, i + 1)
        a[i], a[j] = a[j], a[i]
    return a


# ---------------------------------------------------------------- reading the JSON


def need(obj, key, kind, where):
    """obj[key], which must be of `kind` ('int', 'str', 'list', 'dict', 'bool')."""
    if not isinstance(obj, dict) or key not in obj:
        raise Refused("format", f"{where}: missing field '{key}'")
    return typed(obj[key], kind, f"{where}.{key}")


def typed(value, kind, where):
    """value, which must be of `kind`."""
    ok = {
        "int": isinstance(value, int) and not isinstance(value, bool),
        "str": isinstance(value, str),
        "list": isinstance(value, list),
        "dict": isinstance(value, dict),
        "bool": isinstance(value, bool),
    }[kind]
    if not ok:
        raise Refused("format", f"{where}: not a{'n' if kind == 'int' else ''} {kind}")
    return value


def small(value, where, top=255):
    """An integer from 0 to top."""
    typed(value, "int", where)
    if not 0 <= value <= top:
        raise Refused("format", f"{where}: {value} is out of range")
    return value


def unhex(value, nbytes, where):
    """A byte string of nbytes written in lowercase hex; uppercase is refused."""
    typed(value, "str", where)
    if any(ch in "ABCDEF" for ch in value):
        raise Refused("format", f"{where}: uppercase hex (every byte string is lowercase)")
    if len(value) != 2 * nbytes or any(ch not in HEX for ch in value):
        raise Refused("format", f"{where}: not {nbytes} bytes of lowercase hex")
    return bytes.fromhex(value)


def uuid_text(value, where):
    """A hand id: 36 characters of lowercase hex with dashes (8-4-4-4-12)."""
    typed(value, "str", where)
    if any(ch in "ABCDEF" for ch in value):
        raise Refused("format", f"{where}: uppercase hex in the hand id")
    groups = value.split("-")
    if len(value) != 36 or [len(g) for g in groups] != [8, 4, 4, 4, 12] or any(
        ch not in HEX for g in groups for ch in g
    ):
        raise Refused("format", f"{where}: not a hand id (36 characters, lowercase, with dashes)")
    return value


def cards_of(value, n, where, unknown=True):
    """A string of two-character cards; '??' (an unknown card) if `unknown`."""
    typed(value, "str", where)
    if len(value) % 2:
        raise Refused("format", f"{where}: '{value}' is not a string of cards")
    out = []
    for i in range(0, len(value), 2):
        c = value[i:i + 2]
        if c == "??" and unknown:
            out.append(c)
            continue
        try:
            card_number(c, n)
        except ValueError:
            raise Refused("format", f"{where}: '{c}' is not a card of a {n}-card deck") from None
        out.append(c)
    return out


def one_card(value, n, where):
    """A single known card."""
    cards = cards_of(value, n, where, unknown=False)
    if len(cards) != 1:
        raise Refused("format", f"{where}: not one card")
    return cards[0]


def hex_path(value, where):
    """An inclusion path: a list of 32-byte hashes."""
    typed(value, "list", where)
    return [unhex(p, 32, f"{where}[{i}]") for i, p in enumerate(value)]


def dealt_rounds(value, where):
    """Count of rounds, checked to be 1 to 16 before anything reads them."""
    typed(value, "list", where)
    if not 1 <= len(value) <= 16:
        raise Refused("rounds", f"{len(value)} rounds (1 to 16)")
    return [
        (unhex(need(r, "root", "str", f"{where}[{i}]"), 32, f"{where}[{i}].root"),
         unhex(need(r, "tags", "str", f"{where}[{i}]"), 32, f"{where}[{i}].tags"))
        for i, r in enumerate(value)
    ]


# ---------------------------------------------------------------- checking a record


class Taken:
    """A card taken in the walk: where from, to whom, and what the record shows."""

    def __init__(self, source, event, player, number, shown):
        self.source = source      # (round, slot)
        self.event = event        # index of the deal event
        self.player = player      # player index, or None for a board card
        self.number = number      # the player's card number, or None
        self.shown = shown        # the card the record shows there, or '??'
        self.thrown = None        # index of the discarded event that threw it away


def verify_record(record, mine=None):
    """Check a hand's record as the page's "Checking a record" says.

    mine: None (nothing known of the viewer's seed), "none" (--no-seed), or
    (seed bytes, list digest bytes or None) (--seed [--list]).
    Returns a summary dict; raises Refused at the first problem.
    """
    typed(record, "dict", "record")
    proof = need(record, "fairness", "dict", "record")

    # 1. version, hand id, size, rounds, commitment.
    version = need(proof, "version", "int", "fairness")
    if version == 1:
        raise Refused("version", "a version 1 record: version 1 records are checked by `pokerd verify`")
    if version != 2:
        raise Refused("version", f"version {version}: this verifier checks version 2")
    hand_id = uuid_text(need(record, "hand_id", "str", "record"), "record.hand_id")
    if uuid_text(need(proof, "hand_id", "str", "fairness"), "fairness.hand_id") != hand_id:
        raise Refused("hand_id", "the proofs' hand id is not the record's")
    n = need(proof, "size", "int", "fairness")
    if n not in (52, 36):
        raise Refused("size", f"size {n} (52 or 36)")
    rounds = dealt_rounds(need(proof, "rounds", "list", "fairness"), "fairness.rounds")
    commitment = unhex(need(proof, "commitment", "str", "fairness"), 32, "fairness.commitment")
    if deck_commitment(hand_id, n, rounds) != commitment:
        raise Refused("commitment", "the commitment is not the hash of the hand id, the size and the rounds")

    # The record's players and the viewer.
    seats = need(record, "seats", "list", "record")
    seats = [small(s, f"record.seats[{i}]") for i, s in enumerate(seats)]
    if len(set(seats)) != len(seats):
        raise Refused("format", "record.seats: a seat twice")
    me = record.get("me")
    if me is not None:
        typed(me, "int", "record.me")
        if not 0 <= me < len(seats):
            raise Refused("format", f"record.me: {me} is no player of the hand")

    # 2. the seeds.
    entries = []
    for i, e in enumerate(need(proof, "seed_list", "list", "fairness")):
        w = f"fairness.seed_list[{i}]"
        entries.append((small(need(e, "seat", "int", w), f"{w}.seat"),
                        need(e, "house", "bool", w),
                        unhex(need(e, "commitment", "str", w), 32, f"{w}.commitment")))
    if len(entries) > 255:
        raise Refused("format", "fairness.seed_list: more than 255 entries")
    seeds = []
    for i, e in enumerate(need(proof, "seeds", "list", "fairness")):
        w = f"fairness.seeds[{i}]"
        seeds.append((small(need(e, "seat", "int", w), f"{w}.seat"),
                      unhex(need(e, "seed", "str", w), 32, f"{w}.seed")))
    if any(a[0] >= b[0] for a, b in zip(entries, entries[1:])):
        raise Refused("seed_order", "the closed list is not by strictly ascending seat")
    if any(a[0] >= b[0] for a, b in zip(seeds, seeds[1:])):
        raise Refused("seed_order", "the seeds are not by strictly ascending seat")
    listed = {seat: (house, c) for seat, house, c in entries}
    used = dict(seeds)
    for seat, seed in seeds:
        if seat not in seats:
            raise Refused("seed_seat", f"a seed used from seat {seat}, not dealt in")
        if seat not in listed:
            raise Refused("seed_open", f"a seed used from seat {seat}, which is not in the closed list")
        if seed_commitment(commitment, seed) != listed[seat][1]:
            raise Refused("seed_open", f"seat {seat}'s seed does not open its commitment")
    for seat, house, _ in entries:
        if house and seat in seats and seat not in used:
            raise Refused("house_withheld", f"the house's seat {seat} committed and did not reveal its seed")
    digest = list_digest(commitment, entries)
    if mine is not None:
        if me is None:
            raise Refused("no_viewer", "--seed/--no-seed given for a record with no viewer (the operator's)")
        my_seat = seats[me]
        if mine == "none":
            if my_seat in listed:
                raise Refused("seed_in_my_name", f"a commitment is listed at your seat {my_seat}, and you sent no seed")
        else:
            my_seed, my_list = mine
            if used.get(my_seat) != my_seed:
                raise Refused("own_seed", f"your seed is not the one used at your seat {my_seat}")
            if my_list is not None and my_list != digest:
                raise Refused("list_changed", "the closed list is not the one you were sent before revealing")
    key = shuffle_key(commitment, digest, seeds)

    # 3. the tags.
    reshuffles = need(proof, "reshuffles", "list", "fairness")
    if len(reshuffles) >= len(rounds):
        raise Refused("reshuffle_unused", f"{len(reshuffles)} reshuffles for {len(rounds)} rounds")
    tag_lists = need(proof, "tags", "list", "fairness")
    if len(tag_lists) != 1 + len(reshuffles):
        raise Refused("tags", f"{len(tag_lists)} tag lists for {1 + len(reshuffles)} rounds dealt from")
    tags = []
    for r, lst in enumerate(tag_lists):
        typed(lst, "list", f"fairness.tags[{r}]")
        t = [unhex(x, 32, f"fairness.tags[{r}][{i}]") for i, x in enumerate(lst)]
        if len(t) != n:
            raise Refused("tags", f"round {r} has {len(t)} tags, not {n}")
        if any(a >= b for a, b in zip(t, t[1:])):
            raise Refused("tags", f"round {r}'s tags are not strictly ascending")
        if tags_digest(r, t) != rounds[r][1]:
            raise Refused("tags", f"round {r}'s tags are not the committed digest")
        tags.append(t)
    orders = [round_order(key, r, n) for r in range(len(tags))]

    # 4. the walk.
    slots_of = []
    for r, lst in enumerate(reshuffles):
        typed(lst, "list", f"fairness.reshuffles[{r}]")
        slots_of.append([typed(s, "int", f"fairness.reshuffles[{r}][{i}]") for i, s in enumerate(lst)])
    discards = need(proof, "discards", "list", "fairness")
    discards = [[typed(x, "int", f"fairness.discards[{i}][{j}]")
                 for j, x in enumerate(typed(d, "list", f"fairness.discards[{i}]"))]
                for i, d in enumerate(discards)]
    events = need(record, "events", "list", "record")
    walk = walk_events(events, n, seats, me, slots_of, discards)

    # 5. each opening of a card seen.
    opened = {}  # (round, slot) -> card
    previous = None
    for i, o in enumerate(need(proof, "cards", "list", "fairness")):
        w = f"fairness.cards[{i}]"
        r = small(need(o, "round", "int", w), f"{w}.round")
        slot = small(need(o, "slot", "int", w), f"{w}.slot", 1 << 32)
        card = one_card(need(o, "card", "str", w), n, f"{w}.card")
        nonce_ = unhex(need(o, "nonce", "str", w), 16, f"{w}.nonce")
        path = hex_path(need(o, "path", "list", w), f"{w}.path")
        if previous is not None and (r, slot) <= previous:
            raise Refused("proof_order", f"{w}: the openings are not ascending by (round, slot)")
        previous = (r, slot)
        if r >= len(tags) or slot >= n:
            raise Refused("slot_not_dealt", f"{w}: round {r} slot {slot} is no slot of a round dealt from")
        if (r, slot) in walk["burns"]:
            raise Refused("burn_proved", f"{w}: round {r} slot {slot} is a burn card")
        taken = walk["taken"].get((r, slot))
        if taken is None:
            raise Refused("slot_not_dealt", f"{w}: round {r} slot {slot} was not dealt")
        if not path_leads_to(rounds[r][0], card_number(card, n), n, leaf(r, card, nonce_), path):
            raise Refused("path", f"{w}: {card}'s leaf and path do not lead to round {r}'s root")
        if tag(r, card, nonce_) != tags[r][orders[r][slot]]:
            raise Refused("tag", f"{w}: {card}'s tag is not the one at round {r} slot {slot}")
        if taken.shown != "??":
            if taken.shown != card:
                raise Refused("card_mismatch", f"{w}: the opening is {card}, the record shows {taken.shown} there")
        else:
            if taken.player not in walk["shows"]:
                raise Refused("not_shown", f"{w}: {card} is player {taken.player}'s down card, never shown")
            if taken.thrown is not None:
                raise Refused("shown_not_held", f"{w}: {card} is a card player {taken.player} threw away")
        opened[(r, slot)] = card

    # 6. nothing left out.
    for source, taken in walk["taken"].items():
        if taken.shown != "??" and source not in opened:
            raise Refused("unproved", f"{taken.shown} (round {source[0]} slot {source[1]}) has no opening")

    # 7. each hand shown is what its player held at the end.
    for player, shows in walk["shows"].items():
        held = [t for t in walk["hands"].get(player, []) if t.thrown is None]
        cards = []
        for t in held:
            if t.source not in opened:
                raise Refused("unproved", f"player {player}'s card {t.number} (shown) has no opening")
            cards.append(opened[t.source])
        for shown in shows:
            if sorted(shown) != sorted(cards):
                raise Refused("shown_not_held",
                              f"player {player} showed {''.join(shown)}, and held {''.join(cards)} at the end")

    # 8. kept: exactly the openings the accounting needs, each valid.
    applied = walk["applied"]  # event index at which reshuffle r (from 1) was made
    needed = set()
    for source, taken in walk["taken"].items():
        card = opened.get(source, None if taken.shown == "??" else taken.shown)
        if card is None:
            continue  # a card the viewer does not know
        thrown = len(events) if taken.thrown is None else taken.thrown
        for r in range(source[0] + 1, len(applied) + 1):
            if applied[r - 1] < thrown:
                needed.add((r, card_number(card, n)))
    kept = []
    for i, o in enumerate(need(proof, "kept", "list", "fairness")):
        w = f"fairness.kept[{i}]"
        r = small(need(o, "round", "int", w), f"{w}.round")
        card = one_card(need(o, "card", "str", w), n, f"{w}.card")
        kept.append((w, r, card, unhex(need(o, "nonce", "str", w), 16, f"{w}.nonce"),
                     hex_path(need(o, "path", "list", w), f"{w}.path")))
    keys = [(r, card_number(card, n)) for _, r, card, _, _ in kept]
    if any(a >= b for a, b in zip(keys, keys[1:])):
        raise Refused("proof_order", "the kept openings are not ascending by (round, card number)")
    missing = sorted(needed - set(keys))
    if missing:
        r, number = missing[0]
        raise Refused("kept_missing", f"no kept opening of {card_name(number, n)} in round {r}, "
                                      f"which must show reshuffle {r} left it alone")
    extra = sorted(set(keys) - needed)
    if extra:
        r, number = extra[0]
        raise Refused("kept_unexpected", f"a kept opening of {card_name(number, n)} in round {r}, "
                                    f"which the accounting does not need")
    for w, r, card, nonce_, path in kept:
        if not path_leads_to(rounds[r][0], card_number(card, n), n, leaf(r, card, nonce_), path):
            raise Refused("path", f"{w}: {card}'s leaf and path do not lead to round {r}'s root")
        t = tag(r, card, nonce_)
        if t not in set(tags[r]):
            raise Refused("tag_unknown", f"{w}: {card}'s tag is not among round {r}'s tags")
        took = {tags[r][orders[r][s]] for s in slots_of[r - 1]}
        if t in took:
            raise Refused("reshuffle_took_kept",
                          f"reshuffle {r} took {card}, which was held or still in the stub")

    house = [seat for seat, _ in seeds if listed[seat][0]]
    return {
        "viewer": "the operator's record" if me is None else f"player {me}'s record (seat {seats[me]})",
        "cards": len(opened),
        "kept": len(kept),
        "player_seeds": len(seeds) - len(house),
        "house_seeds": len(house),
        "withheld": [seat for seat, _, _ in entries if seat not in used],
        "reshuffles": len(slots_of),
        "dealt": len(walk["taken"]) + len(walk["burns"]),
        "burns": len(walk["burns"]),
    }


def walk_events(events, n, seats, me, slots_of, discards):
    """Step 4: walk the events with a queue of sources, as the page's walk says.

    Returns the cards taken by source, the burns, each player's cards in the
    order dealt, the hands shown, and the event index of each reshuffle made.
    """
    queue = [(0, k) for k in range(n)]
    head = 0
    taken, burns, hands, shows, applied = {}, set(), {}, {}, []
    thrown_since = 0
    n_discarded = sum(1 for e in events if isinstance(e, dict) and e.get("type") == "discarded")
    if n_discarded != len(discards):
        raise Refused("discard", f"{len(discards)} discard lists for {n_discarded} discarded events")
    next_discard = 0
    for ei, e in enumerate(events):
        w = f"record.events[{ei}]"
        kind = need(e, "type", "str", w)
        if kind in ("hole_dealt", "board_dealt", "second_board_dealt"):
            hole = kind == "hole_dealt"
            cards = cards_of(need(e, "cards", "str", w), n, f"{w}.cards")
            player = None
            if hole:
                player = player_of(e, seats, w)
                up = small(need(e, "up", "int", w), f"{w}.up", (1 << len(cards)) - 1)
                for k, c in enumerate(cards):
                    if c == "??" and (up >> k & 1 or player == me):
                        raise Refused("format", f"{w}: a card dealt face up or to the viewer is unknown")
            elif "??" in cards:
                raise Refused("format", f"{w}: an unknown board card")
            c = len(cards)
            if c > len(queue) - head:
                r = len(applied) + 1
                if r > len(slots_of):
                    raise Refused("reshuffle_missing", f"{w}: {c} cards dealt, {len(queue) - head} left, and no reshuffle listed")
                slots = slots_of[r - 1]
                if any(s < 0 or s >= n for s in slots) or any(a >= b for a, b in zip(slots, slots[1:])):
                    raise Refused("reshuffle_order", f"reshuffle {r}'s slots are not strictly ascending below {n}")
                if len(slots) != thrown_since:
                    raise Refused("reshuffle_count", f"reshuffle {r} takes {len(slots)} slots, "
                                                     f"{thrown_since} cards were thrown away")
                queue += [(r, s) for s in slots]
                applied.append(ei)
                thrown_since = 0
                if c > len(queue) - head:
                    raise Refused("deck_exhausted", f"{w}: {c} cards dealt, {len(queue) - head} left after reshuffle {r}")
            if not hole and c < len(queue) - head:
                burns.add(queue[head])
                head += 1
            for card in cards:
                source = queue[head]
                head += 1
                number = None
                if hole:
                    number = len(hands.setdefault(player, []))
                t = Taken(source, ei, player, number, card)
                if hole:
                    hands[player].append(t)
                taken[source] = t
        elif kind == "discarded":
            player = player_of(e, seats, w)
            cards = cards_of(need(e, "cards", "str", w), n, f"{w}.cards")
            numbers = discards[next_discard]
            where = f"fairness.discards[{next_discard}]"
            next_discard += 1
            hand = hands.get(player, [])
            if any(a >= b for a, b in zip(numbers, numbers[1:])):
                raise Refused("discard", f"{where} is not strictly ascending")
            if len(numbers) != len(cards):
                raise Refused("discard", f"{where} names {len(numbers)} cards, {len(cards)} were thrown")
            for x in numbers:
                if not 0 <= x < len(hand) or hand[x].thrown is not None:
                    raise Refused("discard", f"{where}: player {player} does not hold a card {x}")
            if player == me and "??" in cards:
                raise Refused("format", f"{w}: the viewer's own discard is not named")
            # The cards the record shows thrown (all of the viewer's; all in the
            # operator's record) must be the ones the numbers name, in any order.
            named = [hand[x].shown for x in numbers]
            known = [c for c in cards if c != "??"]
            if "??" not in cards:
                wrong = sorted(named) != sorted(cards)
            else:
                wrong = any(known.count(c) > named.count(c) for c in known)
            if wrong:
                raise Refused("discard_cards", f"{where} names {''.join(named)}, "
                                               f"player {player} threw {''.join(cards)}")
            for x in numbers:
                hand[x].thrown = ei
            thrown_since += len(numbers)
        elif kind == "shown":
            player = player_of(e, seats, w)
            shows.setdefault(player, []).append(
                cards_of(need(e, "cards", "str", w), n, f"{w}.cards", unknown=False))
    if len(applied) != len(slots_of):
        raise Refused("reshuffle_unused", f"{len(slots_of)} reshuffles listed, {len(applied)} made")
    return {"taken": taken, "burns": burns, "hands": hands, "shows": shows, "applied": applied}


def player_of(e, seats, w):
    """The event's player index, which must be a player of the hand."""
    p = need(e, "player", "int", w)
    if not 0 <= p < len(seats):
        raise Refused("format", f"{w}.player: {p} is no player of the hand")
    return p


def summary_line(s, mine):
    """The success line's text after 'verified: '."""
    parts = [
        s["viewer"],
        f"{s['cards']} cards proved from the committed deck",
        f"{s['kept']} kept openings",
        f"seeds used: {s['player_seeds']} of players and {s['house_seeds']} of the house",
        f"{s['reshuffles']} reshuffle{'s' if s['reshuffles'] != 1 else ''}",
        f"{s['dealt']} cards dealt ({s['burns']} burnt)",
    ]
    if s["player_seeds"] == 0:
        parts.append("NO player's seed was used: the order was the server's alone")
    if s["withheld"]:
        parts.append("seats that committed and did not reveal: " + ", ".join(map(str, s["withheld"])))
    if mine == "none":
        parts.append("no seed was used in your name")
    elif mine is not None:
        parts.append("your seed was used" + (" and the closed list is the one you were sent"
                                             if mine[1] is not None else ""))
    return "; ".join(parts)


# ---------------------------------------------------------------- vectors


def check_vectors(v):
    """Recompute every value published in the vectors file.

    Returns (said, mismatches): the lines saying what was checked, and one line
    per value that did not match (empty when everything did).
    """
    said, mismatches = [], []

    def same(what, got, want):
        if got != want:
            mismatches.append(f"{what}: computed {got!r}, published {want!r}")

    def hx(b):
        return b.hex()

    n = 52
    hand_id = v["hand_id"]
    secret = bytes.fromhex(v["secret"])
    R = v["rounds"]
    cards = [card_name(c, n) for c in range(n)]
    nonces = [[nonce(secret, r, c) for c in cards] for r in range(R)]
    leaves = [[leaf(r, c, x) for c, x in zip(cards, nonces[r])] for r in range(R)]
    all_tags = [[tag(r, c, x) for c, x in zip(cards, nonces[r])] for r in range(R)]
    sorted_tags = [sorted(t) for t in all_tags]
    roots = [tree_root(leaves[r]) for r in range(R)]
    digests = [tags_digest(r, sorted_tags[r]) for r in range(R)]

    same("round_0 length", len(v["round_0"]), n)
    for i, e in enumerate(v["round_0"]):
        same(f"round_0[{i}].card", e["card"], cards[i])
        same(f"round_0[{i}].nonce", hx(nonces[0][i]), e["nonce"])
        same(f"round_0[{i}].leaf", hx(leaves[0][i]), e["leaf"])
        same(f"round_0[{i}].tag", hx(all_tags[0][i]), e["tag"])
    said.append(f"{len(v['round_0'])} round-0 nonces (from the secret), leaves and tags")
    same("round_commitments length", len(v["round_commitments"]), R)
    for r, e in enumerate(v["round_commitments"]):
        same(f"root({r})", hx(roots[r]), e["root"])
        same(f"tags_digest({r})", hx(digests[r]), e["tags"])
    said.append(f"{R} rounds' roots and tags digests")
    same("tags_round_0", [hx(t) for t in sorted_tags[0]], v["tags_round_0"])
    commitment = deck_commitment(hand_id, n, list(zip(roots, digests)))
    same("commitment", hx(commitment), v["commitment"])
    said.append("round 0's sorted tags and the commitment")

    seeds = [(e["seat"], bytes.fromhex(e["seed"])) for e in v["seeds"]]
    same("seed_list seats", [e["seat"] for e in v["seed_list"]], [s for s, _ in seeds])
    entries = []
    for (seat, seed), e in zip(seeds, v["seed_list"]):
        c = seed_commitment(commitment, seed)
        same(f"seat {seat}'s seed commitment", hx(c), e["commitment"])
        entries.append((seat, e["house"], c))
    digest = list_digest(commitment, entries)
    same("seed_list_digest", hx(digest), v["seed_list_digest"])
    key = shuffle_key(commitment, digest, seeds)
    same("key", hx(key), v["key"])
    said.append(f"{len(seeds)} seed commitments, the closed list's digest and the key")

    words = stream(key, 0)
    same("stream_round_0_words", [next(words) for _ in v["stream_round_0_words"]],
         v["stream_round_0_words"])
    orders = [round_order(key, r, n) for r in range(R)]
    same("round_0_order", orders[0], v["round_0_order"])
    card_of_tag = [dict(zip(all_tags[r], cards)) for r in range(R)]

    def at(r, slot):
        """The card at round r's slot."""
        return card_of_tag[r][sorted_tags[r][orders[r][slot]]]

    same("dealt_cards", [at(0, k) for k in range(len(v["dealt_cards"]))], v["dealt_cards"])
    said.append(f"{len(v['stream_round_0_words'])} stream words, round 0's order "
                f"and the {len(v['dealt_cards'])} cards in the order dealt")
    rs = v["reshuffle"]
    r = rs["round"]
    same(f"reshuffle: round {r}'s order", orders[r], rs[f"round_{r}_order"])
    slots = [k for k in range(n) if at(r, k) in rs["discards"]]
    same("reshuffle slots", slots, rs["slots"])
    same("reshuffle cards", [at(r, k) for k in slots], rs["cards"])
    said.append(f"the reshuffle of {' '.join(rs['discards'])}: round {r}'s order, slots and cards")

    op = v["opening_of_as_in_round_0"]
    number = card_number(op["card"], n)
    same("opening: nonce", hx(nonces[0][number]), op["nonce"])
    same("opening: path", [hx(p) for p in tree_path(number, leaves[0])], op["path"])
    if not path_leads_to(roots[0], number, n, leaf(0, op["card"], bytes.fromhex(op["nonce"])),
                         [bytes.fromhex(p) for p in op["path"]]):
        mismatches.append(f"the opening of {op['card']} does not lead to round 0's root")
    same("leaf_of_2c_in_round_0", hx(leaves[0][0]), v["leaf_of_2c_in_round_0"])
    said.append(f"the opening of {op['card']} in round 0 (made, and checked) and 2c's leaf")

    for i, rec in enumerate(v["records"]):
        try:
            s = verify_record(rec)
        except Refused as e:
            mismatches.append(f"records[{i}] refused ({e.code}): {e.reason}")
            continue
        said.append(f"records[{i}] verified: {summary_line(s, None)}")
    for a in v["attacks"]:
        try:
            verify_record(a["record"], mine_of(a["mine"]))
            got, why = None, "verified"
        except Refused as e:
            got, why = e.code, e.reason
        if got != a["error"]:
            mismatches.append(f"attack {a['name']}: {got} ({why}), the vectors say {a['error']}")
        else:
            said.append(f"attack {a['name']} refused ({got}): {why}")
    return said, mismatches


def mine_of(value):
    """A vectors file's `mine` as verify_record takes it."""
    if value is None or value == "none":
        return value
    return (unhex(value["seed"], 32, "mine.seed"),
            unhex(value["list"], 32, "mine.list") if value.get("list") is not None else None)


def refusal(record, mine):
    """The code a record is refused with, or None when it verifies."""
    try:
        verify_record(record, mine)
    except Refused as e:
        return e.code
    return None


# ---------------------------------------------------------------- command line


def main(argv=None):
    """Parse the command line, run one mode, return the exit status."""
    parser = argparse.ArgumentParser(
        prog="verify.py",
        description="Check a pokerd hand record's verifiable deck (version 2), from docs/fairness.md.")
    parser.add_argument("file", nargs="?", metavar="RECORD.json", help="a hand's record as downloaded")
    parser.add_argument("--seed", metavar="HEX", help="the seed you sent for the hand")
    parser.add_argument("--list", metavar="HEX", help="the closed list's digest you were sent (with --seed)")
    parser.add_argument("--no-seed", action="store_true", help="you sent no seed for the hand")
    parser.add_argument("--vectors", metavar="VECTORS.json", help="recompute the test vectors")
    args = parser.parse_args(argv)
    if args.vectors is not None:
        if args.file or args.seed or args.list or args.no_seed:
            parser.error("--vectors takes no record and no other option")
        return run_vectors(args.vectors)
    if args.file is None:
        parser.error("a record file or --vectors is needed")
    if args.seed is not None and args.no_seed:
        parser.error("--seed and --no-seed exclude each other")
    if args.list is not None and args.seed is None:
        parser.error("--list goes with --seed")
    name = args.file
    try:
        mine = None
        if args.no_seed:
            mine = "none"
        elif args.seed is not None:
            mine = (unhex(args.seed, 32, "--seed"),
                    unhex(args.list, 32, "--list") if args.list is not None else None)
        try:
            with open(name, encoding="utf-8") as f:
                record = json.load(f, parse_constant=bad_constant)
        except (ValueError, RecursionError) as e:
            raise Refused("format", f"not JSON: {e}") from None
        s = verify_record(record, mine)
    except Refused as e:
        print(f"{name}: FAILED ({e.code}): {e.reason}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"{name}: cannot read: {e.strerror}", file=sys.stderr)
        return 2
    print(f"{name}: verified: {summary_line(s, mine)}")
    return 0


def bad_constant(name):
    """JSON has no NaN nor Infinity."""
    raise ValueError(f"{name} is not JSON")


def run_vectors(path):
    """Vectors mode: print what was checked; 0 if everything matched, else 1."""
    try:
        with open(path, encoding="utf-8") as f:
            v = json.load(f)
        said, mismatches = check_vectors(v)
    except OSError as e:
        print(f"{path}: cannot read: {e.strerror}", file=sys.stderr)
        return 2
    except (KeyError, TypeError, ValueError, IndexError, Refused) as e:
        print(f"{path}: MISMATCH: not a vectors file as expected ({type(e).__name__}: {e})", file=sys.stderr)
        return 1
    for line in said:
        print(f"{path}: {line}")
    for line in mismatches:
        print(f"{path}: MISMATCH: {line}", file=sys.stderr)
    if mismatches:
        print(f"{path}: {len(mismatches)} mismatches", file=sys.stderr)
        return 1
    print(f"{path}: every vector recomputed; {len(v['records'])} records verified; "
          f"{len(v['attacks'])} forged records refused with their codes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
