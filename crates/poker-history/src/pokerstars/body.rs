//! The streets of a hand, written from the engine's events: the forced bets, the cards
//! dealt, every action, the showdown and the pots collected. What the summary needs
//! (who folded when, who showed what, who won what) is gathered on the way.

use super::{cards, describe, Family, Hand};
use poker_rules::table::PostKind;
use poker_rules::{BlindKind, Card, Chips, Event, Game, PotShare, Structure};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

mod showdown;

/// The streets as written, and what the summary reads of them.
pub(super) struct Body<'h> {
    hand: &'h Hand<'h>,
    /// The text from the forced bets to the last pot collected.
    pub(super) out: String,
    /// Each player's cards as dealt so far, with which are face up.
    pub(super) hole: BTreeMap<usize, Vec<(Card, bool)>>,
    /// Draw games: each player's cards where the dealer put them, a replacement card in
    /// the place of the card it replaced (the order PokerStars lists a mucked hand in).
    pub(super) in_place: BTreeMap<usize, Vec<Card>>,
    pub(super) board: Vec<Card>,
    /// The betting round each folded player folded in.
    pub(super) folded_on: BTreeMap<usize, usize>,
    pub(super) shown: BTreeMap<usize, Vec<Card>>,
    /// Shown hands in PokerStars' words.
    pub(super) described: BTreeMap<usize, String>,
    pub(super) mucked: Vec<usize>,
    pub(super) won: BTreeMap<usize, Chips>,
    /// What each pot (0 the main pot) paid out.
    pub(super) pots: BTreeMap<usize, Chips>,
    pub(super) rake: Chips,
    /// Who put chips in on the first round (a blind, a bring-in, a call, a bet): the
    /// others who fold there "didn't bet" (antes do not count).
    pub(super) put_in_first_round: BTreeSet<usize>,
    /// The number of side pots: one is "side pot", several are numbered.
    pub(super) side_pot_count: usize,
    /// The bet to call in this betting round, as the engine keeps it: the biggest blind
    /// of a blind, straddle or kill seat even when its poster is all in for less (R28),
    /// then the bring-in and each bet or raise; calls do not change it.
    round_bet: Chips,
    /// The bet to call when the first round opens.
    opening_bet: Chips,
    /// Fixed limit: the size of one bet in this round (0 until known), to tell when the
    /// raises reach the cap.
    round_unit: Chips,
    street: usize,
    /// What each player has put in live (blinds, calls, bets; not antes) before this
    /// round, and in it: a cap game says when a player reaches the cap (R24).
    live_before: BTreeMap<usize, Chips>,
    live_in_round: BTreeMap<usize, Chips>,
    /// Players not folded when this betting round started.
    round_contenders: usize,
    stud_street: usize,
    draws: usize,
    dealt_shown: bool,
    showdown_started: bool,
    /// Dead small blinds waiting for the big blind they are written with.
    pending_dead: BTreeMap<usize, Chips>,
    /// Cards left in the deck (draw games: `The deck is reshuffled` when a draw needs
    /// them all), and discards waiting to be shuffled back in.
    stub: usize,
    discard_pile: usize,
    /// Replacement cards already written with their discard (event indexes).
    written_with_discard: BTreeSet<usize>,
    /// Forced bets not written yet, with their rank in PokerStars' order.
    posts: Vec<(u8, u32, String)>,
    /// Run it twice: the length of the board both runs share, once it is run twice.
    twice: Option<usize>,
    /// Whether the hand has ended: a hand shown after that is the winner's without a
    /// showdown.
    ended: bool,
    /// The second run's board (the shared cards and its own).
    pub(super) board2: Vec<Card>,
    /// The showdown's lines (hands shown or mucked) by player, held back until the pots
    /// are awarded: PokerStars settles each pot in turn, side pots first.
    showdown: Vec<(usize, String)>,
    /// The second showdown's lines: the same hands, described on the second board.
    second_showdown: Vec<(usize, String)>,
    /// The lines collecting the pots, by run and pot, held back with the showdown.
    awards: Vec<(u8, usize, String)>,
    /// Whether the second run's showdown has been written.
    pub(super) second_started: bool,
    /// Hands described on the second board.
    pub(super) described2: BTreeMap<usize, String>,
    /// What each player won on each run (run 0 only when the board ran once).
    pub(super) by_run: BTreeMap<(usize, u8), Chips>,
}

