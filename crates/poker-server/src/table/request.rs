//! One vocabulary for everything a table is asked: [`Request`] and its [`Reply`]. A
//! client's message becomes a request here ([`Request::from_client`]) and its answer
//! becomes the client's reply here ([`Request::client_reply`]); the actor answers it, the
//! local handle sends it, the NATS RPC carries it between nodes (as JSON) and the server of
//! a failed table answers it. A new table command is its protocol message, one variant
//! here (with its arm in `from_client`) and one arm in the actor: the gateway, the remote
//! calls and the failed table (which refuses what it does not name) take it as it is. The
//! private tables' guard lets through what it does not name: a command only some may use
//! there is named in it (`super::private`); one that subscribes the connection says so in
//! [`Request::subscribes`] and [`Request::takes_queue`].
//!
//! Neither holds a channel: a subscriber's queue, which only a local table can take, travels
//! beside the request ([`super::Command::Request`]); between nodes it becomes an inbox
//! subject (crates/poker-server/src/cluster/rpc.rs).

use super::{Outcome, PrivateAsk, Refusal, SeatRequest, SeedStep};
use poker_protocol::{ClientMsg, ServerMsg};
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
        /// The seat's commitment for the next deck, sent with the sit (taken first, so
        /// the hand this sit may start has this player's seed; a refusal of it leaves the
        /// sit as it is).
        #[serde(default)]
        seed_commit: Option<SeedStep>,
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
    /// Join or leave the waiting list; joining watches the table with the queue beside
    /// it (so the offer of a seat reaches it), even when the list refuses the player.
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
    /// A private game's ledger (the settle-up so far).
    Ledger {
        /// Who asks.
        player: PlayerId,
    },
    /// Cash out the seated players away (sitting out, or without a connection) for
    /// `keep_secs` of the room's clock or more, telling them (`room.seat_keep_secs`,
    /// asked by [`crate::away`]).
    ReleaseAway {
        /// How long an away seat is kept.
        keep_secs: u64,
    },
    /// The table as a spectator sees it, for the admin API.
    Inspect,
    /// Finish the hand in progress, deal no more; answered once idle.
    Drain,
    /// Finish the hand in progress, cash everyone out and close; answered with the chips
    /// cashed out.
    Close,
}

/// Who asks a table what a client's message asks.
#[derive(Clone, Debug)]
pub struct Caller {
    /// The player.
    pub player: PlayerId,
    /// Their name, as others see it.
    pub name: String,
    /// A house bot's connection (its seed is the house's).
    pub house: bool,
    /// The client's address bucket, for `room.same_address_seating` (`None`: not
    /// checked, as for a house bot).
    pub address: Option<IpAddr>,
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
    /// What the client who asked is sent, made by the table.
    ToClient(Box<ServerMsg>),
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

    /// The player whose frames go out at once because of it: what it makes for them is
    /// their answer. Not a seed's: a seed taken makes nothing for its player, so what they
    /// are sent as an onlooker may wait as usual.
    pub fn urgent_for(&self) -> Option<PlayerId> {
        match self {
            Request::Seat {
                request: SeatRequest::Seed(_),
                ..
            } => None,
            _ => self.player(),
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
                | Request::Waitlist { join: true, .. }
        )
    }

    /// Whom the queue beside it listens as once the table has answered so (`None`: it
    /// does not listen because of this answer): a sit taken, a subscription, an invite
    /// presented, a waiting-list join the table looked at (whatever the list said).
    pub fn subscribes(&self, answer: &Answer) -> Option<Option<PlayerId>> {
        match (self, answer) {
            (Request::Subscribe { player, .. }, Ok(_)) => Some(*player),
            (Request::Sit { player, .. }, Ok(_))
            | (
                Request::Private {
                    player,
                    ask: PrivateAsk::Join { .. },
                    ..
                },
                Ok(_),
            ) => Some(Some(*player)),
            (Request::Waitlist { player, join: true }, Ok(_) | Err(Refusal::Seat(_))) => {
                Some(Some(*player))
            }
            _ => None,
        }
    }

    /// Whether a granted request is answered by the events it causes alone (the client
    /// is sent no reply, only a refusal): an action, a seed. Such a request from a
    /// connection of this process goes to its table without the connection waiting.
    pub fn answered_by_events(&self) -> bool {
        matches!(
            self,
            Request::Act { .. }
                | Request::Seat {
                    request: SeatRequest::Seed(_),
                    ..
                }
        )
    }

