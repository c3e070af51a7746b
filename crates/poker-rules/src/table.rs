//! The table between hands: who sits where, who is dealt in, where the button goes, who
//! owes which blind, and what happens to players who sit out, leave, return or bust.
//!
//! Pure like the rest of the crate: no clock (times come in as arguments), no storage
//! (the state is serializable and rathole records go in and out so a store can keep
//! them). Before each hand [`Table::next_hand`] produces a [`HandPlan`]: the seats dealt
//! in, the button, every forced bet with its live or dead part, and the [`HandConfig`]
//! the hand state machine takes; [`Table::finish_hand`] absorbs the finished hand.

use crate::game::{Game, Opening, Structure};
use crate::hand::{BlindKind, Chips, Hand, HandConfig, HandOptions, SeatConfig, Stakes, MAX_CHIPS};
use serde::{Deserialize, Serialize};

/// How the button and blinds move when players come and go (R18).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ButtonRule {
    /// The button moves to the next player; the next two players post the blinds.
    /// Players may miss blinds. Common online.
    SimplifiedMoving,
    /// The button moves to the next player; the player two seats after it posts the big
    /// blind, and so does every player the big blind skipped; whoever posted a big blind
    /// posts a small blind next (on, before or after the button).
    Moving,
    /// The big blind moves to the next player due; the small blind and button are placed
    /// behind it and may fall on empty seats. Common in live cash games.
    Dead,
}

/// How a returning player pays the blinds missed while sitting out (R14).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MissedBlindRule {
    /// The big blind live and the small blind dead, both at once.
    DeadSmallLiveBig,
    /// One per hand, largest first, all live.
    OnePerHand,
}

/// Who pays antes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "amount", rename_all = "snake_case")]
pub enum AnteRule {
    /// No antes.
    None,
    /// Every player dealt in antes this amount.
    Each(Chips),
    /// The big blind pays this ante for the table.
    BigBlind(Chips),
    /// The button pays this ante for the table ("dealer pays").
    Button(Chips),
}

/// What triggers a kill hand (R17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum KillTrigger {
    /// A pot won by one player above this amount.
    PotOver(Chips),
    /// One player winning this many pots in a row.
    ConsecutiveWins(u32),
}

/// A kill game: the trigger and how much the kill raises the stakes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KillRule {
    /// What triggers it.
    pub trigger: KillTrigger,
    /// Stakes multiplier in percent: 200 for a full kill, 150 for a half kill.
    pub percent: u32,
}

/// The table's configuration: its game, stakes and house rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableRules {
    /// The game dealt.
    pub game: Game,
    /// The betting structure.
    pub structure: Structure,
    /// Bet sizes of a normal hand.
    pub stakes: Stakes,
    /// Fixed limit raise cap (raises after the opening bet).
    pub max_raises: Option<u32>,
    /// Fixed limit: no cap heads-up.
    pub uncapped_heads_up: bool,
    /// Seats at the table, 2 to 10.
    pub seat_count: usize,
    /// The small blind (blind games).
    pub small_blind: Chips,
    /// The big blind (blind games); also what a new or returning player posts.
    pub big_blind: Chips,
    /// Antes.
    pub ante: AnteRule,
    /// Button movement.
    pub button: ButtonRule,
    /// Paying missed blinds.
    pub missed_blinds: MissedBlindRule,
    /// Smallest buy-in (R26).
    pub min_buy_in: Chips,
    /// Largest buy-in, and the most a top-up may bring a stack to (R26, R37).
    pub max_buy_in: Chips,
    /// A player who leaves and comes back within this many seconds must bring back at
    /// least the stack they left with (no ratholing).
    pub rathole_secs: u64,
    /// A player who misses this many big blinds in a row while sitting out is stood up.
    pub max_missed_big_blinds: u32,
    /// Kill game, if any.
    pub kill: Option<KillRule>,
    /// Whether the table plays with the rock: a mandatory straddle token (R16).
    pub rock: bool,
    /// House options of every hand (spread, cap, unit, rake...).
    #[serde(default)]
    pub options: HandOptions,
}

