//! The verifiable deck at a table (docs/fairness.md): the next hand's deck is committed
//! (every nonce from one secret read from the operating system's generator) and published
//! when a hand is dealt, so seated players' commitments to their seeds arrive during that
//! hand; between hands the table closes the list of commitments and sends it to everyone,
//! the players reveal their seeds, and the deal mixes in those that open their
//! commitments. The deal waits a short while for the players whose clients take part
//! ([`SEED_WAIT`]); after the hand each player gets the proofs of exactly the cards they
//! saw.

use super::*;
use poker_fairness::deck::rounds_for;
use poker_fairness::{seed_commitment, Commitment, CommittedDeck, Digest, Seed};
use poker_fairness::{SeatSeed, SeedCommit};
use poker_protocol::ServerMsg;
use poker_rules::Game;
use poker_store::HandId;
use rand::rngs::OsRng;
use rand::RngCore;
use std::collections::{HashMap, HashSet};
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

/// Whether two players could be dealt in now (sitting in, not about to sit out, with
/// chips).
pub(super) fn could_deal(seats: &[Option<poker_rules::table::Occupant<PlayerId>>]) -> bool {
    seats.iter().flatten().filter(|o| playing(o)).count() >= 2
}

/// The table's seeds: the next hand's deck and the commitments and seeds sent for it,
/// who takes part, and when the deal's wait for them ends.
pub(super) struct Seeds {
    /// The next hand's committed deck and the seeds sent for it (docs/fairness.md).
    next: Option<NextDeck>,
    /// When the deal's wait for seeds ends, while it waits.
    at: Option<Instant>,
    /// The players whose clients take part in the seeds: the deal waits for them a
    /// while (one who misses the wait is left out until their client commits again).
    seeding: HashSet<PlayerId>,
    /// The players whose commitments came from a house bot's connection.
    house: HashSet<PlayerId>,
}

impl Seeds {
    /// A table's seeds, the first deck committed before anyone sits (so the first hand's
    /// seeds can come in too).
    pub(super) fn new(game: Game) -> Seeds {
        Seeds {
            next: Some(NextDeck::draw(game)),
            at: None,
            seeding: HashSet::new(),
            house: HashSet::new(),
        }
    }

    /// Commits the next hand's deck: its commitment, to be sent.
    pub(super) fn commit(&mut self, game: Game) -> Commitment {
        let next = NextDeck::draw(game);
        let commitment = next.deck.commitment();
        self.next = Some(next);
        self.at = None;
        commitment
    }

    /// The next deck, taken to deal it.
    pub(super) fn take_next(&mut self) -> Option<NextDeck> {
        self.next.take()
    }

    /// The next deck, not dealt after all.
    pub(super) fn put_back(&mut self, next: NextDeck) {
        self.next = Some(next);
    }

    /// The next deck's commitment, for snapshots.
    pub(super) fn commitment(&self) -> Option<Commitment> {
        self.next.as_ref().map(|n| n.deck.commitment())
    }

    /// The next deck's closed list of commitments, once closed.
    pub(super) fn closed_list(&self) -> Option<&[SeedCommit]> {
        self.next.as_ref()?.closed_list()
    }

    /// When the deal's wait for seeds ends, while it waits.
    pub(super) fn wait_until(&self) -> Option<Instant> {
        self.at
    }

    /// Waits for seeds until `at` (`None`: not waiting).
    pub(super) fn set_wait(&mut self, at: Option<Instant>) {
        self.at = at;
    }

    /// A player's commitment or seed for the next hand (see [`Seeds::take`]'s caller):
    /// `seated` here, or `near` (sitting down or watching: a commitment only).
    pub(super) fn take(
        &mut self,
        player: PlayerId,
        step: SeedStep,
        seated: bool,
        near: bool,
    ) -> Result<Outcome, Refusal> {
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
            .next
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
    pub(super) fn takers(
        &self,
        seats: &[Option<poker_rules::table::Occupant<PlayerId>>],
    ) -> Vec<PlayerId> {
        seats
            .iter()
            .flatten()
            .filter(|o| playing(o) && self.seeding.contains(&o.player))
            .map(|o| o.player)
            .collect()
    }

    /// Whether the list is open and every one of `takers` has committed.
    pub(super) fn all_in(&self, takers: &[PlayerId]) -> bool {
        self.next.as_ref().is_some_and(|next| {
            next.closed.is_none() && takers.iter().all(|p| next.commits.contains_key(p))
        })
    }

    /// Closes the next deck's list of commitments: those of the players `seated` now
    /// (each with their seat), and of those whose sit is under way (`sitting`: their
    /// held seat), by seat. The message for the players at the table, and the players
    /// listed; `None` if there is no deck or its list is closed already.
    pub(super) fn close(
        &mut self,
        table_id: TableId,
        seated: Vec<(PlayerId, usize)>,
        sitting: impl Fn(PlayerId) -> Option<u32>,
    ) -> Option<(ServerMsg, Vec<PlayerId>)> {
        let next = self.next.as_mut()?;
        if next.closed.is_some() {
            return None;
        }
        let sitting = next
            .commits
            .keys()
            .filter_map(|&p| Some((p, sitting(p)? as usize)));
        let mut entries: Vec<(SeedCommit, PlayerId)> = seated
            .into_iter()
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
            table_id,
            hand_id: next.deck.hand_id(),
            list: entries.iter().map(|e| e.0).collect(),
        };
        next.closed = Some(Closed {
            list: entries.iter().map(|e| e.0).collect(),
            players: entries.iter().map(|e| e.1).collect(),
            at: Instant::now(),
        });
        Some((msg, entries.iter().map(|e| e.1).collect()))
    }

    /// Before the list closes: `Err` (when to look again) while a player of `takers` has
    /// not committed and [`SEED_WAIT`] has not passed (once it has, they are left out of
    /// the seeds); `Ok(true)` if the list is to close now.
    pub(super) fn wait_for_commits(
        &mut self,
        takers: &[PlayerId],
        now: Instant,
    ) -> Result<bool, Instant> {
        let Some(next) = self.next.as_mut() else {
            return Ok(false);
        };
        if next.closed.is_some() {
            return Ok(false);
        }
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
        Ok(true)
    }

    /// Once the list is closed: `Err` (when to look again) while a listed player of
    /// `takers` has not revealed and [`SEED_WAIT`] has not passed since it closed (once
    /// it has, they are left out of the seeds).
    pub(super) fn wait_for_reveals(
        &mut self,
        takers: &[PlayerId],
        now: Instant,
    ) -> Result<(), Instant> {
        let Some(next) = self.next.as_ref() else {
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
    pub(super) fn count(
        &self,
        metrics: &crate::metrics::Metrics,
        dealing: &poker_fairness::Dealing,
        players: &[PlayerId],
        seats: &[usize],
    ) {
        use std::sync::atomic::Ordering::Relaxed;
        let m = metrics;
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
}
