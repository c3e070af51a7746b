//! Before each hand: who is dealt in, where the button goes (R18, R19), which blinds
//! are due, missed blinds and posts (R13, R14), straddles, kill and rock (R15-R17), and
//! the plan of the hand.

use super::*;
use crate::game::Opening;
use crate::hand::{BlindKind, Chips, HandConfig, SeatConfig};

impl<P: Clone + PartialEq> Table<P> {
    /// Whether a seat's player can be dealt in at all (seated, chips, not sitting out).
    pub(super) fn active(&self, seat: usize) -> bool {
        self.seats[seat]
            .as_ref()
            .is_some_and(|o| !o.sitting_out && o.stack > 0)
    }

    /// Whether the player owes a post before being dealt in anywhere but the big blind.
    pub(super) fn owes(&self, seat: usize) -> bool {
        self.seats[seat]
            .as_ref()
            .is_some_and(|o| o.new || o.missed_big || o.missed_small)
    }

    /// Whether the player will play with no post owed (for positions).
    pub(super) fn ready(&self, seat: usize) -> bool {
        self.active(seat)
            && !(self.owes(seat)
                && self.seats[seat]
                    .as_ref()
                    .is_some_and(|o| o.entry == Entry::WaitForBigBlind))
    }

    pub(super) fn next_seat(&self, from: usize, pred: impl Fn(usize) -> bool) -> Option<usize> {
        let n = self.seats.len();
        (1..=n).map(|k| (from + k) % n).find(|&s| pred(s))
    }

    pub(super) fn prev_seat(&self, from: usize, pred: impl Fn(usize) -> bool) -> Option<usize> {
        let n = self.seats.len();
        (1..=n).map(|k| (from + n - k) % n).find(|&s| pred(s))
    }

    /// Seats strictly between `a` and `b`, clockwise.
    pub(super) fn between(&self, a: usize, b: usize) -> Vec<usize> {
        let n = self.seats.len();
        let mut out = Vec::new();
        let mut s = (a + 1) % n;
        while s != b {
            out.push(s);
            s = (s + 1) % n;
        }
        out
    }

    pub(super) fn positions(&self) -> Option<Positions> {
        let n = self.seats.len();
        let players: Vec<usize> = (0..n).filter(|&s| self.ready(s)).collect();
        let takers: Vec<usize> = (0..n).filter(|&s| self.active(s)).collect();
        if takers.len() < 2 {
            return None;
        }
        // First hand (or after the table emptied): button on the first ready player.
        let (Some(button), Some(last_bb)) = (self.button, self.last_bb) else {
            // Planning only reads; `next_hand` records the restart.
            let button = *players.first().unwrap_or(&takers[0]);
            let ready_or_taker = |s: usize| self.ready(s) || self.active(s);
            let small = self.next_seat(button, ready_or_taker)?;
            let big = self.next_seat(small, |s| self.active(s))?;
            if big == button {
                // Heads-up: the button posts the small blind.
                return Some(Positions {
                    button,
                    small: vec![button],
                    big: vec![small],
                    missed_small: None,
                });
            }
            return Some(Positions {
                button,
                small: vec![small],
                big: vec![big],
                missed_small: None,
            });
        };
        let big = self.next_seat(last_bb, |s| self.active(s))?;
        let dealt_count = (0..n).filter(|&s| self.ready(s) || s == big).count();
        if dealt_count == 2 {
            // Heads-up (R19): the big blind keeps moving; the other player has the button
            // and posts the small blind.
            let other = self.next_seat(big, |s| s != big && self.ready(s))?;
            return Some(Positions {
                button: other,
                small: vec![other],
                big: vec![big],
                missed_small: None,
            });
        }
        match self.rules.button {
            ButtonRule::Dead => {
                let counted = |s: usize| self.seats[s].is_some() || self.dead_seats.contains(&s);
                let small = self.prev_seat(big, counted).filter(|&s| s != big)?;
                let button = self
                    .prev_seat(small, counted)
                    .filter(|&s| s != small)
                    .unwrap_or(small);
                let missed_small = (!self.ready(small)).then_some(small);
                let small = if self.ready(small) {
                    vec![small]
                } else {
                    vec![]
                };
                Some(Positions {
                    button,
                    small,
                    big: vec![big],
                    missed_small,
                })
            }
            ButtonRule::SimplifiedMoving => {
                // The button moves to the next player of the last hand (newcomers and
                // returning players do not push the blinds back); the small and big
                // blinds are the next two players. Nobody posts the same blind twice
                // running: the big blind always moves on, and a small blind that would
                // repeat is not posted.
                let button = self
                    .next_seat(button, |s| self.ready(s) && self.last_dealt.contains(&s))
                    .or_else(|| self.next_seat(button, |s| self.ready(s) && !self.owes(s)))
                    .or_else(|| self.next_seat(button, |s| self.ready(s)))?;
                let small = self.next_seat(button, |s| self.ready(s) || self.active(s))?;
                let mut big = self.next_seat(small, |s| self.active(s))?;
                if big == last_bb {
                    big = self.next_seat(last_bb, |s| self.active(s))?;
                }
                let small: Vec<usize> =
                    (self.ready(small) && small != big && !self.small_posters.contains(&small))
                        .then_some(small)
                        .into_iter()
                        .collect();
                Some(Positions {
                    button,
                    small,
                    big: vec![big],
                    missed_small: None,
                })
            }
            ButtonRule::Moving => {
                let button = self.next_seat(button, |s| self.ready(s))?;
                let first = self.next_seat(button, |s| self.ready(s) || self.active(s))?;
                // Nobody posts the big blind two hands running: it moves on past last
                // hand's big blinds.
                let fresh = |s: usize| self.active(s) && !self.bb_posters.contains(&s);
                let mut big_seat = self.next_seat(first, |s| self.active(s))?;
                if !fresh(big_seat) {
                    big_seat = self.next_seat(big_seat, fresh).unwrap_or(big_seat);
                }
                // The big blind, and every player it skipped past since the last one.
                let mut big: Vec<usize> = self
                    .between(last_bb, big_seat)
                    .into_iter()
                    .filter(|&s| {
                        self.ready(s)
                            && !self.bb_posters.contains(&s)
                            && self.last_dealt.contains(&s)
                    })
                    .collect();
                big.push(big_seat);
                let small: Vec<usize> = self
                    .bb_posters
                    .iter()
                    .copied()
                    .filter(|&s| self.ready(s) && !big.contains(&s))
                    .collect();
                Some(Positions {
                    button,
                    small,
                    big,
                    missed_small: None,
                })
            }
        }
    }

