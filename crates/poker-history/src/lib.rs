//! Hand histories: pure functions of one hand's record, with no I/O, used by the server,
//! the bots and `pokerd`.
//!
//! - [`phh`]: the Poker Hand History standard (reading, writing, and replaying a history
//!   through the engine, which is how every other format is written: the pots, the rake
//!   and who won what are the engine's own arithmetic, never the writer's).
//! - [`ohh`]: Open Hand History, the JSON standard trackers exchange (flop games).
//! - [`pokerstars`]: PokerStars' text, which tracking tools import, and PokerStars'
//!   words for a shown hand ([`pokerstars::describe`]).

pub mod ohh;
pub mod phh;
pub mod pokerstars;
