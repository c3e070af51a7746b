//! Tests of the PokerStars writer: every game family, side pots, uncalled bets, rake and posts.

use super::*;
use poker_rules::table::PostKind;

/// Fails unless every line is in the history.
fn has(out: &str, lines: &[&str]) {
    for line in lines {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
}

fn meta<'a>(phh: &'a str, players: &'a [String], seats: &'a [u32]) -> Meta<'a> {
    Meta {
        hand_number: 42,
        table_name: "Alpha",
        started_at_ms: 1_795_344_309_000,
        players,
        seats,
        seat_count: 6,
        button_seat: None,
        posts: &[],
        phh,
        viewer: None,
        play_money: false,
    }
}

#[test]
fn side_pots_uncalled_bets_and_rake_add_up() {
    // p1 (SB) 100, p2 (BB) 300, p3 (button) 1000. p3 shoves, both call all in:
    // main pot 300 (3 x 100), side pot 400 (2 x 200); p3's 700 over p2 is returned.
    let phh = r#"
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [5, 10, 0]
min_bet = 10
starting_stacks = [100, 300, 1000]
actions = [
  "d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 QcQd",
  "p3 cbr 1000", "p1 cc", "p2 cc",
  "d db 2h3h4s", "d db 9c", "d db Ts",
  "p1 sm AcAd", "p2 sm KcKd", "p3 sm QcQd",
]
"#;
    let players: Vec<String> = ["ann", "bob", "cat"].map(String::from).to_vec();
    let out = write(&Meta {
        viewer: Some(2),
        ..meta(phh, &players, &[2, 4, 6])
    })
    .unwrap();
    has(
        &out,
        &[
            "PokerStars Hand #42:  Hold'em No Limit (5/10) - 2026/11/22 5:45:09 ET",
            "Table 'Alpha' 6-max Seat #6 is the button",
            "Seat 2: ann (100 in chips) \n",
            "ann: posts small blind 5",
            "bob: posts big blind 10",
            "Dealt to cat [Qc Qd]",
            "cat: raises 990 to 1000",
            "ann: calls 95 and is all-in",
            "bob: calls 290 and is all-in",
            "Uncalled bet (700) returned to cat",
            "*** FLOP *** [2h 3h 4s]",
            "*** TURN *** [2h 3h 4s] [9c]",
            "*** RIVER *** [2h 3h 4s 9c] [Ts]",
            "ann collected 300 from main pot",
            "bob collected 400 from side pot",
            "Total pot 700 Main pot 300. Side pot 400. | Rake 0 \n",
            "Seat 2: ann (small blind) showed [Ac Ad] and won (300)",
            "Seat 6: cat (button) showed [Qc Qd] and lost",
        ],
    );
}

#[test]
fn a_bet_nobody_calls_is_returned_and_other_games_are_refused() {
    let phh = r#"
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [10, 5]
min_bet = 10
starting_stacks = [200, 200]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "p1 cbr 30", "p2 f"]
"#;
    let players: Vec<String> = ["ann", "bob"].map(String::from).to_vec();
    let out = write(&meta(phh, &players, &[1, 2])).unwrap();
    has(
        &out,
        &[
            "Table 'Alpha' 6-max Seat #1 is the button",
            "ann: raises 20 to 30",
            "Uncalled bet (20) returned to ann",
            "ann collected 20 from pot",
            "Seat 2: bob (big blind) folded before Flop",
            "Seat 1: ann (button) (small blind) collected (20)",
        ],
    );
    assert!(out.contains("Total pot 20 | Rake 0 \n"), "{out}");
    let mine = write(&Meta {
        viewer: Some(1),
        ..meta(phh, &players, &[1, 2])
    })
    .unwrap();
    assert!(
        mine.contains("Dealt to bob [Kc Kd]") && !mine.contains("AcAd") && !mine.contains("Ac Ad")
    );
    // A name stored before names were checked cannot add lines to the history.
    let sneaky: Vec<String> = ["ann\n*** SUMMARY ***\nSeat 9: x", "bob"]
        .map(String::from)
        .to_vec();
    let out = write(&Meta {
        table_name: "T\r\nable",
        ..meta(phh, &sneaky, &[1, 2])
    })
    .unwrap();
    let summaries = out.lines().filter(|l| l.starts_with("*** SUMMARY ***"));
    assert_eq!(summaries.count(), 1, "{out}");
    assert!(!out.lines().any(|l| l.starts_with("Seat 9")), "{out}");
    assert!(out.contains("Table 'T\u{FFFD}\u{FFFD}able'"), "{out}");
    let broken = phh.replace("\"NT\"", "\"F7S\"");
    assert!(
        write(&meta(&broken, &players, &[1, 2])).is_err(),
        "no bring-in"
    );
}