    /// No game can run while everyone able to play owes a post and waits for a big blind
    /// that cannot come: with no game running there is nothing to owe, so the table
    /// starts afresh (the button is placed anew).
    pub(super) fn restart(&mut self) {
        for o in self.seats.iter_mut().flatten() {
            o.new = false;
            o.missed_big = false;
            o.missed_small = false;
        }
        self.button = None;
        self.last_bb = None;
        self.bb_posters.clear();
        self.small_posters.clear();
        self.restarting = true;
    }

    /// Decides the next hand, or `None` when fewer than two players can play. Players
    /// who sat out too long are stood up first; they are returned for cashing out.
    pub fn next_hand(&mut self) -> (Option<HandPlan>, Vec<StoodUp<P>>) {
        assert!(self.current.is_none(), "finish the current hand first");
        let mut stood_up = Vec::new();
        for seat in 0..self.seats.len() {
            if let Some(o) = self.seats[seat].as_mut() {
                if o.sit_out_next_hand {
                    o.sitting_out = true;
                    o.sit_out_next_hand = false;
                }
                if o.stack == 0 {
                    o.sitting_out = true;
                }
            }
        }
        if self.rules.game.opening() != Opening::Position {
            return (self.plan_stud(), stood_up);
        }
        // Dealer's choice: an orbit played out gives way to the next game (H3); a bomb
        // pot is planned from the last hand's button, leaving the rest as it is (H2).
        self.rotate();
        if let Some(big_blinds) = self.bomb_due() {
            if let Some(plan) = self.plan_bomb_pot(big_blinds) {
                return (Some(plan), stood_up);
            }
        }
        if self.button.is_none() || self.last_bb.is_none() {
            // A game starting afresh: nothing is owed to a game that was not running.
            self.restart();
        }
        // A player who asked to sit out at the big blind does so when it arrives.
        let positions = loop {
            let positions = match self.positions() {
                Some(p) => p,
                None if (0..self.seats.len()).filter(|&s| self.active(s)).count() >= 2
                    && self.button.is_some() =>
                {
                    self.restart();
                    match self.positions() {
                        Some(p) => p,
                        None => return (None, stood_up),
                    }
                }
                None => return (None, stood_up),
            };
            let leaving: Vec<usize> = positions
                .big
                .iter()
                .copied()
                .filter(|&s| {
                    self.seats[s]
                        .as_ref()
                        .is_some_and(|o| o.sit_out_next_big_blind)
                })
                .collect();
            if leaving.is_empty() {
                break positions;
            }
            for s in leaving {
                let o = self.seats[s].as_mut().expect("occupied");
                o.sitting_out = true;
                o.sit_out_next_big_blind = false;
            }
        };
        // Missed blinds: sitting-out players the big blind passed (R14).
        if let Some(last_bb) = self.last_bb {
            let passed = self.between(last_bb, *positions.big.last().expect("a big blind"));
            for s in passed.into_iter().chain(positions.big.iter().copied()) {
                let max_missed = self.rules.max_missed_big_blinds;
                if let Some(o) = self.seats[s].as_mut() {
                    if o.sitting_out && !o.new {
                        o.missed_big = true;
                        o.missed_small = true;
                        o.missed_big_blinds += 1;
                        if max_missed > 0 && o.missed_big_blinds >= max_missed {
                            stood_up.push(StoodUp {
                                seat: s,
                                player: o.player.clone(),
                                stack: o.stack,
                            });
                        }
                    }
                }
            }
        }
        if let Some(s) = positions.missed_small {
            if let Some(o) = self.seats[s].as_mut().filter(|o| o.sitting_out && !o.new) {
                o.missed_small = true;
            }
        }
        for s in &stood_up {
            self.vacate(s.seat);
        }
        if !stood_up.is_empty() {
            // Positions may change with the seats freed; plan again.
            let (plan, more) = self.next_hand();
            stood_up.extend(more);
            return (plan, stood_up);
        }
        (self.plan_blinds(positions), stood_up)
    }