/// Why a table operation was refused. Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum TableError {
    /// No such seat.
    #[error("no seat {0}")]
    NoSuchSeat(usize),
    /// The seat is taken.
    #[error("seat {0} is taken")]
    SeatTaken(usize),
    /// The seat is empty.
    #[error("seat {0} is empty")]
    EmptySeat(usize),
    /// The player already sits at this table.
    #[error("the player is already seated")]
    AlreadySeated,
    /// The buy-in is outside the table's limits.
    #[error("buy-in must be between {min} and {max}")]
    BuyInOutOfRange {
        /// Smallest allowed.
        min: Chips,
        /// Largest allowed.
        max: Chips,
    },
    /// A top-up would take the stack over the maximum buy-in.
    #[error("a top-up may bring the stack to at most {max}")]
    TopUpTooLarge {
        /// The largest stack allowed.
        max: Chips,
    },
    /// The player is in the hand being played: money moves between hands only (R37).
    #[error("not during a hand the player is in")]
    InHand,
    /// The rules are inconsistent.
    #[error("invalid table rules: {0}")]
    InvalidRules(String),
    /// `finish_hand` got a hand that is not the one planned, or is not complete.
    #[error("that hand does not belong to the current plan")]
    WrongHand,
}

/// When a player sitting down with no post wants to be dealt in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Entry {
    /// Post what is owed now and be dealt in at once.
    PostNow,
    /// Wait for the big blind to reach the seat (no post owed then).
    WaitForBigBlind,
}

/// When to sit out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SitOut {
    /// From the next hand.
    NextHand,
    /// When the big blind next reaches the seat.
    NextBigBlind,
}

/// Someone at the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Occupant<P> {
    /// Who.
    pub player: P,
    /// Chips on the table.
    pub stack: Chips,
    /// Not being dealt in.
    pub sitting_out: bool,
    /// Asked to sit out from the next hand.
    pub sit_out_next_hand: bool,
    /// Asked to sit out when the big blind comes.
    pub sit_out_next_big_blind: bool,
    /// How the player wants to come in while owing a post.
    pub entry: Entry,
    /// Never dealt in here yet: owes a live big blind unless entering in the big blind (R13).
    pub new: bool,
    /// Owes a small blind missed while sitting out (R14).
    pub missed_small: bool,
    /// Owes a big blind missed while sitting out (R14).
    pub missed_big: bool,
    /// Big blinds missed in a row while sitting out.
    pub missed_big_blinds: u32,
    /// Pots won in a row (kill games).
    pub wins_in_a_row: u32,
}

/// What a player who left owes on return within the window: the stack they took away.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rathole<P> {
    /// Who.
    pub player: P,
    /// The stack they left with.
    pub stack: Chips,
    /// When they left (seconds, the caller's clock).
    pub left_at: u64,
}

/// Why a forced bet is posted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PostKind {
    /// An ante (dead).
    Ante,
    /// The small blind.
    SmallBlind,
    /// The big blind.
    BigBlind,
    /// A new player's live big blind (R13).
    NewPlayer,
    /// A missed big blind made up (live).
    MissedBig,
    /// A missed small blind made up (dead, or live by house rule).
    MissedSmall,
    /// The rock's mandatory straddle (R16).
    Rock,
    /// The kill blind (R17).
    Kill,
}

/// One forced bet of the hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Post {
    /// The seat posting.
    pub seat: usize,
    /// Why.
    pub kind: PostKind,
    /// How much.
    pub amount: Chips,
    /// Live (counts toward the player's bet) or dead (straight into the pot).
    pub live: bool,
}

