//! The house options for posts (R9, R10, R13-R15, R17): straddles, live and dead posts,
//! the kill blind, a button blind and the dealer's ante, each with its worked example.

use super::*;

#[test]
fn r15_straddle_example() {
    // Alice $1, Bob $2, Carol straddles $4; David, Ellen (button).
    let cfg = holdem(
        Structure::NoLimit,
        NL,
        seats(&[
            (100, 0, 1, B),
            (100, 0, 2, B),
            (100, 0, 4, BlindKind::Straddle),
            (100, 0, 0, B),
            (100, 0, 0, B),
        ]),
    );
    let mut t = table(cfg);
    assert_eq!(
        t.hand.to_act(),
        Some(3),
        "because of the straddle David acts first"
    );
    t.act(3, Action::Fold);
    t.act(4, Action::Call);
    t.act(0, Action::Fold);
    assert_eq!(
        t.legal().call,
        Some(2),
        "Bob calls the straddle with $2 more"
    );
    t.act(1, Action::Call);
    let l = t.legal();
    assert_eq!((l.player, l.check), (2, true), "Carol has the option");
    assert_eq!(
        l.bet_or_raise.map(|r| r.0),
        Some(8),
        "the straddle sets the minimum"
    );
    t.act(2, bet(12));
    t.act(4, Action::Fold);
    t.act(1, Action::Call);
    assert_eq!(t.hand.street(), 1);
}

#[test]
fn r15_mississippi_straddle_example() {
    // Ellen, on the button, straddles $4: Alice acts first.
    let cfg = holdem(
        Structure::NoLimit,
        NL,
        seats(&[
            (100, 0, 1, B),
            (100, 0, 2, B),
            (100, 0, 0, B),
            (100, 0, 0, B),
            (100, 0, 4, BlindKind::Straddle),
        ]),
    );
    let mut t = table(cfg);
    assert_eq!(t.hand.to_act(), Some(0));
    t.act(0, Action::Fold);
    t.act(1, Action::Call);
    t.act(2, Action::Fold);
    t.act(3, Action::Call);
    let l = t.legal();
    assert_eq!((l.player, l.check), (4, true), "Ellen has the option");
    t.act(4, Action::Check);
    assert_eq!(t.hand.street(), 1);
}

#[test]
fn r15_sleeper_example() {
    // David posts a sleeper of $4: Carol acts first and faces $4.
    let cfg = holdem(
        Structure::NoLimit,
        NL,
        seats(&[
            (100, 0, 1, B),
            (100, 0, 2, B),
            (100, 0, 0, B),
            (100, 0, 4, BlindKind::Sleeper),
            (100, 0, 0, B),
        ]),
    );
    let mut t = table(cfg);
    assert_eq!((t.legal().player, t.legal().call), (2, Some(4)));
    t.act(2, Action::Call);
    assert_eq!(t.hand.to_act(), Some(4), "play passes over David");
    t.act(4, Action::Call);
    t.act(0, Action::Fold);
    let l = t.legal();
    assert_eq!(
        (l.player, l.check, l.call),
        (1, false, Some(2)),
        "Bob no longer has the option"
    );
    t.act(1, bet(8));
    t.act(2, bet(12));
    assert_eq!(
        (t.legal().player, t.legal().call),
        (3, Some(8)),
        "the bet is now $8 to David"
    );
    t.act(3, Action::Call);
    t.act(4, Action::Call);
    t.act(1, Action::Call);
    assert_eq!(t.hand.street(), 1);
}

#[test]
fn r13_a_live_post_counts_toward_the_posters_bet_and_keeps_the_option() {
    // A new player in the cutoff posts a live $2.
    let cfg = holdem(
        Structure::NoLimit,
        NL,
        seats(&[
            (100, 0, 1, B),
            (100, 0, 2, B),
            (100, 0, 0, B),
            (100, 0, 2, BlindKind::Post),
            (100, 0, 0, B),
        ]),
    );
    let mut t = table(cfg);
    assert_eq!(
        t.hand.to_act(),
        Some(2),
        "play starts left of the big blind, not the post"
    );
    t.act(2, Action::Call);
    let l = t.legal();
    assert_eq!(
        (l.player, l.check),
        (3, true),
        "the post is live: nothing more to call"
    );
    t.act(3, Action::Check);
    t.act(4, Action::Call);
    t.act(0, Action::Call);
    t.act(1, Action::Check);
    assert_eq!(t.hand.street(), 1);
}