    pub(super) fn plan_blinds(&mut self, pos: Positions) -> Option<HandPlan> {
        let n = self.seats.len();
        let (sb, bb) = (self.rules.small_blind, self.rules.big_blind);
        let mut posts: Vec<Post> = Vec::new();
        let mut dealt: Vec<usize> = Vec::new();
        let small_seat_this_hand = |s: usize| pos.small.contains(&s);
        for s in 0..n {
            if !self.active(s) {
                continue;
            }
            let o = self.seats[s].as_ref().expect("active");
            if pos.big.contains(&s) {
                posts.push(Post {
                    seat: s,
                    kind: PostKind::BigBlind,
                    amount: bb,
                    live: true,
                });
                if pos.small.contains(&s) {
                    posts.push(Post {
                        seat: s,
                        kind: PostKind::SmallBlind,
                        amount: sb,
                        live: false,
                    });
                }
                dealt.push(s);
            } else if small_seat_this_hand(s) && !self.owes(s) {
                posts.push(Post {
                    seat: s,
                    kind: PostKind::SmallBlind,
                    amount: sb,
                    live: true,
                });
                dealt.push(s);
            } else if self.owes(s) {
                // New or returning players not in the big blind: post or wait (R13, R14).
                if o.entry == Entry::WaitForBigBlind
                    || small_seat_this_hand(s)
                    || s == pos.button && self.rules.button == ButtonRule::Dead
                {
                    continue;
                }
                if o.new
                    || (o.missed_big
                        && self.rules.missed_blinds == MissedBlindRule::DeadSmallLiveBig)
                {
                    let kind = if o.new {
                        PostKind::NewPlayer
                    } else {
                        PostKind::MissedBig
                    };
                    posts.push(Post {
                        seat: s,
                        kind,
                        amount: bb,
                        live: true,
                    });
                    if !o.new && o.missed_small {
                        posts.push(Post {
                            seat: s,
                            kind: PostKind::MissedSmall,
                            amount: sb,
                            live: false,
                        });
                    }
                } else if o.missed_big {
                    posts.push(Post {
                        seat: s,
                        kind: PostKind::MissedBig,
                        amount: bb,
                        live: true,
                    });
                } else {
                    posts.push(Post {
                        seat: s,
                        kind: PostKind::MissedSmall,
                        amount: sb,
                        live: self.rules.missed_blinds == MissedBlindRule::OnePerHand,
                    });
                }
                dealt.push(s);
            } else {
                dealt.push(s);
            }
        }
        if dealt.len() < 2 {
            let able = (0..n).filter(|&s| self.active(s)).count();
            if able >= 2 && self.button.is_some() {
                self.restart();
                let pos = self.positions()?;
                return self.plan_blinds(pos);
            }
            return None;
        }
        // Player order: first dealt seat after the button, ending at (or before) it.
        dealt.sort_by_key(|&s| (s + n - pos.button - 1) % n);
        let blinds: Vec<usize> = pos.big.iter().chain(&pos.small).copied().collect();
        self.deal_at_most(&mut dealt, &mut posts, &blinds);
        let big_seat = *pos.big.last().expect("a big blind");
        // The rock: its holder straddles twice the big blind from under the gun (R16).
        if self.rules.rock && dealt.len() > 2 {
            // Under the gun: the first player dealt in after the big blind.
            let utg = dealt
                .iter()
                .copied()
                .min_by_key(|&s| (s + n - big_seat - 1) % n)
                .expect("dealt");
            if self.rock_seat.is_none_or(|r| self.seats[r].is_none()) {
                self.rock_seat = Some(utg);
            }
            if self.rock_seat == Some(utg) && !pos.big.contains(&utg) {
                posts.retain(|p| !(p.seat == utg && p.live));
                posts.push(Post {
                    seat: utg,
                    kind: PostKind::Rock,
                    amount: 2 * bb,
                    live: true,
                });
            }
        }
        // A live straddle chosen by the player under the gun (R15): twice the big blind,
        // covering any live post they owe; not heads-up, not in a kill hand (whose blind
        // is the one raised), and only from a stack that covers it.
        let kill_due =
            self.rules.kill.is_some() && self.kill_seat.is_some_and(|k| dealt.contains(&k));
        if self.rules.straddle && !kill_due && dealt.len() > 2 {
            let utg = dealt
                .iter()
                .copied()
                .min_by_key(|&s| (s + n - big_seat - 1) % n)
                .expect("dealt");
            let o = self.seats[utg].as_ref().expect("dealt seats are occupied");
            // The stack must cover the straddle beside any dead post and ante it owes.
            let dead: Chips = posts
                .iter()
                .filter(|p| p.seat == utg && !p.live)
                .map(|p| p.amount)
                .sum();
            let ante = match self.rules.ante {
                AnteRule::Each(a) | AnteRule::Button(a) => a,
                AnteRule::BigBlind(_) | AnteRule::None => 0,
            };
            if o.straddle
                && !pos.big.contains(&utg)
                && !pos.small.contains(&utg)
                && o.stack > 2 * bb + dead + ante
            {
                posts.retain(|p| !(p.seat == utg && p.live));
                posts.push(Post {
                    seat: utg,
                    kind: PostKind::Straddle,
                    amount: 2 * bb,
                    live: true,
                });
            }
        }
        // The kill: the triggering player posts the kill blind; the stakes rise (R17).
        let mut kill = false;
        if let (Some(rule), Some(k)) = (self.rules.kill, self.kill_seat) {
            if dealt.contains(&k) {
                kill = true;
                let amount = bb * rule.percent as Chips / 100;
                posts.retain(|p| !(p.seat == k && p.live));
                posts.push(Post {
                    seat: k,
                    kind: PostKind::Kill,
                    amount,
                    live: true,
                });
            }
        }
        // Antes.
        match self.rules.ante {
            AnteRule::None => {}
            AnteRule::Each(a) => {
                for &s in &dealt {
                    posts.push(Post {
                        seat: s,
                        kind: PostKind::Ante,
                        amount: a,
                        live: false,
                    });
                }
            }
            AnteRule::BigBlind(a) => posts.push(Post {
                seat: big_seat,
                kind: PostKind::Ante,
                amount: a,
                live: false,
            }),
            AnteRule::Button(a) => {
                let payer = if dealt.contains(&pos.button) {
                    pos.button
                } else {
                    *dealt.last().expect("dealt")
                };
                posts.push(Post {
                    seat: payer,
                    kind: PostKind::Ante,
                    amount: a,
                    live: false,
                });
            }
        }
        self.button = Some(pos.button);
        self.last_bb = Some(big_seat);
        self.bb_posters = pos.big.clone();
        self.small_posters = posts
            .iter()
            .filter(|p| p.kind == PostKind::SmallBlind && p.live)
            .map(|p| p.seat)
            .collect();
        // Dead seats the button reached are no longer counted.
        if let Some(b) = self.button {
            self.dead_seats
                .retain(|&d| d != b && self.seats[d].is_none());
        }
        Some(self.make_plan(pos.button, dealt, posts, kill))
    }

