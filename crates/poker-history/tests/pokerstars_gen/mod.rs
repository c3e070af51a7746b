//! The authored PokerStars fixtures: hands our engine deals from fixed seeds, played by
//! seeded random choices, written by our PokerStars writer for one viewer; and edge
//! cases written by hand as PHH (run it twice, a straddle, side pots, a dead small blind
//! posted with the big, a winner who does not show, hands shown in part, winners without
//! a showdown who show).

use poker_history::phh::{self, PhhHand};
use poker_history::pokerstars::money::Money;
use poker_history::pokerstars::{write_in, Meta};
use poker_rules::table::{Post, PostKind};
use poker_rules::{
    Action, BlindKind, CardSource, Chips, Decision, Game, Hand, HandConfig, HandOptions, Rake,
    RakeRounding, SeatConfig, Stakes, Structure,
};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

const NAMES: [&str; 9] = [
    "Ann", "Bob 2", "cat_77", "Dee", "Eve.x", "Fox", "Gus", "Hal-9", "Ivy",
];

/// One file: its name and its text.
pub fn all_files() -> Vec<(String, String)> {
    let games: [(&str, Game, Structure, Money); 12] = [
        ("holdem_no_limit", Game::Holdem, Structure::NoLimit, usd()),
        (
            "holdem_pot_limit",
            Game::Holdem,
            Structure::PotLimit,
            Money::Chips,
        ),
        (
            "holdem_limit",
            Game::Holdem,
            Structure::FixedLimit,
            Money::Chips,
        ),
        ("omaha_pot_limit", Game::Omaha, Structure::PotLimit, usd()),
        (
            "omaha_hi_lo_pot_limit",
            Game::OmahaHiLo,
            Structure::PotLimit,
            Money::Chips,
        ),
        (
            "stud_limit",
            Game::Stud,
            Structure::FixedLimit,
            Money::Chips,
        ),
        (
            "stud_hi_lo_limit",
            Game::StudHiLo,
            Structure::FixedLimit,
            usd(),
        ),
        (
            "razz_limit",
            Game::Razz,
            Structure::FixedLimit,
            Money::Chips,
        ),
        (
            "single_draw_2_7_no_limit",
            Game::DeuceToSevenSingleDraw,
            Structure::NoLimit,
            Money::Chips,
        ),
        (
            "triple_draw_2_7_limit",
            Game::DeuceToSevenTripleDraw,
            Structure::FixedLimit,
            Money::Chips,
        ),
        (
            "badugi_limit",
            Game::Badugi,
            Structure::FixedLimit,
            Money::Chips,
        ),
        (
            "six_plus_holdem_no_limit",
            Game::ShortDeckHoldem,
            Structure::NoLimit,
            Money::Chips,
        ),
    ];
    let mut files = Vec::new();
    for (k, (name, game, structure, money)) in games.into_iter().enumerate() {
        let mut text = String::new();
        for i in 0..6u64 {
            let seed = 27_000 + 100 * k as u64 + i;
            text.push_str(&dealt(seed, game, structure, &money, name));
            text.push_str("\n\n");
        }
        files.push((name.to_string(), text));
    }
    files.push(("edge_cases".to_string(), edge_cases()));
    files
}

fn usd() -> Money {
    Money::Cash {
        sign: "$".into(),
        code: Some("USD".into()),
    }
}

