//! A hand won without a showdown, then shown by its winner (issue 35): the record keeps
//! the show as PHH commentary appended to the actions (`# p3 shows AsKd`), which
//! `phh::replay` gives as a `Shown` event after `HandEnded`, refuses anywhere else, and
//! `phh::write` writes back.

use poker_history::phh::{self, PhhError, PhhHand, ShowRefusal};
use poker_rules::{Card, Cards, Event};

/// Hold'em, three players: p3 raises, p1 folds, p2 calls, p3 bets the flop and p2
/// folds. `extra` is appended to the actions.
fn won_on_the_flop(extra: &str) -> String {
    format!(
        r#"
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [4000, 4000, 4000]
actions = ["d dh p1 5c5d", "d dh p2 Jh9h", "d dh p3 AsKd", "p3 cbr 300", "p1 f", "p2 cc",
  "d db Ah7c2d", "p2 cc", "p3 cbr 400", "p2 f"{extra}]
finishing_stacks = [3950, 3700, 4350]
"#
    )
}

fn replay(text: &str) -> Result<phh::Replay, PhhError> {
    phh::replay(&PhhHand::parse(text).expect("valid PHH"))
}

fn cards(text: &str) -> Cards {
    Cards::from_slice(&Card::parse_many(text).unwrap()).unwrap()
}

/// The refusal of a show, or a panic naming what came instead.
fn show_refusal(text: &str) -> ShowRefusal {
    match replay(text) {
        Err(PhhError::Show { reason, .. }) => reason,
        other => panic!("expected the show refused, got {other:?}"),
    }
}

