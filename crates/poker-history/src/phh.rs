//! PHH hand histories (the Poker Hand History standard): reading `.phh` and `.phhs`
//! text, writing a hand the engine played, and replaying a history through the engine
//! to check its outcome.
//!
//! PHH amounts may be fractional (`1259450.25`); the engine counts whole chips, so a
//! history is scaled by the smallest power of ten that makes every input amount whole,
//! and results are scaled back. Players are `p1..pN` from the button's left; in
//! heads-up histories the forced-bet arrays are listed in reverse (the spec's rule).
//!
//! What the standard has no notation for is written as commentary, a whole action
//! string that starts with `#`, which other readers (pokerkit) skip:
//!
//! - run it twice: each player's answer (`# p2 run it twice: yes`) and the second run's
//!   board cards (`# d db2 7h2c`);
//! - a show after a hand won without a showdown: the winner's whole hand, after the
//!   hand is over (`# p3 shows AsKd`, every hole card in any order, as one string);
//!   [`replay`] gives it as an [`Event::Shown`] after [`Event::HandEnded`] and refuses
//!   it ([`PhhError::Show`]) anywhere else, and [`write`] writes that event back so;
//! - what a PokerStars text said that no engine action plays, for the PokerStars
//!   writer only (replay skips it): a winner who did not show (`# p3 doesn't show
//!   hand`), a mucked hand the summary names (`# p2 mucked 9sAh`), cards shown in part
//!   (`# p2 shows in part 9s`).

use poker_rules::card::{Card, Cards};
use poker_rules::game::{Structure, Variant};
use poker_rules::hand::{
    Action, ActionError, BlindKind, CardSource, Chips, Event, Hand, HandConfig, HandOptions, Phase,
    SeatConfig, Stakes,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Whether a check by `player` is the no-op pokerkit writes: it is not their turn, they
/// are still in with chips, and every opponent still in is all in, so nobody can bet.
fn lone_check(hand: &Hand, player: usize) -> bool {
    let players = hand.players();
    hand.to_act() != Some(player)
        && players
            .get(player)
            .is_some_and(|p| !p.folded && p.stack > 0)
        && players
            .iter()
            .enumerate()
            .all(|(i, p)| i == player || p.folded || p.stack == 0)
}

/// One hand history as read from PHH.
#[derive(Clone, Debug, PartialEq)]
pub struct PhhHand {
    /// The variant code.
    pub variant: Variant,
    /// The betting structure, when it is not the variant code's own (user-defined field
    /// `_structure`: "no_limit", "pot_limit", "fixed_limit", "spread_limit"). The standard
    /// has codes for eleven game and structure pairs; a hand of another pair is written
    /// with its game's code and this field, so every hand the engine plays is recorded.
    pub structure: Option<Structure>,
    /// Antes per player, as written.
    pub antes: Vec<f64>,
    /// Blinds and straddles per player, as written.
    pub blinds_or_straddles: Vec<f64>,
    /// Stud bring-in.
    pub bring_in: f64,
    /// Fixed-limit small bet.
    pub small_bet: f64,
    /// Fixed-limit big bet.
    pub big_bet: f64,
    /// No-limit and pot-limit minimum bet.
    pub min_bet: f64,
    /// Stacks when the hand began.
    pub starting_stacks: Vec<f64>,
    /// The action notations, in order.
    pub actions: Vec<String>,
    /// Stacks when the hand ended, when recorded.
    pub finishing_stacks: Option<Vec<f64>>,
    /// Player names, when recorded.
    pub players: Option<Vec<String>>,
    /// House rule (user-defined field `_max_raises`): raises allowed after the opening
    /// bet in fixed limit; `None` means the PHH default of four. Negative: no cap.
    pub max_raises: Option<i64>,
    /// House rule (user-defined field `_uncapped_heads_up`): no raise cap heads-up.
    pub uncapped_heads_up: bool,
    /// House options the standard has no field for (user-defined field `_options`, JSON).
    pub options: HandOptions,
    /// What each player's blind is, when not all ordinary blinds (user-defined field
    /// `_blind_kinds`: "blind", "straddle", "sleeper", "kill", "post").
    pub blind_kinds: Option<Vec<BlindKind>>,
}

/// One hand of a `.phhs` file: its table name and the hand, or why it is invalid.
pub type NamedHand = (String, Result<PhhHand, PhhError>);

/// Why a history could not be read or replayed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PhhError {
    /// Not valid TOML or a required field is missing or mistyped.
    #[error("invalid PHH: {0}")]
    Format(String),
    /// An action notation that cannot be parsed.
    #[error("action {index} ({text:?}): {reason}")]
    Notation {
        /// Position in `actions`.
        index: usize,
        /// The notation.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// The engine refused an action: the history breaks a rule or disagrees with the engine.
    #[error("action {index} ({text:?}) refused: {error}")]
    Refused {
        /// Position in `actions`.
        index: usize,
        /// The notation.
        text: String,
        /// The engine's reason.
        error: ActionError,
    },
    /// The hand could not start.
    #[error("cannot start the hand: {0}")]
    Config(String),
    /// The actions stop before the hand is over.
    #[error("the history ends before the hand is over")]
    Incomplete,
    /// A show after the hand (`# p3 shows AsKd`) that the hand does not allow.
    #[error("action {index} ({text:?}) refused: {reason}")]
    Show {
        /// Position in `actions`.
        index: usize,
        /// The notation.
        text: String,
        /// Why it is refused.
        reason: ShowRefusal,
    },
    /// The replayed result differs from the recorded one.
    #[error("finishing stacks differ: recorded {recorded:?}, replayed {replayed:?}")]
    Mismatch {
        /// What the file says.
        recorded: Vec<f64>,
        /// What the engine computed.
        replayed: Vec<f64>,
    },
}

/// Why a show after the hand (`# p3 shows AsKd`) is refused: only the one player left
/// when everyone else folded may show, once, every card they hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShowRefusal {
    /// An action follows the show, or the history ends before the hand does.
    #[error("the hand is not over")]
    NotOver,
    /// More than one player reached the showdown, whose hands are shown with `sm`.
    #[error("the hand ended with a showdown")]
    Showdown,
    /// The player is not the one left when everyone else folded.
    #[error("only the winner of a hand won without a showdown may show it")]
    NotWinner,
    /// The winner's hand was shown already.
    #[error("the hand was shown already")]
    AlreadyShown,
    /// The cards are not exactly the player's hole cards (all of them, in any order;
    /// a card the history did not know may be any card nobody else holds or sees).
    #[error("the cards shown are not the player's hole cards")]
    NotHeld,
}

