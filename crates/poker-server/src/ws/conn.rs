//! What one connection knows: who it speaks for ([`Identity`]) and the tables it follows
//! ([`Conn`]); read by the connection's loop (`connection`) and by what each message does
//! (`dispatch`).

use crate::sessions::Registration;
use crate::table::Batch;
use poker_store::{PlayerId, TableId};
use tokio::sync::{broadcast, mpsc, oneshot};

/// Who a connection speaks for.
#[derive(Clone, Debug)]
pub(crate) struct Me {
    /// The player.
    pub(crate) player_id: PlayerId,
    /// Their name, as a seat shows it.
    pub(crate) name: String,
    /// A house bot (the room's own account: exempt from the same-address rule).
    pub(crate) bot: bool,
}

/// A connection's identity: the player it speaks for and the session it holds, set by the
/// first `auth` and never to another player. When the session ends the connection closes,
/// and with it every subscription it made (they all send into its queue).
pub(crate) struct Identity {
    /// The player.
    pub(crate) me: Me,
    /// Its place among the live sessions, through which the session's end comes.
    pub(crate) session: Registration,
    /// When the session expires.
    pub(crate) expires: tokio::time::Instant,
}

/// What one connection knows.
pub(crate) struct Conn {
    /// Who it speaks for (`None` until `auth`). Nothing joins a table before it is set,
    /// so every table joined is this player's.
    pub(crate) identity: Option<Identity>,
    /// The tables it follows (joined, watched, or the player's own).
    pub(crate) follows: super::follows::Follows,
    pub(crate) out: mpsc::Sender<Batch>,
    pub(crate) lobby: Option<broadcast::Receiver<poker_protocol::TableSummary>>,
    /// The decisions this client was asked and has not answered, by table: an answer
    /// to one of them is never rate-limited.
    pub(crate) asked: Vec<(TableId, u64)>,
    /// The client's address bucket, carried by each sit (fair play).
    pub(crate) address: std::net::IpAddr,
}

/// What a connection whose session expired is told.
pub(crate) const EXPIRED: &str = "the session expired: log in again";

impl Conn {
    /// The player this connection speaks for, once authenticated.
    pub(crate) fn me(&self) -> Option<Me> {
        self.identity.as_ref().map(|i| i.me.clone())
    }

    /// Why the session is over, if it is (ended, or expired): then nothing more of the
    /// player's may be written or done. Taking the session's end acknowledges it: the one
    /// who ended it waits for that.
    pub(crate) fn over(&mut self) -> Option<&'static str> {
        let identity = self.identity.as_mut()?;
        match identity.session.ended.try_recv() {
            Ok(ending) => return Some(ending.why),
            Err(oneshot::error::TryRecvError::Closed) => return Some("the session ended"),
            Err(oneshot::error::TryRecvError::Empty) => {}
        }
        (identity.expires <= tokio::time::Instant::now()).then_some(EXPIRED)
    }
}