/// Where a forced bet goes in PokerStars' order of posts.
#[derive(Clone, Copy)]
enum Forced {
    Small,
    Big,
    /// A new or returning player's post, a straddle, a kill blind.
    Other,
    Ante,
}

impl<'h> Body<'h> {
    /// Writes the streets of a hand from its events.
    pub(super) fn write(hand: &'h Hand<'h>, events: &[Event]) -> Body<'h> {
        let side_pot_count = events
            .iter()
            .filter_map(|e| match e {
                Event::PotAwarded { pot, .. } => Some(*pot),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let opening_bet = hand
            .config
            .seats
            .iter()
            .filter(|s| s.kind != BlindKind::Post)
            .map(|s| s.blind)
            .max()
            .unwrap_or(0);
        let mut body = Body {
            hand,
            out: String::new(),
            hole: BTreeMap::new(),
            in_place: BTreeMap::new(),
            board: Vec::new(),
            folded_on: BTreeMap::new(),
            shown: BTreeMap::new(),
            described: BTreeMap::new(),
            mucked: Vec::new(),
            won: BTreeMap::new(),
            pots: BTreeMap::new(),
            rake: 0,
            put_in_first_round: BTreeSet::new(),
            side_pot_count,
            round_bet: 0,
            opening_bet,
            round_unit: 0,
            street: 0,
            round_contenders: hand.config.seats.len(),
            live_before: BTreeMap::new(),
            live_in_round: BTreeMap::new(),
            stud_street: 0,
            draws: 0,
            dealt_shown: false,
            showdown_started: false,
            pending_dead: BTreeMap::new(),
            stub: if hand.config.game == Game::ShortDeckHoldem {
                36
            } else {
                52
            },
            discard_pile: 0,
            written_with_discard: BTreeSet::new(),
            posts: Vec::new(),
            twice: None,
            ended: false,
            board2: Vec::new(),
            showdown: Vec::new(),
            second_showdown: Vec::new(),
            awards: Vec::new(),
            second_started: false,
            described2: BTreeMap::new(),
            by_run: BTreeMap::new(),
        };
        for (index, event) in events.iter().enumerate() {
            if !matches!(event, Event::AntePosted { .. } | Event::BlindPosted { .. }) {
                body.flush_posts();
            }
            body.event(index, event, events);
        }
        body.flush_posts();
        // A winner without a showdown who chose not to show says so (PokerStars ends
        // the line with a space).
        for &w in &hand.no_show {
            let _ = writeln!(body.out, "{}: doesn't show hand ", hand.name(w));
        }
        // A winner without a showdown who showed a part of their hand does so after
        // collecting.
        for (&p, c) in &hand.shown_outside {
            if body.mucked.contains(&p) || body.shown.contains_key(&p) {
                continue;
            }
            let _ = match describe::describe(hand.config.game, c, &body.board) {
                Some(what) => writeln!(body.out, "{}: shows [{}] ({what})", hand.name(p), cards(c)),
                None => writeln!(body.out, "{}: shows [{}]", hand.name(p), cards(c)),
            };
        }
        body.no_low();
        body
    }

    /// The name of a pot as the lines that collect it say it.
    pub(super) fn pot_name(&self, pot: usize) -> String {
        match (pot, self.side_pot_count) {
            (_, 0) => "pot".into(),
            (0, _) => "main pot".into(),
            (_, 1) => "side pot".into(),
            (k, _) => format!("side pot-{k}"),
        }
    }

    fn event(&mut self, index: usize, event: &Event, events: &[Event]) {
        let name = |p: usize| self.hand.name(p).to_string();
        // Replacement cards come off the deck when their discard is written.
        if let Event::HoleDealt { cards: c, .. } = event {
            if !self.written_with_discard.contains(&index) {
                self.stub = self.stub.saturating_sub(c.len());
            }
        }
        match event {
            Event::AntePosted { player, amount } => self.ante(*player, *amount),
            Event::BlindPosted { player, amount } => self.blind(*player, *amount),
            Event::BringInPosted { player, amount } => {
                self.put_in_first_round.insert(*player);
                *self.live_in_round.entry(*player).or_default() += amount;
                self.round_bet = self.round_bet.max(*amount);
                // A bring-in that takes the rest of the stack says so: it may be less
                // than the game's bring-in, which the reader must not take it for (fuzz
                // regression bring-in-all-in-for-less-read-as-the-bring-in).
                let ante = self.hand.config.seats[*player].ante;
                let tail = self.all_in(*player, ante + amount);
                let amount = self.hand.m(*amount);
                let _ = writeln!(self.out, "{}: brings in for {amount}{tail}", name(*player));
            }
            // Replacement cards already written with their discard are skipped.
            Event::HoleDealt {
                player,
                cards: c,
                up,
            } if !self.written_with_discard.contains(&index) => {
                self.hole_dealt(*player, c, *up);
            }
            Event::RoundStarted { street } => self.round_started(*street),
            Event::Discarded { player, cards: c } => self.discarded(index, *player, c, events),
            Event::RunningTwice => self.twice = Some(self.board.len()),
            Event::BoardDealt { cards: c } => {
                let run = if self.twice.is_some() { "FIRST " } else { "" };
                street_lines(&mut self.out, run, &mut self.board, c);
            }
            Event::SecondBoardDealt { cards: c } => {
                if self.board2.is_empty() {
                    let shared = self.twice.unwrap_or(0).min(self.board.len());
                    self.board2 = self.board[..shared].to_vec();
                }
                street_lines(&mut self.out, "SECOND ", &mut self.board2, c);
            }
            Event::Folded { player } => {
                self.folded_on.insert(*player, self.street);
                let _ = writeln!(self.out, "{}: folds ", name(*player));
            }
            Event::Checked { player } => {
                let _ = writeln!(self.out, "{}: checks ", name(*player));
            }
            Event::Called {
                player,
                amount,
                all_in,
            } => {
                if self.street == 0 {
                    self.put_in_first_round.insert(*player);
                }
                *self.live_in_round.entry(*player).or_default() += amount;
                let tail = self.all_in_tail(*player, *all_in);
                let amount = self.hand.m(*amount);
                let _ = writeln!(self.out, "{}: calls {amount}{tail}", name(*player));
            }
            Event::BetTo {
                player, to, all_in, ..
            } => self.bet_to(*player, *to, *all_in),
            Event::UncalledReturned { player, amount } => {
                let _ = writeln!(
                    self.out,
                    "Uncalled bet ({}) returned to {}",
                    self.hand.m(*amount),
                    name(*player)
                );
            }
            // A winner without a showdown who shows the hand does so after collecting,
            // and the summary still says `collected`, as PokerStars writes it.
            Event::Shown { player, cards: c } if self.ended => {
                let _ = match describe::describe(self.hand.config.game, c, &self.board) {
                    Some(what) => {
                        writeln!(self.out, "{}: shows [{}] ({what})", name(*player), cards(c))
                    }
                    None => writeln!(self.out, "{}: shows [{}]", name(*player), cards(c)),
                };
            }
            Event::Shown { player, cards: c } => self.shows(*player, c),
            Event::Mucked { player } => {
                self.mucked.push(*player);
                let line = match self.hand.shown_outside.get(player) {
                    Some(c) => format!("{}: shows [{}]", name(*player), cards(c)),
                    None => format!("{}: mucks hand ", name(*player)),
                };
                if self.twice.is_some() {
                    self.second_showdown.push((*player, line.clone()));
                }
                // A hand mucked before any is shown comes before the showdown's title,
                // as the writer always wrote it.
                if self.showdown_started {
                    self.showdown.push((*player, line));
                } else {
                    let _ = writeln!(self.out, "{line}");
                }
            }
            Event::Raked { amount } => self.rake += amount,
            Event::PotAwarded {
                pot,
                amount,
                winners,
                run,
                share,
            } => {
                *self.pots.entry(*pot).or_default() += amount;
                let from = self.pot_name(*pot);
                for &(w, part) in winners {
                    *self.won.entry(w).or_default() += part;
                    *self.by_run.entry((w, *run)).or_default() += part;
                    // A split game's pot won whole at a showdown by a hand that makes a
                    // low is still two halves, high and low, as PokerStars writes it.
                    let halves = *share == PotShare::All
                        && winners.len() == 1
                        && self.shown.get(&w).is_some_and(|c| {
                            describe::has_low(self.hand.config.game, c, &self.board)
                        });
                    let parts = if halves {
                        vec![part - part / 2, part / 2]
                    } else {
                        vec![part]
                    };
                    for part in parts {
                        let part = self.hand.m(part);
                        let line = format!("{} collected {part} from {from}", name(w));
                        self.awards.push((*run, *pot, line));
                    }
                }
            }
            Event::HandEnded { stacks } => {
                self.ended = true;
                self.settle(stacks);
            }
            _ => {}
        }
    }

    /// Queues a forced bet's line in PokerStars' order: the small blind, the big blind,
    /// the other posts, then the antes; in 6+ the antes come first, then the button
    /// blind, as PokerStars writes its button-blind games.
    fn post(&mut self, forced: Forced, player: usize, line: String) {
        // 6+: the antes, then the blinds, then any other post (a new player's): the reader
        // takes the first big or button blind line for the table's (fuzz regression
        // six-plus-button-blind-written-after-a-new-players-post).
        let rank = match (self.hand.config.game == Game::ShortDeckHoldem, forced) {
            (true, Forced::Ante) => 0,
            (true, Forced::Small) => 1,
            (true, Forced::Big) => 2,
            (true, Forced::Other) => 3,
            (false, Forced::Small) => 0,
            (false, Forced::Big) => 1,
            (false, Forced::Other) => 2,
            (false, Forced::Ante) => 3,
        };
        // Antes go in seat order (seat 1 first), as PokerStars lists them.
        let seat = match forced {
            Forced::Ante => self.hand.meta.seats[player],
            _ => 0,
        };
        self.posts.push((rank, seat, line));
    }

    /// Writes the forced bets queued so far, in PokerStars' order (a stable sort keeps
    /// the hand's order within each rank).
    fn flush_posts(&mut self) {
        let mut posts = std::mem::take(&mut self.posts);
        posts.sort_by_key(|(rank, seat, _)| (*rank, *seat));
        for (_, _, line) in posts {
            self.out.push_str(&line);
        }
    }

    /// How a call, bet or raise that puts the player all in ends: ` and is all-in`, or in
    /// a cap game ` and has reached the $10 cap` when the cap is what stops them (R24).
    fn all_in_tail(&self, player: usize, all_in: bool) -> String {
        if !all_in {
            return String::new();
        }
        let live = self.live_before.get(&player).copied().unwrap_or(0)
            + self.live_in_round.get(&player).copied().unwrap_or(0);
        // A player whose stack is gone is all in, whether or not it is the cap.
        let seat = &self.hand.config.seats[player];
        match self.hand.config.options.cap {
            Some(cap) if live >= cap && seat.ante + live < seat.stack => {
                format!(" and has reached the {} cap", self.hand.m(cap))
            }
            _ => " and is all-in".to_string(),
        }
    }

    /// " and is all-in" when forced bets took the whole stack.
    fn all_in(&self, player: usize, forced: Chips) -> &'static str {
        if forced >= self.hand.config.seats[player].stack {
            " and is all-in"
        } else {
            ""
        }
    }