fn number(value: &toml::Value) -> Option<f64> {
    match value {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn numbers(table: &toml::Table, key: &str) -> Result<Option<Vec<f64>>, PhhError> {
    match table.get(key) {
        None => Ok(None),
        Some(toml::Value::Array(items)) => items
            .iter()
            .map(|v| number(v).ok_or_else(|| PhhError::Format(format!("{key} must hold numbers"))))
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(PhhError::Format(format!("{key} must be an array"))),
    }
}

fn scalar(table: &toml::Table, key: &str) -> Result<f64, PhhError> {
    match table.get(key) {
        None => Ok(0.0),
        Some(v) => number(v).ok_or_else(|| PhhError::Format(format!("{key} must be a number"))),
    }
}

impl PhhHand {
    /// Reads one `.phh` document.
    pub fn parse(text: &str) -> Result<PhhHand, PhhError> {
        let table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| PhhError::Format(e.message().to_string()))?;
        PhhHand::from_table(&table)
    }

    /// Reads a `.phhs` document: one hand per top-level table, keyed by its name.
    pub fn parse_many(text: &str) -> Result<Vec<NamedHand>, PhhError> {
        let table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| PhhError::Format(e.message().to_string()))?;
        Ok(table
            .iter()
            .filter_map(|(k, v)| v.as_table().map(|t| (k.clone(), PhhHand::from_table(t))))
            .collect())
    }

    fn from_table(table: &toml::Table) -> Result<PhhHand, PhhError> {
        let code = table
            .get("variant")
            .and_then(|v| v.as_str())
            .ok_or_else(|| PhhError::Format("variant is missing".into()))?;
        let variant = Variant::from_code(code)
            .ok_or_else(|| PhhError::Format(format!("unknown variant {code:?}")))?;
        let starting_stacks = numbers(table, "starting_stacks")?
            .ok_or_else(|| PhhError::Format("starting_stacks is missing".into()))?;
        let n = starting_stacks.len();
        let antes = match table.get("antes") {
            Some(v) if number(v).is_some() => vec![number(v).unwrap_or(0.0); n],
            _ => numbers(table, "antes")?.unwrap_or_else(|| vec![0.0; n]),
        };
        let blinds_or_straddles =
            numbers(table, "blinds_or_straddles")?.unwrap_or_else(|| vec![0.0; n]);
        if antes.len() != n || blinds_or_straddles.len() != n {
            return Err(PhhError::Format(
                "antes and blinds need one entry per player".into(),
            ));
        }
        let actions = match table.get("actions") {
            Some(toml::Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| PhhError::Format("actions must be strings".into()))
                })
                .collect::<Result<Vec<_>, _>>()?,
            _ => return Err(PhhError::Format("actions is missing".into())),
        };
        let players = match table.get("players") {
            Some(toml::Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|v| v.as_str().unwrap_or("").to_string())
                    .collect(),
            ),
            _ => None,
        };
        let structure = match table.get("_structure") {
            None => None,
            Some(v) => Some(
                v.as_str()
                    .and_then(|name| {
                        serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
                    })
                    .ok_or_else(|| {
                        PhhError::Format("_structure names a betting structure".into())
                    })?,
            ),
        };
        Ok(PhhHand {
            variant,
            structure,
            antes,
            blinds_or_straddles,
            bring_in: scalar(table, "bring_in")?,
            small_bet: scalar(table, "small_bet")?,
            big_bet: scalar(table, "big_bet")?,
            min_bet: scalar(table, "min_bet")?,
            starting_stacks,
            actions,
            finishing_stacks: numbers(table, "finishing_stacks")?,
            players,
            options: match table.get("_options").and_then(|v| v.as_str()) {
                Some(json) => serde_json::from_str(json)
                    .map_err(|e| PhhError::Format(format!("_options: {e}")))?,
                None => HandOptions::default(),
            },
            blind_kinds: match table.get("_blind_kinds") {
                Some(toml::Value::Array(items)) => Some(
                    items
                        .iter()
                        .map(|v| {
                            v.as_str()
                                .and_then(|k| {
                                    serde_json::from_value(serde_json::Value::String(k.to_string()))
                                        .ok()
                                })
                                .ok_or_else(|| {
                                    PhhError::Format("_blind_kinds holds blind kind names".into())
                                })
                        })
                        .collect::<Result<Vec<BlindKind>, _>>()?,
                ),
                _ => None,
            },
            max_raises: table.get("_max_raises").and_then(|v| v.as_integer()),
            uncapped_heads_up: table
                .get("_uncapped_heads_up")
                .and_then(|v| v.as_bool())
                .unwrap_or(false),
        })
    }

    /// The betting structure played: the variant code's, or `_structure`'s.
    pub fn structure(&self) -> Structure {
        self.structure.unwrap_or(self.variant.structure())
    }

    /// Writes the hand as PHH text.
    pub fn to_toml(&self) -> String {
        let nums = |v: &[f64]| v.iter().map(|x| fmt_num(*x)).collect::<Vec<_>>().join(", ");
        let mut out = String::new();
        let _ = writeln!(out, "variant = '{}'", self.variant.code());
        let _ = writeln!(out, "antes = [{}]", nums(&self.antes));
        match self.variant.game().opening() {
            poker_rules::game::Opening::Position => {
                let _ = writeln!(
                    out,
                    "blinds_or_straddles = [{}]",
                    nums(&self.blinds_or_straddles)
                );
            }
            _ => {
                let _ = writeln!(out, "bring_in = {}", fmt_num(self.bring_in));
            }
        }
        match (self.structure, self.variant.structure()) {
            (Some(structure), _) => {
                // A structure the code does not name: every stake is written.
                let name = serde_json::to_string(&structure).expect("structure serializes");
                let _ = writeln!(out, "_structure = '{}'", name.trim_matches('"'));
                let _ = writeln!(out, "min_bet = {}", fmt_num(self.min_bet));
                let _ = writeln!(out, "small_bet = {}", fmt_num(self.small_bet));
                let _ = writeln!(out, "big_bet = {}", fmt_num(self.big_bet));
            }
            (None, Structure::FixedLimit) => {
                let _ = writeln!(out, "small_bet = {}", fmt_num(self.small_bet));
                let _ = writeln!(out, "big_bet = {}", fmt_num(self.big_bet));
            }
            (None, _) => {
                let _ = writeln!(out, "min_bet = {}", fmt_num(self.min_bet));
            }
        }
        let _ = writeln!(out, "starting_stacks = [{}]", nums(&self.starting_stacks));
        let actions: Vec<String> = self
            .actions
            .iter()
            .map(|a| toml::Value::String(a.clone()).to_string())
            .collect();
        let _ = writeln!(out, "actions = [{}]", actions.join(", "));
        if let Some(players) = &self.players {
            let names: Vec<String> = players
                .iter()
                .map(|p| toml::Value::String(p.clone()).to_string())
                .collect();
            let _ = writeln!(out, "players = [{}]", names.join(", "));
        }
        if let Some(stacks) = &self.finishing_stacks {
            let _ = writeln!(out, "finishing_stacks = [{}]", nums(stacks));
        }
        if let Some(cap) = self.max_raises {
            let _ = writeln!(out, "_max_raises = {cap}");
        }
        if self.uncapped_heads_up {
            let _ = writeln!(out, "_uncapped_heads_up = true");
        }
        if self.options != HandOptions::default() {
            let json = serde_json::to_string(&self.options).expect("options serialize");
            let _ = writeln!(out, "_options = '{json}'");
        }
        if let Some(kinds) = &self.blind_kinds {
            let names: Vec<String> = kinds
                .iter()
                .map(|k| {
                    serde_json::to_string(k)
                        .expect("kind serializes")
                        .replace('"', "'")
                })
                .collect();
            let _ = writeln!(out, "_blind_kinds = [{}]", names.join(", "));
        }
        out
    }

    /// The power of ten that makes every input amount a whole number of chips.
    pub fn scale(&self) -> Result<u64, PhhError> {
        let mut amounts: Vec<f64> = Vec::new();
        amounts.extend(&self.antes);
        amounts.extend(&self.blinds_or_straddles);
        amounts.extend([self.bring_in, self.small_bet, self.big_bet, self.min_bet]);
        amounts.extend(self.starting_stacks.iter().filter(|x| x.is_finite()));
        for (i, a) in self.actions.iter().enumerate() {
            let words: Vec<&str> = strip_comment(a).split_whitespace().collect();
            if words.get(1) == Some(&"cbr") {
                let x = words
                    .get(2)
                    .and_then(|w| w.parse::<f64>().ok())
                    .ok_or_else(|| PhhError::Notation {
                        index: i,
                        text: a.clone(),
                        reason: "cbr needs an amount".into(),
                    })?;
                amounts.push(x);
            }
        }
        for scale in [1u64, 10, 100, 1000, 10_000, 100_000, 1_000_000] {
            if amounts.iter().all(|&x| {
                let y = x * scale as f64;
                (y - y.round()).abs() < 1e-6
            }) {
                return Ok(scale);
            }
        }
        Err(PhhError::Format("amounts have too many decimals".into()))
    }

    /// The engine configuration of this history, in chips scaled by `scale`.
    pub fn config(&self, scale: u64) -> HandConfig {
        let chips = |x: f64| -> Chips {
            if x.is_finite() {
                (x * scale as f64).round() as Chips
            } else {
                Chips::MAX / 64
            }
        };
        let n = self.starting_stacks.len();
        let (mut antes, mut blinds) = (self.antes.clone(), self.blinds_or_straddles.clone());
        if n == 2 {
            antes.reverse();
            blinds.reverse();
        }
        HandConfig {
            game: self.variant.game(),
            structure: self.structure(),
            stakes: Stakes {
                min_bet: chips(self.min_bet),
                small_bet: chips(self.small_bet),
                big_bet: chips(self.big_bet),
                bring_in: chips(self.bring_in),
            },
            max_raises: match self.max_raises {
                Some(cap) if cap < 0 => None,
                Some(cap) => Some(cap as u32),
                None => (self.structure() == Structure::FixedLimit).then_some(4),
            },
            uncapped_heads_up: self.uncapped_heads_up,
            seats: (0..n)
                .map(|i| SeatConfig {
                    stack: chips(self.starting_stacks[i]),
                    ante: chips(antes[i]),
                    blind: chips(blinds[i]),
                    kind: self
                        .blind_kinds
                        .as_ref()
                        .and_then(|k| k.get(i).copied())
                        .unwrap_or_default(),
                })
                .collect(),
            options: self.options.clone(),
        }
    }
}

