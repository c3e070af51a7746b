//! The verifiable deck at a table (docs/fairness.md): the next hand's deck is committed
//! (every nonce from one secret read from the operating system's generator) and published
//! when a hand is dealt, so seated players' commitments to their seeds arrive during that
//! hand; between hands the table closes the list of commitments and sends it to everyone,
//! the players reveal their seeds, and the deal mixes in those that open their
//! commitments. The deal waits a short while for the players whose clients take part
//! ([`SEED_WAIT`]); after the hand each player gets the proofs of exactly the cards they
//! saw.

use super::actor::*;
use super::*;
use poker_fairness::deck::rounds_for;
use poker_fairness::{prove_deck, seed_commitment, CommittedDeck, Digest, Seed, Viewer};
use poker_fairness::{SeatSeed, SeedCommit};
use poker_protocol::ServerMsg;
use poker_rules::Game;
use poker_store::HandId;
use rand::rngs::OsRng;
use rand::RngCore;
use std::collections::HashMap;
use tokio::time::Instant;

/// How long the deal waits, between hands, for the commitments of the players whose
/// clients take part in the seeds, and again, once the list is closed, for their seeds.
/// A browser or a bot answers within a round trip (milliseconds on a LAN, a few hundred on
/// a phone), so one second keeps every seed of a live client and costs a table at most two
/// seconds when a client goes quiet; a player who misses it is not waited for again until
/// their client sends a commitment (a client that never sends one is never waited for).
pub(super) const SEED_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// How long before the end of the pause between hands the list of seed commitments
/// closes: a round trip for the seeds to come back before the deal (a player who sits
/// during the pause, or whose page reloads, is still in the list).
pub(super) const REVEAL_LEAD: std::time::Duration = std::time::Duration::from_millis(500);

/// The next hand's committed deck and the seeds sent for it so far.
pub(super) struct NextDeck {
    /// The deck, committed for the hand id it will be dealt under.
    pub(super) deck: CommittedDeck,
    /// The first commitment each player sent for it, and whether it is the house's.
    commits: HashMap<PlayerId, (Digest, bool)>,
    /// The list, once closed: by ascending seat, with each entry's player.
    closed: Option<Closed>,
    /// The seeds revealed (each opens its player's commitment).
    seeds: HashMap<PlayerId, Seed>,
    /// Since when the table has been ready to deal with the list still open.
    waiting_since: Option<Instant>,
}

/// A closed list of seed commitments.
struct Closed {
    list: Vec<SeedCommit>,
    players: Vec<PlayerId>,
    at: Instant,
}

impl NextDeck {
    /// A deck for `game`, committed for a fresh hand id from a secret read at once from
    /// the operating system's generator (every nonce of every round comes from it).
    pub(super) fn draw(game: Game) -> NextDeck {
        let mut secret = [0u8; 32];
        OsRng.fill_bytes(&mut secret);
        let deck = CommittedDeck::new(
            HandId::new(),
            game.deck(),
            rounds_for(game),
            poker_fairness::Bytes(secret),
        )
        .expect("every game commits 1 to 4 rounds of a 52- or 36-card deck");
        NextDeck {
            deck,
            commits: HashMap::new(),
            closed: None,
            seeds: HashMap::new(),
            waiting_since: None,
        }
    }

    /// The closed list, if closed.
    pub(super) fn closed_list(&self) -> Option<&[SeedCommit]> {
        self.closed.as_ref().map(|c| c.list.as_slice())
    }

