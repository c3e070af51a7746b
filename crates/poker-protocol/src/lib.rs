//! The wire protocol: what a player's client and the server say to each other over a
//! WebSocket, one JSON object per text frame, tagged by `type`.
//!
//! Shared by the server, bots and tests, so both ends parse exactly the same messages.
//! Every decision the server asks for carries an id; an action must name it, so a retried
//! or late action is refused instead of being applied twice. Hole cards appear only in
//! their owner's messages until shown at showdown.

pub use poker_fairness::{seed_commitment, Commitment, Digest, HandProof, Seed, SeedCommit};
pub use poker_ids::{HandId, PlayerId, TableId};
use poker_rules::{Action, Chips, Event, LegalActions};
pub use poker_rules::{Game, Structure};
use serde::{Deserialize, Serialize};

mod private;
mod quick;
pub use private::{
    BombPotView, DealersChoiceView, HostCommand, NewPrivateTable, PrivateCreated, PrivateInvite,
    PrivateView, RotationGameView, SeatAsk,
};

/// A seed's commitment sent with a `sit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SitSeed {
    /// The hand the deck's commitment is for.
    pub hand_id: HandId,
    /// The seed's commitment.
    pub commitment: Digest,
}

/// What a client sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Authenticates the connection with a session token from the login endpoint.
    Auth {
        /// The session token.
        token: String,
    },
    /// Asks for the lobby: every open table.
    ListTables,
    /// Takes a seat and buys in.
    Sit {
        /// The table.
        table_id: TableId,
        /// The seat number.
        seat: u32,
        /// Chips to bring from the wallet.
        buy_in: Chips,
        /// Post a live big blind at once (true) or wait for the big blind (false).
        #[serde(default = "yes")]
        post_now: bool,
        /// The player's commitment to a seed for the table's next deck (as `seed_commit`
        /// says), taken before the seat: the hand the sit may start has this player's
        /// seed (docs/fairness.md). The page and the bots watch the table first, so they
        /// know the next deck.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seed_commit: Option<SitSeed>,
    },
    /// Watches a table without playing.
    Watch {
        /// The table.
        table_id: TableId,
    },
    /// Stops receiving a table's messages (a seated player keeps getting their own
    /// decisions until they leave).
    Unwatch {
        /// The table.
        table_id: TableId,
    },
    /// Acts in the current hand.
    Act {
        /// The table.
        table_id: TableId,
        /// The id of the decision being answered.
        decision_id: u64,
        /// The action.
        action: Action,
    },
    /// Sits out: from the next hand, or when the big blind next comes.
    SitOut {
        /// The table.
        table_id: TableId,
        /// Wait for the big blind before sitting out.
        #[serde(default)]
        next_big_blind: bool,
    },
    /// Comes back in: post what is owed now, or wait for the big blind.
    SitIn {
        /// The table.
        table_id: TableId,
        /// Post now (true) or wait for the big blind (false).
        #[serde(default = "yes")]
        post_now: bool,
    },
    /// Adds chips from the wallet, up to the table's maximum; applied between hands.
    TopUp {
        /// The table.
        table_id: TableId,
        /// Chips to add.
        amount: Chips,
    },
    /// Whether the player's beaten hands are mucked for them at showdown (the default) or
    /// they are asked to show or muck (`decide_show`).
    AutoMuck {
        /// The table.
        table_id: TableId,
        /// Muck beaten hands without asking.
        on: bool,
    },
    /// Whether the player posts a live straddle (twice the big blind) whenever under the
    /// gun, where the table allows straddles (`TableView::straddle`); from the next hand.
    Straddle {
        /// The table.
        table_id: TableId,
        /// Straddle when under the gun.
        on: bool,
    },
    /// Leaves the table and cashes out the whole stack (after the hand, if in one).
    Leave {
        /// The table.
        table_id: TableId,
    },
    /// Puts the player on a full table's waiting list: when a seat frees, the first in
    /// line is offered it (`seat_offered`) and has a while to sit down.
    JoinWaitlist {
        /// The table.
        table_id: TableId,
    },
    /// Takes the player off the waiting list (declining a seat offered too).
    LeaveWaitlist {
        /// The table.
        table_id: TableId,
    },
    /// Says something in the table's chat (seated players; the table may have chat off).
    Chat {
        /// The table.
        table_id: TableId,
        /// The line: 1 to [`CHAT_MAX_CHARS`] characters, no control characters.
        text: String,
    },
    /// The player's commitment to a random seed for the next hand's deck, answering
    /// `deck_committed` (or a snapshot's `next_deck`), sent by a seated player or one
    /// whose `sit` is under way: SHA-256 of "pokerd seed commitment v2", the deck's
    /// commitment and the seed (docs/fairness.md). The first one each player sends for a
    /// hand counts; one after the table closed the list (`seeds_closed`) is refused
    /// (`seed_refused`) and the hand is dealt without it.
    SeedCommit {
        /// The table.
        table_id: TableId,
        /// The hand the deck's commitment is for.
        hand_id: HandId,
        /// The seed's commitment.
        commitment: Digest,
    },
    /// The player's seed, revealed once the table closed the list of commitments
    /// (`seeds_closed`, which must list the player's): 32 random bytes as 64 lowercase
    /// hex digits. It counts if it opens the player's commitment and arrives before the
    /// deal; otherwise it is refused (`seed_refused`).
    Seed {
        /// The table.
        table_id: TableId,
        /// The hand the commitment is for.
        hand_id: HandId,
        /// The seed.
        seed: Seed,
    },
    /// Shows the cards of the hand the player just won without a showdown (everyone
    /// else folded) to the table: a `shown` event of that hand follows, to everyone.
    /// Allowed to that hand's winner only, once, until the next hand is dealt.
    ShowHand {
        /// The table.
        table_id: TableId,
    },
    /// Asks what this player may buy in for at a table now, before choosing: answered
    /// with `buy_in_range` (the table's range, or the rathole rule's when the player left
    /// this table lately with more than its minimum).
    BuyInRange {
        /// The table.
        table_id: TableId,
    },
    /// Enters a private table with its invite (the secret of the invite link): the player
    /// may watch it from now on and, unless the host or already approved, asks the host
    /// for a seat (`TableView::private` lists the requests and who is approved).
    JoinPrivate {
        /// The table.
        table_id: TableId,
        /// The invite token from the link.
        invite: String,
    },
    /// Asks a private game's ledger: who bought in, topped up and cashed out for how
    /// much, what each holds at the table and their net, from the room's ledger (answered
    /// with `ledger`). Anyone who may watch the game may ask (its host, the players let
    /// in, the seated); a public table refuses it (`private_refused`).
    Ledger {
        /// The table.
        table_id: TableId,
    },
    /// A private table's host controls it (only its host may: anyone else is refused
    /// `not_host`).
    Host {
        /// The table.
        table_id: TableId,
        /// What the host does.
        command: HostCommand,
    },
    /// Keeps the connection alive.
    Ping,
}