/// The configuration of a seeded hand: stakes by structure, random stacks, blinds (or
/// stud antes), run it twice offered in board games, rake heads-up (where the house's
/// schedule and the text's one rake figure cannot split pots differently).
fn config(rng: &mut StdRng, game: Game, structure: Structure) -> HandConfig {
    let stud = matches!(game, Game::Stud | Game::StudHiLo | Game::Razz);
    let max = if game.is_draw() { 5 } else { 6 };
    let n = rng.gen_range(2..=max);
    let fixed = structure == Structure::FixedLimit;
    let mut seats: Vec<SeatConfig> = (0..n)
        .map(|_| SeatConfig {
            stack: rng.gen_range(15..=120) * 10,
            ante: 0,
            blind: 0,
            kind: BlindKind::Blind,
        })
        .collect();
    if stud {
        for s in &mut seats {
            s.ante = 2;
        }
    } else if n == 2 {
        seats[0].blind = 10;
        seats[1].blind = 5;
    } else {
        seats[0].blind = 5;
        seats[1].blind = 10;
    }
    if game == Game::ShortDeckHoldem {
        for s in &mut seats {
            s.ante = 5;
        }
    }
    let mut c = HandConfig::new(
        game,
        structure,
        Stakes {
            min_bet: if fixed { 0 } else { 10 },
            small_bet: if fixed { 10 } else { 0 },
            big_bet: if fixed { 20 } else { 0 },
            bring_in: if stud { 5 } else { 0 },
        },
        seats,
    );
    if fixed {
        c.max_raises = Some(3);
        c.uncapped_heads_up = true;
    }
    c.options = HandOptions {
        run_it_twice: game.has_board(),
        rake: (n == 2).then_some(Rake {
            basis_points: 500,
            cap: 30,
            no_flop_no_drop: true,
            rounding: RakeRounding::Down,
        }),
        ..HandOptions::default()
    };
    c
}

/// A random legal choice for whoever must decide.
fn choose(rng: &mut StdRng, hand: &Hand) -> Action {
    match hand.decision().expect("a decision") {
        Decision::Bet(legal) => {
            let roll = rng.gen_range(0..100);
            if let Some(b) = legal.bring_in {
                let _ = b;
                return if roll < 70 {
                    Action::BringIn
                } else {
                    Action::BetOrRaiseTo {
                        to: legal.bet_or_raise.expect("complete").0,
                    }
                };
            }
            let raise = legal.bet_or_raise.map(|(lo, hi)| {
                let to = if rng.gen_bool(0.7) {
                    lo
                } else {
                    rng.gen_range(lo..=hi)
                };
                Action::BetOrRaiseTo { to }
            });
            match (legal.check, legal.call, raise) {
                (true, _, Some(r)) if roll < 35 => r,
                (true, _, _) => Action::Check,
                (_, Some(_), Some(r)) if roll < 18 => r,
                (_, Some(_), _) if roll < 75 => Action::Call,
                _ => Action::Fold,
            }
        }
        Decision::Draw => {
            let p = hand.to_act().expect("a drawer");
            let mut hole: Vec<_> = hand.players()[p].hole.iter().copied().collect();
            hole.shuffle(rng);
            let k = rng.gen_range(0..=3.min(hole.len()));
            Action::Draw {
                discards: poker_rules::Cards::from_slice(&hole[..k]).expect("cards"),
            }
        }
        Decision::Showdown { can_muck } => {
            if can_muck && rng.gen_bool(0.4) {
                Action::Muck
            } else {
                Action::Show { cards: None }
            }
        }
        Decision::RunItTwice => Action::RunItTwice {
            agree: rng.gen_bool(0.6),
        },
    }
}

/// One hand dealt from `seed` and played out, written for one viewer.
fn dealt(seed: u64, game: Game, structure: Structure, money: &Money, table: &str) -> String {
    let mut rng = StdRng::seed_from_u64(seed);
    let config = config(&mut rng, game, structure);
    let mut deck = game.deck().cards();
    deck.shuffle(&mut rng);
    let (mut hand, mut events) =
        Hand::new(config.clone(), CardSource::Deck(deck)).expect("a valid hand");
    while !hand.is_complete() {
        let p = hand.to_act().expect("someone acts");
        let action = choose(&mut rng, &hand);
        events.extend(hand.apply(p, action).expect("a legal action"));
    }
    let stacks = hand.final_stacks().expect("complete");
    let start: Chips = config.seats.iter().map(|s| s.stack).sum();
    assert_eq!(
        start,
        stacks.iter().sum::<Chips>() + hand.rake(),
        "conserved"
    );
    let phh = phh::write(&config, &events, Some(&stacks)).expect("a PHH game");
    let n = config.seats.len();
    // Seats rising in hand order, the button (the last player) on the highest.
    let mut seats: Vec<u32> = (1..=9).collect();
    seats.shuffle(&mut rng);
    let mut seats: Vec<u32> = seats[..n].to_vec();
    seats.sort_unstable();
    let players: Vec<String> = NAMES[..n].iter().map(|s| s.to_string()).collect();
    write(
        &phh,
        &players,
        &seats,
        seed,
        rng.gen_range(0..n),
        &[],
        money,
        table,
    )
}