#[test]
fn fixed_limit_is_named_by_its_bets_and_quiet_folds_did_not_bet() {
    let phh = r#"
variant = "FT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
small_bet = 2
big_bet = 4
starting_stacks = [100, 100, 100]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 QcQd", "p3 f", "p1 cbr 4", "p2 f"]
"#;
    let players: Vec<String> = ["ann", "bob", "cat"].map(String::from).to_vec();
    let out = write(&meta(phh, &players, &[1, 2, 3])).unwrap();
    has(
        &out,
        &[
            "Hold'em Limit (2/4) - ",
            "Seat 3: cat (button) folded before Flop (didn't bet)",
            "Seat 2: bob (big blind) folded before Flop\n",
        ],
    );
}

const STUD: &str = r#"
variant = "F7S"
antes = [1, 1, 1]
bring_in = 2
small_bet = 5
big_bet = 10
starting_stacks = [100, 100, 100]
actions = [
  "d dh p1 AcAdKh", "d dh p2 2c7d3s", "d dh p3 9h9sQd",
  "p2 pb", "p3 cbr 5", "p1 cc", "p2 f",
  "d dh p1 4c", "d dh p3 Jc", "p1 cc", "p3 cc",
  "d dh p1 5c", "d dh p3 2h", "p1 cbr 10", "p3 cc",
  "d dh p1 6d", "d dh p3 3h", "p1 cc", "p3 cc",
  "d dh p1 7s", "d dh p3 8s", "p1 cc", "p3 cc",
  "p1 sm AcAdKh4c5c6d7s", "p3 sm 9h9sQdJc2h3h8s",
]
"#;

#[test]
fn stud_is_written_street_by_street_with_up_cards_and_the_viewers_down_cards() {
    let players: Vec<String> = ["ann", "bob", "cat"].map(String::from).to_vec();
    let mine = write(&Meta {
        viewer: Some(0),
        ..meta(STUD, &players, &[1, 2, 3])
    })
    .unwrap();
    has(
        &mine,
        &[
            "PokerStars Hand #42:  7 Card Stud Limit (5/10) - ",
            "Table 'Alpha' 6-max\n",
            "ann: posts the ante 1",
            "*** 3rd STREET ***\nDealt to ann [Ac Ad Kh]\nDealt to bob [3s]\nDealt to cat [Qd]",
            "bob: brings in for 2",
            "cat: completes it to 5",
            "*** 4th STREET ***\nDealt to ann [Ac Ad Kh] [4c]\nDealt to cat [Qd] [Jc]",
            "*** 6th STREET ***\nDealt to ann [Ac Ad Kh 4c 5c] [6d]\nDealt to cat [Qd Jc 2h] [3h]",
            "*** RIVER ***\nDealt to ann [Ac Ad Kh 4c 5c 6d] [7s]\nann: checks",
            "ann: shows [Ac Ad Kh 4c 5c 6d 7s] (a pair of Aces)",
            "cat: shows [9h 9s Qd Jc 2h 3h 8s] (a pair of Nines)",
            "Seat 1: ann showed [Ac Ad Kh 4c 5c 6d 7s] and won (35) with a pair of Aces",
            "Seat 2: bob folded on the 3rd Street\n",
            "Seat 3: cat showed [9h 9s Qd Jc 2h 3h 8s] and lost with a pair of Nines",
        ],
    );
    // Nobody's down cards but the viewer's before the showdown; no board, no button.
    let before_showdown = mine.split("*** SHOW DOWN ***").next().unwrap();
    for secret in ["9h", "9s", "8s", "2c", "7d"] {
        assert!(
            !before_showdown.contains(secret),
            "{secret} leaked:\n{mine}"
        );
    }
    assert!(
        !mine.contains("Board [") && !mine.contains("button"),
        "{mine}"
    );
    // The house's view deals every player's up cards and nobody's down cards, as an
    // observer's history: no reader takes a player for its hero.
    let house = write(&meta(STUD, &players, &[1, 2, 3])).unwrap();
    has(
        &house,
        &[
            "*** 3rd STREET ***\nDealt to ann [Kh]\nDealt to bob [3s]\nDealt to cat [Qd]\n",
            "*** RIVER ***\nann: checks \n",
        ],
    );
    let before_showdown = house.split("*** SHOW DOWN ***").next().unwrap();
    for secret in ["Ac", "Ad", "2c", "7d", "9h", "7s", "8s"] {
        assert!(
            !before_showdown.contains(secret),
            "{secret} leaked:\n{house}"
        );
    }
}

