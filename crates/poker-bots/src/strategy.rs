//! A bot's play: a rough strength of what it holds (0 to 1) for the game's way of
//! winning, then an action the legal set allows. Sensible, not strong: it bets good
//! hands, calls reasonable prices, checks when free, folds weak hands to big bets, and
//! bluffs now and then. Never an illegal action: amounts come from the legal range,
//! rounded to the betting unit.

use poker_rules::eval::high::{category, evaluate};
use poker_rules::eval::Category;
use poker_rules::{Action, Card, Cards, Chips, Game, LegalActions};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// How a game is won, as far as the bot's judgement goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Hold'em and short deck: two hole cards and a board, best high hand.
    Holdem,
    /// Omaha (high, or hi/lo): four hole cards, exactly two with three of the board.
    Omaha,
    /// Seven card stud (high, or hi/lo).
    Stud,
    /// Razz: ace-to-five low, stud dealt.
    Razz,
    /// Deuce-to-seven lowball (single or triple draw).
    Lowball,
    /// Badugi.
    Badugi,
}

impl Family {
    /// The family of a game, from the table view's typed game.
    pub fn of(game: Game) -> Family {
        match game {
            Game::Holdem | Game::ShortDeckHoldem => Family::Holdem,
            Game::Omaha | Game::OmahaHiLo => Family::Omaha,
            Game::Stud | Game::StudHiLo => Family::Stud,
            Game::Razz => Family::Razz,
            Game::DeuceToSevenSingleDraw | Game::DeuceToSevenTripleDraw => Family::Lowball,
            Game::Badugi => Family::Badugi,
        }
    }
}

/// A bot's decision maker, with its own randomness.
pub struct Strategy {
    rng: SmallRng,
}

impl Default for Strategy {
    fn default() -> Strategy {
        Strategy::new(rand::random())
    }
}

/// Rank 0 (deuce) .. 12 (ace).
fn rank(c: Card) -> u8 {
    c.rank().0
}

/// A low rank for ace-to-five games: ace 1, deuce 2 .. king 13.
fn low_rank(c: Card) -> u8 {
    if rank(c) == 12 {
        1
    } else {
        rank(c) + 2
    }
}

fn high_strength(cards: &[Card]) -> f64 {
    if cards.len() >= 5 {
        let best = if cards.len() <= 7 {
            evaluate(cards)
        } else {
            evaluate(&cards[..7])
        };
        return match category(best) {
            Category::HighCard => {
                0.1 + cards.iter().map(|&c| rank(c)).max().unwrap_or(0) as f64 / 80.0
            }
            Category::OnePair => 0.45,
            Category::TwoPair => 0.68,
            Category::ThreeOfAKind => 0.8,
            Category::Straight => 0.86,
            Category::Flush => 0.9,
            Category::FullHouse => 0.95,
            Category::FourOfAKind | Category::StraightFlush => 1.0,
        };
    }
    // Fewer than five cards: pairs and high cards.
    let mut counts = [0u8; 13];
    for &c in cards {
        counts[rank(c) as usize] += 1;
    }
    let best = counts.iter().copied().max().unwrap_or(0);
    let high = cards.iter().map(|&c| rank(c)).max().unwrap_or(0) as f64 / 12.0;
    match best {
        0 | 1 => 0.15 + 0.35 * high,
        2 => 0.5 + 0.35 * high,
        _ => 0.9,
    }
}

/// Hold'em before the flop: pairs, high cards, suited and connected.
fn preflop(hole: &[Card]) -> f64 {
    if hole.len() < 2 {
        return 0.3;
    }
    let (a, b) = (
        rank(hole[0]).max(rank(hole[1])),
        rank(hole[0]).min(rank(hole[1])),
    );
    if a == b {
        return 0.55 + 0.4 * a as f64 / 12.0;
    }
    let mut s = 0.1 + 0.45 * (a as f64 + b as f64) / 24.0;
    if hole[0].suit() == hole[1].suit() {
        s += 0.06;
    }
    if a - b == 1 {
        s += 0.04;
    }
    s
}