    /// An ante, or a missed small blind made up dead (which the engine takes with the
    /// antes): PokerStars writes that with the big blind it comes with, `posts small &
    /// big blinds`, or alone as a small blind.
    fn ante(&mut self, player: usize, amount: Chips) {
        let seat = self.hand.meta.seats[player];
        let posts_of = || {
            self.hand
                .meta
                .posts
                .iter()
                .filter(move |p| p.seat as u32 + 1 == seat)
        };
        let dead_small = posts_of()
            .find(|p| p.kind == PostKind::MissedSmall && !p.live)
            .map_or(0, |p| p.amount.min(amount));
        // Only a live big blind takes the dead small with it (`small & big blinds`).
        let live_big = posts_of().any(|p| p.live && p.kind != PostKind::SmallBlind);
        let ante = amount - dead_small;
        let name = self.hand.name(player).to_string();
        let all_in = self.all_in(player, amount);
        if dead_small > 0 {
            if live_big {
                self.pending_dead.insert(player, dead_small);
            } else {
                self.put_in_first_round.insert(player);
                let dead_small = self.hand.m(dead_small);
                let line = format!("{name}: posts small blind {dead_small}{all_in}\n");
                self.post(Forced::Other, player, line);
            }
        }
        if ante > 0 {
            self.post(
                Forced::Ante,
                player,
                format!("{name}: posts the ante {}{all_in}\n", self.hand.m(ante)),
            );
        }
    }

