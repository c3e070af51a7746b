//! One player's WebSocket: it `select!`s over the client's frames, the bounded queue the
//! tables it joined send into, lobby updates, the session's end, its clock and shutdown;
//! floods are rate limited (answers to decisions never are) and unread replies are
//! bounded.
//!
//! A connection speaks for one player for its whole life ([`Identity`]): a second `auth`
//! may switch it to another session of the same player, never to another player, and the
//! connection ends with its session. Every write of something addressed to the player goes
//! through [`write_batch`], which first asks whether the session still stands
//! ([`Conn::over`]), so nothing of theirs is written once it has ended.

use crate::table::{Batch, Out, Refusal};
use crate::{AppState, Resubscribe};
use axum::extract::ws::{Message, WebSocket};
use futures_util::future::BoxFuture;
use futures_util::stream::{FuturesOrdered, FuturesUnordered};
use futures_util::{SinkExt, StreamExt};
use poker_protocol::{parse_client, ClientMsg, ErrorCode, ServerMsg};
use poker_store::TableId;
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, mpsc};

use super::conn::*;
use super::dispatch::*;

/// A token bucket: `rate` messages per second on average, `burst` at once.
pub(crate) struct RateLimit {
    tokens: f64,
    rate: f64,
    burst: f64,
    last: Instant,
}

impl RateLimit {
    fn allow(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.last).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + refill).min(self.burst);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// The end of the connection's session, when it comes (never, before `auth`).
async fn session_end(identity: &mut Option<Identity>) -> &'static str {
    match identity {
        Some(identity) => match (&mut identity.session.ended).await {
            Ok(ending) => ending.why,
            Err(_) => "the session ended",
        },
        None => std::future::pending().await,
    }
}

/// Replies and lobby updates wait here for the socket, in order with the tables'
/// messages; a client that reads nothing while sending this many requests is closed.
pub(crate) const MAX_UNREAD_REPLIES: usize = 256;

/// At most this many of a client's requests wait for their tables at once; past it, the
/// connection reads nothing more from the client until one is answered.
pub(crate) const MAX_IN_FLIGHT: usize = 32;

/// Notes the decisions a message asks of this client.
pub(crate) fn note_asked(asked: &mut Vec<(TableId, u64)>, msg: &ServerMsg) {
    let (table_id, decision_id) = match msg {
        ServerMsg::Decide {
            table_id,
            decision_id,
            ..
        }
        | ServerMsg::DecideDraw {
            table_id,
            decision_id,
        }
        | ServerMsg::DecideRunTwice {
            table_id,
            decision_id,
        }
        | ServerMsg::DecideShow {
            table_id,
            decision_id,
        } => (table_id, *decision_id),
        ServerMsg::Snapshot {
            decide: Some(d), ..
        } => return note_asked(asked, d),
        _ => return,
    };
    asked.retain(|(t, _)| t != table_id);
    asked.push((*table_id, decision_id));
}

pub(crate) struct Gauge<'a>(&'a AppState);

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.0.metrics.connections.fetch_sub(1, Ordering::Relaxed);
    }
}