    /// The closed list (empty if it never closed) and the seeds revealed by the players
    /// dealt in (`dealt`: each player and their seat), for the dealing.
    pub(super) fn seeds_for(
        &self,
        dealt: &[(PlayerId, usize)],
    ) -> (Vec<SeedCommit>, Vec<SeatSeed>) {
        let Some(closed) = &self.closed else {
            return (Vec::new(), Vec::new());
        };
        let seeds = dealt
            .iter()
            .filter_map(|&(player, seat)| {
                let seat = u8::try_from(seat).ok()?;
                let listed = closed
                    .list
                    .iter()
                    .zip(&closed.players)
                    .any(|(e, p)| *p == player && e.seat == seat);
                let seed = *self.seeds.get(&player)?;
                listed.then_some(SeatSeed { seat, seed })
            })
            .collect();
        (closed.list.clone(), seeds)
    }
}

/// Whether a seated player may play the next hand: sitting in, not about to sit out,
/// with chips. It errs towards yes (one waiting for the big blind counts): a list closed
/// for a hand not dealt then costs nothing, a hand dealt without its list closed would
/// be dealt with no seed.
fn playing(o: &poker_rules::table::Occupant<PlayerId>) -> bool {
    !o.sitting_out && !o.sit_out_next_hand && o.stack > 0
}

impl Actor {
    /// Commits the next hand's deck and tells every seated player (who answer with their
    /// seeds' commitments; spectators and whoever sits later find it in their snapshot).
    pub(super) fn commit_next_deck(&mut self) {
        let next = NextDeck::draw(self.table.rules().game);
        let msg = ServerMsg::DeckCommitted {
            table_id: self.table_id,
            commitment: next.deck.commitment(),
        };
        self.next_deck = Some(next);
        self.seeds_at = None;
        let seated = self.seated_players();
        self.audience.send_to_each(&seated, &msg);
    }

    /// A seed's commitment or a seed from a connection of this process
    /// ([`super::Command::Seed`]): taken, or its refusal sent to the connection's queue.
    /// Not urgent: a seed taken makes nothing for its player, so what they are sent as an
    /// onlooker may wait as usual (a refusal, their own frame, goes at once all the same).
    pub(super) fn seed_queued(
        &mut self,
        player: PlayerId,
        step: SeedStep,
        queue: &tokio::sync::mpsc::Sender<Batch>,
    ) {
        let request = Request::Seat {
            player,
            request: SeatRequest::Seed(step),
        };
        let result = self
            .private_guard(&request)
            .and_then(|()| self.take_seed(player, step));
        if let Err(refusal) = result {
            self.audience.refuse_to(queue, refusal);
        }
    }

    /// A player's commitment (seated, sitting down now, or watching the table: a client
    /// sends it with its `sit`, and it may reach the table first; it counts only if the
    /// player is seated when the list closes) or seed (listed when the list closed) for
    /// the next hand: the first of each counts, if it names the hand committed next and,
    /// for a seed, opens the commitment.
    pub(super) fn take_seed(
        &mut self,
        player: PlayerId,
        step: SeedStep,
    ) -> Result<Outcome, Refusal> {
        let seated = self.seat_of(player).is_some();
        let near = self.sitting.is_sitting(player) || self.audience.watching(player);
        let hand_id = match step {
            SeedStep::Commit { hand_id, .. } | SeedStep::Reveal { hand_id, .. } => hand_id,
        };
        let commit = matches!(step, SeedStep::Commit { .. });
        if !(seated || near && commit) {
            return Err(Refusal::Seed(format!(
                "hand {hand_id}: you are not seated at this table"
            )));
        }
        let next = self
            .next_deck
            .as_mut()
            .filter(|n| n.deck.hand_id() == hand_id)
            .ok_or_else(|| {
                Refusal::Seed(format!(
                    "hand {hand_id} is not the next hand: it was dealt without this seed"
                ))
            })?;
        match step {
            SeedStep::Commit {
                commitment, house, ..
            } => {
                if next.closed.is_some() {
                    return Err(Refusal::Seed(format!(
                        "hand {hand_id}: the list of commitments is closed: it is dealt without yours"
                    )));
                }
                if next.commits.contains_key(&player) {
                    return Err(Refusal::Seed(format!(
                        "hand {hand_id}: you sent a commitment for this hand already"
                    )));
                }
                next.commits.insert(player, (commitment, house));
                self.seeding.insert(player);
                if house {
                    self.house.insert(player);
                }
            }
            SeedStep::Reveal { seed, .. } => {
                let deck = next.deck.commitment().commitment;
                let Some(closed) = &next.closed else {
                    return Err(Refusal::Seed(format!(
                        "hand {hand_id}: the list of commitments is not closed yet: reveal your seed once it is (seeds_closed)"
                    )));
                };
                let Some(i) = closed.players.iter().position(|&p| p == player) else {
                    return Err(Refusal::Seed(format!(
                        "hand {hand_id}: your commitment is not in the closed list: it is dealt without your seed"
                    )));
                };
                if next.seeds.contains_key(&player) {
                    return Err(Refusal::Seed(
                        "you sent a seed for this hand already".into(),
                    ));
                }
                if seed_commitment(&deck, &seed) != closed.list[i].commitment {
                    return Err(Refusal::Seed(
                        "this seed does not open your commitment".into(),
                    ));
                }
                next.seeds.insert(player, seed);
            }
        }
        Ok(Outcome {
            amount: 0,
            pending: false,
        })
    }