const TRIPLE_DRAW: &str = r#"
variant = "F2L3D"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
small_bet = 2
big_bet = 4
starting_stacks = [100, 100, 100]
actions = [
  "d dh p1 7c5d4h3s2c", "d dh p2 KdKc8c7d7h", "d dh p3 AcTd7s3d2s",
  "p3 cbr 4", "p1 f", "p2 cc",
  "p2 sd KdKc", "p3 sd AcTd", "d dh p2 9h4s", "d dh p3 Qc5c",
  "p2 cc", "p3 cbr 2", "p2 cc",
  "p2 sd", "p3 sd Qc", "d dh p3 6h",
  "p2 cc", "p3 cc",
  "p2 sd", "p3 sd",
  "p2 cc", "p3 cc",
  "p2 sm 8c7d7h9h4s", "p3 sm 7s3d2s5c6h",
]
"#;

#[test]
fn draw_games_are_written_with_each_draw_and_only_the_viewers_discards() {
    let players: Vec<String> = ["ann", "bob", "cat"].map(String::from).to_vec();
    let mine = write(&Meta {
        viewer: Some(2),
        ..meta(TRIPLE_DRAW, &players, &[1, 2, 3])
    })
    .unwrap();
    has(
            &mine,
            &[
            "PokerStars Hand #42:  Triple Draw 2-7 Lowball Limit (2/4) - ",
            "Table 'Alpha' 6-max Seat #3 is the button",
            "ann: posts small blind 1\nbob: posts big blind 2\n*** DEALING HANDS ***\nDealt to cat [Ac Td 7s 3d 2s]\n",
            "*** FIRST DRAW ***\nbob: discards 2 cards\ncat: discards 2 cards [Ac Td]\nDealt to cat [7s 3d 2s] [Qc 5c]\n",
            "*** SECOND DRAW ***\nbob: stands pat\ncat: discards 1 card [Qc]\nDealt to cat [7s 3d 2s 5c] [6h]\n",
            "*** THIRD DRAW ***\nbob: stands pat\ncat: stands pat on [7s 3d 2s 5c 6h]\n",
            "cat: shows [7s 3d 2s 5c 6h] (Lo: 7,6,5,3,2)",
            "bob: shows [8c 7d 7h 9h 4s] (Lo: a pair of Sevens)",
            "Seat 1: ann (small blind) folded before the Draw\n",
            "Seat 3: cat (button) showed [7s 3d 2s 5c 6h] and won (13) with Lo: 7,6,5,3,2",
            ],
        );
    let before_showdown = mine.split("*** SHOW DOWN ***").next().unwrap();
    for secret in ["Kd", "Kc", "9h", "4s", "7c"] {
        assert!(
            !before_showdown.contains(secret),
            "{secret} leaked:\n{mine}"
        );
    }
}

#[test]
fn two_players_dealt_with_the_button_on_a_third_seat_are_not_heads_up() {
    // A player waiting on the (dead) button is not dealt in: the small and big blinds
    // play alone, the small blind first in every round (R19 does not apply).
    let phh = r#"
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [2, 1]
min_bet = 2
starting_stacks = [200, 200]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "p1 cbr 6", "p2 f"]
"#;
    let players: Vec<String> = ["ann", "bob"].map(String::from).to_vec();
    let out = write(&Meta {
        button_seat: Some(4),
        ..meta(phh, &players, &[1, 2])
    })
    .unwrap();
    has(
        &out,
        &[
            "Table 'Alpha' 6-max Seat #4 is the button",
            "Seat 1: ann (small blind) collected (4)",
            "Seat 2: bob (big blind) folded before Flop",
        ],
    );
    assert!(!out.contains("(button)"), "{out}");
}