/// Everything about the next hand, decided before the first card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandPlan {
    /// Hands dealt at this table so far, this one included.
    pub number: u64,
    /// The seat of the button (may be empty under the dead button rule).
    pub button: usize,
    /// The seats dealt in, in the hand's player order (index 0 first left of the button).
    pub seats: Vec<usize>,
    /// Every forced bet.
    pub posts: Vec<Post>,
    /// Whether the kill is on (stakes multiplied).
    pub kill: bool,
    /// Whether this hand starts a game afresh (first hand, or no game could run): the
    /// button is placed anew and nobody owes a post.
    pub restart: bool,
    /// The configuration for [`Hand::new`].
    pub config: HandConfig,
}

/// Players stood up before a hand (sat out too long); the caller cashes them out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoodUp<P> {
    /// The seat they had.
    pub seat: usize,
    /// Who.
    pub player: P,
    /// Their stack, to return to their wallet.
    pub stack: Chips,
}

/// The table's state between hands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table<P> {
    rules: TableRules,
    seats: Vec<Option<Occupant<P>>>,
    button: Option<usize>,
    last_bb: Option<usize>,
    /// Moving button: the seats that posted a big blind last hand (they owe a small one).
    bb_posters: Vec<usize>,
    /// The seats that posted the small blind last hand.
    #[serde(default)]
    small_posters: Vec<usize>,
    /// Dead button: seats vacated since the button last passed them.
    dead_seats: Vec<usize>,
    /// The seats dealt into the last hand.
    #[serde(default)]
    last_dealt: Vec<usize>,
    hands: u64,
    current: Option<HandPlan>,
    kill_seat: Option<usize>,
    rock_seat: Option<usize>,
    /// Set while planning a hand that starts the game afresh.
    #[serde(default)]
    restarting: bool,
}

/// Positions chosen for one hand.
#[derive(Clone, Debug, Default)]
struct Positions {
    button: usize,
    small: Vec<usize>,
    big: Vec<usize>,
    /// A small-blind position whose occupant is not playing (dead button rule).
    missed_small: Option<usize>,
}

impl<P: Clone + PartialEq> Table<P> {
    /// An empty table.
    pub fn new(rules: TableRules) -> Result<Table<P>, TableError> {
        let bad = |s: &str| Err(TableError::InvalidRules(s.to_string()));
        if !(2..=10).contains(&rules.seat_count) {
            return bad("a table has 2 to 10 seats");
        }
        if rules.min_buy_in == 0 || rules.min_buy_in > rules.max_buy_in {
            return bad("the buy-in range must be positive with min <= max");
        }
        let blind_game = rules.game.opening() == Opening::Position;
        if blind_game && (rules.big_blind == 0 || rules.small_blind > rules.big_blind) {
            return bad("blind games need a big blind at least the small blind");
        }
        if let Some(kill) = rules.kill {
            if kill.percent <= 100 || kill.percent > 1000 {
                return bad("a kill multiplies the stakes by more than 100% and at most 1000%");
            }
        }
        // Every amount is bounded so that every sum the table and its hands form (a
        // table's chips, a pot, a killed blind, a stack in a PHH float) fits (MAX_CHIPS).
        let s = &rules.stakes;
        let o = &rules.options;
        let ante = match rules.ante {
            AnteRule::None => 0,
            AnteRule::Each(a) | AnteRule::BigBlind(a) | AnteRule::Button(a) => a,
        };
        let amounts = [
            rules.small_blind,
            rules.big_blind,
            ante,
            s.min_bet,
            s.small_bet,
            s.big_bet,
            s.bring_in,
            o.cap.unwrap_or(0),
            o.unit,
            o.rake.map_or(0, |r| r.cap),
        ];
        let spread = o.spread.iter().flat_map(|&(a, b)| [a, b]);
        if amounts.into_iter().chain(spread).any(|a| a > MAX_CHIPS)
            || rules.max_buy_in.saturating_mul(rules.seat_count as Chips) > MAX_CHIPS
        {
            return bad(&format!(
                "amounts are at most {MAX_CHIPS} chips, and so is the maximum buy-in times the seats"
            ));
        }
        if let Some(KillRule {
            trigger: KillTrigger::PotOver(x),
            ..
        }) = rules.kill
        {
            if x > MAX_CHIPS {
                return bad(&format!("a kill pot is at most {MAX_CHIPS} chips"));
            }
        }
        Ok(Table {
            seats: vec![None; rules.seat_count],
            rules,
            button: None,
            last_bb: None,
            bb_posters: Vec::new(),
            small_posters: Vec::new(),
            dead_seats: Vec::new(),
            last_dealt: Vec::new(),
            hands: 0,
            current: None,
            kill_seat: None,
            rock_seat: None,
            restarting: false,
        })
    }