    /// The seated players the deal waits for: playing the next hand (sitting in, not
    /// about to sit out, with chips), and whose clients take part in the seeds.
    fn seed_takers(&self) -> Vec<PlayerId> {
        self.table
            .seats()
            .iter()
            .flatten()
            .filter(|o| playing(o) && self.seeding.contains(&o.player))
            .map(|o| o.player)
            .collect()
    }

    /// Whether two players could be dealt in now (sitting in, not about to sit out, with
    /// chips).
    fn could_deal(&self) -> bool {
        self.table
            .seats()
            .iter()
            .flatten()
            .filter(|o| playing(o))
            .count()
            >= 2
    }

    /// Closes the next deck's list of commitments and sends it to everyone at the table:
    /// the commitments of the players seated now, and of those whose sit is under way
    /// (their seat is held: the sit may end before the deal), by seat.
    fn close_seeds(&mut self) {
        let Some(next) = self.next_deck.as_mut() else {
            return;
        };
        if next.closed.is_some() {
            return;
        }
        let seated = self
            .table
            .seats()
            .iter()
            .enumerate()
            .filter_map(|(seat, o)| Some((o.as_ref()?.player, seat)));
        let sitting = next
            .commits
            .keys()
            .filter_map(|&p| Some((p, self.sitting.seat_of(p)? as usize)));
        let mut entries: Vec<(SeedCommit, PlayerId)> = seated
            .chain(sitting)
            .filter_map(|(player, seat)| {
                let &(commitment, house) = next.commits.get(&player)?;
                Some((
                    SeedCommit {
                        seat: u8::try_from(seat).ok()?,
                        commitment,
                        house,
                    },
                    player,
                ))
            })
            .collect();
        entries.sort_by_key(|e| e.0.seat);
        let msg = ServerMsg::SeedsClosed {
            table_id: self.table_id,
            hand_id: next.deck.hand_id(),
            list: entries.iter().map(|e| e.0).collect(),
        };
        next.closed = Some(Closed {
            list: entries.iter().map(|e| e.0).collect(),
            players: entries.iter().map(|e| e.1).collect(),
            at: Instant::now(),
        });
        // To the players at the table (seated, or listed: a sit under way); spectators
        // learn it from their snapshot if they sit.
        let mut told = self.seated_players();
        told.extend(entries.iter().map(|e| e.1));
        self.audience.send_to_each(&told, &msg);
    }

    /// Between hands, while the table pauses: closes the list as soon as every player the
    /// deal would wait for has committed, so the seeds come in during the pause.
    pub(super) fn close_seeds_when_all_in(&mut self) {
        let Some(next) = self.next_deck.as_ref() else {
            return;
        };
        if next.closed.is_none()
            && self.could_deal()
            && self
                .seed_takers()
                .iter()
                .all(|p| next.commits.contains_key(p))
        {
            self.close_seeds();
        }
    }

