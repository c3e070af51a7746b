//! What each client message does: authenticate, list tables, join, sit, act, top up, sit
//! out or in, leave; every refusal is a typed protocol error.
//!
//! A connection never waits on a table: what a table is asked runs beside the connection
//! ([`Handled::Later`]), which goes on answering its client meanwhile (a table on a frozen
//! node answers `table_moving` after about a heartbeat, and only that request waits).

use crate::sessions::Since;
use crate::table::{Batch, Caller, Out, Refusal, Request};
use crate::AppState;
use futures_util::future::BoxFuture;
use poker_protocol::{ClientMsg, ErrorCode, HostCommand, ServerMsg};
use poker_store::{now_ms, TableId};
use std::sync::Arc;

use super::conn::*;
use crate::http::auth::*;

/// How a client's message is answered.
pub(crate) enum Handled {
    /// At once (or not at all); boxed, as the dispatch's result is held while the
    /// connection's future is (it stays small for idle connections).
    Now(Option<Box<ServerMsg>>),
    /// Once its table has answered, in the order the client asked.
    Later(BoxFuture<'static, Finished>),
}

/// A table's answer to a client's request: the reply, and what it changes in the tables
/// the connection follows.
pub(crate) struct Finished {
    pub(crate) reply: Option<ServerMsg>,
    pub(crate) table: TableId,
    pub(crate) follow: Follow,
}

/// What a request changed in the tables a connection follows.
pub(crate) enum Follow {
    /// Nothing.
    Same,
    /// Subscribed (a sit, a watch): followed, its snapshot on the way.
    Subscribed,
    /// The table is moving (or its node does not answer): subscribed again once it has
    /// an owner.
    Moving,
    /// Watched while it was moving: followed, and subscribed once it has an owner.
    Retry,
    /// A seat request granted: the player is seated there, so the table is followed as one
    /// of theirs if it was not (a connection authenticated while a sit asked from another
    /// was under way does not follow the table that sit seats them at, and would never
    /// hear the hand's end that a `pending` answer waits for).
    Seated,
}

impl Finished {
    fn reply(table: TableId, reply: Option<ServerMsg>) -> Finished {
        Finished {
            follow: match &reply {
                Some(ServerMsg::Error { code, .. }) if *code == ErrorCode::TableMoving => {
                    Follow::Moving
                }
                _ => Follow::Same,
            },
            reply,
            table,
        }
    }