    /// The rules.
    pub fn rules(&self) -> &TableRules {
        &self.rules
    }

    /// Every seat.
    pub fn seats(&self) -> &[Option<Occupant<P>>] {
        &self.seats
    }

    /// The plan of the hand being played, if any.
    pub fn current_hand(&self) -> Option<&HandPlan> {
        self.current.as_ref()
    }

    /// The seat holding the rock, if the table plays with it.
    pub fn rock_seat(&self) -> Option<usize> {
        self.rock_seat
    }

    /// The seat that must post the kill blind next hand.
    pub fn kill_seat(&self) -> Option<usize> {
        self.kill_seat
    }

    /// Hands dealt so far.
    pub fn hands_dealt(&self) -> u64 {
        self.hands
    }

    fn occupant(&self, seat: usize) -> Result<&Occupant<P>, TableError> {
        self.seats
            .get(seat)
            .ok_or(TableError::NoSuchSeat(seat))?
            .as_ref()
            .ok_or(TableError::EmptySeat(seat))
    }

    fn occupant_mut(&mut self, seat: usize) -> Result<&mut Occupant<P>, TableError> {
        self.seats
            .get_mut(seat)
            .ok_or(TableError::NoSuchSeat(seat))?
            .as_mut()
            .ok_or(TableError::EmptySeat(seat))
    }

    fn in_current_hand(&self, seat: usize) -> bool {
        self.current
            .as_ref()
            .is_some_and(|h| h.seats.contains(&seat))
    }

    /// The buy-in range for this player now: the table's, raised to the stack they left
    /// with when they come back within the rathole window (R26).
    pub fn buy_in_range(&self, rathole: Option<&Rathole<P>>, now: u64) -> (Chips, Chips) {
        let (min, max) = (self.rules.min_buy_in, self.rules.max_buy_in);
        match rathole {
            Some(r) if now.saturating_sub(r.left_at) < self.rules.rathole_secs && r.stack > min => {
                (r.stack, max.max(r.stack))
            }
            _ => (min, max),
        }
    }

    /// Seats a player with a buy-in. `rathole` is what the store remembers of the
    /// player's last departure from this table, if any.
    pub fn sit_down(
        &mut self,
        seat: usize,
        player: P,
        buy_in: Chips,
        entry: Entry,
        rathole: Option<&Rathole<P>>,
        now: u64,
    ) -> Result<(), TableError> {
        match self.seats.get(seat) {
            None => return Err(TableError::NoSuchSeat(seat)),
            Some(Some(_)) => return Err(TableError::SeatTaken(seat)),
            Some(None) => {}
        }
        if self.seats.iter().flatten().any(|o| o.player == player) {
            return Err(TableError::AlreadySeated);
        }
        let rathole = rathole.filter(|r| r.player == player);
        let (min, max) = self.buy_in_range(rathole, now);
        if buy_in < min || buy_in > max {
            return Err(TableError::BuyInOutOfRange { min, max });
        }
        self.dead_seats.retain(|&s| s != seat);
        self.seats[seat] = Some(Occupant {
            player,
            stack: buy_in,
            sitting_out: false,
            sit_out_next_hand: false,
            sit_out_next_big_blind: false,
            entry,
            new: self.rules.game.opening() == Opening::Position && self.hands > 0,
            missed_small: false,
            missed_big: false,
            missed_big_blinds: 0,
            wins_in_a_row: 0,
        });
        Ok(())
    }

