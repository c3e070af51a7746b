//! The supervisor's side of a table whose task panicked: it keeps answering players
//! with a typed error, shows the table as failed in the lobby, and voids the cut hand.

use super::audience::Listeners;
use super::*;
use poker_protocol::ServerMsg;
use poker_rules::Chips;
use poker_store::{PlayerId, StoreError, TableId, TableStatus};
use std::sync::atomic::Ordering;
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;

/// A table whose task ended unexpectedly: what its supervisor needs to contain it.
pub(super) struct Failed {
    pub(super) table_id: TableId,
    pub(super) name: String,
    pub(super) ctx: TableContext,
    pub(super) listeners: Listeners,
}

impl Failed {
    pub(super) fn tell(&self, msg: &ServerMsg) {
        let mut listeners = self.listeners.lock().unwrap_or_else(|e| e.into_inner());
        listeners.retain(|(_, q)| {
            !matches!(
                q.try_send(vec![Out::own(msg.clone())]),
                Err(TrySendError::Closed(_))
            )
        });
    }

    pub(super) fn lobby(&self, status: poker_protocol::TableStatus) {
        if let Some(mut summary) = self.ctx.lobby.get(self.table_id) {
            summary.status = status;
            self.ctx.lobby.publish(self.table_id, summary);
        }
    }

    /// Voids the hand in progress (the stored stacks are as it began), marks the table
    /// failed, tells its players, then answers commands: players may leave with their
    /// chips, the operator may close the table; nothing else is done.
    pub(super) async fn serve(self, reason: &str, rx: &mut mpsc::Receiver<Command>) {
        let table_id = self.table_id;
        self.ctx
            .metrics
            .table_failures
            .fetch_add(1, Ordering::Relaxed);
        tracing::error!("its task failed ({reason}); the table is stopped");
        match self.ctx.store.void_hands(table_id).await {
            Ok(void) if !void.is_empty() => {
                self.ctx
                    .metrics
                    .hands_voided
                    .fetch_add(void.len() as u64, Ordering::Relaxed);
                tracing::info!("{} hand(s) void", void.len())
            }
            Ok(_) => {}
            Err(e) => tracing::error!("cannot void its hand: {e}"),
        }
        self.lobby(poker_protocol::TableStatus::Failed);
        let failed_msg = ServerMsg::TableFailed {
            table_id,
            message: "the table stopped on a server fault: the hand in progress is void \
                      (every stack is as it began); leave to cash out"
                .into(),
        };
        self.tell(&failed_msg);
        while let Some(command) = rx.recv().await {
            let (request, queue, respond_to) = match command {
                Command::Request {
                    request,
                    queue,
                    respond_to,
                    ..
                } => (request, queue, respond_to),
                Command::InjectFault => continue,
                // Another node owns the table now.
                Command::Abandon => break,
            };
            let answer = match request {
                Request::Seat {
                    player,
                    request: SeatRequest::Leave,
                } => match self.leave(player).await {
                    Some(answer) => answer,
                    None => {
                        // Another node owns the table now: stop here, writing nothing.
                        respond_to.send(Err(Refusal::Moving));
                        break;
                    }
                },
                Request::Act { .. } => Err(Refusal::Illegal(
                    "the table has failed: the hand is void".into(),
                )),
                Request::Chat { .. } => Err(Refusal::Chat(
                    "the table has failed: leave to cash out".into(),
                )),
                // Saved with the table's configuration; a restart reopens it so.
                Request::SwitchChat { .. } | Request::Drain => Ok(Reply::Ok),
                Request::Subscribe {
                    player,
                    only_if_seated,
                } => {
                    let seated = match (player, self.ctx.store.seats(table_id).await) {
                        (Some(p), Ok(seats)) => seats.iter().any(|s| s.player_id == p),
                        _ => false,
                    };
                    let ok = (!only_if_seated || seated) && queue.is_some();
                    if let (true, Some(queue)) = (ok, queue) {
                        let _ = queue.try_send(vec![Out::own(failed_msg.clone())]);
                        self.listeners
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push((player, queue));
                    }
                    Ok(Reply::Subscribed(ok))
                }
                Request::Unsubscribe => {
                    if let Some(queue) = queue {
                        self.listeners
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .retain(|(_, q)| !q.same_channel(&queue));
                    }
                    Ok(Reply::Ok)
                }
                Request::Inspect => {
                    let seats = self.ctx.store.seats(table_id).await.unwrap_or_default();
                    Ok(Reply::View(serde_json::json!({
                        "table": { "table_id": table_id.to_string(), "name": self.name, "seats": seats },
                        "hand_number": null,
                        "status": "failed",
                        "reason": reason,
                    })))
                }
                Request::Close => match self.close().await {
                    Some(total) => {
                        respond_to.send(Ok(Reply::Closed(total)));
                        return;
                    }
                    // Another node owns the table now: not closed here, and the operator
                    // hears nothing (the answer is dropped).
                    None => return,
                },
                // Nothing else is done at a failed table (a sit, a seat request, the
                // waiting list, a private table's request, and whatever comes next).
                _ => Err(Refusal::Seat(
                    "the table has failed: leave to cash out".into(),
                )),
            };
            respond_to.send(answer);
        }
    }

    /// Cashes a player out of the failed table; `None` if another node owns it now.
    async fn leave(&self, player: PlayerId) -> Option<Answer> {
        let cashed = self
            .ctx
            .store
            .cash_out(
                self.table_id,
                player,
                self.ctx.clock.now_ms(),
                self.ctx.fence,
            )
            .await;
        Some(match cashed {
            Ok(amount) => Ok(Reply::Done(Outcome {
                amount,
                pending: false,
            })),
            Err(e @ StoreError::Fenced { .. }) => {
                tracing::warn!("{e}: another node owns the table now");
                return None;
            }
            Err(StoreError::NotFound(_)) => Err(Refusal::NotYourTurn(
                "you are not seated at this table".into(),
            )),
            Err(e) => {
                tracing::error!("cash-out failed: {e}");
                Err(Refusal::Internal("the cash-out failed".into()))
            }
        })
    }

    /// Cashes everyone out and marks the table closed; the chips cashed out, or `None` if
    /// another node owns the table now.
    async fn close(&self) -> Option<Chips> {
        let table_id = self.table_id;
        let mut total = 0;
        for seat in self.ctx.store.seats(table_id).await.unwrap_or_default() {
            match self
                .ctx
                .store
                .cash_out(
                    table_id,
                    seat.player_id,
                    self.ctx.clock.now_ms(),
                    self.ctx.fence,
                )
                .await
            {
                Ok(amount) => total += amount,
                Err(e @ StoreError::Fenced { .. }) => {
                    tracing::warn!("closing: {e}: another node owns the table now");
                    return None;
                }
                Err(e) => tracing::warn!("closing: {e}"),
            }
        }
        if let Err(e) = self
            .ctx
            .store
            .set_table_status(table_id, TableStatus::Closed)
            .await
        {
            tracing::error!("cannot mark closed: {e}");
        }
        self.lobby(poker_protocol::TableStatus::Closed);
        self.tell(&ServerMsg::TableClosed { table_id });
        Some(total)
    }
}