impl ClientMsg {
    /// The table a message is for (`None`: the connection's own business: `auth`, `ping`,
    /// the lobby). The server routes by it alone, so a new table command is routed as
    /// soon as it says its table here.
    pub fn table_id(&self) -> Option<TableId> {
        match self {
            ClientMsg::Sit { table_id, .. }
            | ClientMsg::Watch { table_id }
            | ClientMsg::Unwatch { table_id }
            | ClientMsg::Act { table_id, .. }
            | ClientMsg::SitOut { table_id, .. }
            | ClientMsg::SitIn { table_id, .. }
            | ClientMsg::TopUp { table_id, .. }
            | ClientMsg::Leave { table_id }
            | ClientMsg::AutoMuck { table_id, .. }
            | ClientMsg::Straddle { table_id, .. }
            | ClientMsg::ShowHand { table_id }
            | ClientMsg::Chat { table_id, .. }
            | ClientMsg::JoinWaitlist { table_id }
            | ClientMsg::LeaveWaitlist { table_id }
            | ClientMsg::Seed { table_id, .. }
            | ClientMsg::SeedCommit { table_id, .. }
            | ClientMsg::BuyInRange { table_id }
            | ClientMsg::JoinPrivate { table_id, .. }
            | ClientMsg::Ledger { table_id }
            | ClientMsg::Host { table_id, .. } => Some(*table_id),
            ClientMsg::Auth { .. } | ClientMsg::Ping | ClientMsg::ListTables => None,
        }
    }
}