    pub(super) fn plan_stud(&mut self) -> Option<HandPlan> {
        let n = self.seats.len();
        let dealt: Vec<usize> = (0..n).filter(|&s| self.active(s)).collect();
        if dealt.len() < 2 {
            return None;
        }
        let button = self.next_seat(self.button.unwrap_or(n - 1), |s| self.active(s))?;
        let mut dealt = dealt;
        dealt.sort_by_key(|&s| (s + n - button - 1) % n);
        self.deal_at_most(&mut dealt, &mut Vec::new(), &[]);
        let posts = match self.rules.ante {
            AnteRule::Each(a) => dealt
                .iter()
                .map(|&s| Post {
                    seat: s,
                    kind: PostKind::Ante,
                    amount: a,
                    live: false,
                })
                .collect(),
            AnteRule::Button(a) | AnteRule::BigBlind(a) => {
                vec![Post {
                    // The button, unless it sits this hand out (`deal_at_most`).
                    seat: if dealt.contains(&button) {
                        button
                    } else {
                        *dealt.last().expect("dealt")
                    },
                    kind: PostKind::Ante,
                    amount: a,
                    live: false,
                }]
            }
            AnteRule::None => Vec::new(),
        };
        self.button = Some(button);
        Some(self.make_plan(button, dealt, posts, false))
    }

