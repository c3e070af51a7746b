//! House bots: players the room seats so that a lone newcomer gets a game, and the same
//! players a load test drives. A bot speaks only the public WebSocket protocol
//! (`poker-protocol`), exactly as a person's browser does: it cannot see a card a person
//! could not, and every action goes through the server's rules.
//!
//! - [`strategy`]: what a bot does at a decision, for every game and structure: a rough
//!   strength of its cards, then a legal action (bets sized within the legal range and
//!   on the betting unit), discards in draw games, the bring-in in stud.
//! - [`client`]: one bot's connection: authenticate, take a seat (or resume one), answer
//!   decisions after a thinking pause, leave when told, reconnect after a drop.
//! - [`cpu`]: CPU time of a process, its threads or a process tree, from /proc (the load
//!   generator's and the I/O floor's figures).

pub mod client;
pub mod cpu;
pub mod strategy;

pub use client::{run, BotEnd, BotPlan};
pub use strategy::{Family, Strategy};