/// One player's line of a table's ledger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerLine {
    /// The player.
    pub player_id: PlayerId,
    /// Their name.
    pub name: String,
    /// Bought in and topped up, in all.
    pub bought_in: Chips,
    /// Cashed out, in all.
    pub cashed_out: Chips,
    /// What the host of a play-money game added to their stack (positive) or took off
    /// it, in all (`adjust_stack`): not won or lost.
    #[serde(default)]
    pub adjusted: i64,
    /// What they hold at the table now (as of the last finished hand).
    pub stack: Chips,
    /// What they won (positive) or lost: cashed out and held, less bought in and
    /// adjusted.
    pub net: i64,
}

/// What one player may buy in for at one table now (the answer to `buy_in_range`, and
/// what a sit is checked against).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuyInRange {
    /// The least the player may bring.
    pub min: Chips,
    /// The most the player may bring (the table's maximum, or the stack the rathole rule
    /// asks for when that is larger).
    pub max: Chips,
    /// Set when the rathole rule raised the minimum: the player left this table a short
    /// while ago with more than the table's minimum and must bring at least that back
    /// (R26: no part of a stack may be taken off the table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rathole: Option<RatholeNote>,
}

/// Why the rathole rule applies to a returning player, for the words a client shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatholeNote {
    /// The stack the player left with, now the least they may bring.
    pub stack: Chips,
    /// How long ago they left, in seconds.
    pub left_secs_ago: u64,
    /// The table's rathole window, in seconds: coming back later than this after
    /// leaving, the table's own range applies again.
    pub window_secs: u64,
}

/// The longest chat line, in characters.
pub const CHAT_MAX_CHARS: usize = 200;

/// One line of a table's chat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    /// The speaker's seat; `null` for a spectator (signed in and watching the table).
    pub seat: Option<u32>,
    /// The speaker.
    pub player_id: PlayerId,
    /// The speaker's name.
    pub name: String,
    /// What was said.
    pub text: String,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: i64,
}

fn yes() -> bool {
    true
}

/// A typed error, answered to a bad message; the connection stays open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The frame is not JSON or not a known message.
    BadMessage,
    /// The frame is larger than allowed.
    FrameTooLarge,
    /// Authenticate first, or the token is bad or expired.
    Unauthenticated,
    /// No such table.
    UnknownTable,
    /// Not your turn, or not your seat.
    NotYourTurn,
    /// The decision id is not the one being asked (late or retried action).
    StaleDecision,
    /// The action breaks a rule (amount out of range, off the betting unit...).
    IllegalAction,
    /// Buying in outside the limits, seat taken, already seated...
    SeatRefused,
    /// Not enough money in the wallet.
    InsufficientFunds,
    /// A player seated at the table connects from the same address (an IPv4 address, or
    /// an IPv6 /64), and the room refuses that (`room.same_address_seating`).
    SameAddress,
    /// Too many messages: slow down.
    RateLimited,
    /// A chat line refused: chat is off at the table, the speaker is not seated, or the
    /// line is empty, too long or holds control characters.
    ChatRefused,
    /// The table's server stopped or does not answer and another is taking the table over
    /// (several nodes): send the message again in a few seconds.
    TableMoving,
    /// An `auth` for another player than the one this connection already speaks for: a
    /// connection is one player's for its whole life (open another for another player).
    AlreadyAuthenticated,
    /// No `auth` within the server's `ws_auth_timeout_secs` of connecting: the connection
    /// is closed.
    AuthTimeout,
    /// A seed or a seed's commitment refused: the deck it answers is not the next hand's
    /// any more (the hand was dealt without it), the player is not seated, already sent
    /// one, committed after the list closed, or revealed a seed that does not open the
    /// commitment (or before the list closed).
    SeedRefused,
    /// A private table's host command from someone who is not its host.
    NotHost,
    /// A private table refused: the invite is wrong, the host has not approved the seat
    /// (or denied it, or removed the player), or the room has private tables off.
    PrivateRefused,
    /// Something only a play-money room allows (a private game's host adjusting a stack).
    PlayMoneyOnly,
    /// Not while the player is in the hand being played: chips move between hands only
    /// (R26, R37).
    InHand,
    /// Something failed on the server (details are logged, not shown).
    Internal,
}