#[test]
fn posts_are_written_as_pokerstars_writes_them() {
    // ann and bob post the blinds; cat comes back owing both (the small dead, the big
    // live, R14); dan is new and posts a big blind (R13); eve's ante puts her all in.
    let phh = r#"
variant = "NT"
antes = [0, 0, 1, 0, 0]
blinds_or_straddles = [1, 2, 2, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100, 100, 100]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 QcQd", "d dh p4 JcJd", "d dh p5 TcTd",
  "p3 cc", "p4 cc", "p5 f", "p1 cc", "p2 cc",
  "d db 2h3h4s", "p1 cc", "p2 cc", "p3 cc", "p4 cc",
  "d db 9c", "p1 cc", "p2 cc", "p3 cc", "p4 cc",
  "d db Ts", "p1 cc", "p2 cc", "p3 cc", "p4 cc",
  "p1 sm AcAd", "p2 sm KcKd", "p3 sm QcQd", "p4 sm JcJd"]
_blind_kinds = ['blind', 'blind', 'post', 'post', 'blind']
"#;
    let post = |seat: usize, kind: PostKind, amount: Chips, live: bool| Post {
        seat,
        kind,
        amount,
        live,
    };
    let posts = [
        post(0, PostKind::SmallBlind, 1, true),
        post(1, PostKind::BigBlind, 2, true),
        post(2, PostKind::MissedBig, 2, true),
        post(2, PostKind::MissedSmall, 1, false),
        post(3, PostKind::NewPlayer, 2, true),
    ];
    let players: Vec<String> = ["ann", "bob", "cat", "dan", "eve"]
        .map(String::from)
        .to_vec();
    let out = write(&Meta {
        posts: &posts,
        ..meta(phh, &players, &[1, 2, 3, 4, 5])
    })
    .unwrap();
    has(
        &out,
        &[
            "ann: posts small blind 1\n",
            "bob: posts big blind 2\n",
            "cat: posts small & big blinds 3\n",
            "dan: posts big blind 2\n",
        ],
    );
    assert!(!out.contains("cat: posts the ante"), "{out}");
    // An ante that takes the whole stack says so.
    let short = phh
        .replace("antes = [0, 0, 1, 0, 0]", "antes = [0, 0, 1, 0, 1]")
        .replace(
            "starting_stacks = [100, 100, 100, 100, 100]",
            "starting_stacks = [100, 100, 100, 100, 1]",
        )
        .replace("\"p5 f\", ", "");
    let out = write(&Meta {
        posts: &posts,
        ..meta(&short, &players, &[1, 2, 3, 4, 5])
    })
    .unwrap();
    assert!(out.contains("eve: posts the ante 1 and is all-in"), "{out}");
}

#[test]
fn folds_checks_mucks_seats_and_rake_end_with_a_space_as_at_pokerstars() {
    let phh = r#"
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 QcQd", "p3 f", "p1 cc", "p2 cc",
  "d db 2h3h4s", "p1 cc", "p2 cc", "d db 9c", "p1 cc", "p2 cc", "d db Ts", "p1 cc", "p2 cc",
  "p1 sm AcAd", "p2 sm"]
"#;
    let players: Vec<String> = ["ann", "bob", "cat"].map(String::from).to_vec();
    let out = write(&meta(phh, &players, &[1, 2, 3])).unwrap();
    has(
        &out,
        &[
            "Seat 1: ann (100 in chips) \n",
            "cat: folds \n",
            "ann: checks \n",
            "bob: mucks hand \n",
            "Total pot 4 | Rake 0 \n",
        ],
    );
    // Every other line ends without one.
    let spaced = [
        ": folds ",
        ": checks ",
        ": mucks hand ",
        " in chips) ",
        "| Rake 0 ",
    ];
    for line in out.lines().filter(|l| l.ends_with(' ')) {
        assert!(spaced.iter().any(|s| line.ends_with(s)), "{line:?}");
    }
}

#[test]
fn a_raise_is_written_by_its_increment_over_the_bet_to_call() {
    // bob's ante takes his whole stack: he posts no big blind, yet callers owe the full
    // blind (R28), so cat calls 2 and ann's raise to 4 is 2 over the bet to call.
    let phh = r#"
variant = "NT"
antes = [0, 2, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 2, 100]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 QcQd", "p3 cc", "p1 cbr 4", "p3 f",
  "d db 2h3h4s", "d db 9c", "d db Ts", "p1 sm AcAd", "p2 sm KcKd"]
"#;
    let players: Vec<String> = ["ann", "bob", "cat"].map(String::from).to_vec();
    let out = write(&meta(phh, &players, &[1, 2, 3])).unwrap();
    has(
        &out,
        &[
            "ann: posts small blind 1\nbob: posts the ante 2 and is all-in\n",
            "cat: calls 2\nann: raises 2 to 4\n",
        ],
    );
}

