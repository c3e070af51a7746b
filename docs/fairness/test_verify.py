"""Tests of docs/fairness/verify.py (standard library unittest).

Run from the repository's root:

    python3 -m unittest docs/fairness/test_verify.py

They run the verifier on docs/fairness/vectors.json (every value recomputed,
every record verified, every forged record refused with its code), and on
records the tests forge themselves from the vectors' genuine ones: uppercase
hex, a card changed, a kept opening removed, a seed changed, and a few more;
each must be refused with the right code. The command line is run as a
subprocess to check its output and exit status.
"""

import copy
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
VERIFY = os.path.join(HERE, "verify.py")
VECTORS = os.path.join(HERE, "vectors.json")

_spec = importlib.util.spec_from_file_location("fairness_verify", VERIFY)
verify = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(verify)

with open(VECTORS, encoding="utf-8") as _f:
    VECTORS_DATA = json.load(_f)

HOLDEM = 0    # six-handed hold'em with a showdown, as player 1 saw it
DRAW = 1      # 2-7 triple draw with a reshuffle, as player 2 saw it
OPERATOR = 2  # the same draw hand, as the operator sees it


def record(i):
    """A fresh copy of the vectors' record i."""
    return copy.deepcopy(VECTORS_DATA["records"][i])


def heads_up_record(seeded, withheld=()):
    """A heads-up hold'em record as player 0 (seat 0) saw it, made from the vectors' secret.

    The house sits at seat 3. `seeded` are the seats that committed (with the
    vectors' seeds); those in `withheld` did not reveal. The deck is the
    vectors' (2 rounds committed); player 1's cards are never shown.
    """
    v = VECTORS_DATA
    n, secret = 52, bytes.fromhex(v["secret"])
    names = [verify.card_name(c, n) for c in range(n)]
    nonces = [verify.nonce(secret, 0, c) for c in names]
    leaves = [verify.leaf(0, c, x) for c, x in zip(names, nonces)]
    tags = sorted(verify.tag(0, c, x) for c, x in zip(names, nonces))
    card_of = {verify.tag(0, c, x): i for i, (c, x) in enumerate(zip(names, nonces))}
    commitment = bytes.fromhex(v["commitment"])
    seeds = {e["seat"]: bytes.fromhex(e["seed"]) for e in v["seeds"]}
    house = {e["seat"]: e["house"] for e in v["seed_list"]}
    entries = [(seat, house[seat], verify.seed_commitment(commitment, seeds[seat])) for seat in seeded]
    used = [(seat, seeds[seat]) for seat in seeded if seat not in withheld]
    key = verify.shuffle_key(commitment, verify.list_digest(commitment, entries), used)
    order = verify.round_order(key, 0, n)
    at = [card_of[tags[order[k]]] for k in range(n)]  # card number at each slot
    seen = [0, 1, 5, 6, 7, 9, 11]  # own cards, flop, turn, river (2, 3 theirs; 4, 8, 10 burnt)
    text = [names[at[k]] for k in range(12)]
    return {
        "hand_id": v["hand_id"],
        "seats": [0, 3],
        "me": 0,
        "events": [
            {"type": "hole_dealt", "player": 0, "cards": text[0] + text[1], "up": 0},
            {"type": "hole_dealt", "player": 1, "cards": "????", "up": 0},
            {"type": "board_dealt", "cards": text[5] + text[6] + text[7]},
            {"type": "board_dealt", "cards": text[9]},
            {"type": "board_dealt", "cards": text[11]},
            {"type": "hand_ended"},
        ],
        "fairness": {
            "version": 2,
            "hand_id": v["hand_id"],
            "size": n,
            "rounds": v["round_commitments"],
            "commitment": v["commitment"],
            "seed_list": [{"seat": s, "commitment": c.hex(), "house": h} for s, h, c in entries],
            "seeds": [{"seat": s, "seed": x.hex()} for s, x in used],
            "reshuffles": [],
            "discards": [],
            "tags": [[t.hex() for t in tags]],
            "cards": [{"round": 0, "slot": k, "card": names[at[k]], "nonce": nonces[at[k]].hex(),
                       "path": [p.hex() for p in verify.tree_path(at[k], leaves)]} for k in seen],
            "kept": [],
        },
    }