    /// A live blind, named by the seat's kind of forced bet (not by the amount, which
    /// is less when the poster is all in).
    fn blind(&mut self, player: usize, amount: Chips) {
        let hand = self.hand;
        let seat = hand.config.seats[player];
        let dead = self.pending_dead.remove(&player).unwrap_or(0);
        *self.live_in_round.entry(player).or_default() += amount;
        let blind_seats = hand
            .config
            .seats
            .iter()
            .filter(|s| s.kind == BlindKind::Blind && s.blind > 0)
            .count();
        let on_button = hand.meta.seats[player] == hand.button_seat;
        let (forced, kind) = if dead > 0 {
            (Forced::Other, "small & big blinds")
        } else {
            match seat.kind {
                BlindKind::Kill => (Forced::Other, "kill blind"),
                BlindKind::Straddle | BlindKind::Sleeper => (Forced::Other, "straddle"),
                BlindKind::Post if seat.blind < hand.big => (Forced::Other, "small blind"),
                BlindKind::Post => (Forced::Other, "big blind"),
                BlindKind::Blind
                    if hand.config.game == Game::ShortDeckHoldem
                        && blind_seats == 1
                        && on_button =>
                {
                    (Forced::Big, "button blind")
                }
                BlindKind::Blind if seat.blind < hand.big => (Forced::Small, "small blind"),
                BlindKind::Blind => (Forced::Big, "big blind"),
            }
        };
        self.put_in_first_round.insert(player);
        let line = format!(
            "{}: posts {kind} {}{}\n",
            hand.name(player),
            hand.m(amount + dead),
            self.all_in(player, seat.ante + amount)
        );
        self.post(forced, player, line);
    }