#[test]
fn a_winner_without_a_showdown_who_shows_is_a_shown_event_after_the_hand_ended() {
    let plain = replay(&won_on_the_flop("")).unwrap();
    // The cards in any order: the event keeps the order shown.
    let shown = replay(&won_on_the_flop(r##", "# p3 shows KdAs""##)).unwrap();
    let n = shown.events.len();
    assert!(matches!(shown.events[n - 2], Event::HandEnded { .. }));
    assert_eq!(
        shown.events[n - 1],
        Event::Shown {
            player: 2,
            cards: cards("KdAs")
        }
    );
    // Nothing else changes: the same events before it, the same stacks.
    assert_eq!(shown.events[..n - 1], plain.events[..]);
    assert_eq!(shown.finishing_stacks, plain.finishing_stacks);
}

#[test]
fn write_writes_the_show_back_as_the_same_comment_and_it_replays_the_same() {
    let text = won_on_the_flop(r##", "# p3 shows KdAs""##);
    let played = replay(&text).unwrap();
    let stacks = played.hand.final_stacks().unwrap();
    let written = phh::write(played.hand.config(), &played.events, Some(&stacks)).unwrap();
    assert_eq!(written.actions.last().unwrap(), "# p3 shows KdAs");
    let again = phh::replay(&PhhHand::parse(&written.to_toml()).unwrap()).unwrap();
    assert_eq!(again.events, played.events);
    // A show at the showdown stays the standard's `sm`.
    let showdown = replay(&won_on_the_flop("").replace(
        r#""p3 cbr 400", "p2 f""#,
        r#""p3 cc", "d db 9s", "p2 cc", "p3 cc", "d db 3c", "p2 cc", "p3 cc", "p2 sm Jh9h", "p3 sm AsKd""#,
    )
    .replace("finishing_stacks = [3950, 3700, 4350]", ""))
    .unwrap();
    let stacks = showdown.hand.final_stacks().unwrap();
    let written = phh::write(showdown.hand.config(), &showdown.events, Some(&stacks)).unwrap();
    assert!(
        written.actions.iter().all(|a| !a.starts_with('#')),
        "{:?}",
        written.actions
    );
    assert!(written.actions.contains(&"p3 sm AsKd".to_string()));
}

#[test]
fn a_show_before_the_hand_is_over_is_refused() {
    // Written before the last fold: an action follows it.
    let early = won_on_the_flop("").replace(r#""p2 f""#, r##""# p3 shows AsKd", "p2 f""##);
    assert_eq!(show_refusal(&early), ShowRefusal::NotOver);
    // The history stops with p2 still to act.
    let unfinished = won_on_the_flop("")
        .replace(r#", "p2 f""#, r##", "# p3 shows AsKd""##)
        .replace("finishing_stacks = [3950, 3700, 4350]", "");
    assert_eq!(show_refusal(&unfinished), ShowRefusal::NotOver);
}

#[test]
fn a_show_after_a_hand_that_ended_with_a_showdown_is_refused() {
    let showdown = won_on_the_flop("")
        .replace(
            r#""p3 cbr 400", "p2 f""#,
            r#""p3 cc", "d db 9s", "p2 cc", "p3 cc", "d db 3c", "p2 cc", "p3 cc", "p2 sm", "p3 sm AsKd""#,
        )
        .replace("finishing_stacks = [3950, 3700, 4350]", "");
    assert!(replay(&showdown).is_ok());
    for who in [r##""# p3 shows AsKd""##, r##""# p2 shows Jh9h""##] {
        let text = showdown.replace(r#""p3 sm AsKd""#, &format!(r#""p3 sm AsKd", {who}"#));
        assert_eq!(show_refusal(&text), ShowRefusal::Showdown, "{who}");
    }
}

#[test]
fn only_the_winner_may_show_and_only_once() {
    // p1 and p2 folded: their cards are not the winner's to show.
    for who in [r##", "# p1 shows 5c5d""##, r##", "# p2 shows Jh9h""##] {
        assert_eq!(
            show_refusal(&won_on_the_flop(who)),
            ShowRefusal::NotWinner,
            "{who}"
        );
    }
    let twice = won_on_the_flop(r##", "# p3 shows AsKd", "# p3 shows AsKd""##);
    assert_eq!(show_refusal(&twice), ShowRefusal::AlreadyShown);
}

#[test]
fn cards_that_are_not_exactly_the_winners_hole_cards_are_refused() {
    for shown in [
        "As",     // a part of the hand
        "AsKdQc", // more than the hand
        "AsQc",   // a card not held
        "AsAs",   // a card twice
        "As??",   // a card unknown
        "AhKd",   // a board card
    ] {
        let text = won_on_the_flop(&format!(r##", "# p3 shows {shown}""##));
        assert_eq!(show_refusal(&text), ShowRefusal::NotHeld, "{shown}");
    }
}

#[test]
fn a_show_names_the_refusal_and_its_place_in_the_actions() {
    let text = won_on_the_flop(r##", "# p1 shows 5c5d""##);
    let error = replay(&text).unwrap_err();
    assert_eq!(
        error,
        PhhError::Show {
            index: 10,
            text: "# p1 shows 5c5d".into(),
            reason: ShowRefusal::NotWinner,
        }
    );
    assert_eq!(
        error.to_string(),
        "action 10 (\"# p1 shows 5c5d\") refused: only the winner of a hand won without a showdown may show it"
    );
}

#[test]
fn a_players_history_keeps_the_show_and_a_winner_it_did_not_see_is_revealed_by_it() {
    let full = PhhHand::parse(&won_on_the_flop(r##", "# p3 shows KdAs""##)).unwrap();
    // p1's history: p3's cards are `????` until the show.
    let mine = phh::for_viewer(&full, 0).unwrap();
    assert!(mine.actions.contains(&"d dh p3 ????".to_string()));
    assert_eq!(mine.actions.last().unwrap(), "# p3 shows KdAs");
    let played = phh::replay(&PhhHand::parse(&mine.to_toml()).unwrap()).unwrap();
    assert_eq!(
        played.events.last().unwrap(),
        &Event::Shown {
            player: 2,
            cards: cards("KdAs")
        }
    );
    // Cards it did not know may be any cards nobody else holds or sees: not p1's own,
    // not the board's.
    let text = mine.to_toml();
    for taken in ["5cAs", "Ah2s"] {
        let forged = text.replace("# p3 shows KdAs", &format!("# p3 shows {taken}"));
        assert_eq!(show_refusal(&forged), ShowRefusal::NotHeld, "{taken}");
    }
    let other = text.replace("# p3 shows KdAs", "# p3 shows QsQh");
    assert!(replay(&other).is_ok(), "cards nobody else holds or sees");
}

#[test]
fn comments_that_are_not_the_notation_are_left_alone_and_a_broken_one_is_refused() {
    // Anyone's commentary, and the PokerStars writer's own.
    for note in [
        r##", "# Alice shows her hand""##,
        r##", "# p3 shows in part As""##,
        r##", "# p3 doesn't show hand""##,
    ] {
        let played = replay(&won_on_the_flop(note)).unwrap();
        assert!(
            matches!(played.events.last(), Some(Event::HandEnded { .. })),
            "{note}"
        );
    }
    for (note, reason) in [
        (r##", "# p4 shows AsKd""##, "unknown player"),
        (r##", "# p3 shows AsK""##, "invalid card notation \"AsK\""),
    ] {
        match replay(&won_on_the_flop(note)) {
            Err(PhhError::Notation { reason: r, .. }) => assert_eq!(r, reason, "{note}"),
            other => panic!("{note}: expected a notation error, got {other:?}"),
        }
    }
}

#[test]
fn a_stud_winner_shows_every_card_down_and_up() {
    // Razz on fourth street: two down cards and two up cards, all four shown.
    let text = r##"
variant = "FR"
antes = [1, 1, 1]
bring_in = 2
small_bet = 4
big_bet = 8
starting_stacks = [100, 100, 100]
actions = ["d dh p1 KhKs9d", "d dh p2 3d3s5h", "d dh p3 QhQdAs", "p1 pb", "p2 cc", "p3 cc",
  "d dh p1 4s", "d dh p2 4h", "d dh p3 Ah", "p2 cbr 4", "p3 f", "p1 f", "# p2 shows 3s3d4h5h"]
"##;
    let played = replay(text).unwrap();
    assert_eq!(
        played.events.last().unwrap(),
        &Event::Shown {
            player: 1,
            cards: cards("3s3d4h5h")
        }
    );
    // Only the up cards is a part of the hand.
    let part = text.replace("# p2 shows 3s3d4h5h", "# p2 shows 5h4h");
    assert_eq!(show_refusal(&part), ShowRefusal::NotHeld);
}