#[allow(clippy::too_many_arguments)]
fn write(
    phh: &PhhHand,
    players: &[String],
    seats: &[u32],
    number: u64,
    viewer: usize,
    posts: &[Post],
    money: &Money,
    table: &str,
) -> String {
    let text = phh.to_toml();
    write_in(
        &Meta {
            hand_number: 270_000_000 + number,
            table_name: table,
            // 2026-11-22 10:00:00 UTC, a minute per hand.
            started_at_ms: 1_795_341_600_000 + (number as i64 % 1000) * 60_000,
            players,
            seats,
            seat_count: 9,
            button_seat: Some(seats[seats.len() - 1]),
            posts,
            phh: &text,
            viewer: Some(viewer),
            play_money: false,
        },
        money,
    )
    .expect("written")
}

/// Hands written by hand as PHH, each showing one PokerStars form.
fn edge_cases() -> String {
    let names = |n: usize| -> Vec<String> { NAMES[..n].iter().map(|s| s.to_string()).collect() };
    let mut out = String::new();
    let mut add = |phh: &str, n: usize, seats: &[u32], posts: &[Post], number: u64| {
        let phh = PhhHand::parse(phh).expect("valid PHH");
        out.push_str(&write(
            &phh,
            &names(n),
            seats,
            number,
            0,
            posts,
            &usd(),
            "Edge",
        ));
        out.push_str("\n\n");
    };
    // Run it twice: all in on the flop, the turn and river dealt twice, the pot split.
    add(
        r##"variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [10000, 8000, 12000]
actions = ['d dh p1 AcAd', 'd dh p2 KcKd', 'd dh p3 7h2c', 'p3 f', 'p1 cbr 300', 'p2 cc',
  'd db Qs8h3d', 'p1 cbr 9700', 'p2 cc', '# p1 run it twice: yes', '# p2 run it twice: yes',
  'd db 4c', 'd db Kh', '# d db2 5s9c', 'p1 sm AcAd', 'p2 sm KcKd']
_options = '{"run_it_twice":true}'
"##,
        3,
        &[2, 5, 7],
        &[],
        1,
    );
    // A straddle under the gun, called and raised.
    add(
        r##"variant = 'NT'
antes = [0, 0, 0, 0]
blinds_or_straddles = [25, 50, 100, 0]
min_bet = 50
starting_stacks = [5000, 5000, 5000, 5000]
actions = ['d dh p1 2c3c', 'd dh p2 4d5d', 'd dh p3 AhKh', 'd dh p4 QsQd', 'p4 cbr 300',
  'p1 f', 'p2 f', 'p3 cc', 'd db 2h7h9s', 'p3 cbr 400', 'p4 f', "# p3 doesn't show hand"]
_blind_kinds = ['blind', 'blind', 'straddle', 'blind']
"##,
        4,
        &[1, 3, 4, 6],
        &[Post {
            seat: 3,
            kind: PostKind::Straddle,
            amount: 100,
            live: true,
        }],
        2,
    );
    // Three all in for different amounts: a main pot and two side pots.
    add(
        r##"variant = 'NT'
antes = [0, 0, 0, 0]
blinds_or_straddles = [25, 50, 0, 0]
min_bet = 50
starting_stacks = [1500, 3000, 700, 9000]
actions = ['d dh p1 AsAh', 'd dh p2 KsKh', 'd dh p3 QsQh', 'd dh p4 JsJh', 'p3 cbr 700',
  'p4 cbr 3000', 'p1 cc', 'p2 cc', 'd db 2c7d9h', 'd db 3s', 'd db 4d', 'p3 sm QsQh',
  'p4 sm JsJh', 'p1 sm AsAh', 'p2 sm KsKh']
"##,
        4,
        &[1, 2, 5, 9],
        &[],
        3,
    );
    // A returning player posts a dead small blind with the big (`small & big blinds`).
    add(
        r##"variant = 'NT'
antes = [0, 0, 25, 0]
blinds_or_straddles = [25, 50, 50, 0]
min_bet = 50
starting_stacks = [2000, 2000, 2000, 2000]
actions = ['d dh p1 8c8d', 'd dh p2 9c2d', 'd dh p3 Th3h', 'd dh p4 5s6s', 'p3 cc', 'p4 f',
  'p1 cc', 'p2 cc', 'd db AdKs4h', 'p1 cc', 'p2 cc', 'p3 cbr 100', 'p1 f', 'p2 f',
  "# p3 doesn't show hand"]
_blind_kinds = ['blind', 'blind', 'post', 'blind']
"##,
        4,
        &[2, 3, 6, 8],
        &[
            Post {
                seat: 5,
                kind: PostKind::MissedSmall,
                amount: 25,
                live: false,
            },
            Post {
                seat: 5,
                kind: PostKind::MissedBig,
                amount: 50,
                live: true,
            },
        ],
        4,
    );
    // A hand shown in part at the showdown and mucked (`shows [9c]` for the muck), its
    // shown part named in the summary.
    add(
        r##"variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [4000, 4000, 4000]
actions = ['d dh p1 AcAd', 'd dh p2 9c9d', 'd dh p3 7h2c', 'p3 f', 'p1 cbr 300', 'p2 cc',
  'd db Qs8h3d', 'p1 cc', 'p2 cc', 'd db 4c', 'p1 cc', 'p2 cc', 'd db 2h', 'p1 cc', 'p2 cc',
  'p1 sm AcAd', 'p2 sm', '# p2 shows in part 9c', '# p2 mucked 9c']
"##,
        3,
        &[1, 4, 6],
        &[],
        5,
    );
    // A winner without a showdown who shows one card of the hand, after collecting.
    add(
        r##"variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [4000, 4000, 4000]
actions = ['d dh p1 5c5d', 'd dh p2 Jh9h', 'd dh p3 AsKd', 'p3 cbr 300', 'p1 f', 'p2 cc',
  'd db Ah7c2d', 'p2 cc', 'p3 cbr 400', 'p2 f', '# p3 shows in part As']
"##,
        3,
        &[1, 4, 6],
        &[],
        6,
    );
    // A winner without a showdown who shows the whole hand, after collecting.
    add(
        r##"variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [4000, 4000, 4000]
actions = ['d dh p1 5c5d', 'd dh p2 Jh9h', 'd dh p3 AsKd', 'p3 cbr 300', 'p1 f', 'p2 cc',
  'd db Ah7c2d', 'p2 cc', 'p3 cbr 400', 'p2 f', '# p3 shows AsKd']
"##,
        3,
        &[1, 4, 6],
        &[],
        7,
    );
    // Razz won on fourth street and shown, down cards and up cards.
    add(
        r##"variant = 'FR'
antes = [1, 1, 1]
bring_in = 2
small_bet = 4
big_bet = 8
starting_stacks = [100, 100, 100]
actions = ['d dh p1 KhKs9d', 'd dh p2 3d3s5h', 'd dh p3 QhQdAs', 'p1 pb', 'p2 cc', 'p3 cc',
  'd dh p1 4s', 'd dh p2 4h', 'd dh p3 Ah', 'p2 cbr 4', 'p3 f', 'p1 f', '# p2 shows 3d3s5h4h']
"##,
        3,
        &[2, 5, 7],
        &[],
        8,
    );
    // A winner before the flop who shows: two cards named by their pair.
    add(
        r##"variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [4000, 4000, 4000]
actions = ['d dh p1 5c5d', 'd dh p2 Jh9h', 'd dh p3 ThTd', 'p3 cbr 300', 'p1 f', 'p2 f',
  '# p3 shows ThTd']
"##,
        3,
        &[1, 4, 6],
        &[],
        9,
    );
    out
}