/// Omaha: the best two-from-hand, three-from-board high hand (or the hole cards alone).
fn omaha(hole: &[Card], board: &[Card]) -> f64 {
    if board.len() < 3 {
        let mut counts = [0u8; 13];
        hole.iter().for_each(|&c| counts[rank(c) as usize] += 1);
        let pairs = counts.iter().filter(|&&n| n == 2).count() as f64;
        let high = hole.iter().filter(|&&c| rank(c) >= 8).count() as f64;
        return (0.25 + 0.15 * pairs + 0.06 * high).min(0.85);
    }
    let mut best = 0.0f64;
    for i in 0..hole.len() {
        for j in i + 1..hole.len() {
            for x in 0..board.len() {
                for y in x + 1..board.len() {
                    for z in y + 1..board.len() {
                        let five = [hole[i], hole[j], board[x], board[y], board[z]];
                        best = best.max(high_strength(&five));
                    }
                }
            }
        }
    }
    best
}

/// Lowball strength: how many distinct low cards (at most `top`) the hand holds.
fn low_strength(ranks: &[u8], top: u8, wanted: usize) -> f64 {
    let mut distinct: Vec<u8> = ranks.iter().copied().filter(|&r| r <= top).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let n = distinct.len().min(wanted) as f64;
    let worst = distinct.iter().take(wanted).max().copied().unwrap_or(top) as f64;
    (n / wanted as f64) * (0.55 + 0.4 * (1.0 - worst / (top as f64 + 1.0)))
}

/// The cards a badugi keeps: as many as possible with distinct ranks and suits, low first.
fn badugi_keep(hole: &[Card]) -> Vec<Card> {
    let mut sorted: Vec<Card> = hole.to_vec();
    sorted.sort_by_key(|&c| low_rank(c));
    let mut keep: Vec<Card> = Vec::new();
    for c in sorted {
        if keep
            .iter()
            .all(|k| k.suit() != c.suit() && low_rank(*k) != low_rank(c))
        {
            keep.push(c);
        }
    }
    keep
}

