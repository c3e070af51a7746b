//! Which player sessions this node's WebSockets speak for, and the one way a session ends
//! for them.
//!
//! A connection that authenticates registers here under its session (the token's SHA-256)
//! and player, and holds the [`Registration`] for as long as it speaks for them. Whatever
//! ends sessions (a logout, staff locking an account or resetting its password) calls
//! [`AppState::end_sessions`] once the store has let them go: every node's connections of
//! those sessions are told, and it returns once each has stopped writing anything of the
//! player (or after [`ACK_WAIT`], for one stuck writing to a client that reads nothing).
//! A connection that authenticates takes a [`Sessions::mark`] of the ends told so far,
//! reads its session in the store, then registers with [`Sessions::register_since`], which
//! answers whether an end told since the mark names it. So an end that comes while it
//! authenticates is never missed: committed before the read, the read finds the session
//! gone; after it, the end is told here after the mark (every node is told once the store
//! has let the session go), so either the registration finds it among the ends told since
//! or the end finds the registration. Past the last [`RECENT`] ends the answer is
//! [`Since::Unknown`], and the connection reads its session again instead.
//!
//! An end told while this node was cut off from NATS never reaches it, nor one whose node
//! died between its commit and its telling. When the node hears NATS again, hears another
//! node come back, or stops hearing one that did not say it was leaving, it checks its
//! connections' sessions in the store ([`AppState::recheck_sessions`]); a sign-in whose mark came before such a check
//! began cannot lean on the ends told here (one may have been lost): it is answered
//! [`Since::Unknown`] and reads its session again.

use crate::AppState;
use poker_store::PlayerId;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

/// How long ending sessions waits for each connection (on every node) to stop writing: a
/// connection reading its client is told in microseconds; one blocked writing to a client
/// that reads nothing closes once that write ends.
pub const ACK_WAIT: Duration = Duration::from_secs(1);

/// Which sessions ended, and why: what a logout or a staff action says, here and to the
/// other nodes (`pokerd.session.ended`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SessionEnd {
    /// One session logged out, named by its token's SHA-256 (the token never travels).
    LoggedOut {
        /// The SHA-256 of the session's token, as the store keeps it.
        token_hash: String,
    },
    /// Staff locked the player out: every session of theirs.
    Locked {
        /// The player.
        player_id: PlayerId,
    },
    /// Staff reset the player's password: every session of theirs.
    PasswordReset {
        /// The player.
        player_id: PlayerId,
    },
}

/// What ends sessions here: an end told (by a request to this node or by another node), or
/// one a check of the store found ([`AppState::recheck_sessions`]). Only the first crosses
/// the wire: each node finds its own of the second.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// An end told.
    Told(SessionEnd),
    /// The store no longer holds the session (found by a check): an end told while this
    /// node was cut off from NATS, or told by a node that was.
    Gone {
        /// The SHA-256 of the session's token.
        token_hash: String,
    },
}

impl From<SessionEnd> for End {
    fn from(end: SessionEnd) -> End {
        End::Told(end)
    }
}

impl From<&SessionEnd> for End {
    fn from(end: &SessionEnd) -> End {
        End::Told(end.clone())
    }
}

impl End {
    /// Whether a connection of this session and player is ended by it.
    fn ends(&self, token_hash: &str, player: PlayerId) -> bool {
        match self {
            End::Told(SessionEnd::LoggedOut { token_hash: h }) | End::Gone { token_hash: h } => {
                h == token_hash
            }
            End::Told(
                SessionEnd::Locked { player_id } | SessionEnd::PasswordReset { player_id },
            ) => *player_id == player,
        }
    }

    /// What the connection's client is told (with `unauthenticated`).
    fn why(&self) -> &'static str {
        match self {
            End::Told(SessionEnd::LoggedOut { .. }) => "the session ended (logged out)",
            End::Told(SessionEnd::Locked { .. }) => "the account was locked: the session ended",
            End::Told(SessionEnd::PasswordReset { .. }) => {
                "the password was reset: the session ended, log in again"
            }
            End::Gone { .. } => "the session ended: log in again",
        }
    }
}

/// What a connection is sent when its session ends. Dropping it tells the one ending the
/// session that the connection writes nothing more of its player.
#[derive(Debug)]
pub struct Ending {
    /// What the client is told.
    pub why: &'static str,
    /// Dropped once the connection has stopped writing for the player.
    _done: oneshot::Sender<()>,
}

/// A connection registered as speaking for a session.
struct Live {
    /// Tells the registrations apart (a connection may register the same session again).
    id: u64,
    player: PlayerId,
    /// Where its end is sent.
    end: oneshot::Sender<Ending>,
}