    /// Leaves out of the hand the players the game cannot deal to from one deck, at a
    /// table an older version stored with more seats than that ([`Table::reopen`]): the
    /// last in the hand's order (`dealt`, sorted from the button) who post no blind, with
    /// their posts, so that who sits a hand out moves round with the button. They owe
    /// nothing for it and are dealt in again as it moves on.
    pub(super) fn deal_at_most(
        &self,
        dealt: &mut Vec<usize>,
        posts: &mut Vec<Post>,
        blinds: &[usize],
    ) {
        let max = self.hand_game().game.max_players();
        let mut over = dealt.len().saturating_sub(max);
        if over == 0 {
            return;
        }
        let mut left_out = Vec::new();
        for &s in dealt.iter().rev() {
            if over == 0 {
                break;
            }
            if !blinds.contains(&s) {
                left_out.push(s);
                over -= 1;
            }
        }
        dealt.retain(|s| !left_out.contains(s));
        posts.retain(|p| !left_out.contains(&p.seat));
    }

    pub(super) fn make_plan(
        &mut self,
        button: usize,
        seats: Vec<usize>,
        posts: Vec<Post>,
        kill: bool,
    ) -> HandPlan {
        self.hands += 1;
        let game = self.hand_game();
        self.count_in_orbit(seats.len(), posts.iter().any(|p| p.kind == PostKind::Bomb));
        let mut stakes = game.stakes;
        if kill {
            let pct = self.rules.kill.map_or(100, |k| k.percent) as Chips;
            stakes.min_bet = stakes.min_bet * pct / 100;
            stakes.small_bet = stakes.small_bet * pct / 100;
            stakes.big_bet = stakes.big_bet * pct / 100;
        }
        let config = HandConfig {
            game: game.game,
            structure: game.structure,
            stakes,
            max_raises: game.max_raises,
            uncapped_heads_up: game.uncapped_heads_up,
            options: if self.rules.dealers_choice.is_empty() {
                self.rules.options.clone()
            } else {
                super::house::options_for(&game, &self.rules.options)
            },
            seats: seats
                .iter()
                .map(|&s| {
                    let stack = self.seats[s]
                        .as_ref()
                        .expect("dealt seats are occupied")
                        .stack;
                    let ante = posts
                        .iter()
                        .filter(|p| p.seat == s && !p.live)
                        .map(|p| p.amount)
                        .sum();
                    let live = posts
                        .iter()
                        .filter(|p| p.seat == s && p.live)
                        .max_by_key(|p| p.amount);
                    let blind = live.map_or(0, |p| p.amount);
                    let kind = match live.map(|p| p.kind) {
                        Some(PostKind::Rock | PostKind::Straddle) => BlindKind::Straddle,
                        Some(PostKind::Kill) => BlindKind::Kill,
                        Some(PostKind::NewPlayer | PostKind::MissedBig | PostKind::MissedSmall) => {
                            BlindKind::Post
                        }
                        _ => BlindKind::Blind,
                    };
                    SeatConfig {
                        stack,
                        ante,
                        blind,
                        kind,
                    }
                })
                .collect(),
        };
        let plan = HandPlan {
            number: self.hands,
            button,
            seats,
            posts,
            kill,
            restart: std::mem::take(&mut self.restarting),
            bomb_pot: false,
            config,
        };
        self.current = Some(plan.clone());
        plan
    }
}
