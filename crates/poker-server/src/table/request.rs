//! One vocabulary for everything a table is asked: [`Request`] and its [`Reply`]. The
//! actor answers it, the local handle sends it, the NATS RPC carries it between nodes (as
//! JSON) and the server of a failed table answers it; a new command is one variant here and
//! one arm in the actor (the failed table refuses what it does not name).
//!
//! Neither holds a channel: a subscriber's queue, which only a local table can take, travels
//! beside the request ([`super::Command::Request`]); between nodes it becomes an inbox
//! subject (crates/poker-server/src/cluster/rpc.rs).

use super::{Outcome, Refusal, SeatRequest};
use poker_rules::table::Entry;
use poker_rules::{Action, Chips};
use poker_store::PlayerId;
use serde::{Deserialize, Serialize};
use std::net::IpAddr;
use std::time::Duration;

/// What a table is asked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// Seat a player with a buy-in; the subscriber's queue beside it is subscribed (with a
    /// snapshot) only if the seat is taken.
    Sit {
        /// Who.
        player: PlayerId,
        /// Their name, as others see it.
        name: String,
        /// Where.
        seat: u32,
        /// Chips from the wallet.
        buy_in: Chips,
        /// Post now or wait for the big blind.
        entry: Entry,
        /// The client's address bucket (`None`: a house bot, or a caller without one),
        /// for `room.same_address_seating`.
        #[serde(default)]
        address: Option<IpAddr>,
    },
    /// What a player may buy in for here now (the table's range, or the rathole rule's),
    /// asked before they choose, and by the house before it seats a bot.
    BuyInRange {
        /// Who.
        player: PlayerId,
    },
    /// Answer a decision.
    Act {
        /// Who.
        player: PlayerId,
        /// The decision answered.
        decision_id: u64,
        /// The action.
        action: Action,
    },
    /// Sit out, sit in, top up, leave, and the seat's options.
    Seat {
        /// Who.
        player: PlayerId,
        /// What.
        request: SeatRequest,
    },
    /// Say something in the table's chat.
    Chat {
        /// Who.
        player: PlayerId,
        /// Their name, shown with the line when they speak as a spectator (a seated
        /// player's is the seat's).
        #[serde(default)]
        name: String,
        /// What (checked by the actor).
        text: String,
    },
    /// Join or leave the waiting list.
    Waitlist {
        /// Who.
        player: PlayerId,
        /// Join (true) or leave.
        join: bool,
    },
    /// Turn the chat on or off.
    SwitchChat {
        /// On or off.
        enabled: bool,
    },
    /// Send the queue beside it this table's messages (as this player, or as a
    /// spectator), starting with a snapshot.
    Subscribe {
        /// Who listens (`None`: a spectator, who never sees hole cards).
        player: Option<PlayerId>,
        /// Only if this player is seated here.
        only_if_seated: bool,
    },
    /// Stop sending to the queue beside it, unless its player is seated here.
    Unsubscribe,
    /// A private table's request: an invite presented (the queue beside it watches the
    /// table), or a host command.
    Private {
        /// Who.
        player: PlayerId,
        /// Their name, as the host sees it in a seat request.
        name: String,
        /// What.
        ask: super::PrivateAsk,
    },
    /// The table as a spectator sees it, for the admin API.
    Inspect,
    /// Finish the hand in progress, deal no more; answered once idle.
    Drain,
    /// Finish the hand in progress, cash everyone out and close; answered with the chips
    /// cashed out.
    Close,
}

/// A table's answer to a [`Request`] it granted (a refusal is a [`Refusal`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Reply {
    /// What a sit or a seat request did.
    Done(Outcome),
    /// Done (an action, a chat line, the waiting list, the chat switch, an
    /// unsubscription, a drain).
    Ok,
    /// Whether the queue was subscribed.
    Subscribed(bool),
    /// The table as a spectator sees it.
    View(serde_json::Value),
    /// What a player may buy in for.
    BuyInRange(poker_protocol::BuyInRange),
    /// The table closed; the chips cashed out.
    Closed(Chips),
}

/// What a table answers.
pub type Answer = Result<Reply, Refusal>;