impl Strategy {
    /// A strategy with this seed (reproducible play for tests and load runs).
    pub fn new(seed: u64) -> Strategy {
        Strategy {
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    /// How good the hand is, 0 to 1, from the cards the bot can see: its own (face up
    /// or down) and the board.
    pub fn strength(&self, family: Family, hole: &[Card], board: &[Card]) -> f64 {
        let hole: Vec<Card> = hole.iter().copied().filter(|c| c.is_known()).collect();
        match family {
            Family::Holdem if board.is_empty() => preflop(&hole),
            Family::Holdem => {
                let mut all = hole.clone();
                all.extend_from_slice(board);
                high_strength(&all)
            }
            Family::Omaha => omaha(&hole, board),
            Family::Stud => high_strength(&hole),
            Family::Razz => {
                let ranks: Vec<u8> = hole.iter().map(|&c| low_rank(c)).collect();
                low_strength(&ranks, 8, 5)
            }
            Family::Lowball => {
                // Deuce-to-seven: the ace is high; 2..8 are the good cards.
                let ranks: Vec<u8> = hole.iter().map(|&c| rank(c) + 2).collect();
                low_strength(&ranks, 8, 5)
            }
            Family::Badugi => {
                let keep = badugi_keep(&hole);
                let worst = keep.iter().map(|&c| low_rank(c)).max().unwrap_or(13) as f64;
                keep.len() as f64 / 4.0 * (0.6 + 0.4 * (1.0 - worst / 14.0))
            }
        }
    }

    /// A betting action within `legal`, for a hand of this strength; `stack` is what
    /// the bot has behind (to size bets), `pot` the chips in the middle.
    pub fn bet(&mut self, strength: f64, legal: &LegalActions, stack: Chips, pot: Chips) -> Action {
        let r: f64 = self.rng.gen();
        if let Some(_bring_in) = legal.bring_in {
            // Stud's first bet: complete with a strong hand, else bring it in.
            if strength > 0.7 && r < 0.6 {
                if let Some((min, _)) = legal.bet_or_raise {
                    return Action::BetOrRaiseTo { to: min };
                }
            }
            return Action::BringIn;
        }
        let raise = |this: &mut Strategy, share: f64| -> Option<Action> {
            let (min, max) = legal.bet_or_raise?;
            let target = min as f64 + share * (pot.max(min) as f64) * this.rng.gen_range(0.5..1.0);
            let unit = legal.unit.max(1);
            let mut to = (target as Chips).clamp(min, max);
            if to != max {
                to = min + (to - min) / unit * unit;
            }
            Some(Action::BetOrRaiseTo { to })
        };
        let bluff = r < 0.04;
        if legal.check {
            if strength > 0.62 || bluff {
                if let Some(a) = raise(self, 0.5) {
                    return a;
                }
            }
            return Action::Check;
        }
        let call = legal.call.unwrap_or(0);
        if strength > 0.8 && r < 0.7 {
            if let Some(a) = raise(self, 0.6) {
                return a;
            }
        }
        // The price: what the call costs against the pot and against the stack.
        let price = call as f64 / (pot + call).max(1) as f64;
        let depth = call as f64 / (stack.max(1)) as f64;
        if strength > 0.25 + price * 0.6 + depth * 0.4 || bluff {
            return Action::Call;
        }
        Action::Fold
    }

    /// Which cards to throw away in a draw game (an empty set stands pat).
    pub fn discards(&mut self, family: Family, hole: &[Card]) -> Cards {
        let known: Vec<Card> = hole.iter().copied().filter(|c| c.is_known()).collect();
        let out: Vec<Card> = match family {
            Family::Badugi => {
                let keep = badugi_keep(&known);
                known
                    .iter()
                    .copied()
                    .filter(|c| !keep.contains(c))
                    .collect()
            }
            _ => {
                // Deuce-to-seven: keep one of each rank from deuce to eight; the rest go.
                let mut seen = Vec::new();
                let mut out = Vec::new();
                let mut sorted = known.clone();
                sorted.sort_by_key(|&c| rank(c));
                for c in sorted {
                    let r = rank(c) + 2;
                    if r <= 8 && !seen.contains(&r) {
                        seen.push(r);
                    } else {
                        out.push(c);
                    }
                }
                out
            }
        };
        Cards::from_slice(&out).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use poker_rules::{Decision, Game, Hand, HandConfig, SeatConfig, Stakes, Structure};

    fn cards(s: &str) -> Vec<Card> {
        Card::parse_many(s).unwrap()
    }

    #[test]
    fn stronger_hands_score_higher_in_every_family() {
        let s = Strategy::new(1);
        assert!(
            s.strength(Family::Holdem, &cards("AsAh"), &[])
                > s.strength(Family::Holdem, &cards("7c2d"), &[])
        );
        assert!(
            s.strength(Family::Holdem, &cards("AsKs"), &cards("QsJsTs"))
                > s.strength(Family::Holdem, &cards("9c2d"), &cards("QsJsTs"))
        );
        assert!(
            s.strength(Family::Omaha, &cards("AsAhKsKh"), &cards("Ac7d2h"))
                > s.strength(Family::Omaha, &cards("9c8c3d2d"), &cards("Ac7dKh"))
        );
        assert!(
            s.strength(Family::Razz, &cards("As2d3c4h5s"), &[])
                > s.strength(Family::Razz, &cards("KsKdQcJhTs"), &[])
        );
        assert!(
            s.strength(Family::Lowball, &cards("7s5d4c3h2s"), &[])
                > s.strength(Family::Lowball, &cards("AsAdKcQhJs"), &[])
        );
        assert!(
            s.strength(Family::Badugi, &cards("As2d3c4h"), &[])
                > s.strength(Family::Badugi, &cards("AsAdAcAh"), &[])
        );
    }

    #[test]
    fn draws_throw_away_pairs_and_high_cards() {
        let mut s = Strategy::new(2);
        let out = s.discards(Family::Lowball, &cards("7s7d4cKh2s"));
        let out: Vec<Card> = out.as_slice().to_vec();
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(out.contains(&cards("Kh")[0]));
        let out = s.discards(Family::Badugi, &cards("As2s3c4h"));
        assert_eq!(out.len(), 1, "one of the two spades goes");
        assert!(
            s.discards(Family::Lowball, &cards("7s5d4c3h2s")).is_empty(),
            "pat"
        );
    }

    #[test]
    fn every_action_the_strategy_chooses_is_legal_in_random_hands_of_every_game() {
        // Random hands of every game and structure played to the end by the strategy
        // alone: the engine refuses nothing.
        let games = [
            (Game::Holdem, Structure::NoLimit, Family::Holdem),
            (Game::Holdem, Structure::FixedLimit, Family::Holdem),
            (Game::Omaha, Structure::PotLimit, Family::Omaha),
            (Game::OmahaHiLo, Structure::FixedLimit, Family::Omaha),
            (Game::ShortDeckHoldem, Structure::NoLimit, Family::Holdem),
            (Game::Stud, Structure::FixedLimit, Family::Stud),
            (Game::StudHiLo, Structure::FixedLimit, Family::Stud),
            (Game::Razz, Structure::FixedLimit, Family::Razz),
            (
                Game::DeuceToSevenTripleDraw,
                Structure::FixedLimit,
                Family::Lowball,
            ),
            (
                Game::DeuceToSevenSingleDraw,
                Structure::NoLimit,
                Family::Lowball,
            ),
            (Game::Badugi, Structure::FixedLimit, Family::Badugi),
        ];
        let mut strategy = Strategy::new(7);
        let mut rng = SmallRng::seed_from_u64(11);
        for (game, structure, family) in games {
            for _ in 0..60 {
                let stud = matches!(game, Game::Stud | Game::StudHiLo | Game::Razz);
                let n = rng.gen_range(2..=6);
                let seats: Vec<SeatConfig> = (0..n)
                    .map(|i| SeatConfig {
                        stack: rng.gen_range(20..400),
                        ante: if stud { 1 } else { 0 },
                        blind: if stud {
                            0
                        } else if i == 0 {
                            1
                        } else if i == 1 {
                            2
                        } else {
                            0
                        },
                        ..SeatConfig::default()
                    })
                    .collect();
                let stakes = Stakes {
                    min_bet: 2,
                    small_bet: 2,
                    big_bet: 4,
                    bring_in: if stud { 1 } else { 0 },
                };
                let mut config = HandConfig::new(game, structure, stakes, seats);
                if structure == Structure::FixedLimit {
                    config.max_raises = Some(4);
                }
                let mut deck = game.deck().cards();
                use rand::seq::SliceRandom;
                deck.shuffle(&mut rng);
                let (mut hand, _) = Hand::new(config, poker_rules::CardSource::Deck(deck)).unwrap();
                let mut guard = 0;
                while let Some(p) = hand.to_act() {
                    guard += 1;
                    assert!(guard < 500, "the hand ends");
                    if let Some(muck) = hand.needs_reshuffle() {
                        let mut m = muck.to_vec();
                        m.shuffle(&mut rng);
                        hand.reshuffle(m).unwrap();
                        continue;
                    }
                    let me = &hand.players()[p];
                    let hole: Vec<Card> = me.hole.as_slice().to_vec();
                    let board = hand.board().to_vec();
                    let action = match hand.decision().unwrap() {
                        Decision::Bet(legal) => {
                            let s = strategy.strength(family, &hole, &board);
                            let pot: Chips = hand.players().iter().map(|p| p.committed).sum();
                            strategy.bet(s, &legal, me.stack, pot)
                        }
                        Decision::Draw => Action::Draw {
                            discards: strategy.discards(family, &hole),
                        },
                        Decision::RunItTwice => Action::RunItTwice { agree: true },
                        Decision::Showdown { .. } => Action::Show { cards: None },
                    };
                    hand.apply(p, action).unwrap_or_else(|e| {
                        panic!("{game:?} {structure:?}: {action:?} refused: {e}")
                    });
                }
                assert!(hand.is_complete());
            }
        }
    }
}