    /// What a client's message asks its table (`None`: a message that is not for a
    /// table), asked by `caller`.
    pub fn from_client(msg: ClientMsg, caller: &Caller) -> Option<Request> {
        let player = caller.player;
        let name = caller.name.clone();
        let seat = |request| Request::Seat { player, request };
        let seeding = |step| seat(SeatRequest::Seed(step));
        let entry = |post_now| {
            if post_now {
                Entry::PostNow
            } else {
                Entry::WaitForBigBlind
            }
        };
        Some(match msg {
            ClientMsg::Sit {
                seat,
                buy_in,
                post_now,
                seed_commit,
                ..
            } => Request::Sit {
                player,
                name,
                seat,
                buy_in,
                entry: entry(post_now),
                address: caller.address,
                seed_commit: seed_commit.map(|c| SeedStep::Commit {
                    hand_id: c.hand_id,
                    commitment: c.commitment,
                    house: caller.house,
                }),
            },
            // As this player: a spectator sees no hole cards but their own, and a seated
            // player watching again keeps theirs.
            ClientMsg::Watch { .. } => Request::Subscribe {
                player: Some(player),
                only_if_seated: false,
            },
            ClientMsg::Unwatch { .. } => Request::Unsubscribe,
            ClientMsg::Act {
                decision_id,
                action,
                ..
            } => Request::Act {
                player,
                decision_id,
                action,
            },
            ClientMsg::JoinWaitlist { .. } => Request::Waitlist { player, join: true },
            ClientMsg::LeaveWaitlist { .. } => Request::Waitlist {
                player,
                join: false,
            },
            ClientMsg::Chat { text, .. } => Request::Chat { player, name, text },
            ClientMsg::SeedCommit {
                hand_id,
                commitment,
                ..
            } => seeding(SeedStep::Commit {
                hand_id,
                commitment,
                house: caller.house,
            }),
            ClientMsg::Seed { hand_id, seed, .. } => seeding(SeedStep::Reveal { hand_id, seed }),
            ClientMsg::BuyInRange { .. } => Request::BuyInRange { player },
            ClientMsg::JoinPrivate { invite, .. } => Request::Private {
                player,
                name,
                ask: PrivateAsk::Join { invite },
            },
            ClientMsg::Ledger { .. } => Request::Ledger { player },
            ClientMsg::Host { command, .. } => Request::Private {
                player,
                name,
                ask: PrivateAsk::Host(command),
            },
            ClientMsg::SitOut { next_big_blind, .. } => {
                seat(SeatRequest::SitOut { next_big_blind })
            }
            ClientMsg::SitIn { post_now, .. } => seat(SeatRequest::SitIn { post_now }),
            ClientMsg::TopUp { amount, .. } => seat(SeatRequest::TopUp { amount }),
            ClientMsg::Leave { .. } => seat(SeatRequest::Leave),
            ClientMsg::AutoMuck { on, .. } => seat(SeatRequest::AutoMuck { on }),
            ClientMsg::Straddle { on, .. } => seat(SeatRequest::Straddle { on }),
            ClientMsg::ShowHand { .. } => seat(SeatRequest::ShowHand),
            ClientMsg::Auth { .. } | ClientMsg::Ping | ClientMsg::ListTables => return None,
        })
    }

