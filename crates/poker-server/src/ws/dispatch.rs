//! What each client message does: authenticate, list tables, join, sit, act, top up, sit
//! out or in, leave; every refusal is a typed protocol error.
//!
//! A connection never waits on a table: what a table is asked runs beside the connection
//! ([`Handled::Later`]), which goes on answering its client meanwhile (a table on a frozen
//! node answers `table_moving` after about a heartbeat, and only that request waits).

use crate::table::{PrivateAsk, Refusal, SeatRequest, SeedStep, TableHandle};
use crate::AppState;
use futures_util::future::BoxFuture;
use poker_protocol::{ClientMsg, ErrorCode, HostCommand, ServerMsg};
use poker_rules::table::Entry;
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
}

impl Finished {
    fn reply(table: TableId, reply: Option<ServerMsg>) -> Finished {
        let follow = match &reply {
            Some(ServerMsg::Error { code, .. }) if *code == ErrorCode::TableMoving => {
                Follow::Moving
            }
            _ => Follow::Same,
        };
        Finished {
            reply,
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
/// longer closes it). Registered before the session is checked again, so an end that
/// comes meanwhile is not missed.
async fn authenticate(state: &Arc<AppState>, conn: &mut Conn, token: &str) -> ServerMsg {
    let hash = token_hash(token);
    let player = match state.store.session(&hash).await {
        Ok(Some(p)) => p,
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
    let session = state.sessions.register(&hash, player.player_id);
    // The connection lives as long as the session: it closes when the session ends
    // (logout, staff) or expires.
    let expires = match state.store.session_expiry(&hash).await {
        Ok(Some(at)) => at,
        Ok(None) => return ServerMsg::error(ErrorCode::Unauthenticated, "the session has ended"),
        Err(e) => {
            tracing::error!("session lookup failed: {e}");
            return ServerMsg::error(ErrorCode::Internal, "try again");
        }
    };
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
    // player holds a seat (one indexed query, not a question to every table), on this node
    // or, among several, on any, are followed: subscribed to beside the connection, again
    // and again while one has no owner, until each has sent its snapshot.
    for table in state
        .store
        .tables_of(player.player_id)
        .await
        .unwrap_or_default()
    {
        if !conn.follows.contains(table) {
            conn.follows.follow(table, true);
        }
    }
    welcome
}

/// `quiet`: none of the client's requests is waiting for its table, so an action may go
/// to its table at once without overtaking one ([`act_at_once`]).
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
    if quiet {
        if let Some(handled) = act_at_once(state, conn, &msg) {
            return handled;
        }
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
    let state = state.clone();
    let queue = conn.out.clone();
    let address = crate::fairplay::sit_address(me.bot, conn.address);
    let ends = matches!(
        &msg,
        ClientMsg::Host {
            command: HostCommand::End,
            ..
        }
    );
    Handled::Later(Box::pin(async move {
        let Some(table) = state.table(table_id).await else {
            return Finished::reply(table_id, Some(unknown_table()));
        };
        let finished = ask(&table, me, msg, queue, address).await;
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

/// An action at a table of this process goes to its actor without a reply channel and
/// without a task beside the connection: an applied action is answered by the events it
/// causes, a refusal comes through the connection's queue with the table's frames
/// ([`TableHandle::act_queued`]). `None`: not such an action, or it cannot go so (then it
/// is asked like any request).
///
/// A seed for the next hand's deck goes so too: it is taken silently, and only a refusal
/// (late, repeated, not seated) is answered, through the same queue.
fn act_at_once(state: &AppState, conn: &Conn, msg: &ClientMsg) -> Option<Handled> {
    let player = conn.identity.as_ref()?.me.player_id;
    let queued = match msg {
        ClientMsg::Act {
            table_id,
            decision_id,
            action,
        } => state
            .tables
            .get(*table_id)?
            .act_queued(player, *decision_id, *action, &conn.out),
        ClientMsg::Seed { table_id, .. } | ClientMsg::SeedCommit { table_id, .. } => {
            let step = seed_step(msg, conn.identity.as_ref()?.me.bot)?;
            state
                .tables
                .get(*table_id)?
                .seed_queued(player, step, &conn.out)
        }
        _ => return None,
    };
    match queued {
        Ok(true) => Some(Handled::Now(None)),
        Ok(false) => None,
        Err(refusal) => Some(Handled::Now(Some(Box::new(refusal.into())))),
    }
}

/// The seed protocol's step a client's message carries (`None`: not a seed message); a
/// commitment from a house bot's connection is the house's.
fn seed_step(msg: &ClientMsg, bot: bool) -> Option<SeedStep> {
    match *msg {
        ClientMsg::SeedCommit {
            hand_id,
            commitment,
            ..
        } => Some(SeedStep::Commit {
            hand_id,
            commitment,
            house: bot,
        }),
        ClientMsg::Seed { hand_id, seed, .. } => Some(SeedStep::Reveal { hand_id, seed }),
        _ => None,
    }
}

/// Asks the table what the client's message asks.
async fn ask(
    table: &TableHandle,
    me: Me,
    msg: ClientMsg,
    queue: tokio::sync::mpsc::Sender<crate::table::Batch>,
    address: Option<std::net::IpAddr>,
) -> Finished {
    let table_id = table.table_id;
    let done = |request: &str, r: Result<crate::table::Outcome, Refusal>| {
        Some(match r {
            Ok(o) => ServerMsg::Done {
                table_id,
                request: request.to_string(),
                amount: o.amount,
                pending: o.pending,
            },
            Err(refusal) => refusal.into(),
        })
    };
    let refused = |r: Result<(), Refusal>| r.err().map(ServerMsg::from);
    let subscribed = |reply: Option<ServerMsg>| Finished {
        reply,
        table: table_id,
        follow: Follow::Subscribed,
    };
    let request = match msg {
        ClientMsg::Sit {
            seat,
            buy_in,
            post_now,
            seed_commit,
            ..
        } => {
            // The seed's commitment first (the client watches the table, so it is taken):
            // the hand this sit may start then has this player's seed. A refusal leaves
            // the sit as it is (the next deck's commitment can come later).
            if let Some(c) = seed_commit {
                let commit = SeedStep::Commit {
                    hand_id: c.hand_id,
                    commitment: c.commitment,
                    house: me.bot,
                };
                let _ = table.seat(me.player_id, SeatRequest::Seed(commit)).await;
            }
            let entry = if post_now {
                Entry::PostNow
            } else {
                Entry::WaitForBigBlind
            };
            // Subscribed as this player only once seated (a snapshot comes first, with
            // the player in the seat); a refused sit changes nothing.
            let result = table
                .sit_with(
                    me.player_id,
                    me.name,
                    seat,
                    buy_in,
                    entry,
                    Some(queue),
                    address,
                )
                .await;
            return match result {
                Ok(_) => subscribed(done("sit", result)),
                Err(_) => Finished::reply(table_id, done("sit", result)),
            };
        }
        ClientMsg::Watch { .. } => {
            // As this player: a spectator sees no hole cards but their own, and a seated
            // player watching again keeps theirs.
            return match table.try_subscribe(Some(me.player_id), queue, false).await {
                Ok(_) => subscribed(None),
                // Followed all the same: subscribed as soon as it has an owner.
                Err(Refusal::Moving) => Finished {
                    reply: None,
                    table: table_id,
                    follow: Follow::Retry,
                },
                Err(refusal) => Finished::reply(table_id, Some(refusal.into())),
            };
        }
        ClientMsg::Unwatch { .. } => {
            table.unsubscribe(queue).await;
            return Finished::reply(table_id, None);
        }
        ClientMsg::Act {
            decision_id,
            action,
            ..
        } => {
            let result = table.act(me.player_id, decision_id, action).await;
            return Finished::reply(table_id, refused(result));
        }
        ClientMsg::JoinWaitlist { .. } => {
            // Watching the table, so the offer of a seat reaches this connection.
            let watching = table.try_subscribe(Some(me.player_id), queue, false).await;
            let result = table.waitlist(me.player_id, true).await;
            return match watching {
                Ok(_) => subscribed(refused(result)),
                Err(refusal) => Finished::reply(table_id, Some(refusal.into())),
            };
        }
        ClientMsg::LeaveWaitlist { .. } => {
            let result = table.waitlist(me.player_id, false).await;
            return Finished::reply(table_id, refused(result));
        }
        ClientMsg::Chat { text, .. } => {
            let result = table.chat(me.player_id, me.name.clone(), text).await;
            return Finished::reply(table_id, refused(result));
        }
        ClientMsg::Seed { .. } | ClientMsg::SeedCommit { .. } => {
            // Taken silently; only a refusal (late, repeated, not seated) is answered.
            let step = seed_step(&msg, me.bot).expect("a seed message");
            let result = table.seat(me.player_id, SeatRequest::Seed(step)).await;
            return Finished::reply(table_id, refused(result.map(|_| ())));
        }
        ClientMsg::BuyInRange { .. } => {
            let reply = match table.buy_in_range(me.player_id).await {
                Ok(range) => ServerMsg::BuyInRange { table_id, range },
                Err(refusal) => refusal.into(),
            };
            return Finished::reply(table_id, Some(reply));
        }
        ClientMsg::JoinPrivate { invite, .. } => {
            let ask = PrivateAsk::Join { invite };
            return match table.private(me.player_id, me.name, ask, Some(queue)).await {
                Ok(()) => subscribed(None),
                Err(refusal) => Finished::reply(table_id, Some(refusal.into())),
            };
        }
        ClientMsg::Host { command, .. } => {
            let ask = PrivateAsk::Host(command);
            let result = table.private(me.player_id, me.name, ask, None).await;
            return Finished::reply(table_id, refused(result));
        }
        ClientMsg::SitOut { next_big_blind, .. } => SeatRequest::SitOut { next_big_blind },
        ClientMsg::SitIn { post_now, .. } => SeatRequest::SitIn { post_now },
        ClientMsg::TopUp { amount, .. } => SeatRequest::TopUp { amount },
        ClientMsg::Leave { .. } => SeatRequest::Leave,
        ClientMsg::AutoMuck { on, .. } => SeatRequest::AutoMuck { on },
        ClientMsg::Straddle { on, .. } => SeatRequest::Straddle { on },
        ClientMsg::ShowHand { .. } => SeatRequest::ShowHand,
        ClientMsg::Auth { .. } | ClientMsg::Ping | ClientMsg::ListTables => {
            return Finished::reply(table_id, None)
        }
    };
    let result = table.seat(me.player_id, request).await;
    Finished::reply(table_id, done(request.name(), result))
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
