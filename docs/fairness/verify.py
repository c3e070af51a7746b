#!/usr/bin/env python3
"""An independent verifier of pokerd's verifiable deck (docs/fairness.md), in Python's
standard library only.

    python3 verify.py RECORD.json [--seed HEX]   check a hand record as a player downloads it
    python3 verify.py --vectors vectors.json     check the published test vectors

Exits 0 when everything checks out; otherwise says what failed and exits 1.
"""

import hashlib
import json
import sys

KEY_LABEL = b"pokerd shuffle key v1"
STREAM_LABEL = b"pokerd shuffle stream v1"
COMMIT_LABEL = b"pokerd deck commitment v1"


class Failed(Exception):
    pass


def sha(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
    return h.digest()


def unhex(text, size, what):
    try:
        b = bytes.fromhex(text)
    except (TypeError, ValueError):
        raise Failed(f"{what} is not hex")
    if len(b) != size:
        raise Failed(f"{what} is not {size} bytes")
    return b


def leaf_hash(position, card, salt):
    return sha(bytes([0, position]), card.encode("ascii"), salt)


def node_hash(left, right):
    return sha(b"\x01", left, right)


def verify_path(index, size, leaf, path, root):
    """RFC 9162, 2.1.3.2: whether `path` proves `leaf` is leaf `index` of `size`."""
    if index >= size:
        return False
    f, s, r = index, size - 1, leaf
    for p in path:
        if s == 0:
            return False
        if f & 1 or f == s:
            r = node_hash(p, r)
            while f & 1 == 0 and f != 0:
                f >>= 1
                s >>= 1
        else:
            r = node_hash(r, p)
        f >>= 1
        s >>= 1
    return s == 0 and r == root


def merkle_root(leaves):
    """RFC 6962's tree hash: split at the largest power of two below the count."""
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(merkle_root(leaves[:k]), merkle_root(leaves[k:]))


def commitment_digest(hand_id, size, root):
    return sha(COMMIT_LABEL, hand_id.encode("ascii"), bytes([size]), root)


def shuffle_key(commitment, seeds):
    parts = [KEY_LABEL, commitment, bytes([len(seeds)])]
    for seat, seed in seeds:
        parts += [bytes([seat]), seed]
    return sha(*parts)


class Stream:
    """SHA-256 in counter mode: block i = H(label, key, round, i as 4 bytes big-endian)."""

    def __init__(self, key, rnd):
        self.key, self.round, self.counter, self.block, self.used = key, rnd, 0, b"", 32

    def word(self):
        if self.used == 32:
            self.block = sha(STREAM_LABEL, self.key, bytes([self.round]), self.counter.to_bytes(4, "big"))
            self.counter += 1
            self.used = 0
        w = int.from_bytes(self.block[self.used:self.used + 4], "big")
        self.used += 4
        return w

    def below(self, bound):
        limit = 2**32 - 2**32 % bound
        while True:
            x = self.word()
            if x < limit:
                return x % bound


def permute(items, key, rnd):
    items = list(items)
    stream = Stream(key, rnd)
    for i in range(len(items) - 1, 0, -1):
        j = stream.below(i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def deal_order(key, size):
    return permute(range(size), key, 0)


def reshuffle_order(key, rnd, positions):
    return permute(sorted(positions), key, rnd)


def cards_of(text):
    return [text[i:i + 2] for i in range(0, len(text), 2)]


def known(card):
    return card != "??"


class Walk:
    """Every card taken from the deck, in order: its place, kind, owner and position."""

    def __init__(self, events, size, key, lists):
        self.size, self.key, self.lists = size, key, lists
        self.deal = deal_order(key, size)
        self.segments = []
        self.remaining = size
        self.out = set()
        self.discarded, self.discards_known = 0, []
        self.slots = []  # (kind, player, card, position); kind: "burn", "hole", "board"
        self.shown = []  # (player, [cards])
        self.holes = {}
        for e in events:
            t = e.get("type")
            if t == "hole_dealt":
                self.take("hole", e["player"], cards_of(e["cards"]))
            elif t in ("board_dealt", "second_board_dealt"):
                self.take("board", None, cards_of(e["cards"]))
            elif t == "discarded":
                self.discard(e["player"], cards_of(e["cards"]))
            elif t == "shown":
                self.shown.append((e["player"], cards_of(e["cards"])))
        if len(self.segments) != len(lists):
            raise Failed(f"the record lists {len(lists)} reshuffles, the deal made {len(self.segments)}")

    def position(self, place):
        if place < self.size:
            return self.deal[place]
        p = place - self.size
        for seg in self.segments:
            if p < len(seg):
                return seg[p]
            p -= len(seg)
        raise Failed("a place beyond the cards the deck had")

    def reshuffle(self):
        rnd = len(self.segments) + 1
        if rnd > len(self.lists):
            raise Failed("a deal needed a reshuffle the record does not list")
        lst = self.lists[rnd - 1]
        if any(a >= b for a, b in zip(lst, lst[1:])):
            raise Failed(f"reshuffle {rnd} does not list its positions once each in ascending order")
        if len(lst) != self.discarded:
            raise Failed(f"reshuffle {rnd} takes {len(lst)} cards; {self.discarded} were discarded before it")
        for p in lst:
            if p not in self.out:
                raise Failed(f"reshuffle {rnd} takes position {p}, which is not a card dealt to a hand and out of the deck")
        for p in self.discards_known:
            if p not in lst:
                raise Failed(f"reshuffle {rnd} leaves out the discard at position {p}")
        self.out -= set(lst)
        self.segments.append(reshuffle_order(self.key, rnd, lst))
        self.remaining += len(lst)
        self.discarded, self.discards_known = 0, []

    def take(self, kind, player, cards):
        if len(cards) > self.remaining:
            self.reshuffle()
            if len(cards) > self.remaining:
                raise Failed("the deal runs out of cards")
        if kind == "board" and len(cards) < self.remaining:
            self.slot("burn", None, "??")
        for c in cards:
            self.slot(kind, player, c)

    def slot(self, kind, player, card):
        place = len(self.slots)
        position = self.position(place)
        if kind == "hole":
            self.out.add(position)
            self.holes.setdefault(player, []).append(place)
        self.slots.append((kind, player, card, position))
        self.remaining -= 1

    def discard(self, player, cards):
        self.discarded += len(cards)
        held = self.holes.get(player, [])
        for c in cards:
            if not known(c):
                continue
            for i in range(len(held) - 1, -1, -1):
                if self.slots[held[i]][2] == c:
                    self.discards_known.append(self.slots[held.pop(i)][3])
                    break


def verify(record, my_seed=None):
    f = record["fairness"]
    if f["version"] != 1:
        raise Failed(f"unknown version {f['version']}")
    if f["hand_id"] != record["hand_id"]:
        raise Failed(f"the proofs are for hand {f['hand_id']}, the record is hand {record['hand_id']}")
    size = f["size"]
    if size not in (52, 36):
        raise Failed(f"a deck of {size} cards")
    root = unhex(f["root"], 32, "the root")
    commitment = unhex(f["commitment"], 32, "the commitment")
    if commitment_digest(f["hand_id"], size, root) != commitment:
        raise Failed("the commitment is not the hash of the hand id, the deck size and the root")
    seeds = [(s["seat"], unhex(s["seed"], 32, "a seed")) for s in f["seeds"]]
    if any(a[0] >= b[0] for a, b in zip(seeds, seeds[1:])):
        raise Failed("the seeds are not listed once each, by ascending seat")
    for seat, _ in seeds:
        if seat not in record["seats"]:
            raise Failed(f"a seed from seat {seat}, which was not dealt in")
    if my_seed is not None and record.get("me") is not None:
        seat = record["seats"][record["me"]]
        if (seat, my_seed) not in seeds:
            raise Failed(f"your seed was not counted (seat {seat})")
    key = shuffle_key(commitment, seeds)
    walk = Walk(record["events"], size, key, f["reshuffles"])
    proofs = f["cards"]
    if any(a["place"] >= b["place"] for a, b in zip(proofs, proofs[1:])):
        raise Failed("the proofs are not listed once each by ascending place")
    for p in proofs:
        place = p["place"]
        if place >= len(walk.slots):
            raise Failed(f"a proof for place {place}, from which no card was dealt")
        kind, player, card, position = walk.slots[place]
        if kind == "burn":
            raise Failed(f"a proof opens the burn card at place {place}")
        if p["position"] != position:
            raise Failed(f"the card at place {place} claims position {p['position']}; the permutation puts position {position} there")
        leaf = leaf_hash(position, p["card"], unhex(p["salt"], 16, "a salt"))
        path = [unhex(x, 32, "a path hash") for x in p["path"]]
        if not verify_path(position, size, leaf, path, root):
            raise Failed(f"the card at place {place} ({p['card']}) is not in the committed deck: its leaf and path do not lead to the root")
        if known(card):
            if card != p["card"]:
                raise Failed(f"the record shows {card} at place {place}, the proof opens {p['card']}")
        elif not (kind == "hole" and any(w == player and p["card"] in cs for w, cs in walk.shown)):
            raise Failed(f"a proof of {p['card']} at place {place}, which the record does not show")
    proved = {p["place"] for p in proofs}
    for place, (kind, _, card, _) in enumerate(walk.slots):
        if kind != "burn" and known(card) and place not in proved:
            raise Failed(f"the record shows {card} at place {place} without a proof")
    for player, cards in walk.shown:
        for c in cards:
            if not any(p["card"] == c and walk.slots[p["place"]][0] == "hole" and walk.slots[p["place"]][1] == player for p in proofs):
                raise Failed(f"player {player} showed {c}, and no proof opens it from their cards")
    return {"cards": len(proofs), "seeds": len(seeds), "reshuffles": len(f["reshuffles"]), "dealt": len(walk.slots)}


def check_vectors(v):
    """Recomputes every published value from the published inputs."""
    def same(what, got, want):
        if got != want:
            raise Failed(f"vectors: {what} differs: computed {got}, published {want}")
    salts = [unhex(s, 16, "a salt") for s in v["salts"]]
    leaves = [leaf_hash(i, c, s) for i, (c, s) in enumerate(zip(v["cards"], salts))]
    same("leaves", [x.hex() for x in leaves], v["leaves"])
    root = merkle_root(leaves)
    same("root", root.hex(), v["root"])
    commitment = commitment_digest(v["hand_id"], len(v["cards"]), root)
    same("commitment", commitment.hex(), v["commitment"])
    seeds = [(s["seat"], unhex(s["seed"], 32, "a seed")) for s in v["seeds"]]
    key = shuffle_key(commitment, seeds)
    same("key", key.hex(), v["key"])
    stream = Stream(key, 0)
    same("stream words", [stream.word() for _ in v["stream_round_0_words"]], v["stream_round_0_words"])
    order = deal_order(key, len(v["cards"]))
    same("deal order", order, v["deal_order"])
    same("dealt cards", [v["cards"][p] for p in order], v["dealt_cards"])
    r = v["reshuffle"]
    same("reshuffle order", reshuffle_order(key, r["round"], r["positions"]), r["order"])
    p = v["proof_of_position_17"]
    path = [unhex(x, 32, "a path hash") for x in p["path"]]
    if not verify_path(17, len(v["cards"]), leaf_hash(17, p["card"], unhex(p["salt"], 16, "a salt")), path, root):
        raise Failed("vectors: the proof of position 17 does not lead to the root")
    return [verify(rec) for rec in v["records"]]


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "--vectors":
            with open(argv[2]) as f:
                results = check_vectors(json.load(f))
            print(f"{argv[2]}: every vector recomputed; {len(results)} records verified")
            return 0
        if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--seed"):
            print(__doc__, file=sys.stderr)
            return 2
        seed = unhex(argv[3], 32, "--seed") if len(argv) == 4 else None
        with open(argv[1]) as f:
            record = json.load(f)
        r = verify(record, seed)
        print(f"{argv[1]}: verified: {r['cards']} cards proved from the committed deck, "
              f"{r['seeds']} seeds, {r['reshuffles']} reshuffles, {r['dealt']} cards dealt"
              + (", your seed counted" if seed else ""))
        return 0
    except Failed as e:
        print(f"{argv[-1] if len(argv) > 1 else ''}: FAILED: {e}", file=sys.stderr)
        return 1
    except (KeyError, TypeError, ValueError, IndexError) as e:
        print(f"FAILED: not a hand record with proofs: {e!r}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
