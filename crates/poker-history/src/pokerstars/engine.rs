//! Playing a hand read from PokerStars text through the engine: the known cards and
//! unknown ones (`??`) dealt where the engine asks for them, each action in the engine's
//! own order, the showdown, and the outcome checked against the text's; the result is
//! the engine's record (PHH) of the hand.

use super::money::Money;
use super::parsed::{Act, ImportedHand, Parsed, ReadError};
use crate::phh::{replay, PhhHand};
use poker_rules::{
    Action, BlindKind, Card, CardSource, Cards, Chips, DealStep, Decision, Event, Game, Hand,
    HandConfig, HandOptions, Phase, Rake, RakeRounding, SeatConfig, Stakes, Structure, Variant,
};
use std::collections::{BTreeMap, VecDeque};

pub(super) struct PlayInput<'a> {
    pub(super) hand_number: u64,
    pub(super) game_name: String,
    pub(super) date_text: String,
    /// The header's date (unix ms).
    pub(super) started_at_ms: i64,
    pub(super) game: Game,
    pub(super) structure: Structure,
    /// The header's two stakes: the blinds, fixed limit's bets, `[0, button blind]` in 6+.
    pub(super) stakes: [Chips; 2],
    /// A cap game's cap (R24).
    pub(super) cap: Option<Chips>,
    /// A home game's club.
    pub(super) club: Option<String>,
    pub(super) money: Money,
    pub(super) bring_in: Option<Chips>,
    pub(super) text: &'a str,
    pub(super) lines: &'a [&'a str],
}

/// The hand as the engine played it.
struct Run {
    config: HandConfig,
    hand: Hand,
    events: Vec<Event>,
    /// The PHH actions (and comments) played.
    notes: Vec<String>,
    /// Hand order: the parsed seat index of each player in hand order.
    order: Vec<usize>,
    index_of: BTreeMap<usize, usize>,
}

/// Plays the parsed hand through the engine and builds its record.
pub(super) fn play(input: PlayInput, p: Parsed) -> Result<ImportedHand, ReadError> {
    let rake = (p.rake > 0).then(|| Rake {
        basis_points: rake_rate(&input, &p),
        cap: p.rake,
        no_flop_no_drop: false,
        rounding: RakeRounding::Down,
    });
    let Run {
        config,
        hand,
        events,
        mut notes,
        order,
        index_of,
    } = run(&input, &p, rake)?;
    check_outcome(&p, &order, &events, hand.rake())?;
    // Not actions: what the text showed that the record keeps as comments for the
    // writer (a winner's refusal to show, mucked hands named in the summary).
    for s in &p.no_show {
        if let Some(&i) = index_of.get(s) {
            notes.push(format!("# p{} doesn't show hand", i + 1));
        }
    }
    for (s, c) in &p.mucked {
        if let Some(&i) = index_of.get(s) {
            notes.push(format!("# p{} mucked {}", i + 1, Card::format_many(c)));
        }
    }
    let viewer = p.viewer.and_then(|s| index_of.get(&s).copied());
    let names: Vec<String> = order.iter().map(|&s| p.seats[s].name.clone()).collect();
    let phh = record(&config, notes, names.clone())?;
    // The record must replay on its own to the same hand.
    replay(&phh).map_err(|e| ReadError::Disagrees(format!("the record does not replay: {e}")))?;
    Ok(ImportedHand {
        hand_number: input.hand_number,
        game_name: input.game_name,
        table_name: p.table.clone(),
        club: input.club,
        started_at_ms: Some(input.started_at_ms),
        date_text: input.date_text,
        players: names,
        seats: order.iter().map(|&s| p.seats[s].number).collect(),
        seat_count: p.seat_count,
        button_seat: p.button,
        viewer,
        money: input.money,
        play_money: p.play_money,
        posts: p.posts.clone(),
        phh,
        rake: p.rake,
        text: input.text.to_string(),
    })
}