impl Request {
    /// The player whose own command this is: what the table makes for them in answer goes
    /// out at once.
    pub fn player(&self) -> Option<PlayerId> {
        match self {
            Request::Sit { player, .. }
            | Request::Act { player, .. }
            | Request::Seat { player, .. }
            | Request::Chat { player, .. }
            | Request::Waitlist { player, .. }
            | Request::Private { player, .. } => Some(*player),
            _ => None,
        }
    }

    /// Whether the subscriber's queue goes with it (to a local table as itself, to a
    /// remote one as an inbox).
    pub fn takes_queue(&self) -> bool {
        matches!(
            self,
            Request::Sit { .. }
                | Request::Subscribe { .. }
                | Request::Unsubscribe
                | Request::Private { .. }
        )
    }

    /// How long a node waits for another's answer: a heartbeat, at most 0.8 s, for a
    /// player's command (then the table is moving, or its node frozen, and the client is
    /// told `table_moving` within a second), the length of a hand for draining and closing.
    pub fn patience(&self, heartbeat: Duration) -> Duration {
        match self {
            Request::Drain | Request::Close => Duration::from_secs(600),
            _ => heartbeat.clamp(Duration::from_millis(300), Duration::from_millis(800)),
        }
    }
}

/// The answer as what the caller expects, or the refusal that a wrong kind of answer is.
pub(super) fn expect<T>(
    answer: Answer,
    take: impl FnOnce(Reply) -> Option<T>,
) -> Result<T, Refusal> {
    let reply = answer?;
    let shown = format!("{reply:?}");
    take(reply).ok_or_else(|| Refusal::Internal(format!("an unexpected answer: {shown}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_and_reply_crosses_json_unchanged() {
        let player = PlayerId::new();
        let requests = vec![
            Request::Sit {
                player,
                name: "ann".into(),
                seat: 3,
                buy_in: 200,
                entry: Entry::PostNow,
                address: Some("10.0.0.1".parse().unwrap()),
            },
            Request::Act {
                player,
                decision_id: 7,
                action: Action::Call,
            },
            Request::Seat {
                player,
                request: SeatRequest::TopUp { amount: 50 },
            },
            Request::Chat {
                player,
                name: "ann".into(),
                text: "gl".into(),
            },
            Request::Waitlist { player, join: true },
            Request::BuyInRange { player },
            Request::SwitchChat { enabled: false },
            Request::Subscribe {
                player: None,
                only_if_seated: false,
            },
            Request::Unsubscribe,
            Request::Private {
                player,
                name: "ann".into(),
                ask: crate::table::PrivateAsk::Host(poker_protocol::HostCommand::Blinds {
                    small: 2,
                    big: 4,
                }),
            },
            Request::Inspect,
            Request::Drain,
            Request::Close,
        ];
        for request in requests {
            let wire = serde_json::to_string(&request).unwrap();
            assert_eq!(serde_json::from_str::<Request>(&wire).unwrap(), request);
        }
        let answers: Vec<Answer> = vec![
            Ok(Reply::Done(Outcome {
                amount: 5,
                pending: true,
            })),
            Ok(Reply::Ok),
            Ok(Reply::Subscribed(false)),
            Ok(Reply::View(serde_json::json!({"a": 1}))),
            Ok(Reply::Closed(300)),
            Ok(Reply::BuyInRange(poker_protocol::BuyInRange {
                min: 400,
                max: 400,
                rathole: Some(poker_protocol::RatholeNote {
                    stack: 400,
                    left_secs_ago: 60,
                    window_secs: 3600,
                }),
            })),
            Err(Refusal::Moving),
        ];
        for answer in answers {
            let wire = serde_json::to_string(&answer).unwrap();
            assert_eq!(serde_json::from_str::<Answer>(&wire).unwrap(), answer);
        }
    }

    #[test]
    fn a_players_command_waits_about_a_heartbeat_and_closing_a_hand() {
        let act = Request::Act {
            player: PlayerId::new(),
            decision_id: 1,
            action: Action::Fold,
        };
        assert_eq!(
            act.patience(Duration::from_millis(500)),
            Duration::from_millis(500)
        );
        assert_eq!(
            act.patience(Duration::from_millis(2000)),
            Duration::from_millis(800)
        );
        assert_eq!(
            act.patience(Duration::from_millis(50)),
            Duration::from_millis(300)
        );
        assert!(Request::Close.patience(Duration::from_millis(500)) >= Duration::from_secs(60));
    }
}