pub(crate) async fn next_lobby(
    rx: &mut Option<broadcast::Receiver<poker_protocol::TableSummary>>,
) -> Result<poker_protocol::TableSummary, broadcast::error::RecvError> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// One connection's task. Everything in it is held for the connection's whole life, idle or
/// not, so what is rare stays out of it: the socket is not split (one `select!` reads it and
/// the branches write to it; the caller owns it, so it is held once), the replies' queue
/// lets its buffer go once emptied, and the futures of a client message's dispatch, of
/// pings and of closing are boxed.
pub(crate) async fn connection(
    state: Arc<AppState>,
    socket: &mut WebSocket,
    address: std::net::IpAddr,
) {
    state.metrics.connections.fetch_add(1, Ordering::Relaxed);
    let _gauge = Gauge(&state);
    let (out_tx, mut out_rx) = mpsc::channel::<Batch>(1024);
    let mut conn = Conn {
        identity: None,
        follows: Default::default(),
        out: out_tx,
        lobby: None,
        asked: Vec::new(),
        address,
    };
    let mut moved = state.moved.subscribe();
    // The client's requests waiting for their tables (answered in the order asked), and
    // the subscriptions of the tables it follows being asked again.
    // (Each with when it was asked: a snapshot that came since answers a subscription.)
    let mut requests: FuturesOrdered<BoxFuture<'static, (tokio::time::Instant, Finished)>> =
        FuturesOrdered::new();
    let mut resubscribing: FuturesUnordered<BoxFuture<'static, (TableId, Result<bool, Refusal>)>> =
        FuturesUnordered::new();
    // Answers to this client's own messages and lobby updates. They never share the
    // tables' bounded queue, so a slow reader cannot lose them: the tables resync such a
    // client with a snapshot instead (a lobby that fell behind is sent whole).
    let mut replies: VecDeque<Out> = VecDeque::new();
    let mut lobby_behind = false;
    let server = &state.config.server;
    let mut limit = RateLimit {
        tokens: f64::from(server.rate_limit_burst),
        rate: f64::from(server.rate_limit_per_sec),
        burst: f64::from(server.rate_limit_burst),
        last: Instant::now(),
    };
    let idle = Duration::from_secs(server.ws_idle_secs.max(1));
    // The connection's clock: when it opened (until it authenticates), then when its
    // client was last heard from; and whether it has been pinged since.
    let mut heard = tokio::time::Instant::now();
    let mut pinged = false;
    let mut shutting_down = state.shutting_down.clone();
    if *shutting_down.borrow_and_update() {
        return;
    }
    // One timer for the connection's whole life, armed for its clock's deadline: moved
    // earlier at once when the deadline comes sooner, and later only when it fires early
    // (the client was heard from meanwhile). A timer made afresh on every wake-up would
    // enter and leave the runtime's timer wheel once per message.
    let clock = tokio::time::sleep_until(heard + Duration::from_secs(server.ws_auth_timeout_secs));
    tokio::pin!(clock);
    loop {
        let deadline = match &conn.identity {
            None => heard + Duration::from_secs(server.ws_auth_timeout_secs),
            Some(identity) => identity
                .expires
                .min(heard + if pinged { idle } else { idle / 2 }),
        };
        if deadline < clock.deadline() {
            clock.as_mut().reset(deadline);
        }
        tokio::select! {
            _ = shutting_down.changed() => {
                let close = tokio::time::timeout(CLOSE_WAIT, socket.send(Message::Close(None)));
                let _ = Box::pin(close).await;
                break;
            }
            why = session_end(&mut conn.identity) => {
                // Taken: nothing more of the player's is written (the end is acknowledged).
                Box::pin(session_over(socket, why)).await;
                break;
            }
            _ = &mut clock => {
                if tokio::time::Instant::now() < deadline {
                    // Early: the client was heard from since the timer was armed.
                    clock.as_mut().reset(deadline);
                    continue;
                }
                let Some(identity) = &conn.identity else {
                    let error = ServerMsg::error(
                        ErrorCode::AuthTimeout,
                        format!("authenticate within {} s of connecting", server.ws_auth_timeout_secs),
                    );
                    Box::pin(close_with(socket, Some(error), 1008, "no auth in time")).await;
                    break;
                };
                if identity.expires <= tokio::time::Instant::now() {
                    Box::pin(session_over(socket, EXPIRED)).await;
                    break;
                }
                if pinged {
                    // Nothing came, not even the pong: the client is gone or stuck.
                    Box::pin(close_with(socket, None, 1008, "idle")).await;
                    break;
                }
                pinged = true;
                let ping = tokio::time::timeout(idle, socket.send(Message::Ping(Default::default())));
                if !matches!(Box::pin(ping).await, Ok(Ok(()))) {
                    break;
                }
            }
            frame = socket.next(), if requests.len() < MAX_IN_FLIGHT => {
                let frame = match frame {
                    None => break,
                    Some(Ok(frame)) => frame,
                    Some(Err(e)) => {
                        // A frame the WebSocket layer refused (invalid UTF-8 in a text
                        // frame, a protocol violation): the connection cannot go on
                        // (RFC 6455 7.1.7), so it is told why and closed properly.
                        let error = ServerMsg::error(
                            ErrorCode::BadMessage,
                            format!("the frame breaks the WebSocket protocol: {e}"),
                        );
                        Box::pin(close_with(socket, Some(error), 1007, "invalid frame")).await;
                        break;
                    }
                };
                // Any frame counts (a pong too); before `auth` the clock runs from the
                // connection's opening.
                if conn.identity.is_some() {
                    heard = tokio::time::Instant::now();
                    pinged = false;
                }
                let text = match frame {
                    Message::Text(text) => text,
                    Message::Binary(_) => {
                        replies.push_back(Out::own(ServerMsg::error(ErrorCode::BadMessage, "send JSON text frames")));
                        continue;
                    }
                    Message::Close(_) => break,
                    _ => continue,
                };
                state.metrics.messages.fetch_add(1, Ordering::Relaxed);
                // Nothing is done for a player whose session is over.
                if let Some(why) = conn.over() {
                    Box::pin(session_over(socket, why)).await;
                    break;
                }
                let was_anonymous = conn.identity.is_none();
                // Nothing the size of a `ServerMsg` is held across the dispatch: the
                // connection's own future (what every idle connection holds) stays small.
                let unread = {
                    let quiet = requests.is_empty();
                    let reply = match admit(&state, &mut conn.asked, &mut limit, &text) {
                        Ok(msg) => match Box::pin(handle(&state, &mut conn, msg, quiet)).await {
                            Handled::Now(reply) => reply.map(|reply| *reply),
                            Handled::Later(answer) => {
                                let asked = tokio::time::Instant::now();
                                requests.push_back(Box::pin(async move { (asked, answer.await) }));
                                None
                            }
                        },
                        Err(refusal) => Some(*refusal),
                    };
                    reply.is_some_and(|reply| {
                        let full = replies.len() >= MAX_UNREAD_REPLIES;
                        if !full {
                            replies.push_back(Out::own(reply));
                        }
                        full
                    })
                };
                if was_anonymous && conn.identity.is_some() {
                    // Authenticated: the idle clock starts.
                    heard = tokio::time::Instant::now();
                }
                if unread {
                    // Sends and never reads: told so and closed.
                    Box::pin(close_with(socket, None, 1008, "too many unread replies")).await;
                    break;
                }
            }
            Some((asked, finished)) = requests.next(), if !requests.is_empty() => {
                match finished.follow {
                    Follow::Same => {}
                    Follow::Subscribed => conn.follows.subscribed(finished.table, false, asked),
                    // The table's owner changed: its stream is subscribed again.
                    Follow::Moving => conn.follows.resync(finished.table),
                    Follow::Retry => {
                        conn.follows.follow(finished.table, false);
                        conn.follows.answered(finished.table, Err(Refusal::Moving));
                    }
                    Follow::Seated if !conn.follows.contains(finished.table) => {
                        conn.follows.follow(finished.table, true);
                    }
                    Follow::Seated => {}
                }
                if let Some(reply) = finished.reply {
                    if replies.len() >= MAX_UNREAD_REPLIES {
                        Box::pin(close_with(socket, None, 1008, "too many unread replies")).await;
                        break;
                    }
                    replies.push_back(Out::own(reply));
                }
            }
            Some((table, answer)) = resubscribing.next(), if !resubscribing.is_empty() => {
                conn.follows.answered(table, answer);
            }
            _ = sleep_until(conn.follows.next_due()), if conn.identity.is_some() && conn.follows.next_due().is_some() => {
                for (table, only_if_seated) in conn.follows.due(tokio::time::Instant::now()) {
                    match resubscribe(&state, &conn, table, only_if_seated) {
                        Some(asked) => resubscribing.push(asked),
                        None => conn.follows.answered(table, Err(Refusal::TableGone)),
                    }
                }
            }
            moved_table = moved.recv() => {
                // A table moved to another node (its last one stopped), or NATS came back:
                // the tables followed are subscribed again there, until a snapshot comes.
                match moved_table {
                    Ok(Resubscribe::Table(table)) => conn.follows.resync(table),
                    Ok(Resubscribe::All) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        conn.follows.resync_all()
                    }
                    Err(broadcast::error::RecvError::Closed) => {}
                }
            }
            update = next_lobby(&mut conn.lobby) => {
                match update {
                    Ok(table) if replies.len() < MAX_UNREAD_REPLIES => replies.push_back(Out::own(ServerMsg::TableUpdate { table })),
                    // Missed updates: the whole lobby again, once the client reads.
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => lobby_behind = true,
                    Err(broadcast::error::RecvError::Closed) => conn.lobby = None,
                }
            }
            // A request's answer comes before what its table queued meanwhile (a sit's
            // `done` before the snapshot that follows it, as when requests were answered
            // inline): the tables' queue waits while one is in flight.
            out = out_rx.recv(), if replies.is_empty() && requests.is_empty() => {
                let Some(mut batch) = out else { break };
                // Whatever else is already queued goes out in the same write.
                for _ in 0..16 {
                    match out_rx.try_recv() {
                        Ok(more) => batch.extend(more),
                        Err(_) => break,
                    }
                }
                follow_frames(&mut conn.follows, &batch);
                if let Err(stop) = tokio::time::timeout(idle, write_batch(socket, &mut conn, batch)).await.unwrap_or(Err(Stop::Stuck)) {
                    Box::pin(stop.close(socket)).await;
                    break;
                }
            }
            _ = std::future::ready(()), if !replies.is_empty() => {
                // Replies go out before the tables' queue is read again, each batch in
                // one write; a lobby that fell behind follows in one piece.
                let mut batch: Batch = replies.drain(..replies.len().min(64)).collect();
                if replies.is_empty() {
                    // Its buffer goes too: an idle connection holds none.
                    replies = VecDeque::new();
                    if lobby_behind {
                        lobby_behind = false;
                        batch.push(Out::own(ServerMsg::Tables { tables: state.lobby.list() }));
                    }
                }
                if let Err(stop) = tokio::time::timeout(idle, write_batch(socket, &mut conn, batch)).await.unwrap_or(Err(Stop::Stuck)) {
                    Box::pin(stop.close(socket)).await;
                    break;
                }
            }
        }
        if lobby_behind && replies.is_empty() {
            lobby_behind = false;
            replies.push_back(Out::own(ServerMsg::Tables {
                tables: state.lobby.list(),
            }));
        }
    }
}

