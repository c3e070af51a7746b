//! The first lines of a hand: the game and stakes, the table, and each seat's stack.

use super::time::timestamp;
use super::{printable, structure_name, Family, Hand};
use poker_rules::table::PostKind;
use poker_rules::{BlindKind, Chips, Game, Structure};
use std::fmt::Write;

/// The game as PokerStars names it in the header.
fn game_name(game: Game) -> &'static str {
    match game {
        Game::Holdem => "Hold'em",
        Game::ShortDeckHoldem => "6+ Hold'em",
        Game::Omaha => "Omaha",
        Game::OmahaHiLo => "Omaha Hi/Lo",
        Game::Stud => "7 Card Stud",
        Game::StudHiLo => "7 Card Stud Hi/Lo",
        Game::Razz => "Razz",
        Game::DeuceToSevenSingleDraw => "Single Draw 2-7 Lowball",
        Game::DeuceToSevenTripleDraw => "Triple Draw 2-7 Lowball",
        Game::Badugi => "Badugi",
    }
}

/// The stakes in the header's parentheses: fixed limit and stud are named by their small
/// and big bets (a 2/4 game has blinds 1/2), 6+ by its button blind and ante, the others
/// by their blinds.
fn stakes(hand: &Hand) -> String {
    let config = &hand.config;
    // The big blind, or the minimum bet when no blind was posted (a hand whose blinds
    // were all missed), which is what the stakes stand for.
    let big = if hand.big > 0 {
        hand.big
    } else {
        config.stakes.min_bet
    };
    if config.game == Game::ShortDeckHoldem {
        // The table's ante: the smallest one posted (a returning player's dead small
        // blind goes in with theirs).
        let ante = config
            .seats
            .iter()
            .map(|s| s.ante)
            .filter(|&a| a > 0)
            .min()
            .unwrap_or(0);
        // PokerStars puts two spaces before the currency here.
        let code = match hand.money.code_suffix() {
            c if c.is_empty() => c,
            c => format!(" {c}"),
        };
        return format!("Button Blind {} - Ante {}{code}", hand.m(big), hand.m(ante),);
    }
    if config.structure == Structure::FixedLimit || hand.family == Family::Stud {
        return hand
            .money
            .stakes(config.stakes.small_bet, config.stakes.big_bet);
    }
    // The small blind: a live one, else a returning player's dead one (which is the
    // small blind the header names), else half the big blind.
    let dead_small = || {
        hand.meta
            .posts
            .iter()
            .filter(|p| p.kind == PostKind::MissedSmall && !p.live && p.amount > 0)
            .map(|p| p.amount)
            .min()
    };
    let small: Chips = config
        .seats
        .iter()
        .filter(|s| s.kind == BlindKind::Blind && s.blind > 0 && s.blind < big)
        .map(|s| s.blind)
        .min()
        .or_else(dead_small)
        .unwrap_or(big / 2);
    let stakes = hand.money.stakes(small, big);
    // A cap game names its cap between the blinds and the currency (R24).
    match config.options.cap {
        Some(cap) => {
            let code = hand.money.code_suffix();
            let blinds = stakes.strip_suffix(code.as_str()).unwrap_or(&stakes);
            format!("{blinds} - {} Cap - {code}", hand.m(cap))
        }
        None => stakes,
    }
}

/// The header line, the table line and the seat lines.
pub(super) fn header(hand: &Hand) -> String {
    let meta = hand.meta;
    let config = &hand.config;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "PokerStars Hand #{}:  {} {} ({}) - {}",
        meta.hand_number,
        game_name(config.game),
        structure_name(config.structure),
        stakes(hand),
        timestamp(meta.started_at_ms)
    );
    let play_money = if meta.play_money { " (Play Money)" } else { "" };
    let table = printable(meta.table_name);
    if hand.family == Family::Stud {
        let _ = writeln!(out, "Table '{table}' {}-max{play_money}", meta.seat_count);
    } else {
        let _ = writeln!(
            out,
            "Table '{table}' {}-max{play_money} Seat #{} is the button",
            meta.seat_count, hand.button_seat
        );
    }
    // PokerStars ends each seat line with a space.
    for &i in &hand.order {
        let _ = writeln!(
            out,
            "Seat {}: {} ({} in chips) ",
            meta.seats[i],
            hand.name(i),
            hand.m(config.seats[i].stack)
        );
    }
    out
}
