//! The summary: the pot and rake, the board, and one line per seat saying how the
//! player's hand ended.

use super::body::Body;
use super::{cards, Family, Hand};
use poker_rules::{Card, Chips, Game};
use std::fmt::Write;

/// Where a player folded, in PokerStars' words for the game.
fn street_name(hand: &Hand, street: usize) -> String {
    match hand.family {
        Family::Flop => ["before Flop", "on the Flop", "on the Turn", "on the River"]
            .get(street)
            .copied()
            .unwrap_or("on the River")
            .to_string(),
        Family::Stud => format!(
            "on the {}",
            [
                "3rd Street",
                "4th Street",
                "5th Street",
                "6th Street",
                "River"
            ]
            .get(street)
            .copied()
            .unwrap_or("River")
        ),
        // PokerStars' single draw says `before Flop`, as its flop games do.
        Family::Draw if street == 0 && hand.single_draw => "before Flop".to_string(),
        Family::Draw if street == 0 => "before the Draw".to_string(),
        Family::Draw if hand.single_draw => "after the Draw".to_string(),
        Family::Draw => format!(
            "after the {} Draw",
            ["1st", "2nd", "3rd"]
                .get(street - 1)
                .copied()
                .unwrap_or("3rd")
        ),
    }
}

/// The seat's position as the summary marks it: the button, and the blind of a blind
/// seat (heads-up the button is also the small blind, R19: `(button) (small blind)`).
/// A new or returning player's post is not a position: PokerStars marks it nowhere.
fn role(hand: &Hand, player: usize) -> &'static str {
    if hand.family == Family::Stud {
        return "";
    }
    let on_button = hand.meta.seats[player] == hand.button_seat;
    let blind = hand.position_blind(player);
    let small = blind.is_some_and(|b| b < hand.big);
    match (on_button, blind) {
        // 6+: the button posts the button blind, and is marked by it alone.
        (true, Some(_)) if hand.config.game == Game::ShortDeckHoldem => " (button blind)",
        (true, Some(_)) if small && hand.config.seats.len() == 2 => " (button) (small blind)",
        (true, _) => " (button)",
        (false, Some(_)) if small => " (small blind)",
        (false, Some(_)) => " (big blind)",
        (false, None) => "",
    }
}

/// How the player's hand ended.
fn outcome(hand: &Hand, body: &Body, player: usize) -> String {
    // Badugi's descriptions (`Badugi: 8,4,3,A`, `3-card: T,7,2`) take an article in
    // the summary, as PokerStars writes them.
    let article = if hand.config.game == Game::Badugi {
        "a "
    } else {
        ""
    };
    let with = body
        .described
        .get(&player)
        .map(|d| format!(" with {article}{d}"))
        .unwrap_or_default();
    if let Some(&street) = body.folded_on.get(&player) {
        let quiet = if street == 0 && !body.put_in_first_round.contains(&player) {
            " (didn't bet)"
        } else {
            ""
        };
        return format!("folded {}{quiet}", street_name(hand, street));
    }
    if let (Some(c), true) = (body.shown.get(&player), body.second_started) {
        // Run twice: `and won ($X) with ...` or `and lost with ...` for each run.
        let runs: Vec<String> = [(0u8, &body.described), (1u8, &body.described2)]
            .iter()
            .map(|(run, d)| {
                let with = d
                    .get(&player)
                    .map(|d| format!(" with {d}"))
                    .unwrap_or_default();
                match body.by_run.get(&(player, *run)).filter(|&&w| w > 0) {
                    Some(&w) => format!("won ({}){with}", hand.m(w)),
                    None => format!("lost{with}"),
                }
            })
            .collect();
        return format!("showed [{}] and {}", cards(c), runs.join(", and "));
    }
    if let Some(c) = body.shown.get(&player) {
        return match body.won.get(&player) {
            Some(&w) => format!("showed [{}] and won ({}){with}", cards(c), hand.m(w)),
            None => format!("showed [{}] and lost{with}", cards(c)),
        };
    }
    if let Some(&w) = body.won.get(&player) {
        return format!("collected ({})", hand.m(w));
    }
    if body.mucked.contains(&player) {
        // The cards of a hand mucked at the showdown, where the history may name them
        // (the player's own, the house's view), or where the record says they were
        // shown to the table (`# p2 mucked 9sAh`, a hand read from PokerStars text).
        // A draw game's hand in the places its cards were dealt to.
        let held: Vec<Card> = match body.in_place.get(&player) {
            Some(v) if hand.family == Family::Draw => v.clone(),
            _ => body
                .hole
                .get(&player)
                .map(|v| v.iter().map(|x| x.0).collect())
                .unwrap_or_default(),
        };
        if hand.knows(player) && !held.is_empty() && held.iter().all(|c| c.is_known()) {
            return format!("mucked [{}]", cards(&held));
        }
        if let Some(named) = hand.mucked_named.get(&player) {
            return format!("mucked [{}]", cards(named));
        }
        return "mucked".to_string();
    }
    "lost".to_string()
}

/// Writes the summary.
pub(super) fn summary(hand: &Hand, body: &Body, out: &mut String) {
    // Everything bet and not returned: what was awarded plus the rake.
    let total: Chips = body.pots.values().sum::<Chips>() + body.rake;
    out.push_str("*** SUMMARY ***\n");
    let mut line = format!("Total pot {}", hand.m(total));
    if body.side_pot_count > 0 {
        for (&k, &amount) in &body.pots {
            let mut name = body.pot_name(k);
            name[..1].make_ascii_uppercase();
            let _ = write!(line, " {name} {}.", hand.m(amount));
        }
    }
    // PokerStars ends the line with a space.
    let _ = writeln!(out, "{line} | Rake {} ", hand.m(body.rake));
    if !body.board2.is_empty() {
        let _ = writeln!(out, "Hand was run twice");
        let _ = writeln!(out, "FIRST Board [{}]", cards(&body.board));
        let _ = writeln!(out, "SECOND Board [{}]", cards(&body.board2));
    } else if !body.board.is_empty() {
        let _ = writeln!(out, "Board [{}]", cards(&body.board));
    }
    for &i in &hand.order {
        let _ = writeln!(
            out,
            "Seat {}: {}{} {}",
            hand.meta.seats[i],
            hand.name(i),
            role(hand, i),
            outcome(hand, body, i)
        );
    }
}