    /// Cards dealt to a player: flop and draw games write them when the betting opens
    /// (`*** HOLE CARDS ***`); stud writes each street's, the viewer's face down too.
    fn hole_dealt(&mut self, player: usize, c: &[Card], up: u8) {
        let before: Vec<(Card, bool)> = self.hole.get(&player).cloned().unwrap_or_default();
        let new: Vec<(Card, bool)> = c
            .iter()
            .enumerate()
            .map(|(k, &card)| (card, up >> k & 1 == 1))
            .collect();
        self.hole
            .entry(player)
            .or_default()
            .extend(new.iter().copied());
        self.in_place.entry(player).or_default().extend(c);
        if self.hand.family != Family::Stud {
            return;
        }
        let now = before.len() + new.len();
        let this_street = now.saturating_sub(2).max(1);
        if this_street > self.stud_street {
            self.stud_street = this_street;
            let _ = match now {
                3 => writeln!(self.out, "*** 3rd STREET ***"),
                7 => writeln!(self.out, "*** RIVER ***"),
                k => writeln!(self.out, "*** {k}th STREET ***"),
            };
        }
        let list = |v: &[(Card, bool)], only_up: bool| {
            cards(
                &v.iter()
                    .filter(|x| x.1 || !only_up)
                    .map(|x| x.0)
                    .collect::<Vec<_>>(),
            )
        };
        let only_up = !self.hand.sees(player);
        let (old, new) = (list(&before, only_up), list(&new, only_up));
        let line = match (old.is_empty(), new.is_empty()) {
            (_, true) => return,
            (true, false) => format!("[{new}]"),
            (false, false) => format!("[{old}] [{new}]"),
        };
        let _ = writeln!(self.out, "Dealt to {} {line}", self.hand.name(player));
    }