def code_of(rec, mine=None):
    """The failure code the verifier gives rec, or None when it verifies."""
    try:
        verify.verify_record(rec, mine)
    except verify.Refused as e:
        return e.code
    return None


def run(*args, record_=None):
    """Run verify.py as a command (with rec written to a file, if given)."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = list(args)
        if record_ is not None:
            path = os.path.join(tmp, "hand.json")
            with open(path, "w", encoding="utf-8") as f:
                if isinstance(record_, str):
                    f.write(record_)
                else:
                    json.dump(record_, f)
            argv = [path] + argv
        return subprocess.run([sys.executable, VERIFY] + argv, capture_output=True, text=True)


class Vectors(unittest.TestCase):
    """The published vectors."""

    def test_vectors_mode(self):
        """--vectors recomputes everything and exits 0."""
        p = run("--vectors", VECTORS)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("every vector recomputed", p.stdout)
        self.assertEqual(p.stderr, "")

    def test_records_verify(self):
        """Every genuine record verifies with nothing known of the viewer's seed."""
        for i in range(len(VECTORS_DATA["records"])):
            with self.subTest(record=i):
                self.assertIsNone(code_of(record(i)))

    def test_attacks_refused_with_their_codes(self):
        """Every forged record of the vectors gives exactly its error code."""
        for a in VECTORS_DATA["attacks"]:
            with self.subTest(attack=a["name"]):
                self.assertEqual(code_of(a["record"], verify.mine_of(a["mine"])), a["error"])

    def test_a_vector_changed_is_a_mismatch(self):
        """A published value changed makes vectors mode fail."""
        v = copy.deepcopy(VECTORS_DATA)
        v["round_0_order"][0], v["round_0_order"][1] = v["round_0_order"][1], v["round_0_order"][0]
        said, mismatches = verify.check_vectors(v)
        self.assertEqual(len(mismatches), 1)
        self.assertIn("round_0_order", mismatches[0])


