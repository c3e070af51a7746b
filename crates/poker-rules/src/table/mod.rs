//! The table between hands: who sits where, who is dealt in, where the button goes, who
//! owes which blind, and what happens to players who sit out, leave, return or bust.
//!
//! Pure like the rest of the crate: no clock (times come in as arguments), no storage
//! (the state is serializable and rathole records go in and out so a store can keep
//! them). Before each hand [`Table::next_hand`] produces a [`HandPlan`]: the seats dealt
//! in, the button, every forced bet with its live or dead part, and the [`HandConfig`]
//! the hand state machine takes; [`Table::finish_hand`] absorbs the finished hand.

use crate::game::{Game, Opening, Structure};
use crate::hand::{Chips, HandConfig, HandOptions, Stakes, MAX_CHIPS};
use serde::{Deserialize, Serialize};

mod after_hand;
mod before_hand;
mod house;

pub use house::{BombPotRule, Rotation, RotationGame, RotationView};

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
    /// Whether players may post a live straddle of twice the big blind when under the
    /// gun (R15), each choosing so with [`Table::set_straddle`]. Not with the rock.
    #[serde(default)]
    pub straddle: bool,
    /// House options of every hand (spread, cap, unit, rake...).
    #[serde(default)]
    pub options: HandOptions,
    /// Bomb pots on a schedule, and their size (H1, H2: docs/house-games.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bomb_pot: Option<BombPotRule>,
    /// Dealer's choice: the games played in turn, an orbit each, at these blinds (H3,
    /// H4). Empty: the table deals its one game.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dealers_choice: Vec<RotationGame>,
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
    /// The table does not allow straddles.
    #[error("this table does not allow straddles")]
    NoStraddle,
    /// `finish_hand` got a hand that is not the one planned, or is not complete.
    #[error("that hand does not belong to the current plan")]
    WrongHand,
    /// A bomb pot cannot be dealt at this table (no game with a flop, a kill or the rock,
    /// or a bomb of no chips).
    #[error("no bomb pot here: {0}")]
    NoBombPot(String),
    /// As many players sit as the game deals from one deck (a table an older version
    /// stored with more seats than that): another would stall the table.
    #[error("{} deals at most {max} players from one deck: the table is full", game_words(*.game))]
    GameFull {
        /// The game.
        game: Game,
        /// The most players it deals.
        max: usize,
    },
}