/// The rake's percentage (basis points), which the text does not state: PokerStars
/// takes its percentage from the main pot, then from each side pot what it adds to the
/// rake of the pots before it, up to the cap (R36, as the engine takes it). With one pot
/// the rake stated is all there is to know (100% up to the stated rake gives it); with
/// side pots, the rate is the smallest that gives each pot the rake the summary shows
/// (`Main pot 30.37. Side pot 7.91.` against the pots before the rake).
fn rake_rate(input: &PlayInput, p: &Parsed) -> u32 {
    const ALL: u32 = 10_000;
    if p.rake == 0 || p.pots.len() < 2 {
        return ALL;
    }
    let Ok(unraked) = run(input, p, None) else {
        return ALL;
    };
    let mut before: BTreeMap<usize, Chips> = BTreeMap::new();
    for e in &unraked.events {
        if let Event::PotAwarded { pot, amount, .. } = e {
            *before.entry(*pot).or_default() += amount;
        }
    }
    if before.len() != p.pots.len() {
        return ALL;
    }
    // The rates that give the rake of the pots up to each one: the rake of `pooled`
    // chips is floor(rate * pooled / 10000), or the cap once reached.
    let (mut low, mut high) = (1u64, u64::from(ALL));
    let (mut pooled, mut raked) = (0u64, 0u64);
    for (k, &after) in p.pots.iter().enumerate() {
        let chips = before.get(&k).copied().unwrap_or(0);
        let Some(taken) = chips.checked_sub(after) else {
            return ALL;
        };
        pooled += chips;
        raked += taken;
        if pooled == 0 {
            continue;
        }
        // In u128: a pot of up to MAX_CHIPS (2^53) times 10,000 passes u64 (fuzz
        // regression rake-rate-multiply-overflow).
        let least_for = |r: u64| {
            let rate = (u128::from(r) * 10_000).div_ceil(u128::from(pooled));
            u64::try_from(rate).unwrap_or(u64::MAX)
        };
        low = low.max(least_for(raked));
        if raked < p.rake {
            high = high.min(least_for(raked + 1).saturating_sub(1));
        }
    }
    if low <= high {
        low as u32
    } else {
        ALL
    }
}