/// A seat as everyone sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    /// Seat number.
    pub seat: u32,
    /// The player's id.
    pub player_id: PlayerId,
    /// Player name.
    pub name: String,
    /// Chips on the table (at the start of the hand in progress).
    pub stack: Chips,
    /// Sitting out.
    pub sitting_out: bool,
    /// Chips added by a top-up, waiting for the hand in progress to end.
    #[serde(default)]
    pub pending_top_up: Chips,
    /// Leaving when the hand in progress ends.
    #[serde(default)]
    pub leaving: bool,
    /// Straddles whenever under the gun (tables that allow straddles).
    #[serde(default)]
    pub straddle: bool,
}

/// A table as its players and spectators see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableView {
    /// Id.
    pub table_id: TableId,
    /// Name.
    pub name: String,
    /// Seats in all.
    pub seat_count: u32,
    /// The button's seat, once a hand has been dealt.
    pub button: Option<u32>,
    /// Taken seats.
    pub seats: Vec<SeatView>,
    /// Smallest buy-in.
    pub min_buy_in: Chips,
    /// Largest buy-in (and the most a top-up may bring a stack to).
    pub max_buy_in: Chips,
    /// The small and big blind.
    pub blinds: (Chips, Chips),
    /// The clock, in milliseconds: time to act, and each player's time bank when seated.
    pub action_ms: u64,
    /// Time bank given on sitting down, in milliseconds.
    pub time_bank_ms: u64,
    /// The game as players read it: `NL Hold'em`, `FL 7 Card Stud` (a label for people:
    /// programs read `game_kind` and `structure`).
    #[serde(default)]
    pub game: String,
    /// The game dealt, typed: `holdem`, `omaha_hi_lo`, `razz`, `badugi`...
    pub game_kind: Game,
    /// The betting structure: `no_limit`, `pot_limit`, `fixed_limit` or `spread_limit`
    /// (a cap limit game is one of those with `cap` set).
    pub structure: Structure,
    /// The stakes as the lobby shows them: `1/2`, `4/8 ante 1`.
    #[serde(default)]
    pub stakes: String,
    /// Cap limit: the most a player may put in during a hand (blinds and bets).
    #[serde(default)]
    pub cap: Option<Chips>,
    /// Whether the table's chat is on.
    #[serde(default)]
    pub chat: bool,
    /// Players on the waiting list.
    #[serde(default)]
    pub waitlist: u32,
    /// Whether players may straddle under the gun (`straddle`, R15).
    #[serde(default)]
    pub straddle: bool,
    /// Whether the cards a hand that ended early would have dealt are shown after it
    /// (`rabbit`); off unless the operator turns it on.
    #[serde(default)]
    pub rabbit_hunt: bool,
    /// A private table's host, pause, blinds to come and seat requests (`None`: a table
    /// of the room's lobby).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private: Option<PrivateView>,
    /// Bomb pots (docs/house-games.md, H1, H2): the schedule, and whether the hand in
    /// progress is one or the host called one (`None`: none at this table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bomb_pot: Option<BombPotView>,
    /// Dealer's choice (H3): the games in turn, the game now and next. `game_kind`,
    /// `structure`, `game` and `stakes` above are then the game now's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dealers_choice: Option<DealersChoiceView>,
}