#[test]
fn heads_up_the_small_blind_on_the_button_posts_first() {
    let phh = r#"
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [2, 1]
min_bet = 2
starting_stacks = [100, 100]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "p1 f"]
"#;
    // PHH lists heads-up blinds big first: ann, on the button, posts the small one.
    let players: Vec<String> = ["ann", "bob"].map(String::from).to_vec();
    let out = write(&meta(phh, &players, &[1, 2])).unwrap();
    has(
        &out,
        &[
            "Table 'Alpha' 6-max Seat #1 is the button",
            "ann: posts small blind 1\nbob: posts big blind 2\n*** HOLE CARDS ***\n",
            "Seat 1: ann (button) (small blind) folded before Flop\n",
        ],
    );
}

#[test]
fn a_new_players_post_is_a_big_blind_line_but_no_position_and_not_a_quiet_fold() {
    // As PokerStars writes a new player's post: `posts big blind`, no `(big blind)` in
    // the summary (that marks the blind seat), and no `(didn't bet)`: the post is a bet.
    let phh = r#"
variant = "NT"
antes = [0, 0, 0, 0]
blinds_or_straddles = [1, 2, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100, 100]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 QcQd", "d dh p4 JcJd",
  "p3 cbr 6", "p4 f", "p1 f", "p2 f"]
_blind_kinds = ['blind', 'blind', 'post', 'blind']
"#;
    let players: Vec<String> = ["ann", "bob", "cat", "dan"].map(String::from).to_vec();
    let out = write(&meta(phh, &players, &[1, 2, 3, 4])).unwrap();
    has(
        &out,
        &[
            "ann: posts small blind 1\nbob: posts big blind 2\ncat: posts big blind 2\n",
            "cat: raises 4 to 6\n",
            "Seat 1: ann (small blind) folded before Flop\n",
            "Seat 2: bob (big blind) folded before Flop\n",
            "Seat 3: cat collected (5)\n",
            "Seat 4: dan (button) folded before Flop (didn't bet)\n",
        ],
    );
}

#[test]
fn short_deck_is_headed_by_its_button_blind_and_ante_and_posts_antes_first() {
    let phh = r#"
variant = "NS"
antes = [1, 1, 1]
blinds_or_straddles = [0, 0, 2]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 QcQd", "p1 f", "p2 f"]
"#;
    let players: Vec<String> = ["ann", "bob", "cat"].map(String::from).to_vec();
    let out = write(&meta(phh, &players, &[1, 2, 3])).unwrap();
    has(
        &out,
        &[
            "PokerStars Hand #42:  6+ Hold'em No Limit (Button Blind 2 - Ante 1) - ",
            "ann: posts the ante 1\nbob: posts the ante 1\ncat: posts the ante 1\ncat: posts button blind 2\n",
            "Seat 3: cat (button blind) collected (3)",
        ],
    );
}

#[test]
fn play_money_tables_say_so_on_the_table_line() {
    let players: Vec<String> = ["ann", "bob", "cat"].map(String::from).to_vec();
    let out = write(&Meta {
        play_money: true,
        ..meta(STUD, &players, &[1, 2, 3])
    })
    .unwrap();
    has(&out, &["\nTable 'Alpha' 6-max (Play Money)\n"]);
    let phh = r#"
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [2, 1]
min_bet = 2
starting_stacks = [100, 100]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "p1 f"]
"#;
    let players = &players[..2];
    let out = write(&Meta {
        play_money: true,
        ..meta(phh, players, &[1, 2])
    })
    .unwrap();
    has(
        &out,
        &["\nTable 'Alpha' 6-max (Play Money) Seat #1 is the button\n"],
    );
}

#[test]
fn the_house_view_has_no_hero_and_names_mucked_hands_in_the_summary() {
    let phh = r#"
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 QcQd", "p3 f", "p1 cc", "p2 cc",
  "d db 2h3h4s", "p1 cc", "p2 cc", "d db 9c", "p1 cc", "p2 cc", "d db Ts", "p1 cc", "p2 cc",
  "p1 sm AcAd", "p2 sm"]
