//! Tests of the OHH writer: secrecy, side pots and returned bets, rake by pot, posts,
//! and the games the standard cannot express.

use super::*;

fn meta<'a>(
    phh: &'a str,
    players: &'a [String],
    seats: &'a [u32],
    viewer: Option<usize>,
) -> Meta<'a> {
    Meta {
        site_name: "pokerd",
        internal_version: "test",
        game_number: "42",
        table_name: "Alpha",
        started_at_ms: 1_795_344_309_000,
        currency: PLAY_MONEY,
        players,
        seats,
        seat_count: 6,
        button_seat: None,
        posts: &[],
        phh,
        viewer,
    }
}

fn names(k: usize) -> Vec<String> {
    ["ann", "bob", "cat", "dan"][..k]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

const SIDE_POTS: &str = r#"
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

#[test]
fn a_players_history_holds_their_cards_the_shown_hands_and_each_pots_winner() {
    let players = names(3);
    let doc = write(&meta(SIDE_POTS, &players, &[2, 4, 6], Some(1))).unwrap();
    let h = &doc.ohh;
    assert_eq!(h.hero_player_id, Some(1));
    assert!(h.flags.is_empty(), "{:?}", h.flags);
    assert_eq!((h.small_blind_amount, h.big_blind_amount), (5, 10));
    assert_eq!(h.dealer_seat, 6);
    assert_eq!(h.start_date_utc, "2026-11-22T10:45:09Z");
    let pre = &h.rounds[0];
    assert_eq!(pre.street, "Preflop");
    let dealt: Vec<_> = pre
        .actions
        .iter()
        .filter(|a| a.action == "Dealt Cards")
        .map(|a| (a.player_id, a.cards.clone()))
        .collect();
    assert_eq!(
        dealt,
        vec![
            (0, None),
            (1, Some(vec!["Kc".to_string(), "Kd".to_string()])),
            (2, None)
        ]
    );
    let raise = pre.actions.iter().find(|a| a.action == "Raise").unwrap();
    assert_eq!(
        (raise.player_id, raise.amount, raise.is_allin),
        (2, Some(1000), true)
    );
    let streets: Vec<_> = h.rounds.iter().map(|r| r.street).collect();
    assert_eq!(streets, ["Preflop", "Flop", "Turn", "River", "Showdown"]);
    assert_eq!(h.rounds[1].cards, ["2h", "3h", "4s"]);
    let shown = &h.rounds[4].actions;
    assert!(shown
        .iter()
        .all(|a| a.action == "Shows Cards" && a.cards.is_some()));
    // Main pot 3 x 100 to ann, side pot 2 x 200 to bob; cat's 700 over bob came back.
    let pots: Vec<_> = h
        .pots
        .iter()
        .map(|p| {
            (
                p.number,
                p.amount,
                p.rake,
                p.player_wins
                    .iter()
                    .map(|w| (w.player_id, w.win_amount))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    assert_eq!(
        pots,
        vec![(0, 300, 0, vec![(0, 300)]), (1, 400, 0, vec![(1, 400)])]
    );
    let numbers: Vec<u32> = h
        .rounds
        .iter()
        .flat_map(|r| r.actions.iter().map(|a| a.action_number))
        .collect();
    assert_eq!(numbers, (1..=numbers.len() as u32).collect::<Vec<_>>());
}

#[test]
fn the_operators_view_is_observed_and_holds_every_hand() {
    let players = names(3);
    let doc = write(&meta(SIDE_POTS, &players, &[2, 4, 6], None)).unwrap();
    assert_eq!(doc.ohh.hero_player_id, None);
    assert_eq!(doc.ohh.flags, ["Observed"]);
    let dealt = doc.ohh.rounds[0]
        .actions
        .iter()
        .filter(|a| a.action == "Dealt Cards");
    assert!(dealt.clone().count() == 3 && dealt.into_iter().all(|a| a.cards.is_some()));
    let text = file(&[doc.clone(), doc]);
    let parts: Vec<&str> = text.split("\n\n").collect();
    assert_eq!(parts.len(), 2, "two objects, one blank line between");
    for part in parts {
        let v: serde_json::Value = serde_json::from_str(part).unwrap();
        assert!(v["ohh"]["rounds"].is_array());
    }
}

#[test]
fn rake_is_taken_from_the_pot_and_charged_to_its_winner() {
    // 5% of 400, capped at 15: the pot holds 400, pays 385.
    let phh = r#"
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [10, 5]
min_bet = 10
starting_stacks = [200, 200]
_options = '{"rake":{"basis_points":500,"cap":15}}'
actions = [
  "d dh p1 AcAd", "d dh p2 KcKd", "p1 cbr 200", "p2 cc",
  "d db 2h3h4s", "d db 9c", "d db Ts", "p1 sm AcAd", "p2 sm KcKd",
]
"#;
    let players = names(2);
    let doc = write(&meta(phh, &players, &[1, 2], Some(0))).unwrap();
    let pot = &doc.ohh.pots[0];
    assert_eq!((pot.amount, pot.rake), (400, 15));
    assert_eq!(pot.player_wins.len(), 1);
    let win = &pot.player_wins[0];
    assert_eq!(
        (win.player_id, win.win_amount, win.contributed_rake),
        (0, 385, 15)
    );
    // Heads-up the button posts the small blind and raises: a preflop bet is a raise.
    let pre = &doc.ohh.rounds[0].actions;
    let sb = pre.iter().find(|a| a.action == "Post SB").unwrap();
    assert_eq!((sb.player_id, sb.amount), (0, Some(5)));
    assert!(pre
        .iter()
        .any(|a| a.action == "Raise" && a.amount == Some(195)));
    assert_eq!(doc.ohh.dealer_seat, 1);
}

#[test]
fn a_dead_small_blind_antes_and_straddles_are_posted_by_name() {
    // Seat 4 (p3) returns and pays a missed small blind dead with a live big blind; the
    // table also plays a 1-chip ante; p4 straddles.
    let phh = r#"
variant = "NT"
antes = [1, 1, 6, 1]
blinds_or_straddles = [5, 10, 10, 20]
min_bet = 10
starting_stacks = [500, 500, 500, 500]
_blind_kinds = ["blind", "blind", "post", "straddle"]
actions = [
  "d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 QcQd", "d dh p4 JcJd",
  "p1 f", "p2 f", "p3 f",
]
"#;
    let posts = [Post {
        seat: 3,
        kind: PostKind::MissedSmall,
        amount: 5,
        live: false,
    }];
    let players = names(4);
    let seats = [2, 3, 4, 5];
    let mut m = meta(phh, &players, &seats, Some(2));
    m.posts = &posts;
    let doc = write(&m).unwrap();
    let posted: Vec<(u32, &str, Option<u64>)> = doc.ohh.rounds[0]
        .actions
        .iter()
        .filter(|a| a.action.starts_with("Post") || a.action == "Straddle")
        .map(|a| (a.player_id, a.action, a.amount))
        .collect();
    assert!(posted.contains(&(2, "Post Dead", Some(5))), "{posted:?}");
    assert!(posted.contains(&(2, "Post Ante", Some(1))), "{posted:?}");
    assert!(
        posted.contains(&(2, "Post Extra Blind", Some(10))),
        "{posted:?}"
    );
    assert!(posted.contains(&(3, "Straddle", Some(20))), "{posted:?}");
    assert!(posted.contains(&(0, "Post SB", Some(5))), "{posted:?}");
    assert!(posted.contains(&(1, "Post BB", Some(10))), "{posted:?}");
    assert_eq!(doc.ohh.ante_amount, 1);
}

#[test]
fn games_the_standard_cannot_express_are_refused_by_name() {
    let stud = r#"
variant = "F7S"
antes = [1, 1]
blinds_or_straddles = [0, 0]
bring_in = 2
small_bet = 5
big_bet = 10
starting_stacks = [100, 100]
actions = ["d dh p1 AcAd2c", "d dh p2 KcKd3c", "p1 pb", "p2 f"]
"#;
    let players = names(2);
    assert_eq!(
        write(&meta(stud, &players, &[1, 2], Some(0))),
        Err(OhhError::Game("seven-card stud"))
    );
    let short = SIDE_POTS
        .replace("\"NT\"", "\"NS\"")
        .replace("2h3h4s", "6h7h8s")
        .replace("9c", "9d")
        .replace("Ts", "Td");
    let players = names(3);
    assert_eq!(
        write(&meta(&short, &players, &[2, 4, 6], Some(0))),
        Err(OhhError::Game("short-deck (6+) hold'em"))
    );
}

#[test]
fn a_winner_without_a_showdown_who_shows_is_a_showdown_round_of_that_show_alone() {
    // cat raises, ann folds, bob calls; cat bets the flop, bob folds and cat shows. The
    // spec: `Shows Cards` "should be included in a Showdown round".
    let phh = r##"
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [4000, 4000, 4000]
actions = ["d dh p1 5c5d", "d dh p2 Jh9h", "d dh p3 KdAs", "p3 cbr 300", "p1 f", "p2 cc",
  "d db Ah7c2d", "p2 cc", "p3 cbr 400", "p2 f", "# p3 shows AsKd"]
"##;
    let players = names(3);
    // Another player's history shows it as the house's does; the pot is cat's alone.
    for viewer in [Some(0), Some(2), None] {
        let h = write(&meta(phh, &players, &[1, 4, 6], viewer)).unwrap().ohh;
        let streets: Vec<_> = h.rounds.iter().map(|r| r.street).collect();
        assert_eq!(streets, ["Preflop", "Flop", "Showdown"], "{viewer:?}");
        let shown: Vec<_> = h.rounds[2]
            .actions
            .iter()
            .map(|a| (a.player_id, a.action, a.cards.clone()))
            .collect();
        assert_eq!(
            shown,
            [(
                2,
                "Shows Cards",
                Some(vec!["As".to_string(), "Kd".to_string()])
            )],
            "{viewer:?}"
        );
        let wins: Vec<_> = h.pots[0]
            .player_wins
            .iter()
            .map(|w| (w.player_id, w.win_amount))
            .collect();
        assert_eq!(
            (h.pots.len(), h.pots[0].amount, wins),
            (1, 650, vec![(2, 650)])
        );
    }
    // Without the show, no showdown round.
    let quiet = phh.replace(r##", "# p3 shows AsKd""##, "");
    let h = write(&meta(&quiet, &players, &[1, 4, 6], Some(0)))
        .unwrap()
        .ohh;
    assert!(h.rounds.iter().all(|r| r.street != "Showdown"));
}
