//! The showdown of a hand as PokerStars writes it: each hand shown (described in its
//! words, with the kickers that tell it from one shown before), and the pots settled one
//! by one, side pots first, each after the hands that contest it.

use super::super::{cards, describe};
use super::Body;
use poker_rules::{Card, Chips, Game};
use std::fmt::Write;

impl Body<'_> {
    /// A hand shown at the showdown, described in PokerStars' words.
    pub(super) fn shows(&mut self, player: usize, c: &[Card]) {
        if !self.showdown_started {
            self.showdown_started = true;
            let run = if self.twice.is_some() { "FIRST " } else { "" };
            let _ = writeln!(self.out, "*** {run}SHOW DOWN ***");
        }
        let name = self.hand.name(player).to_string();
        self.shown.insert(player, c.to_vec());
        if self.twice.is_some() {
            let line = match describe::describe(self.hand.config.game, c, &self.board2) {
                Some(what) => {
                    self.described2.insert(player, what.clone());
                    format!("{name}: shows [{}] ({what})", cards(c))
                }
                None => format!("{name}: shows [{}]", cards(c)),
            };
            self.second_showdown.push((player, line));
        }
        let game = self.hand.config.game;
        match describe::describe(game, c, &self.board) {
            Some(what) => {
                // A hand whose high hand is described as one shown before it says how
                // its kickers compare (`- Ace+King kicker`, `- lower kicker`; a split
                // game's after its high hand), a flush below it with the same top card
                // `- lower cards`; the summary does not.
                let high_part = |d: &str| d.split(';').next().unwrap_or("").to_string();
                let earlier = self
                    .described
                    .iter()
                    .find(|(&q, d)| q != player && high_part(d) == high_part(&what))
                    .and_then(|(q, _)| self.shown.get(q));
                let board = &self.board;
                let suffix = earlier
                    .and_then(|theirs| {
                        if let (Some(mine), Some(theirs)) = (
                            describe::flush_ranks(game, c, board),
                            describe::flush_ranks(game, theirs, board),
                        ) {
                            return (mine < theirs).then(|| " - lower cards".to_string());
                        }
                        let mine = describe::kickers(game, c, board)?;
                        let theirs = describe::kickers(game, theirs, board)?;
                        describe::kicker_suffix(&mine, &theirs)
                    })
                    .unwrap_or_default();
                let what_now = match what.split_once(';') {
                    Some((hi, lo)) => format!("{hi}{suffix};{lo}"),
                    None => format!("{what}{suffix}"),
                };
                let line = format!("{name}: shows [{}] ({what_now})", cards(c));
                self.showdown.push((player, line));
                self.described.insert(player, what);
            }
            None => {
                let line = format!("{name}: shows [{}]", cards(c));
                self.showdown.push((player, line));
            }
        }
    }

    /// Writes the showdown and the pots collected once the hand has ended, as PokerStars
    /// settles them: pot by pot from the last side pot to the main pot, each preceded by
    /// the hands shown or mucked of the players who contest it and have not yet shown
    /// (a player all in for less shows only when the main pot is settled); when the
    /// board ran twice, the second run's showdown and pots follow the first's.
    pub(super) fn settle(&mut self, stacks: &[Chips]) {
        // What each player put in (their start, less what they hold before winning):
        // the more a player put in, the more side pots they contest.
        let config = &self.hand.config;
        let put_in: Vec<Chips> = (0..config.seats.len())
            .map(|p| {
                let kept = stacks.get(p).map_or(0, |s| {
                    s.saturating_sub(self.won.get(&p).copied().unwrap_or(0))
                });
                config.seats[p].stack.saturating_sub(kept)
            })
            .collect();
        let mut levels: Vec<Chips> = self.showdown.iter().map(|&(p, _)| put_in[p]).collect();
        levels.sort_unstable();
        levels.dedup();
        // The last pot a player contests: one for each smaller amount put in by a player
        // at the showdown (each is an all-in that closed a pot).
        let last_pot = |p: usize| {
            levels
                .iter()
                .filter(|&&l| l < put_in[p])
                .count()
                .min(self.side_pot_count)
        };
        let showdowns = [
            std::mem::take(&mut self.showdown),
            std::mem::take(&mut self.second_showdown),
        ];
        let awards = std::mem::take(&mut self.awards);
        for (run, lines) in showdowns.iter().enumerate() {
            let run = run as u8;
            if !awards.iter().any(|a| a.0 == run) && run > 0 {
                continue;
            }
            if run == 1 {
                self.second_started = true;
                self.out.push_str("*** SECOND SHOW DOWN ***\n");
            }
            let mut written = vec![false; lines.len()];
            for pot in (0..=self.side_pot_count).rev() {
                for (k, (p, line)) in lines.iter().enumerate() {
                    if !written[k] && last_pot(*p) >= pot {
                        written[k] = true;
                        let _ = writeln!(self.out, "{line}");
                    }
                }
                for (_, _, line) in awards.iter().filter(|a| a.0 == run && a.1 == pot) {
                    let _ = writeln!(self.out, "{line}");
                }
            }
        }
    }

    /// A split game where nobody showed a low says so after the pots are collected, as
    /// PokerStars does.
    pub(super) fn no_low(&mut self) {
        let game = self.hand.config.game;
        if !matches!(game, Game::OmahaHiLo | Game::StudHiLo)
            || self.shown.is_empty()
            || self
                .shown
                .values()
                .any(|c| describe::has_low(game, c, &self.board))
        {
            return;
        }
        // After the pots collected, as PokerStars writes it.
        self.out.push_str("No low hand qualified\n");
    }
}