/// Notes what the tables' frames say of the tables followed: a snapshot makes a table's
/// stream whole again (a failed table's notice stands for one); a closed table is no
/// longer followed.
fn follow_frames(follows: &mut super::follows::Follows, batch: &Batch) {
    for out in batch {
        if let Out::Own(msg) = out {
            match &**msg {
                ServerMsg::Snapshot { table, .. } => follows.snapshot(table.table_id),
                ServerMsg::TableFailed { table_id, .. } => follows.snapshot(*table_id),
                ServerMsg::TableClosed { table_id } => follows.unfollow(*table_id),
                _ => {}
            }
        }
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Why a write did not happen or did not finish.
pub(crate) enum Stop {
    /// The session is over: nothing of the player's was written.
    Over(&'static str),
    /// The socket failed.
    Broken,
    /// The write did not go through within `ws_idle_secs`: the client reads nothing.
    Stuck,
}

impl Stop {
    /// Ends the connection as this calls for.
    async fn close(self, socket: &mut WebSocket) {
        match self {
            Stop::Over(why) => session_over(socket, why).await,
            // Nothing more can go through.
            Stop::Broken | Stop::Stuck => {}
        }
    }
}

/// Tells the client its session is over and closes the connection (policy violation).
pub(crate) async fn session_over(socket: &mut WebSocket, why: &'static str) {
    let error = ServerMsg::error(ErrorCode::Unauthenticated, why);
    close_with(socket, Some(error), 1008, "session over").await;
}

/// How long closing waits for a client to take the last frames.
const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// Ends the connection properly: the error saying why (if any), then a close frame (a
/// client that takes neither within [`CLOSE_WAIT`] is not waited for).
pub(crate) async fn close_with(
    socket: &mut WebSocket,
    error: Option<ServerMsg>,
    code: u16,
    reason: &'static str,
) {
    let close = async {
        if let Some(error) = error {
            let text = serde_json::to_string(&error).expect("messages serialize");
            let _ = socket.send(Message::Text(text.into())).await;
        }
        let _ = socket
            .send(Message::Close(Some(axum::extract::ws::CloseFrame {
                code,
                reason: reason.into(),
            })))
            .await;
    };
    let _ = tokio::time::timeout(CLOSE_WAIT, close).await;
}

/// A client's text frame as the message to dispatch, or what it is refused with: a frame
/// over the size limit, text that is no message, a message over the rate limit (an answer
/// to a decision this client was asked never is). Boxed, since the result is held while
/// the message is dispatched.
pub(crate) fn admit(
    state: &AppState,
    asked: &mut Vec<(TableId, u64)>,
    limit: &mut RateLimit,
    text: &str,
) -> Result<ClientMsg, Box<ServerMsg>> {
    let max = state.config.server.max_frame_bytes;
    if text.len() > max {
        let too_large = || {
            ServerMsg::error(
                ErrorCode::FrameTooLarge,
                format!("frames are limited to {max} bytes"),
            )
        };
        return Err(Box::new(limited(limit, state).unwrap_or_else(too_large)));
    }
    let msg = match parse_client(text) {
        Ok(msg) => msg,
        Err(error) => return Err(Box::new(limited(limit, state).unwrap_or(error))),
    };
    let answers = match &msg {
        ClientMsg::Act {
            table_id,
            decision_id,
            ..
        } => {
            let pos = asked
                .iter()
                .position(|(t, d)| t == table_id && d == decision_id);
            pos.map(|i| asked.remove(i)).is_some()
        }
        _ => false,
    };
    match if answers { None } else { limited(limit, state) } {
        Some(refusal) => Err(Box::new(refusal)),
        None => Ok(msg),
    }
}

/// The rate limit's refusal, if this message goes over it.
pub(crate) fn limited(limit: &mut RateLimit, state: &AppState) -> Option<ServerMsg> {
    if limit.allow() {
        return None;
    }
    state.metrics.rate_limited.fetch_add(1, Ordering::Relaxed);
    Some(ServerMsg::error(
        ErrorCode::RateLimited,
        format!(
            "at most {} messages a second: slow down",
            state.config.server.rate_limit_per_sec
        ),
    ))
}

/// Writes frames to the socket in one flush, noting the decisions they ask (shared
/// frames never ask one). Every write of the player's messages comes here, and nothing is
/// written once their session is over.
pub(crate) async fn write_batch(
    socket: &mut WebSocket,
    conn: &mut Conn,
    batch: Batch,
) -> Result<(), Stop> {
    if let Some(why) = conn.over() {
        return Err(Stop::Over(why));
    }
    for out in batch {
        let text = match out {
            Out::Own(msg) => {
                note_asked(&mut conn.asked, &msg);
                serde_json::to_string(&msg)
                    .expect("messages serialize")
                    .into()
            }
            Out::Shared(text) => text,
        };
        socket
            .feed(Message::Text(text))
            .await
            .map_err(|_| Stop::Broken)?;
    }
    socket.flush().await.map_err(|_| Stop::Broken)
}