/// The hand in progress, as this client may see it: every event so far, redacted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandView {
    /// The hand's number at the table.
    pub hand_number: u64,
    /// Player index in the hand to seat number.
    pub seats: Vec<u32>,
    /// Stacks when the hand started, by player index.
    pub starting_stacks: Vec<Chips>,
    /// The button's seat.
    pub button: u32,
    /// Everything that happened, in order (hole cards hidden as for live events).
    pub events: Vec<Event>,
    /// The hand's game (a dealer's choice table changes game between hands); absent
    /// from older servers: the table's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_kind: Option<Game>,
    /// The hand's betting structure; absent from older servers: the table's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structure: Option<Structure>,
    /// Whether the hand is a bomb pot (H1): everyone's bomb is in, no pre-flop round.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bomb_pot: bool,
}

/// Whose turn it is and how long they have.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    /// The seat to act.
    pub seat: u32,
    /// Milliseconds left before the time bank (or the timeout, once in the bank).
    pub remaining_ms: u64,
    /// Milliseconds in the player's time bank.
    pub time_bank_ms: u64,
    /// Whether the time bank is being used now.
    pub in_time_bank: bool,
}

/// One table in the lobby.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSummary {
    /// Id.
    pub table_id: TableId,
    /// Name.
    pub name: String,
    /// Game and structure as players read them, e.g. `NL Hold'em` (a label for people:
    /// programs read `game_kind` and `structure`).
    pub game: String,
    /// The game dealt, typed.
    pub game_kind: Game,
    /// The betting structure, typed.
    pub structure: Structure,
    /// Blinds or stakes, e.g. "1/2".
    pub stakes: String,
    /// Seats taken.
    pub players: u32,
    /// Seats in all.
    pub seats: u32,
    /// Smallest buy-in.
    pub min_buy_in: Chips,
    /// Largest buy-in.
    pub max_buy_in: Chips,
    /// Average pot of the recent hands.
    pub avg_pot: Chips,
    /// Hands dealt in the last hour.
    pub hands_per_hour: u32,
    /// Whether the table deals, is closing, closed or stopped on a fault.
    pub status: TableStatus,
    /// Players on the waiting list.
    #[serde(default)]
    pub waiting: u32,
    /// A private table: kept out of the lobby's list and updates (the nodes share it so).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub private: bool,
}

/// Where a table is in its life, as the lobby shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableStatus {
    /// Dealing (or waiting for players).
    Open,
    /// Closing: the hand in progress finishes, then everyone is cashed out.
    Closing,
    /// Closed: gone from the lobby.
    Closed,
    /// Stopped on a server fault: nothing more is dealt; players may leave with their chips.
    Failed,
}