/// How many of the last ends told here are kept for the sign-ins under way
/// ([`Sessions::register_since`]): a sign-in's read of its session takes milliseconds.
pub const RECENT: usize = 1024;

/// The longest wait between tries of a check of the sessions whose read failed.
const RECHECK_WAIT_MAX: Duration = Duration::from_secs(30);

/// The sessions this node's connections speak for.
#[derive(Default)]
pub struct Sessions {
    /// The connections, and the last ends told.
    state: Mutex<State>,
    /// The next registration's id.
    next: AtomicU64,
}

/// What [`Sessions`] keeps under its lock: the registrations and the ends told, in one
/// order (an end told before a registration is among the ends it checks; one told after
/// finds it).
#[derive(Default)]
struct State {
    /// By token hash: the connections registered under it.
    live: HashMap<Arc<str>, Vec<Live>>,
    /// How many ends were ever told here.
    told: u64,
    /// How many checks of the sessions in the store began ([`Sessions::begin_check`]).
    checks: u64,
    /// The last of them (at most [`RECENT`]), oldest first: the one told `told`th last.
    recent: std::collections::VecDeque<End>,
}

/// Where a sign-in stands among the ends told here and the checks begun
/// ([`Sessions::mark`]), taken before it reads its session in the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    told: u64,
    checks: u64,
}

/// What a registration made after reading the session in the store learns of the ends
/// told since its [`Sessions::mark`].
#[derive(Debug, PartialEq, Eq)]
pub enum Since {
    /// None names it: the session read is still live.
    Clear,
    /// One names it: the session ended after it was read (what the client is told).
    Ended(&'static str),
    /// More ends were told since than are kept, or a check of the sessions began (an end
    /// may have been lost): the session must be read again.
    Unknown,
}

/// A connection's place among the live sessions, held while it speaks for the session;
/// dropped, it leaves.
pub struct Registration {
    sessions: Arc<Sessions>,
    token_hash: Arc<str>,
    id: u64,
    /// Its session's end, when it comes.
    pub ended: oneshot::Receiver<Ending>,
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registration")
            .field("id", &self.id)
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Sessions {
    /// How many ends were told here and checks begun so far: taken before a sign-in reads
    /// its session in the store, and given to [`Sessions::register_since`] after.
    pub fn mark(&self) -> Mark {
        let state = lock(&self.state);
        Mark {
            told: state.told,
            checks: state.checks,
        }
    }

    /// Registers a connection as speaking for this session and player, whose session was
    /// read live in the store after `mark` was taken, and says whether an end told since
    /// names it ([`Since`]). Whatever it says, the registration is made: an end told from
    /// now on reaches it.
    pub fn register_since(
        self: &Arc<Self>,
        mark: Mark,
        token_hash: &str,
        player: PlayerId,
    ) -> (Registration, Since) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (end, ended) = oneshot::channel();
        let mut state = lock(&self.state);
        // The ends told since the mark are the last `told - mark` kept, if that many are
        // kept (and a mark not taken here cannot tell: it fails closed). A check begun
        // since may have found an end never told here: the session is read again.
        let skip = state
            .told
            .checked_sub(mark.told)
            .filter(|_| mark.checks == state.checks)
            .and_then(|new| (state.recent.len() as u64).checked_sub(new));
        let since = match skip {
            None => Since::Unknown,
            Some(skip) => match state
                .recent
                .iter()
                .skip(skip as usize)
                .find(|e| e.ends(token_hash, player))
            {
                Some(e) => Since::Ended(e.why()),
                None => Since::Clear,
            },
        };
        let token_hash = match state.live.get_key_value(token_hash) {
            Some((key, _)) => key.clone(),
            None => Arc::from(token_hash),
        };
        state
            .live
            .entry(token_hash.clone())
            .or_insert_with(|| Vec::with_capacity(1))
            .push(Live { id, player, end });
        let registration = Registration {
            sessions: self.clone(),
            token_hash,
            id,
            ended,
        };
        (registration, since)
    }

    /// Registers a connection as speaking for this session and player, told every end
    /// from now on (a test's connection, whose session was not read).
    #[cfg(test)]
    fn register(self: &Arc<Self>, token_hash: &str, player: PlayerId) -> Registration {
        let mark = self.mark();
        self.register_since(mark, token_hash, player).0
    }