    /// Puts back a player who was seated when the server stopped, with the stack the
    /// store holds (no buy-in limits: the chips are already on the table). They return
    /// owing nothing, as if the game had paused.
    pub fn restore_seat(&mut self, seat: usize, player: P, stack: Chips) -> Result<(), TableError> {
        match self.seats.get(seat) {
            None => return Err(TableError::NoSuchSeat(seat)),
            Some(Some(_)) => return Err(TableError::SeatTaken(seat)),
            Some(None) => {}
        }
        if self.seats.iter().flatten().any(|o| o.player == player) {
            return Err(TableError::AlreadySeated);
        }
        self.seats[seat] = Some(Occupant {
            player,
            stack,
            sitting_out: false,
            sit_out_next_hand: false,
            sit_out_next_big_blind: false,
            entry: Entry::PostNow,
            new: false,
            missed_small: false,
            missed_big: false,
            missed_big_blinds: 0,
            wins_in_a_row: 0,
        });
        Ok(())
    }

    /// After a restart: the table as last saved, made to agree with the seats the store
    /// has, which are the truth for who sits where with how many chips (`seats`: seat,
    /// player, stack). A hand that was in progress never happened (it is void); players
    /// gone since are treated as having left, players new since as just seated.
    pub fn reconcile(&mut self, seats: &[(usize, P, Chips)]) -> Result<(), TableError> {
        self.current = None;
        for s in 0..self.seats.len() {
            let same = match (&self.seats[s], seats.iter().find(|x| x.0 == s)) {
                (Some(o), Some((_, p, _))) => o.player == *p,
                _ => false,
            };
            if !same && self.seats[s].is_some() {
                self.vacate(s);
            }
        }
        for (s, p, stack) in seats {
            match self.seats.get_mut(*s) {
                Some(Some(o)) => o.stack = *stack,
                Some(None) => self.restore_seat(*s, p.clone(), *stack)?,
                None => return Err(TableError::NoSuchSeat(*s)),
            }
        }
        Ok(())
    }

    /// Continues the hand numbering of a table restarted after `hands` hands (the next
    /// hand is number `hands + 1`); the button is placed afresh.
    pub fn continue_numbering(&mut self, hands: u64) {
        self.hands = self.hands.max(hands);
    }

    /// Puts back what a restarted server remembers of a restored seat: sitting out, and
    /// the blinds owed (R14).
    pub fn restore_state(
        &mut self,
        seat: usize,
        sitting_out: bool,
        missed_small: bool,
        missed_big: bool,
    ) -> Result<(), TableError> {
        let occupant = self.occupant_mut(seat)?;
        occupant.sitting_out = sitting_out;
        occupant.missed_small = missed_small;
        occupant.missed_big = missed_big;
        Ok(())
    }

    /// Adds chips between hands, up to the maximum buy-in (R37).
    pub fn top_up(&mut self, seat: usize, amount: Chips) -> Result<(), TableError> {
        if self.in_current_hand(seat) {
            return Err(TableError::InHand);
        }
        let max = self.rules.max_buy_in;
        let occupant = self.occupant_mut(seat)?;
        if amount == 0 || occupant.stack + amount > max {
            return Err(TableError::TopUpTooLarge { max });
        }
        occupant.stack += amount;
        Ok(())
    }

    /// Asks to sit out.
    pub fn sit_out(&mut self, seat: usize, when: SitOut) -> Result<(), TableError> {
        let occupant = self.occupant_mut(seat)?;
        match when {
            SitOut::NextHand => occupant.sit_out_next_hand = true,
            SitOut::NextBigBlind => occupant.sit_out_next_big_blind = true,
        }
        Ok(())
    }

    /// Comes back from sitting out; `entry` says whether to post what is owed now or
    /// wait for the big blind.
    pub fn sit_in(&mut self, seat: usize, entry: Entry) -> Result<(), TableError> {
        let occupant = self.occupant_mut(seat)?;
        occupant.sitting_out = false;
        occupant.sit_out_next_hand = false;
        occupant.sit_out_next_big_blind = false;
        occupant.entry = entry;
        Ok(())
    }