    /// The client's reply to what its table answered, and what the answer changes in the
    /// tables the connection follows.
    fn answered(table: TableId, request: &Request, answer: crate::table::Answer) -> Finished {
        let follow = match &answer {
            // Followed all the same: subscribed as soon as it has an owner.
            Err(Refusal::Moving) if matches!(request, Request::Subscribe { .. }) => Follow::Retry,
            Err(Refusal::Moving) => Follow::Moving,
            answer if request.subscribes(answer).is_some() => Follow::Subscribed,
            Ok(_) if matches!(request, Request::Seat { .. }) => Follow::Seated,
            _ => Follow::Same,
        };
        Finished {
            reply: request.client_reply(table, answer),
            table,
            follow,
        }
    }
}

pub(crate) fn unknown_table() -> ServerMsg {
    ServerMsg::error(ErrorCode::UnknownTable, "no such table")
}

/// `auth`: the connection speaks for the token's player from now on. A connection that
/// speaks for a player already is refused another (`already_authenticated`); another
/// valid token of the same player switches it to that session (the old one's end no
/// longer closes it). The session is read once (with the tables where the player sits and
/// whether seat-release notices wait: `SqlStore::sign_in`), between a mark of the ends
/// told here and the registration, which says whether one told meanwhile ended it
/// (`sessions.rs`): an end that comes while it signs in is not missed.
async fn authenticate(state: &Arc<AppState>, conn: &mut Conn, token: &str) -> ServerMsg {
    let hash = token_hash(token);
    let mark = state.sessions.mark();
    let signed = match state.store.sign_in(&hash).await {
        Ok(Some(signed)) => signed,
        Ok(None) => {
            return ServerMsg::error(
                ErrorCode::Unauthenticated,
                "the token is unknown or expired",
            )
        }
        Err(e) => {
            tracing::error!("session lookup failed: {e}");
            return ServerMsg::error(ErrorCode::Internal, "try again");
        }
    };
    let (player, mut expires) = (signed.player, signed.expires_at);
    if conn
        .identity
        .as_ref()
        .is_some_and(|i| i.me.player_id != player.player_id)
    {
        return ServerMsg::error(
            ErrorCode::AlreadyAuthenticated,
            "this connection speaks for another player: open another connection",
        );
    }
    // The connection lives as long as the session: it closes when the session ends
    // (logout, staff) or expires.
    let (session, since) = state.sessions.register_since(mark, &hash, player.player_id);
    match since {
        Since::Clear => {}
        Since::Ended(why) => return ServerMsg::error(ErrorCode::Unauthenticated, why),
        // More ends were told meanwhile than are kept: read the session again.
        Since::Unknown => match state.store.session_expiry(&hash).await {
            Ok(Some(at)) => expires = at,
            Ok(None) => {
                return ServerMsg::error(ErrorCode::Unauthenticated, "the session has ended")
            }
            Err(e) => {
                tracing::error!("session lookup failed: {e}");
                return ServerMsg::error(ErrorCode::Internal, "try again");
            }
        },
    }
    let left = u64::try_from(expires - now_ms()).unwrap_or(0);
    let welcome = ServerMsg::Welcome {
        player_id: player.player_id,
        name: player.name.clone(),
    };
    conn.identity = Some(Identity {
        me: Me {
            player_id: player.player_id,
            bot: crate::house::is_bot(&player),
            name: player.name,
        },
        session,
        expires: tokio::time::Instant::now() + std::time::Duration::from_millis(left),
    });
    tracing::Span::current().record("player_id", tracing::field::display(player.player_id));
    // The welcome is the reply; replies are written before the tables' queue, so it
    // comes before the snapshot of every table the player sits at. The tables where the
    // player holds a seat (read with the session, not a question to every table), on this
    // node or, among several, on any, are followed: subscribed to beside the connection,
    // again and again while one has no owner, until each has sent its snapshot.
    for &table in &signed.tables {
        if !conn.follows.contains(table) {
            conn.follows.follow(table, true);
        }
    }
    // Seats released while the player had no page open: told now, after the welcome (the
    // tables' queue is written after the reply), each once. Taken (a write) only when the
    // sign-in's read saw some, or saw a seat (a seat released since the read, its player
    // not yet subscribed there, leaves a notice now); a player with neither has none to
    // take, and the room's opening, whose players hold no seat yet, writes nothing.
    if !signed.notices && signed.tables.is_empty() {
        return welcome;
    }
    match state
        .store
        .take_seat_release_notices(player.player_id)
        .await
    {
        Ok(notices) if !notices.is_empty() => {
            let told: Batch = notices
                .into_iter()
                .map(|n| {
                    Out::own(ServerMsg::SeatReleased {
                        table_id: n.table_id,
                        away_secs: n.away_secs,
                        amount: n.amount,
                        table_name: Some(n.table_name),
                    })
                })
                .collect();
            if conn.out.try_send(told).is_err() {
                tracing::warn!("a released seat's word did not fit the connection's queue");
            }
        }
        Ok(_) => {}
        Err(e) => tracing::warn!("reading the released seats to tell: {e}"),
    }
    welcome
}

/// `quiet`: none of the client's requests is waiting for its table, so an action may go
/// to its table at once without overtaking one ([`at_once`]).
pub(crate) async fn handle(
    state: &Arc<AppState>,
    conn: &mut Conn,
    msg: ClientMsg,
    quiet: bool,
) -> Handled {
    if let ClientMsg::Auth { token } = &msg {
        return Handled::Now(Some(Box::new(authenticate(state, conn, token).await)));
    }
    if matches!(msg, ClientMsg::Ping) {
        return Handled::Now(Some(Box::new(ServerMsg::Pong)));
    }
    let Some(me) = conn.me() else {
        return Handled::Now(Some(Box::new(ServerMsg::error(
            ErrorCode::Unauthenticated,
            "authenticate first",
        ))));
    };
    if matches!(msg, ClientMsg::ListTables) {
        if conn.lobby.is_none() {
            conn.lobby = Some(state.lobby.subscribe());
        }
        return Handled::Now(Some(Box::new(ServerMsg::Tables {
            tables: state.lobby.list(),
        })));
    }
    let Some(table_id) = msg.table_id() else {
        return Handled::Now(None);
    };
    if matches!(msg, ClientMsg::Unwatch { .. }) {
        // No longer followed, whatever the table answers.
        conn.follows.unfollow(table_id);
    }
    let ends = matches!(
        &msg,
        ClientMsg::Host {
            command: HostCommand::End,
            ..
        }
    );
    let caller = Caller {
        player: me.player_id,
        name: me.name,
        house: me.bot,
        address: crate::fairplay::sit_address(me.bot, conn.address),
    };
    let Some(request) = Request::from_client(msg, &caller) else {
        return Handled::Now(None);
    };
    if quiet && request.answered_by_events() {
        if let Some(handled) = at_once(state, conn, table_id, &request) {
            return handled;
        }
    }
    let state = state.clone();
    let queue = conn.out.clone();
    Handled::Later(Box::pin(async move {
        let Some(table) = state.table(table_id).await else {
            return Finished::reply(table_id, Some(unknown_table()));
        };
        // An action at a table of another node goes with its connection's queue too: not
        // to subscribe it, but so that the owner answers only after publishing what it
        // made for that connection to the queue's inbox. (Here, the connection and the
        // actor stand or fall together; a seed's answer makes nothing to wait for.)
        let ordered = matches!(request, Request::Act { .. }) && !table.is_local();
        let queue = (request.takes_queue() || ordered).then_some(queue);
        let answer = table.request(request.clone(), queue).await;
        let finished = Finished::answered(table_id, &request, answer);
        // A private game its host ended (the table said the host may) is closed as an
        // operator closes a table: beside the connection, which goes on meanwhile (the
        // hand in progress finishes first, its players still acting).
        if ends && finished.reply.is_none() {
            tokio::spawn(async move {
                let _ = state.tables.close(&state, &table).await;
            });
        }
        finished
    }))
}

/// A request answered by the events it causes (an action, a seed) to a table of this
/// process goes to its actor without a reply channel and without a task beside the
/// connection, when none of the connection's requests is waiting for its table (it cannot
/// overtake one): a refusal comes through the connection's queue with the table's frames
/// ([`crate::table::TableHandle::send`]). `None`: it cannot go so (then it is asked like
/// any request).
fn at_once(state: &AppState, conn: &Conn, table_id: TableId, request: &Request) -> Option<Handled> {
    match state.tables.get(table_id)?.send(request.clone(), &conn.out) {
        Ok(true) => Some(Handled::Now(None)),
        Ok(false) => None,
        Err(refusal) => Some(Handled::Now(Some(Box::new(refusal.into())))),
    }
}

/// Subscribes to a followed table again (see [`super::follows`]): granted, refused (not
/// seated there), or why it could not be asked.
pub(crate) fn resubscribe(
    state: &Arc<AppState>,
    conn: &Conn,
    table_id: TableId,
    only_if_seated: bool,
) -> Option<BoxFuture<'static, (TableId, Result<bool, Refusal>)>> {
    let player = conn.me()?.player_id;
    let state = state.clone();
    let queue = conn.out.clone();
    Some(Box::pin(async move {
        let answer = match state.table(table_id).await {
            Some(table) => {
                table
                    .try_subscribe(Some(player), queue, only_if_seated)
                    .await
            }
            None => Err(Refusal::TableGone),
        };
        (table_id, answer)
    }))
}