fn fmt_num(x: f64) -> String {
    if x.is_nan() {
        "nan".to_string()
    } else if x.is_infinite() {
        (if x > 0.0 { "inf" } else { "-inf" }).to_string()
    } else if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        // Debug writes large and tiny values with an exponent (1e30), which TOML reads as
        // a float; Display would write 1e30 as a 31-digit integer TOML cannot hold.
        format!("{x:?}")
    }
}

fn strip_comment(notation: &str) -> &str {
    notation.split('#').next().unwrap_or("").trim()
}

/// The result of replaying one history.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The finished hand.
    pub hand: Hand,
    /// Everything that happened: the engine's events, and after its `HandEnded` the
    /// winner's show when a hand won without a showdown was shown (`# p3 shows AsKd`),
    /// which the finished hand itself does not record.
    pub events: Vec<Event>,
    /// The scale applied to amounts.
    pub scale: u64,
    /// Finishing stacks in the history's own units.
    pub finishing_stacks: Vec<f64>,
}

/// The history as one player may see it: their own cards, every card dealt face up, and
/// the hands shown (at the showdown, or after the hand by a winner without one, `# p3
/// shows AsKd`); everyone else's down cards and discards are `??`. Amounts and actions
/// are unchanged, so it replays to the same stacks.
pub fn for_viewer(phh: &PhhHand, viewer: usize) -> Result<PhhHand, PhhError> {
    let played = replay(phh)?;
    if played.scale != 1 {
        return Err(PhhError::Format("amounts in fractions of a chip".into()));
    }
    let hidden = |cards: &Cards, up: u8| -> Cards {
        let mut out = Cards::new();
        for (k, &c) in cards.iter().enumerate() {
            out.push(if up >> k & 1 == 1 { c } else { Card::UNKNOWN });
        }
        out
    };
    let events: Vec<Event> = played
        .events
        .iter()
        .map(|e| match e {
            Event::HoleDealt { player, cards, up } if *player != viewer => Event::HoleDealt {
                player: *player,
                cards: hidden(cards, *up),
                up: *up,
            },
            Event::Discarded { player, cards } if *player != viewer => Event::Discarded {
                player: *player,
                cards: hidden(cards, 0),
            },
            other => other.clone(),
        })
        .collect();
    let stacks = played.hand.final_stacks().ok_or(PhhError::Incomplete)?;
    let mut out = write(played.hand.config(), &events, Some(&stacks))
        .ok_or_else(|| PhhError::Format("the game has no PHH variant".into()))?;
    out.finishing_stacks = Some(played.finishing_stacks.clone());
    Ok(out)
}