#[test]
fn r14_a_missed_small_blind_is_dead_and_not_counted_toward_the_call() {
    // Returning player: $2 live plus $1 dead.
    let cfg = holdem(
        Structure::NoLimit,
        NL,
        seats(&[
            (100, 0, 1, B),
            (100, 0, 2, B),
            (100, 0, 0, B),
            (100, 1, 2, BlindKind::Post),
        ]),
    );
    let mut t = table(cfg);
    t.act(2, bet(6));
    assert_eq!(
        t.legal().call,
        Some(4),
        "the dead $1 does not count toward the call"
    );
    // By house rule both are live: the $3 counts.
    let cfg = holdem(
        Structure::NoLimit,
        NL,
        seats(&[
            (100, 0, 1, B),
            (100, 0, 2, B),
            (100, 0, 0, B),
            (100, 0, 3, BlindKind::Post),
        ]),
    );
    let mut t = table(cfg);
    assert_eq!(
        t.legal().call,
        Some(2),
        "others still call the big blind only"
    );
    t.act(2, bet(6));
    assert_eq!(t.legal().call, Some(3));
}

#[test]
fn r17_the_kill_blind_acts_last_in_the_first_round() {
    // Five-handed, A the dealer, E posts the kill: order D, A, B, C, E.
    // Hand order from the button's left: B, C, D, E, A.
    let cfg = holdem(
        Structure::FixedLimit,
        Stakes {
            small_bet: 4,
            big_bet: 8,
            ..Stakes::default()
        },
        seats(&[
            (100, 0, 1, B),
            (100, 0, 2, B),
            (100, 0, 0, B),
            (100, 0, 4, BlindKind::Kill),
            (100, 0, 0, B),
        ]),
    );
    let mut t = table(cfg);
    let mut order = Vec::new();
    while t.hand.street() == 0 {
        let p = t.hand.to_act().unwrap();
        order.push(p);
        let a = if t.legal().call.is_some() {
            Action::Call
        } else {
            Action::Check
        };
        t.act(p, a);
    }
    assert_eq!(order, vec![2, 4, 0, 1, 3], "D, A, B, C, then E");
}

#[test]
fn r10_three_blinds_with_a_button_blind() {
    // Quarter, quarter on the button, half: $1, $1 (button), $2.
    let cfg = holdem(
        Structure::NoLimit,
        NL,
        seats(&[
            (100, 0, 1, B),
            (100, 0, 2, B),
            (100, 0, 0, B),
            (100, 0, 1, B),
        ]),
    );
    let mut t = table(cfg);
    assert_eq!(t.hand.to_act(), Some(2));
    t.act(2, Action::Call);
    assert_eq!(
        (t.legal().player, t.legal().call),
        (3, Some(1)),
        "the button blind is live"
    );
    t.act(3, Action::Call);
    t.act(0, Action::Call);
    t.act(1, Action::Check);
    assert_eq!(t.hand.pots()[0].amount, 8);
}

#[test]
fn r9_the_dealer_may_pay_the_ante_for_everyone() {
    let cfg = holdem(
        Structure::NoLimit,
        NL,
        seats(&[(100, 0, 1, B), (100, 0, 2, B), (100, 4, 0, B)]),
    );
    let mut t = table(cfg);
    t.act(2, Action::Fold);
    t.act(0, Action::Call);
    t.act(1, Action::Check);
    assert_eq!(t.hand.pots()[0].amount, 8);
}

#[test]
fn r15_re_straddles_are_each_at_least_double_and_posted_where_the_house_allows() {
    const S: BlindKind = BlindKind::Straddle;
    let re = |third: u64| {
        holdem(
            Structure::NoLimit,
            NL,
            seats(&[
                (100, 0, 1, B),
                (100, 0, 2, B),
                (100, 0, 4, S),
                (100, 0, third, S),
                (100, 0, 0, B),
            ]),
        )
    };
    assert!(re(8).validate().is_ok(), "a re-straddle of double");
    assert!(matches!(re(6).validate(), Err(ConfigError::Invalid(m)) if m.contains("double")));
    // A Mississippi straddle on the button: allowed from any seat or button only.
    let mississippi = |rule| {
        let mut cfg = holdem(
            Structure::NoLimit,
            NL,
            seats(&[
                (100, 0, 1, B),
                (100, 0, 2, B),
                (100, 0, 0, B),
                (100, 0, 0, B),
                (100, 0, 4, S),
            ]),
        );
        cfg.options.straddles = rule;
        cfg.validate()
    };
    assert!(mississippi(StraddleRule::AnySeat).is_ok());
    assert!(mississippi(StraddleRule::ButtonOnly).is_ok());
    assert!(mississippi(StraddleRule::UnderTheGun).is_err());
    // From the cutoff: only where any seat may straddle.
    let mut cutoff = holdem(
        Structure::NoLimit,
        NL,
        seats(&[
            (100, 0, 1, B),
            (100, 0, 2, B),
            (100, 0, 0, B),
            (100, 0, 4, S),
            (100, 0, 0, B),
        ]),
    );
    cutoff.options.straddles = StraddleRule::ButtonOnly;
    assert!(cutoff.validate().is_err());
    cutoff.options.straddles = StraddleRule::AnySeat;
    assert!(cutoff.validate().is_ok());
}