    /// Leaves the table between hands, taking the whole stack (no part of a stack may be
    /// taken off, R26). Returns the player, the stack to cash out, and the rathole
    /// record to keep.
    pub fn leave(&mut self, seat: usize, now: u64) -> Result<(P, Chips, Rathole<P>), TableError> {
        if self.in_current_hand(seat) {
            return Err(TableError::InHand);
        }
        let occupant = self.occupant(seat)?.clone();
        self.vacate(seat);
        let record = Rathole {
            player: occupant.player.clone(),
            stack: occupant.stack,
            left_at: now,
        };
        Ok((occupant.player, occupant.stack, record))
    }

    fn vacate(&mut self, seat: usize) {
        self.seats[seat] = None;
        if !self.dead_seats.contains(&seat) && self.hands > 0 {
            self.dead_seats.push(seat);
        }
        if self.kill_seat == Some(seat) {
            self.kill_seat = None;
        }
        if self.rock_seat == Some(seat) {
            self.rock_seat = None;
        }
    }

    // ----- before each hand -----

    /// Whether a seat's player can be dealt in at all (seated, chips, not sitting out).
    fn active(&self, seat: usize) -> bool {
        self.seats[seat]
            .as_ref()
            .is_some_and(|o| !o.sitting_out && o.stack > 0)
    }

    /// Whether the player owes a post before being dealt in anywhere but the big blind.
    fn owes(&self, seat: usize) -> bool {
        self.seats[seat]
            .as_ref()
            .is_some_and(|o| o.new || o.missed_big || o.missed_small)
    }

    /// Whether the player will play with no post owed (for positions).
    fn ready(&self, seat: usize) -> bool {
        self.active(seat)
            && !(self.owes(seat)
                && self.seats[seat]
                    .as_ref()
                    .is_some_and(|o| o.entry == Entry::WaitForBigBlind))
    }

    fn next_seat(&self, from: usize, pred: impl Fn(usize) -> bool) -> Option<usize> {
        let n = self.seats.len();
        (1..=n).map(|k| (from + k) % n).find(|&s| pred(s))
    }

    fn prev_seat(&self, from: usize, pred: impl Fn(usize) -> bool) -> Option<usize> {
        let n = self.seats.len();
        (1..=n).map(|k| (from + n - k) % n).find(|&s| pred(s))
    }

    /// Seats strictly between `a` and `b`, clockwise.
    fn between(&self, a: usize, b: usize) -> Vec<usize> {
        let n = self.seats.len();
        let mut out = Vec::new();
        let mut s = (a + 1) % n;
        while s != b {
            out.push(s);
            s = (s + 1) % n;
        }
        out
    }