/// Plays the parsed hand through the engine with the rake given.
fn run(input: &PlayInput, p: &Parsed, rake: Option<Rake>) -> Result<Run, ReadError> {
    let game = input.game;
    let stud = matches!(game, Game::Stud | Game::StudHiLo | Game::Razz);
    // Hand order: stud by seat; else from the button's left, the button last.
    let mut order: Vec<usize> = (0..p.seats.len()).filter(|&s| p.seats[s].dealt).collect();
    order.sort_by_key(|&s| p.seats[s].number);
    if !stud {
        let button = p
            .button
            .ok_or_else(|| ReadError::Unfinished("no button".into()))?;
        let k = order
            .iter()
            .position(|&s| p.seats[s].number > button)
            .unwrap_or(0);
        order.rotate_left(k);
    }
    let index_of: BTreeMap<usize, usize> = order.iter().enumerate().map(|(i, &s)| (s, i)).collect();

    let stake = |k: usize| input.stakes[k];
    let big_blind = p
        .blinds
        .values()
        .filter(|b| b.1 == BlindKind::Blind)
        .map(|b| b.0)
        .max()
        .unwrap_or(0);
    let fixed = input.structure == Structure::FixedLimit;
    let stakes = Stakes {
        min_bet: if fixed { 0 } else { big_blind.max(stake(1)) },
        small_bet: if fixed { stake(0) } else { 0 },
        big_bet: if fixed { stake(1) } else { 0 },
        bring_in: if stud {
            input.bring_in.unwrap_or(stake(0) / 2)
        } else {
            0
        },
    };
    // A `Betting is capped` line says heads-up play is capped only when two players
    // were left (not folded) when it was written: the writer writes it for a cap of
    // three or more too (fuzz regression heads-up-cap-read-from-a-three-way-cap-line).
    // A text with no such line is read as lifting the cap: the rounds it holds are the
    // same either way, unless a heads-up round went past the cap.
    let capped_heads_up = input.lines.iter().enumerate().any(|(i, l)| {
        let folded = || {
            p.acts
                .iter()
                .filter(|(at, _, act)| *at < i && matches!(act, Act::Play(Action::Fold)))
                .count()
        };
        l.trim_end() == "Betting is capped" && order.len().saturating_sub(folded()) == 2
    });
    let seats: Vec<SeatConfig> = order
        .iter()
        .map(|&s| {
            let (blind, kind) = p.blinds.get(&s).copied().unwrap_or((0, BlindKind::Blind));
            SeatConfig {
                stack: p.seats[s].stack,
                ante: p.antes.get(&s).copied().unwrap_or(0),
                blind,
                kind,
            }
        })
        .collect();
    let options = HandOptions {
        run_it_twice: p.run_twice,
        rake,
        cap: input.cap,
        ..HandOptions::default()
    };
    let config = HandConfig {
        game,
        structure: input.structure,
        stakes,
        // A bet and three raises (R20). Whether two players lift the cap the text says
        // only by `Betting is capped` with two players left: PokerStars caps every
        // round, heads-up too (a round come down to two players says so); a history
        // without that line (our own tables lift the cap heads-up) is read as lifting it.
        max_raises: fixed.then_some(3),
        uncapped_heads_up: fixed && !capped_heads_up,
        seats,
        options,
    };
    let refuse = |line: usize, reason: String| ReadError::Refused {
        line: line + 1,
        text: input.lines.get(line).copied().unwrap_or("").to_string(),
        reason,
    };
    let (mut hand, mut events) =
        Hand::new(config.clone(), CardSource::Manual).map_err(|e| refuse(0, e.to_string()))?;
    let mut notes: Vec<String> = Vec::new();
    let mut holes: Vec<VecDeque<Card>> = order
        .iter()
        .map(|s| p.holes.get(s).cloned().unwrap_or_default())
        .collect();
    let (mut board, mut board2) = (p.board.clone(), p.board2.clone());
    let mut shows: BTreeMap<usize, (usize, Act)> = BTreeMap::new();
    let mut deal_on = |hand: &mut Hand,
                       events: &mut Vec<Event>,
                       notes: &mut Vec<String>,
                       line: usize|
     -> Result<(), ReadError> {
        loop {
            if let Some(step) = hand.pending_deal() {
                let take = |q: &mut VecDeque<Card>, k: u8| -> Vec<Card> {
                    (0..k)
                        .map(|_| q.pop_front().unwrap_or(Card::UNKNOWN))
                        .collect()
                };
                let (who, cards, note) = match step {
                    DealStep::Hole { player, count, .. } => {
                        let c = take(&mut holes[player], count);
                        let note = format!("d dh p{} {}", player + 1, Card::format_many(&c));
                        (Some(player), c, note)
                    }
                    DealStep::Board { count } => {
                        if board.len() < count as usize {
                            return Err(ReadError::Unfinished("board cards missing".into()));
                        }
                        let c = take(&mut board, count);
                        let note = format!("d db {}", Card::format_many(&c));
                        (None, c, note)
                    }
                    DealStep::SecondBoard { count } => {
                        if board2.len() < count as usize {
                            return Err(ReadError::Unfinished("second board missing".into()));
                        }
                        let c = take(&mut board2, count);
                        let note = format!("# d db2 {}", Card::format_many(&c));
                        (None, c, note)
                    }
                };
                events.extend(
                    hand.deal(who, &cards)
                        .map_err(|e| refuse(line, e.to_string()))?,
                );
                notes.push(note);
                continue;
            }
            if let Some(Decision::RunItTwice) = hand.decision() {
                let player = hand.to_act().expect("someone decides");
                let agree = p.run_twice;
                events.extend(
                    hand.apply(player, Action::RunItTwice { agree })
                        .map_err(|e| refuse(line, e.to_string()))?,
                );
                let answer = if agree { "yes" } else { "no" };
                notes.push(format!("# p{} run it twice: {answer}", player + 1));
                continue;
            }
            return Ok(());
        }
    };
    for (line, s, act) in p.acts.iter().cloned() {
        let Some(&player) = index_of.get(&s) else {
            return Err(refuse(line, "a player not dealt in acts".into()));
        };
        deal_on(&mut hand, &mut events, &mut notes, line)?;
        match act {
            Act::Show(_) | Act::Muck => {
                shows.insert(player, (line, act));
            }
            Act::Play(action) => {
                let action = match action {
                    // A check where a call is due is a refusal; a `calls` line is a call.
                    Action::Call | Action::Check => action,
                    other => other,
                };
                let applied = hand
                    .apply(player, action)
                    .map_err(|e| refuse(line, e.to_string()))?;
                events.extend(applied);
                notes.push(notation(player, &action));
            }
        }
    }
    // The rest of the deal, then the showdown in the engine's order.
    let end = input.lines.len().saturating_sub(1);
    let mut partial: Vec<String> = Vec::new();
    loop {
        deal_on(&mut hand, &mut events, &mut notes, end)?;
        if hand.phase() != Phase::Showdown {
            break;
        }
        let Some(player) = hand.to_act() else { break };
        let known = hand.players()[player].hole.iter().all(|c| c.is_known());
        let held = hand.players()[player].hole.len();
        let (line, action, note) = match shows.remove(&player) {
            // A hand shown in part (`shows [Qs]`) is no showdown the engine plays.
            Some((_, Act::Show(c))) if c.len() != held && known => (
                end,
                Action::Show { cards: None },
                format!(
                    "p{} sm {}",
                    player + 1,
                    Card::format_many(&hand.players()[player].hole)
                ),
            ),
            // A hand shown in part and mucked: the cards shown are kept as a comment
            // for the writer (`# p3 shows in part Qc`).
            Some((_, Act::Show(c))) if c.len() != held => {
                partial.push(format!(
                    "# p{} shows in part {}",
                    player + 1,
                    Card::format_many(&c)
                ));
                (end, Action::Muck, format!("p{} sm", player + 1))
            }
            Some((line, Act::Show(c))) => {
                let cards = Cards::from_slice(&c).ok_or_else(|| refuse(line, "cards".into()))?;
                let note = format!("p{} sm {}", player + 1, Card::format_many(&c));
                (line, Action::Show { cards: Some(cards) }, note)
            }
            Some((line, _)) => (line, Action::Muck, format!("p{} sm", player + 1)),
            None if known => (
                end,
                Action::Show { cards: None },
                format!(
                    "p{} sm {}",
                    player + 1,
                    Card::format_many(&hand.players()[player].hole)
                ),
            ),
            None => (end, Action::Muck, format!("p{} sm", player + 1)),
        };
        events.extend(
            hand.apply(player, action)
                .map_err(|e| refuse(line, e.to_string()))?,
        );
        notes.push(note);
    }
    notes.append(&mut partial);
    if !hand.is_complete() {
        return Err(ReadError::Unfinished(format!(
            "the engine still waits ({:?})",
            hand.phase()
        )));
    }
    // A winner without a showdown who showed anyway (`shows [As 4h]` after the pot is
    // collected): no action of the engine's, kept as a comment (`# p3 shows As4h`); a
    // part of the hand (`shows [As]`), or cards shown by anyone else, as one the writer
    // alone reads (`# p3 shows in part As`).
    let players = hand.players();
    let mut left = (0..players.len()).filter(|&p| !players[p].folded);
    let winner = match (left.next(), left.next()) {
        (Some(w), None) => Some(w),
        _ => None,
    };
    for (player, (_, act)) in shows {
        if let Act::Show(c) = act {
            let whole = Some(player) == winner && c.len() == players[player].hole.len();
            let part = if whole { "" } else { "in part " };
            notes.push(format!(
                "# p{} shows {part}{}",
                player + 1,
                Card::format_many(&c)
            ));
        }
    }
    Ok(Run {
        config,
        hand,
        events,
        notes,
        order,
        index_of,
    })
}