    /// Tells this node's connections of the sessions `end` names that they ended, and waits
    /// (at most [`ACK_WAIT`]) until each has stopped writing for its player. Returns how
    /// many there were.
    pub async fn end_here(&self, end: impl Into<End>) -> usize {
        let end = end.into();
        let mut done = Vec::new();
        {
            let mut state = lock(&self.state);
            state.told += 1;
            if state.recent.len() == RECENT {
                state.recent.pop_front();
            }
            state.recent.push_back(end.clone());
            state.live.retain(|hash, conns| {
                for c in std::mem::take(conns) {
                    if !end.ends(hash, c.player) {
                        conns.push(c);
                        continue;
                    }
                    let (tx, rx) = oneshot::channel();
                    let ending = Ending {
                        why: end.why(),
                        _done: tx,
                    };
                    // (A connection already gone has nothing to stop.)
                    if c.end.send(ending).is_ok() {
                        done.push(rx);
                    }
                }
                !conns.is_empty()
            });
        }
        let n = done.len();
        let _ = tokio::time::timeout(ACK_WAIT, futures_util::future::join_all(done)).await;
        n
    }

    /// Begins a check of the sessions connections here speak for: returns the check's
    /// number and their tokens' hashes. Registrations whose marks came before it are
    /// answered [`Since::Unknown`].
    fn begin_check(&self) -> (u64, Vec<Arc<str>>) {
        let mut state = lock(&self.state);
        state.checks += 1;
        (state.checks, state.live.keys().cloned().collect())
    }

    /// How many checks began.
    fn checks(&self) -> u64 {
        lock(&self.state).checks
    }

    /// How many connections are registered.
    #[cfg(test)]
    fn connections(&self) -> usize {
        lock(&self.state).live.values().map(Vec::len).sum()
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut state = lock(&self.sessions.state);
        if let Some(conns) = state.live.get_mut(&self.token_hash) {
            conns.retain(|c| c.id != self.id);
            if conns.is_empty() {
                state.live.remove(&self.token_hash);
            }
        }
    }
}

impl AppState {
    /// Ends the connections here whose sessions the store no longer holds (ended, expired,
    /// or their player locked out): run when this node's NATS connection comes back (an
    /// end told while it was cut off never reached it), when another node is back or new,
    /// and when another goes silent without leaving (it may have died between its commit
    /// and its telling). Ends told from then on reach it
    /// again (its subscriptions are back), and an end committed before this read is seen
    /// in it. Returns how many sessions it ended.
    pub async fn recheck_sessions(&self, why: &str) -> usize {
        let mut wait = Duration::from_secs(1);
        loop {
            let (check, registered) = self.sessions.begin_check();
            let hashes: Vec<&str> = registered.iter().map(|h| &**h).collect();
            let live = match self.store.live_sessions(&hashes).await {
                Ok(live) => live,
                Err(e) => {
                    // Tried again until it is answered, unless a newer check began.
                    tracing::error!("cannot check this node's sessions again: {e}");
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(RECHECK_WAIT_MAX);
                    if self.sessions.checks() != check {
                        return 0;
                    }
                    continue;
                }
            };
            let gone: Vec<End> = hashes
                .into_iter()
                .filter(|h| !live.contains(*h))
                .map(|h| End::Gone {
                    token_hash: h.to_string(),
                })
                .collect();
            // At once: each waits for its connections to stop writing (at most ACK_WAIT).
            futures_util::future::join_all(
                gone.iter().map(|end| self.sessions.end_here(end.clone())),
            )
            .await;
            if !gone.is_empty() {
                tracing::warn!(
                    "{} sessions had ended unheard here ({why}): their connections here are closed",
                    gone.len()
                );
            }
            return gone.len();
        }
    }