"#;
    let players: Vec<String> = ["ann", "bob", "cat"].map(String::from).to_vec();
    let house = write(&meta(phh, &players, &[1, 2, 3])).unwrap();
    assert!(!house.contains("Dealt to"), "{house}");
    assert!(
        !house.contains("Qc Qd"),
        "a folded hand is nobody's to see: {house}"
    );
    has(
        &house,
        &[
            "Seat 1: ann (small blind) showed [Ac Ad] and won (4) with a pair of Aces",
            "Seat 2: bob (big blind) mucked [Kc Kd]\n",
        ],
    );
    // A player's own history names their own mucked hand, not another's.
    let bobs = write(&Meta {
        viewer: Some(1),
        ..meta(phh, &players, &[1, 2, 3])
    })
    .unwrap();
    has(
        &bobs,
        &[
            "Dealt to bob [Kc Kd]\n",
            "Seat 2: bob (big blind) mucked [Kc Kd]\n",
        ],
    );
    let cats = write(&Meta {
        viewer: Some(2),
        ..meta(phh, &players, &[1, 2, 3])
    })
    .unwrap();
    has(&cats, &["Seat 2: bob (big blind) mucked\n"]);
    assert!(!cats.contains("Kc"), "{cats}");
}

#[test]
fn a_winner_without_a_showdown_who_shows_does_so_after_collecting_and_reads_again() {
    // cat raises, ann folds, bob calls; cat bets the flop, bob folds, cat shows. As in
    // real PokerStars text (the fpdb project's regression-test-files/cash/Stars/Flop/
    // NLHE-6max-USD-0.01-0.02-201101.Export.from.PT.or.HEM.trailing.whitespace.txt:
    // `Wonderboy_06 collected $0.19 from pot`, `Wonderboy_06: shows [As 4h] (a pair of
    // Fours)`, `Seat 1: Wonderboy_06 collected ($0.19)`): the show right after the pot
    // is collected, and the summary's `collected` unchanged.
    let phh = r##"
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [4000, 4000, 4000]
actions = ["d dh p1 5c5d", "d dh p2 Jh9h", "d dh p3 KdAs", "p3 cbr 300", "p1 f", "p2 cc",
  "d db Ah7c2d", "p2 cc", "p3 cbr 400", "p2 f", "# p3 shows AsKd"]
"##;
    let players: Vec<String> = ["ann", "bob", "cat"].map(String::from).to_vec();
    // Every history shows it, the winner's own, another player's, the house's.
    for viewer in [Some(2), Some(0), None] {
        let out = write(&Meta {
            viewer,
            ..meta(phh, &players, &[1, 4, 6])
        })
        .unwrap();
        has(
            &out,
            &[
                "Uncalled bet (400) returned to cat\n\
                 cat collected 650 from pot\n\
                 cat: shows [As Kd] (a pair of Aces)\n\
                 *** SUMMARY ***\n",
                "Seat 6: cat (button) collected (650)\n",
            ],
        );
        assert!(!out.contains("SHOW DOWN"), "{out}");
        assert!(!out.contains("showed"), "{out}");
        // The crate's own reader reads it back to the same record and the same text.
        let hand = read::read_hand(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
        assert_eq!(
            hand.phh.actions.last().map(String::as_str),
            Some("# p3 shows AsKd"),
            "{:?}",
            hand.phh.actions
        );
        assert_eq!(import::write_back(&hand).unwrap(), out);
    }
}

/// A `Dealt to` line goes to the seat whose line it can be where the hand is, not to the
/// longest name it starts with: a seat named `cat [Qd]` (another's up card) or
/// `bob [8c 7d 7h]` (the cards the viewer kept) takes no line of theirs.
#[test]
fn a_dealt_to_line_goes_to_the_seat_it_fits_not_to_a_name_holding_anothers_cards() {
    let stud: Vec<String> = ["ann", "cat [Qd]", "cat"].map(String::from).to_vec();
    let draw: Vec<String> = ["bob [8c 7d 7h]", "bob", "cat"].map(String::from).to_vec();
    for (phh, players, viewer, line, deal) in [
        (STUD, &stud, None, "Dealt to cat [Qd] [Jc]\n", "d dh p3 Jc"),
        (
            TRIPLE_DRAW,
            &draw,
            Some(1),
            "Dealt to bob [8c 7d 7h] [9h 4s]\n",
            "d dh p2 9h4s",
        ),
    ] {
        let written = write(&Meta {
            viewer,
            ..meta(phh, players, &[1, 2, 3])
        })
        .unwrap();
        has(&written, &[line]);
        let read = super::read::read_hand(&written).unwrap();
        assert!(
            read.phh.actions.iter().any(|a| a == deal),
            "{deal} not in {:?}\n{written}",
            read.phh.actions
        );
        assert_eq!(super::import::write_back(&read).unwrap(), written);
    }
}