/// What the server sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// The connection is authenticated.
    Welcome {
        /// The player's id.
        player_id: PlayerId,
        /// The player's name.
        name: String,
    },
    /// A refused message, with why.
    Error {
        /// What kind of error.
        code: ErrorCode,
        /// A human-readable explanation.
        message: String,
    },
    /// The lobby.
    Tables {
        /// Every open table.
        tables: Vec<TableSummary>,
    },
    /// A lobby entry changed (sent after `list_tables` to that connection).
    TableUpdate {
        /// The table as the lobby shows it now.
        table: TableSummary,
    },
    /// The full state of a table as this client may see it, sent on joining, watching,
    /// reconnecting, and to resync a client that fell behind.
    Snapshot {
        /// The table.
        table: TableView,
        /// The hand in progress, if any.
        hand: Option<HandView>,
        /// The clock of the player to act, if any.
        clock: Option<ClockView>,
        /// The decision this client is asked now, if any (answer it with its id).
        decide: Option<Box<ServerMsg>>,
        /// The table's recent chat, oldest first.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        chat: Vec<ChatLine>,
        /// The next hand's deck commitment, to answer with a `seed_commit`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        next_deck: Option<Box<Commitment>>,
        /// The next hand's closed list of seed commitments, once closed: a player listed
        /// reveals their seed (`seed`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seeds_closed: Option<Vec<SeedCommit>>,
    },
    /// The seats changed (someone sat, left, sat out, topped up, or a hand ended).
    Seats {
        /// The table.
        table: TableView,
    },
    /// Someone is to act; everyone sees the clock.
    Turn {
        /// The table.
        table_id: TableId,
        /// The hand.
        hand_number: u64,
        /// The clock.
        clock: ClockView,
    },
    /// Only some time is left to act (sent to the player to act).
    ClockWarning {
        /// The table.
        table_id: TableId,
        /// Milliseconds left before the time bank or the timeout.
        remaining_ms: u64,
    },
    /// A player ran out of time; the server checked or folded for them.
    TimedOut {
        /// The table.
        table_id: TableId,
        /// The seat.
        seat: u32,
        /// Whether the player is now sitting out for timing out too often.
        sat_out: bool,
    },
    /// A request was done (sit, top up, leave...), with what it did.
    Done {
        /// The table.
        table_id: TableId,
        /// What was asked: `sit`, `top_up`, `leave`, `sit_out`, `sit_in`.
        request: String,
        /// Chips moved: bought in, added, or cashed out.
        amount: Chips,
        /// Whether it waits for the hand in progress to end.
        pending: bool,
    },
    /// A private game's ledger, answering `ledger`, and sent to everyone at the game once
    /// its host ended it and everyone was cashed out (the settle-up). Each line sums the
    /// ledger's movements of one player's seat at this table; the nets and the rake sum
    /// to zero.
    Ledger {
        /// The table.
        table_id: TableId,
        /// A line per player who bought in, in the order they first did.
        lines: Vec<LedgerLine>,
        /// The rake the house took at this table.
        rake: Chips,
    },
    /// The host of a private game removed this player: a hand they are in is dead, and
    /// they are cashed out to their wallet (now, or when that hand ends: `done` for
    /// `leave` follows); they may not come back to this game.
    Removed {
        /// The table.
        table_id: TableId,
        /// Who removed them.
        host_name: String,
    },
    /// The host of a private play-money game changed a seated player's stack between
    /// hands (`adjust_stack`): to everyone at the table; the new stack follows in
    /// `seats`.
    StackAdjusted {
        /// The table.
        table_id: TableId,
        /// Whose stack.
        player_id: PlayerId,
        /// Their name.
        name: String,
        /// The host's name.
        host_name: String,
        /// Chips added (positive) or taken off (negative).
        amount: i64,
        /// The stack now.
        stack: Chips,
    },
    /// This player was away from the table (sitting out, or with no connection) longer
    /// than the room keeps a seat (`room.seat_keep_secs`): the seat is released and its
    /// chips are back in the wallet, through the ledger.
    SeatReleased {
        /// The table.
        table_id: TableId,
        /// How long the player had been away, in seconds of the room's clock.
        away_secs: u64,
        /// The chips cashed out to the wallet.
        amount: Chips,
        /// The table's name: sent when the player is told on coming back (after
        /// `welcome`), since the page may not know the table any more.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        table_name: Option<String>,
    },
    /// The table is closed; everyone was cashed out.
    TableClosed {
        /// The table.
        table_id: TableId,
    },
    /// The table stopped on a server fault: the hand in progress is void (every stack is
    /// as it was when that hand began), nothing more is dealt, and each player may
    /// `leave` to cash out. The operator closes the table (or a restart reopens it).
    TableFailed {
        /// The table.
        table_id: TableId,
        /// What the players are told.
        message: String,
    },
    /// Something happened in a hand (hole cards redacted for everyone but their owner).
    Event {
        /// The table.
        table_id: TableId,
        /// The hand's number at the table.
        hand_number: u64,
        /// Player index in the hand to seat number.
        seats: Vec<u32>,
        /// The event.
        event: Event,
        /// For a shown hand: what it makes, in the cardroom's words (`two pair, Tens and
        /// Threes`, `HI: a flush, Ace high; LO: 8,6,4,3,A`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hand_name: Option<String>,
    },
    /// The server asks this client to act.
    Decide {
        /// The table.
        table_id: TableId,
        /// Name it in the answer.
        decision_id: u64,
        /// Exactly what is allowed.
        legal: LegalActions,
    },
    /// The server asks this client which cards to discard (draw games): answer with
    /// `{"type": "draw", "discards": "..."}` (empty: stand pat).
    DecideDraw {
        /// The table.
        table_id: TableId,
        /// Name it in the answer.
        decision_id: u64,
    },
    /// At showdown this client's hand is beaten and may be mucked: show it or muck it?
    /// Answer with `{"type": "show"}` or `{"type": "muck"}`; when the clock runs out the
    /// hand is mucked (that does not count as a timeout).
    DecideShow {
        /// The table.
        table_id: TableId,
        /// Name it in the answer.
        decision_id: u64,
    },
    /// Everyone is all in: does this client agree to run the rest of the board twice?
    /// Answer with `{"type": "run_it_twice", "agree": true|false}`.
    DecideRunTwice {
        /// The table.
        table_id: TableId,
        /// Name it in the answer.
        decision_id: u64,
    },
    /// Where the player stands on the table's waiting list (`position` 1 is next;
    /// `None`: not on it).
    Waitlist {
        /// The table.
        table_id: TableId,
        /// Place in line, from 1.
        position: Option<u32>,
        /// Players on the list.
        length: u32,
    },
    /// What this player may buy in for at the table now, answering `buy_in_range`.
    BuyInRange {
        /// The table.
        table_id: TableId,
        /// The range.
        #[serde(flatten)]
        range: BuyInRange,
    },
    /// A seat is free and held for this player, first on the waiting list: `sit` in it
    /// before `expires_ms` (milliseconds from now) or the offer goes to the next.
    SeatOffered {
        /// The table.
        table_id: TableId,
        /// The seat held.
        seat: u32,
        /// Milliseconds left to take it.
        expires_ms: u64,
    },
    /// A line of the table's chat (to everyone at the table, spectators included).
    Chat {
        /// The table.
        table_id: TableId,
        /// The line.
        line: ChatLine,
    },
    /// The rabbit hunt (tables that turn it on): the hand just ended before its board
    /// was out, and these are the cards it would have dealt. They change nothing.
    Rabbit {
        /// The table.
        table_id: TableId,
        /// The hand's number at the table.
        hand_number: u64,
        /// The cards, in the order they would have come (burn cards skipped).
        cards: Vec<poker_rules::Card>,
    },
    /// An operator turned the table's chat on or off.
    ChatSwitched {
        /// The table.
        table_id: TableId,
        /// Whether chat is on now.
        enabled: bool,
    },
    /// The next hand's deck is committed (sent when a hand is dealt, for the one after
    /// it, and when a table opens): every seated client answers with a `seed_commit`.
    DeckCommitted {
        /// The table.
        table_id: TableId,
        /// The commitment.
        commitment: Commitment,
    },
    /// The table closed the next hand's list of seed commitments (sent to everyone at
    /// the table between hands, before the deal): no commitment counts after it, and
    /// each player listed now reveals their seed (`seed`). A client keeps the list's
    /// digest to check that the hand's record shows this same list (docs/fairness.md).
    SeedsClosed {
        /// The table.
        table_id: TableId,
        /// The hand.
        hand_id: HandId,
        /// The commitments, by ascending seat; `house` marks the house's own seats.
        list: Vec<SeedCommit>,
    },
    /// After a hand, to each player dealt in: the proofs of exactly the cards they saw,
    /// with the commitment and the seeds used (docs/fairness.md says how to check them).
    DeckProof {
        /// The table.
        table_id: TableId,
        /// The hand's number at the table.
        hand_number: u64,
        /// The proofs.
        proof: Box<HandProof>,
    },
    /// Answer to a ping.
    Pong,
}

