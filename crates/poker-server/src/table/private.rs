//! Private tables: a player's own game, shared by an invite link. The table keeps its
//! host and the hash of the invite's secret in its configuration ([`PrivateSpec`]); the
//! actor keeps who presented the invite, who asks for a seat and who the host let in,
//! whether the host paused the game and the blinds the next hand is dealt with.
//!
//! Everything is decided here, in the table's own task, so that a host command reaches
//! the table the same way from any node and is checked where the table's state is: only
//! the host controls the game (anyone else is refused `not_host`), only a player the
//! host approved sits down, and only one who presented the invite (or sits here) may
//! watch. Pausing and new blinds wait for the hand in progress to end; removing a player
//! is their leaving, decided by the host.

use super::*;
use poker_protocol::{HostCommand, PrivateView, SeatAsk};
use poker_rules::game::Opening;
use poker_rules::Structure;
use rand::RngCore;
use sha2::{Digest, Sha256};
use std::collections::HashSet;

/// What makes a table private, saved with its configuration: its host and the SHA-256
/// of its invite's secret (the secret itself is shown once, to the host who made it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrivateSpec {
    /// The player who created the table and controls it.
    pub host: PlayerId,
    /// The invite secret's SHA-256, in hex.
    pub invite_sha256: String,
}

/// Seat requests a private table holds at once: accounts made to flood the host's list are
/// refused past it (the host answers the ones there first).
const MAX_REQUESTS: usize = 32;

/// Bytes of an invite's secret: 128 bits from the operating system's RNG, beyond any
/// guessing (the table's id alone lets nobody in).
const INVITE_BYTES: usize = 16;

impl PrivateSpec {
    /// A new private table's spec for `host`, with the invite's secret (hex) to hand to
    /// the host.
    pub fn new(host: PlayerId) -> (PrivateSpec, String) {
        let mut raw = [0u8; INVITE_BYTES];
        rand::rngs::OsRng.fill_bytes(&mut raw);
        let invite: String = raw.iter().map(|b| format!("{b:02x}")).collect();
        let spec = PrivateSpec {
            host,
            invite_sha256: invite_hash(&invite),
        };
        (spec, invite)
    }