    /// A betting round opens: the first writes the hole cards (the viewer's only).
    fn round_started(&mut self, street: usize) {
        self.street = street;
        // The forced bets belong to the first round, whenever it is said to start.
        if street > 0 {
            for (p, x) in std::mem::take(&mut self.live_in_round) {
                *self.live_before.entry(p).or_default() += x;
            }
        }
        self.round_contenders = self.hand.config.seats.len() - self.folded_on.len();
        self.round_bet = if street == 0 { self.opening_bet } else { 0 };
        self.round_unit = match (street, self.hand.family) {
            (0, Family::Stud) => self.hand.config.stakes.small_bet,
            (0, _) => self.opening_bet,
            _ => 0,
        };
        if street != 0 || self.hand.family == Family::Stud || self.dealt_shown {
            return;
        }
        self.dealt_shown = true;
        self.out.push_str(if self.hand.family == Family::Draw {
            "*** DEALING HANDS ***\n"
        } else {
            "*** HOLE CARDS ***\n"
        });
        for (&p, c) in &self.hole {
            if self.hand.sees(p) {
                let c: Vec<Card> = c.iter().map(|x| x.0).collect();
                let _ = writeln!(self.out, "Dealt to {} [{}]", self.hand.name(p), cards(&c));
            }
        }
    }

    /// A bet, a raise (by its increment over the bet to call), or a stud completion.
    fn bet_to(&mut self, player: usize, to: Chips, all_in: bool) {
        if self.street == 0 {
            self.put_in_first_round.insert(player);
        }
        self.live_in_round.insert(player, to);
        let tail = self.all_in_tail(player, all_in);
        let name = self.hand.name(player);
        let m = |x: Chips| self.hand.m(x);
        let small_bet = self.hand.config.stakes.small_bet;
        // A completion of the bring-in; the bring-in's player opening with a full bet
        // instead (nothing to complete yet) bets, as PokerStars writes it.
        let completes = self.hand.family == Family::Stud
            && self.street == 0
            && self.round_bet > 0
            && self.round_bet < small_bet
            && to <= small_bet;
        let _ = if completes {
            writeln!(self.out, "{name}: completes it to {}{tail}", m(to))
        } else if self.round_bet == 0 {
            writeln!(self.out, "{name}: bets {}{tail}", m(to))
        } else {
            let by = to.saturating_sub(self.round_bet);
            writeln!(self.out, "{name}: raises {} to {}{tail}", m(by), m(to))
        };
        self.round_bet = self.round_bet.max(to);
        // Fixed limit: the raise that reaches the cap says so, unless the cap is lifted
        // for two players left.
        let config = &self.hand.config;
        if self.round_unit == 0 {
            self.round_unit = to;
        }
        // Heads-up as the table judges it (R20): when the round started, or now.
        let left = if config.options.heads_up_at_round_start {
            self.round_contenders
        } else {
            config.seats.len() - self.folded_on.len()
        };
        let lifted = config.uncapped_heads_up && left == 2;
        if let (Structure::FixedLimit, Some(cap), false) =
            (config.structure, config.max_raises, lifted)
        {
            if to == self.round_unit * (Chips::from(cap) + 1) {
                self.out.push_str("Betting is capped\n");
            }
        }
    }