impl ServerMsg {
    /// A typed error message.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> ServerMsg {
        ServerMsg::Error {
            code,
            message: message.into(),
        }
    }
}

/// Parses a client frame, with a typed error for anything malformed.
// The error is the message answered as is; it is built once per bad frame, so its size
// costs nothing worth a box.
//
// An `act` (most of what clients send) is read straight into its fields: the tagged enum
// would first copy every key and value of the frame into serde's buffer. Anything the
// quick reading does not take is read the general way, which also makes every error.
#[allow(clippy::result_large_err)]
pub fn parse_client(text: &str) -> Result<ClientMsg, ServerMsg> {
    if let Some(act) = quick::parse_act(text) {
        return Ok(act);
    }
    serde_json::from_str(text).map_err(|e| {
        ServerMsg::error(
            ErrorCode::BadMessage,
            format!("cannot read the message: {e}{}", number_hint(&e)),
        )
    })
}

/// What a number the reader refused must be, added to its words (which name the number
/// as read: `-1`, `1e30`, or 2^64 read as a float): every amount and id of a message is a
/// whole number that fits 64 bits, a seat one that fits 32.
fn number_hint(e: &serde_json::Error) -> &'static str {
    let text = e.to_string();
    if text.contains("expected u64") || text.contains("number out of range") {
        " (amounts and ids are whole numbers from 0 to 18446744073709551615)"
    } else if text.contains("expected u32") {
        " (a seat is a whole number from 0 to 4294967295)"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_messages_round_trip_through_json() {
        let table = TableId::new();
        let msgs = vec![
            ClientMsg::Auth { token: "t".into() },
            ClientMsg::ListTables,
            ClientMsg::Sit {
                table_id: table,
                seat: 2,
                buy_in: 200,
                post_now: false,
                seed_commit: None,
            },
            ClientMsg::Act {
                table_id: table,
                decision_id: 7,
                action: Action::BetOrRaiseTo { to: 40 },
            },
            ClientMsg::BuyInRange { table_id: table },
            ClientMsg::Ping,
        ];
        for m in msgs {
            let text = serde_json::to_string(&m).unwrap();
            assert_eq!(parse_client(&text).unwrap(), m);
        }
        let act: ClientMsg = serde_json::from_str(&format!(
            r#"{{"type":"act","table_id":"{table}","decision_id":3,"action":{{"type":"call"}}}}"#
        ))
        .unwrap();
        assert!(matches!(
            act,
            ClientMsg::Act {
                action: Action::Call,
                ..
            }
        ));
    }

    #[test]
    fn malformed_frames_get_a_typed_error() {
        for bad in [
            "",
            "{",
            "[]",
            r#"{"type":"fly"}"#,
            r#"{"type":"sit","table_id":1}"#,
            r#"{"type":"sit","table_id":"not-a-uuid","seat":0,"buy_in":100}"#,
        ] {
            match parse_client(bad) {
                Err(ServerMsg::Error { code, .. }) => assert_eq!(code, ErrorCode::BadMessage),
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn a_number_that_does_not_fit_its_field_is_refused_saying_what_it_must_be() {
        let table = TableId::new();
        let frames = [
            format!(r#"{{"type":"sit","table_id":"{table}","seat":0,"buy_in":N}}"#),
            format!(r#"{{"type":"top_up","table_id":"{table}","amount":N}}"#),
            format!(
                r#"{{"type":"act","table_id":"{table}","decision_id":1,"action":{{"type":"bet_or_raise_to","to":N}}}}"#
            ),
            format!(
                r#"{{"type":"act","table_id":"{table}","decision_id":N,"action":{{"type":"call"}}}}"#
            ),
            format!(
                r#"{{"type":"host","table_id":"{table}","command":{{"do":"blinds","small":N,"big":4}}}}"#
            ),
        ];
        for frame in &frames {
            for n in ["18446744073709551616", "-1", "1e30", "0.5", "1e400"] {
                let frame = frame.replace('N', n);
                match parse_client(&frame) {
                    Err(ServerMsg::Error {
                        code: ErrorCode::BadMessage,
                        message,
                    }) => assert!(
                        message.contains("whole numbers from 0 to 18446744073709551615"),
                        "{frame}: {message}"
                    ),
                    other => panic!("{frame} gave {other:?}"),
                }
            }
            // The largest that fits is read as it is (and refused later, by the table).
            assert!(parse_client(&frame.replace('N', "18446744073709551615")).is_ok());
        }
        let seat = format!(r#"{{"type":"sit","table_id":"{table}","seat":4294967296,"buy_in":1}}"#);
        match parse_client(&seat) {
            Err(ServerMsg::Error { message, .. }) => {
                assert!(message.contains("from 0 to 4294967295"), "{message}")
            }
            other => panic!("{other:?}"),
        }
    }
}