/// Replays a history through the engine, and checks the recorded finishing stacks when
/// there are any (one chip of difference is allowed only where the record holds a
/// fraction of a chip, as split pots written with half chips do).
pub fn replay(phh: &PhhHand) -> Result<Replay, PhhError> {
    let scale = phh.scale()?;
    let config = phh.config(scale);
    let n = config.seats.len();
    let (mut hand, mut events) =
        Hand::new(config, CardSource::Manual).map_err(|e| PhhError::Config(e.to_string()))?;
    // Showdown notations can come before the last cards are dealt (all in) and in an
    // order other than the rules' (R33); they wait here and are applied in the
    // engine's showdown order once the cards are out.
    let mut pending_shows: BTreeMap<usize, (usize, Action)> = BTreeMap::new();
    // Shows after the hand (`# p3 shows AsKd`), checked once the hand is over, and the
    // last action that played: a show before it was not after the hand.
    let mut shows_after: Vec<(usize, usize, Cards)> = Vec::new();
    let mut last_played: Option<usize> = None;
    for (index, text) in phh.actions.iter().enumerate() {
        // What the standard has no notation for is commentary, a no-op to other
        // readers (see the module's documentation).
        if let Some(note) = text.trim().strip_prefix('#').map(str::trim) {
            let refused = |error: ActionError| PhhError::Refused {
                index,
                text: text.clone(),
                error,
            };
            let bad = |reason: String| PhhError::Notation {
                index,
                text: text.clone(),
                reason,
            };
            if let Some(rest) = note.strip_prefix("d db2 ") {
                let cards = Card::parse_many(rest).map_err(|e| bad(e.to_string()))?;
                events.extend(hand.deal(None, &cards).map_err(refused)?);
                last_played = Some(index);
            } else if let Some((who, answer)) = note.split_once(" run it twice: ") {
                if let Some(player) = player_index(who, n) {
                    let agree = answer.trim() == "yes";
                    events.extend(
                        hand.apply(player, Action::RunItTwice { agree })
                            .map_err(refused)?,
                    );
                    last_played = Some(index);
                }
            } else if let Some((who, rest)) = note.split_once(" shows ") {
                // `# p2 shows in part 9s` is the PokerStars writer's alone; a note that
                // names no player (`# Alice shows`) is anyone's commentary.
                let named = who
                    .strip_prefix('p')
                    .filter(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
                if named.is_some() && !rest.starts_with("in part ") {
                    let player =
                        player_index(who, n).ok_or_else(|| bad("unknown player".into()))?;
                    let cards = Card::parse_many(rest).map_err(|e| bad(e.to_string()))?;
                    let cards =
                        Cards::from_slice(&cards).ok_or_else(|| bad("too many cards".into()))?;
                    shows_after.push((index, player, cards));
                }
            }
            continue;
        }
        let notation = strip_comment(text);
        if notation.is_empty() {
            continue;
        }
        last_played = Some(index);
        let bad = |reason: &str| PhhError::Notation {
            index,
            text: text.clone(),
            reason: reason.to_string(),
        };
        let refused = |error: ActionError| PhhError::Refused {
            index,
            text: text.clone(),
            error,
        };
        let words: Vec<&str> = notation.split_whitespace().collect();
        let cards_arg = |k: usize| -> Result<Cards, PhhError> {
            let cards = Card::parse_many(words.get(k).copied().unwrap_or(""))
                .map_err(|e| bad(&e.to_string()))?;
            Cards::from_slice(&cards).ok_or_else(|| bad("too many cards"))
        };
        if words[0] == "d" {
            match (words.get(1).copied(), words.get(2)) {
                (Some("dh"), Some(p)) => {
                    let player = player_index(p, n).ok_or_else(|| bad("unknown player"))?;
                    let cards = cards_arg(3)?;
                    events.extend(hand.deal(Some(player), &cards).map_err(refused)?);
                }
                (Some("db"), Some(_)) => {
                    let cards = cards_arg(2)?;
                    events.extend(hand.deal(None, &cards).map_err(refused)?);
                }
                _ => return Err(bad("unknown dealer action")),
            }
        } else {
            let player = player_index(words[0], n).ok_or_else(|| bad("unknown actor"))?;
            let action = match words.get(1).copied() {
                Some("f") => Action::Fold,
                Some("cc") => match hand.legal_actions() {
                    Some(legal) if legal.call.is_some() => Action::Call,
                    _ => Action::Check,
                },
                Some("pb") => Action::BringIn,
                Some("cbr") => {
                    let x: f64 = words
                        .get(2)
                        .and_then(|w| w.parse().ok())
                        .ok_or_else(|| bad("cbr needs an amount"))?;
                    Action::BetOrRaiseTo {
                        to: (x * scale as f64).round() as Chips,
                    }
                }
                Some("sd") => Action::Draw {
                    discards: cards_arg(2)?,
                },
                Some("sm") => match words.get(2) {
                    None => Action::Muck,
                    Some(&"-") => Action::Show { cards: None },
                    Some(_) => Action::Show {
                        cards: Some(cards_arg(2)?),
                    },
                },
                _ => return Err(bad("unknown player action")),
            };
            if matches!(action, Action::Show { .. } | Action::Muck) {
                // A later notation for the same player (after more cards) replaces it.
                pending_shows.insert(player, (index, action));
            } else if words[1] == "cc" && lone_check(&hand, player) {
                // pokerkit asks the one player left with chips, everyone else all in, to
                // check; the rules deal on (R31), so the notation changes nothing.
                continue;
            } else {
                events.extend(hand.apply(player, action).map_err(refused)?);
            }
        }
    }
    flush_shows(&mut hand, &mut events, &mut pending_shows, phh)?;
    // Histories may stop at the showdown: cards speak for known hands, unknown ones are mucked.
    while hand.phase() == Phase::Showdown {
        let Some(p) = hand.to_act() else { break };
        let known = hand.players()[p].hole.iter().all(|c| c.is_known());
        let action = if known {
            Action::Show { cards: None }
        } else {
            Action::Muck
        };
        let applied = hand.apply(p, action).map_err(|error| PhhError::Refused {
            index: phh.actions.len(),
            text: "(showdown)".into(),
            error,
        })?;
        events.extend(applied);
    }
    for (index, player, cards) in shows_after {
        let refused = |reason: ShowRefusal| PhhError::Show {
            index,
            text: phh.actions[index].clone(),
            reason,
        };
        if last_played.is_some_and(|last| last > index) || !hand.is_complete() {
            return Err(refused(ShowRefusal::NotOver));
        }
        let shown_before = events
            .iter()
            .rev()
            .take_while(|e| !matches!(e, Event::HandEnded { .. }))
            .any(|e| matches!(e, Event::Shown { .. }));
        let cards = show_after(&hand, player, cards, shown_before).map_err(refused)?;
        events.push(Event::Shown { player, cards });
    }
    let stacks = hand.final_stacks().ok_or(PhhError::Incomplete)?;
    let finishing_stacks: Vec<f64> = stacks.iter().map(|&s| s as f64 / scale as f64).collect();
    if let Some(recorded) = &phh.finishing_stacks {
        let agrees = recorded.len() == stacks.len()
            && recorded.iter().zip(&stacks).all(|(&r, &s)| {
                let r = r * scale as f64;
                let diff = (r - s as f64).abs();
                if (r - r.round()).abs() < 1e-6 {
                    diff < 1e-6
                } else {
                    diff <= 1.0
                }
            });
        if !agrees {
            return Err(PhhError::Mismatch {
                recorded: recorded.clone(),
                replayed: finishing_stacks,
            });
        }
    }
    Ok(Replay {
        hand,
        events,
        scale,
        finishing_stacks,
    })
}

/// Checks a show after a finished hand (`# pN shows CARDS`): the hand was won without a
/// showdown, `player` is its winner and has not shown, and `cards` are every card they
/// hold, in any order; a card the history did not know (`??`) may be any card of the
/// deck that no other hand or the board holds. `shown_before`: a show after the hand
/// came already. Returns the cards shown.
fn show_after(
    hand: &Hand,
    player: usize,
    cards: Cards,
    shown_before: bool,
) -> Result<Cards, ShowRefusal> {
    let players = hand.players();
    let mut left = (0..players.len()).filter(|&p| !players[p].folded);
    let winner = match (left.next(), left.next()) {
        (_, Some(_)) => return Err(ShowRefusal::Showdown),
        (winner, None) => winner,
    };
    let held = match winner {
        Some(w) if w == player => &players[w],
        _ => return Err(ShowRefusal::NotWinner),
    };
    if held.shown.is_some() || shown_before {
        return Err(ShowRefusal::AlreadyShown);
    }
    if cards.len() != held.hole.len() || cards.iter().any(|c| !c.is_known()) {
        return Err(ShowRefusal::NotHeld);
    }
    // Every known card held is among those shown; the rest stand for unknown ones.
    let mut rest: Vec<Card> = cards.iter().copied().collect();
    for &c in held.hole.iter().filter(|c| c.is_known()) {
        match rest.iter().position(|&s| s == c) {
            Some(i) => {
                rest.remove(i);
            }
            None => return Err(ShowRefusal::NotHeld),
        }
    }
    let deck = hand.config().game.deck();
    for (k, &c) in rest.iter().enumerate() {
        let elsewhere = rest[..k].contains(&c)
            || hand.board().contains(&c)
            || players.iter().any(|p| p.hole.contains(&c));
        if !deck.contains(c) || elsewhere {
            return Err(ShowRefusal::NotHeld);
        }
    }
    Ok(cards)
}

fn flush_shows(
    hand: &mut Hand,
    events: &mut Vec<Event>,
    pending: &mut BTreeMap<usize, (usize, Action)>,
    phh: &PhhHand,
) -> Result<(), PhhError> {
    while hand.phase() == Phase::Showdown {
        let Some(p) = hand.to_act() else { break };
        let Some((index, action)) = pending.remove(&p) else {
            break;
        };
        let applied = hand.apply(p, action).map_err(|error| PhhError::Refused {
            index,
            text: phh.actions[index].clone(),
            error,
        })?;
        events.extend(applied);
    }
    Ok(())
}

fn player_index(word: &str, n: usize) -> Option<usize> {
    let k: usize = word.strip_prefix('p')?.parse().ok()?;
    (1..=n).contains(&k).then(|| k - 1)
}

/// Writes a hand the engine played as a PHH history: configuration and every event.
pub fn write(
    config: &HandConfig,
    events: &[Event],
    final_stacks: Option<&[Chips]>,
) -> Option<PhhHand> {
    // The standard's code for the game and structure, else the game's code with the
    // structure as a user-defined field.
    let (variant, structure) = match Variant::of(config.game, config.structure) {
        Some(v) => (v, None),
        None => (
            Variant::ALL.into_iter().find(|v| v.game() == config.game)?,
            Some(config.structure),
        ),
    };
    let n = config.seats.len();
    let f = |x: Chips| x as f64;
    let (mut antes, mut blinds): (Vec<f64>, Vec<f64>) =
        config.seats.iter().map(|s| (f(s.ante), f(s.blind))).unzip();
    if n == 2 {
        antes.reverse();
        blinds.reverse();
    }
    let mut actions = Vec::new();
    // A hand shown after the hand ended is a winner's without a showdown: commentary.
    let mut ended = false;
    for e in events {
        let line = match e {
            Event::HandEnded { .. } => {
                ended = true;
                continue;
            }
            Event::Shown { player, cards } if ended => {
                format!("# p{} shows {}", player + 1, cards)
            }
            Event::HoleDealt { player, cards, .. } => format!("d dh p{} {}", player + 1, cards),
            Event::BoardDealt { cards } => format!("d db {cards}"),
            Event::BringInPosted { player, .. } => format!("p{} pb", player + 1),
            Event::Folded { player } => format!("p{} f", player + 1),
            Event::Checked { player } | Event::Called { player, .. } => {
                format!("p{} cc", player + 1)
            }
            Event::BetTo { player, to, .. } => format!("p{} cbr {}", player + 1, to),
            Event::Discarded { player, cards } if cards.is_empty() => format!("p{} sd", player + 1),
            Event::Discarded { player, cards } => format!("p{} sd {}", player + 1, cards),
            Event::Shown { player, cards } => format!("p{} sm {}", player + 1, cards),
            Event::Mucked { player } => format!("p{} sm", player + 1),
            Event::RunItTwiceAnswered { player, agree } => {
                format!(
                    "# p{} run it twice: {}",
                    player + 1,
                    if *agree { "yes" } else { "no" }
                )
            }
            Event::SecondBoardDealt { cards } => format!("# d db2 {cards}"),
            _ => continue,
        };
        actions.push(line);
    }
    Some(PhhHand {
        variant,
        structure,
        antes,
        blinds_or_straddles: blinds,
        bring_in: f(config.stakes.bring_in),
        small_bet: f(config.stakes.small_bet),
        big_bet: f(config.stakes.big_bet),
        min_bet: f(config.stakes.min_bet),
        starting_stacks: config.seats.iter().map(|s| f(s.stack)).collect(),
        actions,
        finishing_stacks: final_stacks.map(|s| s.iter().map(|&x| f(x)).collect()),
        players: None,
        max_raises: Some(config.max_raises.map_or(-1, i64::from)),
        uncapped_heads_up: config.uncapped_heads_up,
        options: config.options.clone(),
        blind_kinds: config
            .seats
            .iter()
            .any(|s| s.kind != BlindKind::Blind)
            .then(|| config.seats.iter().map(|s| s.kind).collect()),
    })
}