class Forged(unittest.TestCase):
    """Records the tests forge from the genuine ones."""

    def test_uppercase_hex_in_a_nonce(self):
        rec = record(HOLDEM)
        rec["fairness"]["cards"][0]["nonce"] = rec["fairness"]["cards"][0]["nonce"].upper()
        self.assertEqual(code_of(rec), "format")

    def test_uppercase_hex_anywhere(self):
        """Uppercase in a tag, a path, a seed, the commitment or the hand id is refused."""
        cases = [
            lambda f: f["tags"][0].__setitem__(5, f["tags"][0][5].upper()),
            lambda f: f["cards"][3]["path"].__setitem__(0, f["cards"][3]["path"][0].upper()),
            lambda f: f["seeds"][0].__setitem__("seed", "0A" * 32),
            lambda f: f.__setitem__("commitment", f["commitment"].upper()),
            lambda f: f.__setitem__("hand_id", f["hand_id"].upper()),
        ]
        for i, change in enumerate(cases):
            with self.subTest(case=i):
                rec = record(HOLDEM)
                change(rec["fairness"])
                self.assertEqual(code_of(rec), "format")

    def test_card_changed_in_the_record(self):
        """The viewer's hole card named otherwise than its opening."""
        rec = record(HOLDEM)
        dealt = next(e for e in rec["events"] if e["type"] == "hole_dealt" and e["player"] == rec["me"])
        self.assertEqual(dealt["cards"], "3s4d")
        dealt["cards"] = "3s4c"
        for e in rec["events"]:
            if e["type"] == "shown" and e["player"] == rec["me"]:
                e["cards"] = "3s4c"
        self.assertEqual(code_of(rec), "card_mismatch")

    def test_card_changed_in_an_opening(self):
        """An opening claiming another card does not lead to the root."""
        rec = record(HOLDEM)
        rec["fairness"]["cards"][0]["card"] = "2c"
        self.assertEqual(code_of(rec), "path")

    def test_board_card_changed(self):
        rec = record(HOLDEM)
        flop = next(e for e in rec["events"] if e["type"] == "board_dealt")
        flop["cards"] = "8c9s4c"
        self.assertEqual(code_of(rec), "card_mismatch")

    def test_kept_opening_removed(self):
        for i in (DRAW, OPERATOR):
            with self.subTest(record=i):
                rec = record(i)
                del rec["fairness"]["kept"][3]
                self.assertEqual(code_of(rec), "kept_missing")

    def test_kept_opening_added(self):
        """An opening the accounting does not need (it could name a discard's place)."""
        rec = record(DRAW)
        kept = rec["fairness"]["kept"]
        kept.insert(0, dict(kept[0], card="2c"))
        self.assertEqual(code_of(rec), "kept_unexpected")

    def test_seed_changed(self):
        rec = record(DRAW)
        rec["fairness"]["seeds"][2]["seed"] = "07" * 32
        self.assertEqual(code_of(rec), "seed_open")

    def test_seed_changed_with_its_commitment(self):
        """A seed and its commitment replaced: consistent, but not the viewer's."""
        rec = record(DRAW)
        f = rec["fairness"]
        seed = bytes([7] * 32)
        f["seeds"][2]["seed"] = seed.hex()
        f["seed_list"][2]["commitment"] = verify.seed_commitment(bytes.fromhex(f["commitment"]), seed).hex()
        self.assertEqual(code_of(rec), "tag")  # the order changed: no opening is at its slot
        self.assertEqual(code_of(rec, (bytes([3] * 32), None)), "own_seed")

    def test_openings_swapped(self):
        """Two openings swapped between their slots: each card's tag is at the other slot."""
        rec = record(HOLDEM)
        cards = rec["fairness"]["cards"]
        cards[0]["card"], cards[1]["card"] = cards[1]["card"], cards[0]["card"]
        cards[0]["nonce"], cards[1]["nonce"] = cards[1]["nonce"], cards[0]["nonce"]
        cards[0]["path"], cards[1]["path"] = cards[1]["path"], cards[0]["path"]
        self.assertEqual(code_of(rec), "tag")

    def test_burn_card_opened(self):
        """An opening of the burn before the flop (slot 12 of six-handed hold'em)."""
        rec = record(HOLDEM)
        cards = rec["fairness"]["cards"]
        cards.insert(4, dict(cards[4], slot=12))
        self.assertEqual(code_of(rec), "burn_proved")

    def test_reshuffle_removed(self):
        rec = record(DRAW)
        rec["fairness"]["reshuffles"] = []
        self.assertEqual(code_of(rec), "tags")
        rec["fairness"]["tags"] = rec["fairness"]["tags"][:1]
        self.assertEqual(code_of(rec), "reshuffle_missing")

    def test_discards_list_missing(self):
        rec = record(DRAW)
        del rec["fairness"]["discards"][-1]
        self.assertEqual(code_of(rec), "discard")

    def test_version_1(self):
        rec = record(HOLDEM)
        rec["fairness"]["version"] = 1
        p = run(record_=rec)
        self.assertEqual(p.returncode, 1)
        self.assertIn("FAILED (version)", p.stderr)
        self.assertIn("pokerd verify", p.stderr)

    def test_missing_fields_and_bad_types(self):
        for change in (lambda r: r.pop("seats"),
                       lambda r: r["fairness"].pop("kept"),
                       lambda r: r["fairness"]["cards"][0].pop("path"),
                       lambda r: r["events"][2].pop("cards"),
                       lambda r: r["fairness"].__setitem__("size", "52"),
                       lambda r: r["fairness"]["seed_list"][0].__setitem__("house", 0),
                       lambda r: r["fairness"]["cards"][0].__setitem__("card", "as")):
            rec = record(HOLDEM)
            change(rec)
            self.assertEqual(code_of(rec), "format")