    fn positions(&self) -> Option<Positions> {
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
    fn restart(&mut self) {
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

    fn plan_blinds(&mut self, pos: Positions) -> Option<HandPlan> {
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

    fn plan_stud(&mut self) -> Option<HandPlan> {
        let n = self.seats.len();
        let dealt: Vec<usize> = (0..n).filter(|&s| self.active(s)).collect();
        if dealt.len() < 2 {
            return None;
        }
        let button = self.next_seat(self.button.unwrap_or(n - 1), |s| self.active(s))?;
        let mut dealt = dealt;
        dealt.sort_by_key(|&s| (s + n - button - 1) % n);
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
                    seat: button,
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

    fn make_plan(
        &mut self,
        button: usize,
        seats: Vec<usize>,
        posts: Vec<Post>,
        kill: bool,
    ) -> HandPlan {
        self.hands += 1;
        let mut stakes = self.rules.stakes;
        if kill {
            let pct = self.rules.kill.map_or(100, |k| k.percent) as Chips;
            stakes.min_bet = stakes.min_bet * pct / 100;
            stakes.small_bet = stakes.small_bet * pct / 100;
            stakes.big_bet = stakes.big_bet * pct / 100;
        }
        let config = HandConfig {
            game: self.rules.game,
            structure: self.rules.structure,
            stakes,
            max_raises: self.rules.max_raises,
            uncapped_heads_up: self.rules.uncapped_heads_up,
            options: self.rules.options.clone(),
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
                        Some(PostKind::Rock) => BlindKind::Straddle,
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
            config,
        };
        self.current = Some(plan.clone());
        plan
    }

    // ----- after each hand -----

    /// Absorbs a finished hand: stacks, who posted what, kill and rock.
    pub fn finish_hand(&mut self, hand: &Hand) -> Result<(), TableError> {
        let plan = self.current.as_ref().ok_or(TableError::WrongHand)?;
        let stacks = hand.final_stacks().ok_or(TableError::WrongHand)?;
        if hand.config() != &plan.config {
            return Err(TableError::WrongHand);
        }
        let plan = self.current.take().expect("checked");
        self.last_dealt = plan.seats.clone();
        // Winners: players who took chips from others (not just their own bet back).
        let winners: Vec<usize> = (0..plan.seats.len())
            .filter(|&i| hand.players()[i].won > 0 && stacks[i] > plan.config.seats[i].stack)
            .map(|i| plan.seats[i])
            .collect();
        let pot: Chips = hand.players().iter().map(|p| p.won).sum();
        for (i, &s) in plan.seats.iter().enumerate() {
            let o = self.seats[s]
                .as_mut()
                .expect("dealt seats stay occupied during a hand");
            o.stack = stacks[i];
            o.new = false;
            o.missed_big_blinds = 0;
            // Whatever was owed was posted, or the big blind was taken (which clears it).
            let posted_big = plan.posts.iter().any(|p| {
                p.seat == s
                    && matches!(
                        p.kind,
                        PostKind::BigBlind
                            | PostKind::MissedBig
                            | PostKind::NewPlayer
                            | PostKind::Kill
                            | PostKind::Rock
                    )
            });
            let posted_small = plan.posts.iter().any(|p| {
                p.seat == s && matches!(p.kind, PostKind::MissedSmall | PostKind::SmallBlind)
            });
            if posted_big {
                o.missed_big = false;
                if self.rules.missed_blinds == MissedBlindRule::DeadSmallLiveBig
                    || plan
                        .posts
                        .iter()
                        .any(|p| p.seat == s && p.kind == PostKind::BigBlind)
                {
                    o.missed_small = false;
                }
            }
            if posted_small {
                o.missed_small = false;
            }
            if o.stack == 0 {
                o.sitting_out = true;
            }
        }
        // Kill triggers (R17).
        self.kill_seat = None;
        for s in 0..self.seats.len() {
            if let Some(o) = self.seats[s].as_mut() {
                if winners.contains(&s) {
                    o.wins_in_a_row += 1;
                } else {
                    o.wins_in_a_row = 0;
                }
            }
        }
        if let Some(rule) = self.rules.kill {
            let triggered = match rule.trigger {
                KillTrigger::PotOver(limit) => {
                    (winners.len() == 1 && pot > limit).then(|| winners[0])
                }
                KillTrigger::ConsecutiveWins(k) => winners
                    .iter()
                    .copied()
                    .find(|&w| self.seats[w].as_ref().is_some_and(|o| o.wins_in_a_row >= k)),
            };
            self.kill_seat =
                triggered.filter(|&s| self.seats[s].as_ref().is_some_and(|o| o.stack > 0));
        }
        // The rock passes to the pot's winner; on a split, to the winner closest to the
        // holder's left (R16).
        if let Some(holder) = plan
            .posts
            .iter()
            .find(|p| p.kind == PostKind::Rock)
            .map(|p| p.seat)
        {
            let n = self.seats.len();
            if let Some(&next) = winners.iter().min_by_key(|&&w| (w + n - holder - 1) % n) {
                self.rock_seat = Some(next);
            }
        }
        Ok(())
    }
}