    /// A discard in a draw game, with the replacement cards right after it as
    /// PokerStars writes them (the viewer's only; others' are counted).
    fn discarded(&mut self, index: usize, player: usize, c: &[Card], events: &[Event]) {
        let hand = self.hand;
        let name = hand.name(player);
        let held: Vec<Card> = self
            .hole
            .get(&player)
            .map(|v| v.iter().map(|x| x.0).collect())
            .unwrap_or_default();
        // The first discard after a betting round opens the draw (single draw has no
        // marker, as at PokerStars).
        if self.draws <= self.street {
            self.draws = self.street + 1;
            if !hand.single_draw {
                let which = ["FIRST", "SECOND", "THIRD"]
                    .get(self.street)
                    .unwrap_or(&"NEXT");
                let _ = writeln!(self.out, "*** {which} DRAW ***");
            }
        }
        if c.is_empty() {
            let _ = if hand.sees(player) {
                writeln!(self.out, "{name}: stands pat on [{}]", cards(&held))
            } else {
                writeln!(self.out, "{name}: stands pat")
            };
            return;
        }
        let count = c.len();
        // The discards go to the pile; a draw that needs more cards than the deck has
        // left waits for the pile to be shuffled back in, as the engine deals it
        // (`Hand::needs_reshuffle`), and PokerStars says so before the discards.
        self.discard_pile += count;
        if count > self.stub {
            self.out.push_str("The deck is reshuffled\n");
            self.stub += std::mem::take(&mut self.discard_pile);
        }
        self.stub = self.stub.saturating_sub(count);
        let noun = if count == 1 { "card" } else { "cards" };
        let kept: Vec<Card> = held.iter().copied().filter(|h| !c.contains(h)).collect();
        self.hole
            .insert(player, kept.iter().map(|&k| (k, false)).collect());
        let _ = if hand.sees(player) {
            writeln!(self.out, "{name}: discards {count} {noun} [{}]", cards(c))
        } else {
            writeln!(self.out, "{name}: discards {count} {noun}")
        };
        let replacement = events[index + 1..]
            .iter()
            .enumerate()
            .find_map(|(k, e)| match e {
                Event::HoleDealt {
                    player: p,
                    cards: new,
                    ..
                } if *p == player => Some((index + 1 + k, *new)),
                _ => None,
            });
        if let Some((at, new)) = replacement {
            self.written_with_discard.insert(at);
            if let Some(place) = self.in_place.get_mut(&player) {
                for (old, &card) in c.iter().zip(new.iter()) {
                    if let Some(k) = place.iter().position(|x| x == old) {
                        place[k] = card;
                    }
                }
            }
            self.hole
                .entry(player)
                .or_default()
                .extend(new.iter().map(|&x| (x, false)));
            if hand.sees(player) {
                let _ = writeln!(
                    self.out,
                    "Dealt to {name} [{}] [{}]",
                    cards(&kept),
                    cards(&new)
                );
            }
        }
    }
}

/// Writes the street lines for board cards dealt (`*** FLOP ***`, `*** TURN ***`...), one
/// per street even when several streets come at once (a run of the board), with `run`
/// before the street's name (`FIRST `, `SECOND ` when the board is run twice).
fn street_lines(out: &mut String, run: &str, board: &mut Vec<Card>, new: &[Card]) {
    let mut rest = new;
    while !rest.is_empty() {
        let take = if board.len() < 3 {
            (3 - board.len()).min(rest.len())
        } else {
            1
        };
        let (now, later) = rest.split_at(take);
        let before = board.clone();
        board.extend(now.iter().copied());
        let _ = match board.len() {
            3 => writeln!(out, "*** {run}FLOP *** [{}]", cards(board)),
            4 => writeln!(
                out,
                "*** {run}TURN *** [{}] [{}]",
                cards(&before),
                cards(now)
            ),
            _ => writeln!(
                out,
                "*** {run}RIVER *** [{}] [{}]",
                cards(&before),
                cards(now)
            ),
        };
        rest = later;
    }
}