/// A game as players read it, for the words of a refusal.
fn game_words(game: Game) -> &'static str {
    match game {
        Game::Holdem => "hold'em",
        Game::ShortDeckHoldem => "short-deck hold'em",
        Game::Omaha => "Omaha",
        Game::OmahaHiLo => "Omaha hi/lo",
        Game::Stud => "seven-card stud",
        Game::StudHiLo => "seven-card stud hi/lo",
        Game::Razz => "razz",
        Game::DeuceToSevenSingleDraw => "2-7 single draw",
        Game::DeuceToSevenTripleDraw => "2-7 triple draw",
        Game::Badugi => "badugi",
    }
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
    /// Straddles (twice the big blind, live) whenever under the gun, where the table
    /// allows it (R15).
    #[serde(default)]
    pub straddle: bool,
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
    /// A live straddle chosen by the player under the gun (R15).
    Straddle,
    /// The kill blind (R17).
    Kill,
    /// A bomb pot's bomb: an ante every player dealt in pays alike (H1).
    Bomb,
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
    /// Whether this hand is a bomb pot (H1): the button stayed where it was and the
    /// table's blinds wait for the next hand (H2).
    #[serde(default)]
    pub bomb_pot: bool,
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
    /// The size in big blinds of a bomb pot the host called for the next hand that can
    /// be one (H2).
    #[serde(default)]
    bomb_called: Option<u32>,
    /// Where the dealer's choice rotation stands (H3).
    #[serde(default)]
    rotation: Rotation,
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
    /// An empty table. Refused when the rules are inconsistent, when an amount is past
    /// the bound that keeps every sum in range, or when the table has more seats than the
    /// game deals from one deck (seven for stud games, eight for draw games): the hand of
    /// a full table could not be dealt and the table would stall.
    pub fn new(rules: TableRules) -> Result<Table<P>, TableError> {
        let (seats, max) = (rules.seat_count, house::max_players(&rules));
        if (2..=10).contains(&seats) && seats > max {
            return Err(TableError::InvalidRules(format!(
                "{} deals at most {max} players from one deck: a table of {seats} seats would stall",
                game_words(house::fewest_players_game(&rules))
            )));
        }
        Table::reopen(rules)
    }

    /// A table as an older version stored it, which may have more seats than the game
    /// deals from one deck (an 8-seat stud table): checked as [`Table::new`] checks a new
    /// one but for that. Such a table seats at most the game's players
    /// ([`Table::room_for`]), and a hand deals at most that many ([`Table::next_hand`]),
    /// so it never stalls.
    pub fn reopen(rules: TableRules) -> Result<Table<P>, TableError> {
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
        if rules.straddle && (!blind_game || rules.rock) {
            return bad(
                "straddles are for blind games without the rock (the rock is its own straddle)",
            );
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
        house::check_rules(&rules)?;
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
            bomb_called: None,
            rotation: Rotation::default(),
        })
    }

    /// The rules.
    pub fn rules(&self) -> &TableRules {
        &self.rules
    }

    /// Changes the rules between hands (a private game's host raising the blinds): the
    /// new rules are checked as a new table's, keep the number of seats, and apply from
    /// the next hand planned. Refused during a hand; nothing changes then.
    pub fn set_rules(&mut self, rules: TableRules) -> Result<(), TableError> {
        if self.current.is_some() {
            return Err(TableError::InHand);
        }
        if rules.seat_count != self.rules.seat_count {
            return Err(TableError::InvalidRules(
                "the number of seats stays as it is".into(),
            ));
        }
        Table::<P>::new(rules.clone())?;
        self.rules = rules;
        Ok(())
    }

    /// The most players this table seats at once: its seats, or fewer when the game deals
    /// fewer from one deck (a table an older version stored, see [`Table::reopen`]).
    pub fn max_players(&self) -> usize {
        self.rules.seat_count.min(house::max_players(&self.rules))
    }

    /// Whether `more` players may sit down beside those seated now (a caller that holds
    /// seats for sits under way counts them in); refused with [`TableError::GameFull`]
    /// when the game could not deal to them all.
    pub fn room_for(&self, more: usize) -> Result<(), TableError> {
        let seated = self.seats.iter().flatten().count();
        if seated.saturating_add(more) > self.max_players() {
            return Err(TableError::GameFull {
                game: house::fewest_players_game(&self.rules),
                max: self.max_players(),
            });
        }
        Ok(())
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
        self.room_for(1)?;
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
            straddle: false,
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
            straddle: false,
        });
        Ok(())
    }

    /// Forgets the hand planned by [`Table::next_hand`] when it could not be dealt (its
    /// start could not be recorded, say): the table plans afresh next time, from the seats
    /// as they stand. The button and the hand count stay moved on: a number once planned
    /// is never given again.
    pub fn abandon_hand(&mut self) {
        self.current = None;
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
        // A client's amount: checked before it is added (u64::MAX would wrap past `max`).
        match occupant.stack.checked_add(amount) {
            Some(stack) if amount > 0 && stack <= max => {
                occupant.stack = stack;
                Ok(())
            }
            _ => Err(TableError::TopUpTooLarge { max }),
        }
    }

    /// Sets a seat's stack between hands to what a private game's host made it (chips
    /// added or taken off outside the game's rules; the server records the money). Not
    /// during a hand the seat is in (R37), and never past [`crate::MAX_CHIPS`]; the
    /// buy-in's maximum does not bound it, as it does a top-up.
    pub fn set_stack(&mut self, seat: usize, stack: Chips) -> Result<(), TableError> {
        if self.in_current_hand(seat) {
            return Err(TableError::InHand);
        }
        if stack > crate::MAX_CHIPS {
            return Err(TableError::TopUpTooLarge {
                max: crate::MAX_CHIPS,
            });
        }
        self.occupant_mut(seat)?.stack = stack;
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

    /// Whether the player straddles whenever under the gun (R15); from the next hand.
    pub fn set_straddle(&mut self, seat: usize, on: bool) -> Result<(), TableError> {
        if on && !self.rules.straddle {
            return Err(TableError::NoStraddle);
        }
        self.occupant_mut(seat)?.straddle = on;
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
}