/// The PHH notation of a player's action.
fn notation(player: usize, action: &Action) -> String {
    let p = player + 1;
    match action {
        Action::Fold => format!("p{p} f"),
        Action::Check | Action::Call => format!("p{p} cc"),
        Action::BringIn => format!("p{p} pb"),
        Action::BetOrRaiseTo { to } => format!("p{p} cbr {to}"),
        Action::Draw { discards } if discards.is_empty() => format!("p{p} sd"),
        Action::Draw { discards } => format!("p{p} sd {discards}"),
        Action::Show { cards: Some(c) } => format!("p{p} sm {c}"),
        Action::Show { cards: None } | Action::Muck => format!("p{p} sm"),
        Action::RunItTwice { agree } => format!("# p{p} run it twice: {agree}"),
    }
}

/// Checks the pots the text says were collected, and its total and rake, against the
/// engine's awards.
fn check_outcome(
    p: &Parsed,
    order: &[usize],
    events: &[Event],
    rake: Chips,
) -> Result<(), ReadError> {
    let mut won: BTreeMap<usize, Chips> = BTreeMap::new();
    let mut awarded: Chips = 0;
    for e in events {
        if let Event::PotAwarded { winners, .. } = e {
            for &(w, part) in winners {
                *won.entry(order[w]).or_default() += part;
                awarded += part;
            }
        }
    }
    // A winner left nothing (a pot the rake took whole, the odd chip's empty half of a
    // split pot) collects nothing: with or without a `collected 0` line, as the writer
    // writes the engine's award of nothing.
    won.retain(|_, v| *v > 0);
    let mut collected = p.collected.clone();
    collected.retain(|_, v| *v > 0);
    let name = |s: usize| p.seats[s].name.clone();
    let show = |m: &BTreeMap<usize, Chips>| {
        m.iter()
            .map(|(&s, a)| format!("{} {a}", name(s)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if won != collected {
        return Err(ReadError::Disagrees(format!(
            "collected: text [{}], engine [{}]",
            show(&collected),
            show(&won)
        )));
    }
    if rake != p.rake {
        return Err(ReadError::Disagrees(format!(
            "rake: text {}, engine {rake}",
            p.rake
        )));
    }
    if let Some(total) = p.total {
        if total != awarded + rake {
            return Err(ReadError::Disagrees(format!(
                "total pot: text {total}, engine {}",
                awarded + rake
            )));
        }
    }
    Ok(())
}

/// The PHH record of the configuration and the notations played.
fn record(
    config: &HandConfig,
    actions: Vec<String>,
    names: Vec<String>,
) -> Result<PhhHand, ReadError> {
    let (variant, structure) = match Variant::of(config.game, config.structure) {
        Some(v) => (v, None),
        None => (
            Variant::ALL
                .into_iter()
                .find(|v| v.game() == config.game)
                .ok_or_else(|| ReadError::UnsupportedGame(format!("{:?}", config.game)))?,
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
    Ok(PhhHand {
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
        finishing_stacks: None,
        players: Some(names),
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