    /// Ends sessions the store has let go of (deleted, or their player locked out):
    /// every connection of theirs, on every node, is told `unauthenticated` and closed.
    /// Returns once each connection here and on the nodes that answer within [`ACK_WAIT`]
    /// has stopped writing for its player, so nothing of theirs follows the answer of the
    /// request that ended them.
    pub async fn end_sessions(&self, end: SessionEnd) {
        match &self.cluster {
            Some(cluster) => {
                tokio::join!(cluster.end_sessions(&end), self.sessions.end_here(&end));
            }
            None => {
                self.sessions.end_here(&end).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_end_reaches_the_connections_it_names_and_no_other() {
        let sessions = Arc::new(Sessions::default());
        let (a, b) = (PlayerId::new(), PlayerId::new());
        let mut a1 = sessions.register("a1", a);
        let mut a2 = sessions.register("a2", a);
        let mut b1 = sessions.register("b1", b);
        assert_eq!(sessions.connections(), 3);

        // The logout of a1 ends a1 only; its connection acknowledges by dropping the end.
        let ending = tokio::spawn(async move {
            let ending = (&mut a1.ended).await.unwrap();
            assert_eq!(ending.why, "the session ended (logged out)");
        });
        let logout = SessionEnd::LoggedOut {
            token_hash: "a1".into(),
        };
        assert_eq!(sessions.end_here(&logout).await, 1);
        ending.await.unwrap();
        assert!(a2.ended.try_recv().is_err());
        assert_eq!(sessions.connections(), 2);

        // Locking a ends every session of a, none of b.
        let lock = SessionEnd::Locked { player_id: a };
        assert_eq!(sessions.end_here(&lock).await, 1);
        assert!(a2.ended.try_recv().is_ok());
        assert!(b1.ended.try_recv().is_err());
        drop(b1);
        assert_eq!(sessions.connections(), 0);
    }

    #[tokio::test]
    async fn ending_waits_for_the_connection_to_stop_writing_but_not_forever() {
        let sessions = Arc::new(Sessions::default());
        let a = PlayerId::new();
        let mut stuck = sessions.register("a", a);
        // A connection that does not take its end (blocked in a write): the end returns
        // all the same (after ACK_WAIT), and the connection finds it when it looks.
        let end = SessionEnd::PasswordReset { player_id: a };
        assert_eq!(sessions.end_here(&end).await, 1);
        let ending = stuck.ended.try_recv().expect("the end waits for it");
        assert!(ending.why.contains("password"));
    }

    #[tokio::test]
    async fn a_registration_learns_the_ends_told_since_its_mark_and_past_the_kept_ones_cannot_tell()
    {
        let sessions = Arc::new(Sessions::default());
        let (a, b) = (PlayerId::new(), PlayerId::new());
        // Ends told before the mark are the store's to show (the read finds the session
        // gone): they do not refuse a later sign-in of the same player.
        let before = SessionEnd::Locked { player_id: a };
        sessions.end_here(&before).await;
        let mark = sessions.mark();
        // Between the mark (then the read) and the registration: a logout of another
        // session and a password reset of b.
        let other = SessionEnd::LoggedOut {
            token_hash: "a-other".into(),
        };
        sessions.end_here(&other).await;
        sessions
            .end_here(&SessionEnd::PasswordReset { player_id: b })
            .await;
        let (mut a1, since) = sessions.register_since(mark, "a1", a);
        assert_eq!(since, Since::Clear);
        let (_b1, since) = sessions.register_since(mark, "b1", b);
        assert_eq!(
            since,
            Since::Ended("the password was reset: the session ended, log in again")
        );
        let (_gone, since) = sessions.register_since(mark, "a-other", a);
        assert_eq!(since, Since::Ended("the session ended (logged out)"));
        // Registered all the same: an end from now on reaches it.
        sessions
            .end_here(&SessionEnd::LoggedOut {
                token_hash: "a1".into(),
            })
            .await;
        assert!(a1.ended.try_recv().is_ok());
        // More ends since the mark than are kept: it cannot tell.
        let mark = sessions.mark();
        for _ in 0..RECENT {
            sessions.end_here(&other).await;
        }
        assert_eq!(sessions.register_since(mark, "a2", a).1, Since::Clear);
        sessions.end_here(&other).await;
        assert_eq!(sessions.register_since(mark, "a2", a).1, Since::Unknown);
        assert_eq!(
            sessions.register_since(sessions.mark(), "a2", a).1,
            Since::Clear
        );
        // A mark this registry never gave cannot tell either.
        let mut ahead = sessions.mark();
        ahead.told += 1;
        assert_eq!(sessions.register_since(ahead, "a2", a).1, Since::Unknown);
        // A check of the sessions begun after the mark: the session is read again (an end
        // the node was never told may be what the check finds).
        let (_kept, _) = sessions.register_since(sessions.mark(), "a2", a);
        let mark = sessions.mark();
        let (_, registered) = sessions.begin_check();
        assert!(
            registered.iter().any(|h| &**h == "a2"),
            "the check reads the sessions registered"
        );
        assert_eq!(sessions.register_since(mark, "a3", a).1, Since::Unknown);
        assert_eq!(
            sessions.register_since(sessions.mark(), "a3", a).1,
            Since::Clear
        );
    }

    #[test]
    fn a_session_end_crosses_the_wire_as_tagged_json() {
        let end = SessionEnd::Locked {
            player_id: PlayerId::new(),
        };
        let wire = serde_json::to_value(&end).unwrap();
        assert_eq!(wire["kind"], "locked");
        assert_eq!(serde_json::from_value::<SessionEnd>(wire).unwrap(), end);
    }
}