    /// Whether the next deck's seeds let the table deal now: the list closed once every
    /// player the deal waits for committed (or [`SEED_WAIT`] passed), then every player
    /// listed revealed (or [`SEED_WAIT`] passed). `Err`: when to look again.
    pub(super) fn seeds_ready(&mut self) -> Result<(), Instant> {
        if !self.could_deal() {
            return Ok(());
        }
        let now = Instant::now();
        let takers = self.seed_takers();
        let Some(next) = self.next_deck.as_mut() else {
            return Ok(());
        };
        if next.closed.is_none() {
            let missing: Vec<PlayerId> = takers
                .iter()
                .copied()
                .filter(|p| !next.commits.contains_key(p))
                .collect();
            if !missing.is_empty() {
                let since = *next.waiting_since.get_or_insert(now);
                if now < since + SEED_WAIT {
                    return Err(since + SEED_WAIT);
                }
                tracing::info!(
                    missing = missing.len(),
                    "dealt without the commitments of players who did not send one in time"
                );
                for p in missing {
                    self.seeding.remove(&p);
                }
            }
            self.close_seeds();
        }
        let Some(next) = self.next_deck.as_ref() else {
            return Ok(());
        };
        let Some(closed) = &next.closed else {
            return Ok(());
        };
        let missing: Vec<PlayerId> = closed
            .players
            .iter()
            .copied()
            .filter(|p| takers.contains(p) && !next.seeds.contains_key(p))
            .collect();
        if !missing.is_empty() {
            let due = closed.at + SEED_WAIT;
            if now < due {
                return Err(due);
            }
            tracing::info!(
                missing = missing.len(),
                "dealt without the seeds of players who did not reveal in time"
            );
            for p in missing {
                self.seeding.remove(&p);
            }
        }
        Ok(())
    }

    /// Counts the hand just dealt in the seeds' metrics: whether every player dealt in
    /// (the house's seats aside) had their seed used, or none did.
    pub(super) fn count_seeds(
        &self,
        dealing: &poker_fairness::Dealing,
        players: &[PlayerId],
        seats: &[usize],
    ) {
        use std::sync::atomic::Ordering::Relaxed;
        let m = &self.ctx.metrics;
        m.hands_dealt.fetch_add(1, Relaxed);
        let used = |seat: usize| dealing.seeds.iter().any(|s| usize::from(s.seat) == seat);
        let people: Vec<usize> = players
            .iter()
            .zip(seats)
            .filter(|(p, _)| !self.house.contains(p))
            .map(|(_, &s)| s)
            .collect();
        if people.iter().all(|&s| used(s)) {
            m.hands_all_seeds.fetch_add(1, Relaxed);
        }
        if !people.iter().any(|&s| used(s)) {
            m.hands_no_player_seed.fetch_add(1, Relaxed);
        }
    }

    /// Sends each player dealt into the hand the proofs of what they saw (again after an
    /// uncontested winner shows: the shown cards then have their proofs too).
    pub(super) fn send_proofs(
        &mut self,
        number: u64,
        players: &[PlayerId],
        deck: &CommittedDeck,
        dealing: &poker_fairness::Dealing,
        events: &[poker_rules::Event],
    ) {
        for (i, &player) in players.iter().enumerate() {
            match prove_deck(deck, dealing, events, Viewer::Player(i)) {
                Ok(proof) => self.audience.send_to(
                    player,
                    ServerMsg::DeckProof {
                        table_id: self.table_id,
                        hand_number: number,
                        proof: Box::new(proof),
                    },
                ),
                Err(e) => tracing::error!("the deck's proofs could not be made: {e}"),
            }
        }
    }
}
