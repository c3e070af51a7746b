//! What each client message does: authenticate, list tables, join, sit, act, top up, sit
//! out or in, leave; every refusal is a typed protocol error.

use crate::table::SeatRequest;
use crate::AppState;
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg};
use poker_rules::table::Entry;
use poker_store::{now_ms, PlayerId, Store};
use std::sync::Arc;

use super::connection::*;
use crate::http::auth::*;

/// Subscribes the connection to a table's messages as this player (a snapshot first).
pub(crate) async fn join(conn: &mut Conn, table: &crate::table::TableHandle, player: PlayerId) {
    table
        .subscribe_with(Some(player), conn.out.clone(), false)
        .await;
    if !conn.joined.contains(&table.table_id) {
        conn.joined.push(table.table_id);
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
    // comes before the snapshot of every table the player sits at.
    // The tables where the player holds a seat (one indexed query, not a question to
    // every table), on this node or, among several, on any.
    let mut tables = Vec::new();
    for id in state
        .store
        .tables_of(player.player_id)
        .await
        .unwrap_or_default()
    {
        tables.extend(state.table(id).await);
    }
    for table in tables {
        if conn.joined.contains(&table.table_id) {
            continue;
        }
        if table
            .subscribe_with(Some(player.player_id), conn.out.clone(), true)
            .await
        {
            conn.joined.push(table.table_id);
        }
    }
    welcome
}

pub(crate) async fn handle(
    state: &Arc<AppState>,
    conn: &mut Conn,
    msg: ClientMsg,
) -> Option<ServerMsg> {
    if let ClientMsg::Auth { token } = &msg {
        return Some(authenticate(state, conn, token).await);
    }
    if matches!(msg, ClientMsg::Ping) {
        return Some(ServerMsg::Pong);
    }
    let Some(me) = conn.me() else {
        return Some(ServerMsg::error(
            ErrorCode::Unauthenticated,
            "authenticate first",
        ));
    };
    if matches!(msg, ClientMsg::ListTables) {
        if conn.lobby.is_none() {
            conn.lobby = Some(state.lobby.subscribe());
        }
        return Some(ServerMsg::Tables {
            tables: state.lobby.list(),
        });
    }
    let table_id = match &msg {
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
        | ClientMsg::Chat { table_id, .. }
        | ClientMsg::JoinWaitlist { table_id }
        | ClientMsg::LeaveWaitlist { table_id }
        | ClientMsg::Seed { table_id, .. } => *table_id,
        ClientMsg::Auth { .. } | ClientMsg::Ping | ClientMsg::ListTables => return None,
    };
    let Some(table) = state.table(table_id).await else {
        return Some(unknown_table());
    };
    let done = |request: &str, r: Result<crate::table::Outcome, crate::table::Refusal>| {
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
    let request = match msg {
        ClientMsg::Sit {
            seat,
            buy_in,
            post_now,
            ..
        } => {
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
                    me.name.clone(),
                    seat,
                    buy_in,
                    entry,
                    Some(conn.out.clone()),
                    crate::fairplay::sit_address(me.bot, conn.address),
                )
                .await;
            if result.is_ok() && !conn.joined.contains(&table_id) {
                conn.joined.push(table_id);
            }
            return done("sit", result);
        }
        ClientMsg::Watch { .. } => {
            // As this player: a spectator sees no hole cards but their own, and a seated
            // player watching again keeps theirs.
            join(conn, &table, me.player_id).await;
            return None;
        }
        ClientMsg::Unwatch { .. } => {
            table.unsubscribe(conn.out.clone()).await;
            conn.joined.retain(|t| *t != table_id);
            return None;
        }
        ClientMsg::Act {
            decision_id,
            action,
            ..
        } => {
            return match table.act(me.player_id, decision_id, action).await {
                Ok(()) => None,
                Err(refusal) => Some(refusal.into()),
            }
        }
        ClientMsg::JoinWaitlist { .. } => {
            // Watching the table, so the offer of a seat reaches this connection.
            join(conn, &table, me.player_id).await;
            return table
                .waitlist(me.player_id, true)
                .await
                .err()
                .map(ServerMsg::from);
        }
        ClientMsg::LeaveWaitlist { .. } => {
            return table
                .waitlist(me.player_id, false)
                .await
                .err()
                .map(ServerMsg::from);
        }
        ClientMsg::Chat { text, .. } => {
            return table
                .chat(me.player_id, text)
                .await
                .err()
                .map(ServerMsg::from)
        }
        ClientMsg::Seed { hand_id, seed, .. } => {
            // Taken silently; only a refusal (late, repeated, not seated) is answered.
            return table
                .seat(me.player_id, SeatRequest::Seed { hand_id, seed })
                .await
                .err()
                .map(ServerMsg::from);
        }
        ClientMsg::SitOut { next_big_blind, .. } => SeatRequest::SitOut { next_big_blind },
        ClientMsg::SitIn { post_now, .. } => SeatRequest::SitIn { post_now },
        ClientMsg::TopUp { amount, .. } => SeatRequest::TopUp { amount },
        ClientMsg::Leave { .. } => SeatRequest::Leave,
        ClientMsg::AutoMuck { on, .. } => SeatRequest::AutoMuck { on },
        ClientMsg::Straddle { on, .. } => SeatRequest::Straddle { on },
        ClientMsg::Auth { .. } | ClientMsg::Ping | ClientMsg::ListTables => return None,
    };
    let result = table.seat(me.player_id, request).await;
    done(request.name(), result)
}