class CommandLine(unittest.TestCase):
    """The command's output and exit status."""

    def test_verified(self):
        p = run(record_=record(HOLDEM))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"^\S*hand\.json: verified: ")
        self.assertEqual(p.stdout.count("\n"), 1)
        self.assertIn("seats that committed and did not reveal: 3", p.stdout)

    def test_your_seed_was_used(self):
        rec = record(DRAW)
        digest = verify.list_digest(
            bytes.fromhex(rec["fairness"]["commitment"]),
            [(e["seat"], e["house"], bytes.fromhex(e["commitment"])) for e in rec["fairness"]["seed_list"]])
        p = run("--seed", "03" * 32, "--list", digest.hex(), record_=rec)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("your seed was used", p.stdout)
        p = run("--seed", "03" * 32, "--list", "00" * 32, record_=rec)
        self.assertEqual(p.returncode, 1)
        self.assertIn("FAILED (list_changed)", p.stderr)
        p = run("--seed", "04" * 32, record_=rec)
        self.assertIn("FAILED (own_seed)", p.stderr)

    def test_no_seed(self):
        rec = record(HOLDEM)
        p = run("--no-seed", record_=rec)  # player 1 at seat 1 is not in the list
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("no seed was used in your name", p.stdout)
        p = run("--no-seed", record_=record(DRAW))
        self.assertIn("FAILED (seed_in_my_name)", p.stderr)

    def test_no_player_seed(self):
        """Only the house's seed used: the line says so plainly."""
        rec = heads_up_record(seeded=[3])
        p = run(record_=rec)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("seeds used: 0 of players and 1 of the house", p.stdout)
        self.assertIn("NO player's seed was used: the order was the server's alone", p.stdout)
        p = run("--no-seed", record_=rec)
        self.assertIn("no seed was used in your name", p.stdout)

    def test_heads_up_record_built_here(self):
        """A record made here from the vectors' secret verifies, and its seeds count."""
        rec = heads_up_record(seeded=[0, 3])
        p = run("--seed", "11" * 32, record_=rec)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("seeds used: 1 of players and 1 of the house", p.stdout)
        self.assertIn("your seed was used", p.stdout)
        self.assertNotIn("NO player's seed", p.stdout)
        rec = heads_up_record(seeded=[0, 3], withheld=[3])
        self.assertEqual(code_of(rec), "house_withheld")

    def test_failure_line_and_codes(self):
        rec = record(HOLDEM)
        rec["fairness"]["cards"][0]["nonce"] = rec["fairness"]["cards"][0]["nonce"].upper()
        p = run(record_=rec)
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stderr, r"hand\.json: FAILED \(format\): ")
        self.assertEqual(p.stdout, "")

    def test_malformed_json(self):
        p = run(record_='{"fairness": ')
        self.assertEqual(p.returncode, 1)
        self.assertIn("FAILED (format)", p.stderr)
        self.assertNotIn("Traceback", p.stderr)

    def test_uppercase_seed_argument(self):
        p = run("--seed", "0A" * 32, record_=record(DRAW))
        self.assertEqual(p.returncode, 1)
        self.assertIn("FAILED (format)", p.stderr)

    def test_bad_usage(self):
        for args in ([], ["--list", "00" * 32], ["--seed", "00" * 32, "--no-seed"], ["--vectors", VECTORS, "x"]):
            with self.subTest(args=args):
                p = run(*args, record_=record(HOLDEM) if "--list" in args or "--no-seed" in args else None)
                self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main()