    /// The client's reply to the table's answer (`None`: nothing to say): a refusal's
    /// error, `done` for a sit or a seat request (a seed is taken silently), what a
    /// question asked. A subscription to a table that is moving says nothing: the
    /// connection subscribes again once the table has an owner.
    pub fn client_reply(
        &self,
        table_id: poker_store::TableId,
        answer: Answer,
    ) -> Option<ServerMsg> {
        match answer {
            Err(Refusal::Moving) if matches!(self, Request::Subscribe { .. }) => None,
            Err(refusal) => Some(refusal.into()),
            Ok(Reply::Done(outcome)) => {
                let request = match self {
                    Request::Sit { .. } => "sit",
                    Request::Seat {
                        request: SeatRequest::Seed(_),
                        ..
                    } => return None,
                    Request::Seat { request, .. } => request.name(),
                    _ => return None,
                };
                Some(ServerMsg::Done {
                    table_id,
                    request: request.to_string(),
                    amount: outcome.amount,
                    pending: outcome.pending,
                })
            }
            Ok(Reply::BuyInRange(range)) => Some(ServerMsg::BuyInRange { table_id, range }),
            Ok(Reply::ToClient(msg)) => Some(*msg),
            Ok(Reply::Ok | Reply::Subscribed(_) | Reply::View(_) | Reply::Closed(_)) => None,
        }
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
                seed_commit: None,
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
            Request::Ledger { player },
            Request::ReleaseAway { keep_secs: 3600 },
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
            Ok(Reply::ToClient(Box::new(ServerMsg::Ledger {
                table_id: poker_store::TableId::new(),
                lines: vec![poker_protocol::LedgerLine {
                    player_id: player,
                    name: "ann".into(),
                    bought_in: 400,
                    cashed_out: 0,
                    adjusted: 100,
                    stack: 350,
                    net: -150,
                }],
                rake: 0,
            }))),
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
    fn every_table_message_of_a_client_is_a_request_and_its_answer_a_reply() {
        use poker_protocol::{HostCommand, SitSeed};
        let table_id = poker_store::TableId::new();
        let hand_id = poker_store::HandId::new();
        let caller = Caller {
            player: PlayerId::new(),
            name: "ann".into(),
            house: false,
            address: Some("10.0.0.1".parse().unwrap()),
        };
        let digest = poker_fairness::Digest::from_bytes([7; 32]);
        let sit = ClientMsg::Sit {
            table_id,
            seat: 1,
            buy_in: 200,
            post_now: false,
            seed_commit: Some(SitSeed {
                hand_id,
                commitment: digest,
            }),
        };
        let messages = vec![
            sit.clone(),
            ClientMsg::Watch { table_id },
            ClientMsg::Unwatch { table_id },
            ClientMsg::Act {
                table_id,
                decision_id: 3,
                action: Action::Fold,
            },
            ClientMsg::SitOut {
                table_id,
                next_big_blind: false,
            },
            ClientMsg::TopUp {
                table_id,
                amount: 5,
            },
            ClientMsg::Chat {
                table_id,
                text: "gl".into(),
            },
            ClientMsg::JoinWaitlist { table_id },
            ClientMsg::SeedCommit {
                table_id,
                hand_id,
                commitment: digest,
            },
            ClientMsg::BuyInRange { table_id },
            ClientMsg::Ledger { table_id },
            ClientMsg::Host {
                table_id,
                command: HostCommand::Pause,
            },
            ClientMsg::Ping,
            ClientMsg::ListTables,
        ];
        for msg in messages {
            let for_a_table = msg.table_id().is_some();
            let request = Request::from_client(msg.clone(), &caller);
            assert_eq!(request.is_some(), for_a_table, "{msg:?}");
            let Some(request) = request else { continue };
            // Refused: the refusal's error, whatever was asked (but a subscription to a
            // table that is moving, which the connection makes again by itself).
            let refused = request.client_reply(table_id, Err(Refusal::Seat("no".into())));
            assert!(matches!(refused, Some(ServerMsg::Error { .. })), "{msg:?}");
            assert_eq!(
                request
                    .client_reply(table_id, Err(Refusal::Moving))
                    .is_none(),
                matches!(request, Request::Subscribe { .. }),
                "{msg:?}"
            );
        }
        // The sit carries its seed's commitment, in the house's name only from a bot.
        assert!(matches!(
            Request::from_client(sit, &caller),
            Some(Request::Sit {
                entry: Entry::WaitForBigBlind,
                seed_commit: Some(SeedStep::Commit { house: false, .. }),
                address: Some(_),
                ..
            })
        ));
        // What a granted request is answered with.
        let done = Ok(Reply::Done(Outcome {
            amount: 5,
            pending: true,
        }));
        let top_up = Request::Seat {
            player: caller.player,
            request: SeatRequest::TopUp { amount: 5 },
        };
        assert!(matches!(
            top_up.client_reply(table_id, done.clone()),
            Some(ServerMsg::Done { request, amount: 5, pending: true, .. }) if request == "top_up"
        ));
        let seed = Request::Seat {
            player: caller.player,
            request: SeatRequest::Seed(SeedStep::Reveal {
                hand_id,
                seed: poker_fairness::Seed::from_bytes([1; 32]),
            }),
        };
        assert_eq!(
            seed.client_reply(table_id, done),
            None,
            "a seed is taken silently"
        );
        assert!(seed.answered_by_events() && seed.urgent_for().is_none());
        let ledger = ServerMsg::Ledger {
            table_id,
            lines: Vec::new(),
            rake: 0,
        };
        let asked = Request::Ledger {
            player: caller.player,
        };
        assert_eq!(
            asked.client_reply(table_id, Ok(Reply::ToClient(Box::new(ledger.clone())))),
            Some(ledger)
        );
        // Whom the connection's queue listens as afterwards: a waiting-list join watches
        // the table even when the list refuses the player, not when the table is moving.
        let join = Request::Waitlist {
            player: caller.player,
            join: true,
        };
        assert_eq!(
            join.subscribes(&Err(Refusal::Seat("a seat is free".into()))),
            Some(Some(caller.player))
        );
        assert_eq!(join.subscribes(&Err(Refusal::Moving)), None);
        assert_eq!(top_up.subscribes(&Ok(Reply::Ok)), None);
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