    /// Whether `invite` is this table's secret (compared by hash, in time that does not
    /// depend on where they differ).
    pub fn admits(&self, invite: &str) -> bool {
        let given = invite_hash(invite);
        given.len() == self.invite_sha256.len()
            && given
                .bytes()
                .zip(self.invite_sha256.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

fn invite_hash(invite: &str) -> String {
    Sha256::digest(invite.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a private table's players ask of it (`Request::Private`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PrivateAsk {
    /// Present the invite: watch the table, and ask the host for a seat.
    Join {
        /// The invite's secret.
        invite: String,
    },
    /// A host command.
    Host(HostCommand),
}

/// A private table's state in its actor.
pub(super) struct Private {
    /// Host and invite hash.
    spec: PrivateSpec,
    /// The host's name, for the view.
    host_name: String,
    /// Presented the invite (they may watch); forgotten on a restart, so a friend not
    /// yet seated presents it again.
    admitted: HashSet<PlayerId>,
    /// Waiting for the host's answer, in the order they asked.
    requests: Vec<SeatAsk>,
    /// Let in by the host: they may sit down (again, after leaving).
    approved: Vec<PlayerId>,
    /// Removed by the host: never let in again at this table.
    removed: HashSet<PlayerId>,
    /// No new hand until the host resumes.
    paused: bool,
    /// Blinds for the next hand.
    next_blinds: Option<(Chips, Chips)>,
}

impl Private {
    /// The actor's state of a private table as it starts: a new game is paused until its
    /// host deals the first hand (`resume`), so that the friends sit down first.
    pub(super) fn new(spec: PrivateSpec, host_name: String, fresh: bool) -> Private {
        Private {
            spec,
            host_name,
            admitted: HashSet::new(),
            requests: Vec::new(),
            approved: Vec::new(),
            removed: HashSet::new(),
            paused: fresh,
            next_blinds: None,
        }
    }

    /// Whether `player` is the table's host.
    pub(super) fn is_host(&self, player: PlayerId) -> bool {
        self.spec.host == player
    }

    /// Host and invite hash, as saved with the table's configuration.
    pub(super) fn spec(&self) -> &PrivateSpec {
        &self.spec
    }

    /// The view of the private table's state, for everyone at it.
    pub(super) fn view(&self) -> PrivateView {
        PrivateView {
            host: self.spec.host,
            host_name: self.host_name.clone(),
            paused: self.paused,
            next_blinds: self.next_blinds,
            requests: self.requests.clone(),
            approved: self.approved.clone(),
        }
    }

    /// Refuses what a private table lets only some do: watching (the invite's holders,
    /// the host and the seated: `seated`), sitting down (the host and whom the host
    /// approved), joining the waiting list and reading the ledger (as watching).
    pub(super) fn guard(
        &self,
        request: &Request,
        seated: impl Fn(PlayerId) -> bool,
    ) -> Result<(), Refusal> {
        let watcher = |player: Option<PlayerId>| match player {
            Some(player)
                if self.is_host(player) || self.admitted.contains(&player) || seated(player) =>
            {
                Ok(())
            }
            _ => Err(Refusal::Private(
                "this table is private: open its invite link".into(),
            )),
        };
        match request {
            Request::Subscribe {
                player,
                only_if_seated: false,
            } => watcher(*player),
            Request::Waitlist { player, join: true } | Request::Ledger { player } => {
                watcher(Some(*player))
            }
            Request::Sit { player, .. } => {
                if self.removed.contains(player) {
                    Err(Refusal::Private(
                        "the host removed you from this game".into(),
                    ))
                } else if self.is_host(*player) || self.approved.contains(player) {
                    Ok(())
                } else {
                    Err(Refusal::Private(
                        "the host has not let you in yet: ask with the invite link".into(),
                    ))
                }
            }
            _ => Ok(()),
        }
    }

    /// Does what the host commands at a table under `rules` (the host checked): what the
    /// actor does next.
    pub(super) fn command(
        &mut self,
        command: HostCommand,
        rules: &TableRules,
    ) -> Result<Commanded, Refusal> {
        match command {
            HostCommand::Approve { player_id } => {
                let Some(i) = self.requests.iter().position(|r| r.player_id == player_id) else {
                    return Err(Refusal::Private(
                        "that player has not asked for a seat".into(),
                    ));
                };
                self.requests.remove(i);
                self.approved.push(player_id);
            }
            HostCommand::Deny { player_id } => {
                let before = self.requests.len();
                self.requests.retain(|r| r.player_id != player_id);
                if self.requests.len() == before {
                    return Err(Refusal::Private(
                        "that player has not asked for a seat".into(),
                    ));
                }
            }
            HostCommand::Pause => self.paused = true,
            HostCommand::Resume => self.paused = false,
            HostCommand::Blinds { small, big } => {
                if rules.game.opening() != Opening::Position {
                    return Err(Refusal::Illegal("this game has no blinds".into()));
                }
                if big == 0 || small == 0 || small > big {
                    return Err(Refusal::Illegal(
                        "the blinds are positive, the small at most the big".into(),
                    ));
                }
                let too_large = || {
                    Refusal::Illegal(format!(
                        "blinds of {small}/{big} are too large: amounts are at most {} chips",
                        poker_rules::MAX_CHIPS
                    ))
                };
                let new = with_blinds(rules, small, big).ok_or_else(too_large)?;
                poker_rules::table::Table::<PlayerId>::new(new)
                    .map_err(|e| Refusal::Illegal(e.to_string()))?;
                self.next_blinds = Some((small, big));
            }
            HostCommand::Remove { player_id } => {
                if self.is_host(player_id) {
                    return Err(Refusal::Private(
                        "the host does not remove themselves: end the game or leave".into(),
                    ));
                }
                self.removed.insert(player_id);
                self.admitted.remove(&player_id);
                self.approved.retain(|a| *a != player_id);
                self.requests.retain(|r| r.player_id != player_id);
                return Ok(Commanded::Removed(player_id));
            }
            HostCommand::End => return Ok(Commanded::End),
            HostCommand::AdjustStack { player_id, amount } => {
                if amount == 0 {
                    return Err(Refusal::Illegal(
                        "add chips (a positive amount) or take some off (negative)".into(),
                    ));
                }
                return Ok(Commanded::Adjust { player_id, amount });
            }
            HostCommand::BombPot { big_blinds } => {
                // The table checks it can deal one (H1, H2): the actor calls it there.
                let size = big_blinds.unwrap_or(rules.bomb_pot.map_or(2, |b| b.big_blinds));
                return Ok(Commanded::BombPot(size));
            }
        }
        Ok(Commanded::Changed)
    }

    /// A player presents `invite`: admitted to watch, and asking for a seat unless the
    /// host, already let in, asking, or `seated`. Whether they asked now.
    pub(super) fn join(
        &mut self,
        player: PlayerId,
        name: String,
        invite: &str,
        seated: bool,
    ) -> Result<bool, Refusal> {
        if !self.spec.admits(invite) {
            return Err(Refusal::Private("this invite is not the table's".into()));
        }
        if self.removed.contains(&player) {
            return Err(Refusal::Private(
                "the host removed you from this game".into(),
            ));
        }
        self.admitted.insert(player);
        let asks = !(self.is_host(player)
            || seated
            || self.approved.contains(&player)
            || self.requests.iter().any(|r| r.player_id == player));
        if asks && self.requests.len() >= MAX_REQUESTS {
            return Err(Refusal::Private(
                "too many players are waiting for the host: try again later".into(),
            ));
        }
        if asks {
            self.requests.push(SeatAsk {
                player_id: player,
                name,
            });
        }
        Ok(asks)
    }

    /// Whether the host paused the game.
    pub(super) fn paused(&self) -> bool {
        self.paused
    }

    /// The blinds the host set for the next hand, taken to apply them.
    pub(super) fn take_blinds(&mut self) -> Option<(Chips, Chips)> {
        self.next_blinds.take()
    }
}

/// What a host command leaves for the actor to do.
pub(super) enum Commanded {
    /// The game's state changed: everyone is shown it.
    Changed,
    /// The host removed this player: off the waiting list, and out of their seat.
    Removed(PlayerId),
    /// The game ends: the gateway closes the table.
    End,
    /// Chips added to (positive) or taken off (negative) this player's stack, between
    /// hands, through the ledger (play-money rooms only).
    Adjust {
        /// Whose stack.
        player_id: PlayerId,
        /// By how many chips.
        amount: i64,
    },
    /// The next hand that can be one is a bomb pot of this many big blinds (H2).
    BombPot(u32),
}

/// The rules with new blinds: the minimum bet (no and pot limit) or the small and big bet
/// (fixed limit) follow the big blind, and so does the buy-in range, in proportion. The
/// blinds are the host's numbers: every product is checked, and `None` when one does
/// not fit (the new rules are then refused as too large).
pub(super) fn with_blinds(rules: &TableRules, small: Chips, big: Chips) -> Option<TableRules> {
    let mut new = rules.clone();
    let scale = |x: Chips| {
        if rules.big_blind == 0 {
            Some(x)
        } else {
            let scaled = u128::from(x) * u128::from(big) / u128::from(rules.big_blind);
            Chips::try_from(scaled.max(1)).ok()
        }
    };
    new.min_buy_in = scale(rules.min_buy_in)?;
    new.max_buy_in = scale(rules.max_buy_in)?;
    new.small_blind = small;
    new.big_blind = big;
    match rules.structure {
        Structure::FixedLimit => {
            new.stakes.small_bet = big;
            new.stakes.big_bet = big.checked_mul(2)?;
        }
        _ => new.stakes.min_bet = big,
    }
    // Every game of a dealer's choice rotation follows the big blind alike (H4).
    for game in &mut new.dealers_choice {
        match game.structure {
            Structure::FixedLimit => {
                game.stakes.small_bet = big;
                game.stakes.big_bet = big.checked_mul(2)?;
            }
            _ => game.stakes.min_bet = big,
        }
    }
    Some(new)
}
