//! Committing finished hands in batches. One pure [`plan`] decides everything about the
//! chips (conservation, which hands are still pending, the stacks each seat must hold
//! and will hold, the ledger rows and the rake) from the hands and what the database
//! says of them; both backends then only write the plan, so only SQL text differs:
//! Postgres in a handful of statements over arrays, SQLite in chunks of rows. Before
//! anything is written, [`check_fences`] refuses the batch if a hand's fencing token is
//! no longer its table lease's.

use serde::Serialize;
use uuid::Uuid;

use super::*;

/// The leases of the tables named (SQLite: a JSON array of table ids).
const FENCED_LEASES_SQLITE: &str = "select poker_table_id, token from table_lease \
     where poker_table_id in (select value from json_each($1))";

/// A table's lease's token; on PostgreSQL the row stays share-locked until the commit.
const FENCE: Dialects = Dialects {
    postgres: "select token from table_lease where poker_table_id = $1 for share",
    sqlite: "select token from table_lease where poker_table_id = $1",
};

/// Checks every hand conserves chips (finishing stacks plus rake = starting stacks).
pub(crate) fn check_conserved(hands: &[CompletedHand]) -> StoreResult<()> {
    for h in hands {
        let before: u64 = h.players.iter().map(|p| p.starting_stack).sum();
        let after: u64 = h.players.iter().map(|p| p.finishing_stack).sum::<u64>() + h.rake;
        if before != after {
            return Err(StoreError::Invalid(format!(
                "hand {} does not conserve chips",
                h.hand_id
            )));
        }
    }
    Ok(())
}

/// The tables of the hands that carry a fencing token, sorted, each once: the lease rows
/// a commit must read (in this order, so that concurrent commits lock them alike).
pub(crate) fn fenced_tables(hands: &[CompletedHand]) -> Vec<String> {
    let tables: std::collections::BTreeSet<String> = hands
        .iter()
        .filter(|h| h.fence.is_some())
        .map(|h| h.table_id.to_string())
        .collect();
    tables.into_iter().collect()
}

/// Checks every fenced hand against its table's lease, given the `(table id, token)` rows
/// the database holds for [`fenced_tables`]: a hand whose token is not the lease's (or
/// whose table has no lease) was dealt by a node that no longer owns the table, and is
/// refused with [`StoreError::Fenced`]. Hands without a fence are not checked.
pub(crate) fn check_fences(hands: &[CompletedHand], leases: &[(String, i64)]) -> StoreResult<()> {
    let tokens: std::collections::HashMap<&str, i64> =
        leases.iter().map(|(t, k)| (t.as_str(), *k)).collect();
    for h in hands {
        let Some(fence) = h.fence else { continue };
        let current = tokens.get(h.table_id.to_string().as_str()).copied();
        if current.is_none() || current != i64::try_from(fence).ok() {
            return Err(StoreError::Fenced {
                table: h.table_id,
                token: fence,
            });
        }
    }
    Ok(())
}

impl SqlStore {
    /// [`check_fences`] through the runtime-chosen driver (the SQLite commit), inside the
    /// commit's transaction. SQLite runs one writer at a time, so no lease can change
    /// between this read and the commit.
    pub(crate) async fn check_fences_in(
        &self,
        tx: &mut Tx,
        hands: &[CompletedHand],
    ) -> StoreResult<()> {
        let tables = fenced_tables(hands);
        if tables.is_empty() {
            return Ok(());
        }
        let leases: Vec<(String, i64)> = sqlx::query_as(FENCED_LEASES_SQLITE)
            .bind(json_rows(&tables)?)
            .fetch_all(&mut **tx)
            .await?;
        check_fences(hands, &leases)
    }

    /// Refuses a write to `table` by a node whose fencing token `fence` is no longer the
    /// table lease's (or whose table has no lease) with [`StoreError::Fenced`]; `None`
    /// (single process) is not checked. Run first inside the write's transaction: on
    /// Postgres the lease row stays share-locked until the commit, so the table cannot
    /// pass to another owner between this check and the write (on SQLite the one writer
    /// sees to that).
    pub(crate) async fn check_fence(
        &self,
        tx: &mut Tx,
        table: TableId,
        fence: Option<u64>,
    ) -> StoreResult<()> {
        let Some(token) = fence else {
            return Ok(());
        };
        let current: Option<i64> = sqlx::query_scalar(FENCE.of(self.backend))
            .bind(table.to_string())
            .fetch_optional(&mut **tx)
            .await?;
        if current.is_none() || current != i64::try_from(token).ok() {
            return Err(StoreError::Fenced { table, token });
        }
        Ok(())
    }
}

/// One ledger row of a hand (a row of the JSON array SQLite's commit reads, by these
/// names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct HandEntry {
    /// The movement: one per hand.
    pub movement_id: String,
    /// The account: a seat's, or the house's rake.
    pub account: String,
    /// The hand's table.
    pub poker_table_id: String,
    /// The amount, negative when the account gave it.
    pub amount: i64,
    /// The hand.
    pub reference: String,
}

/// The rake of one table's hands, added to that table's row of the house's account (a
/// row of the JSON array SQLite's commit reads, by these names).
///
/// The house keeps one row per table, not one for the whole room: every node's commits
/// would otherwise update the same row, and a node frozen between that update and its
/// commit (SIGSTOP, a VM paused) would hold every other node's hands until it ran again.
/// A table is committed by its one owner, so its row is never waited for by another
/// table's hand. The ledger's account is `house:rake` for all of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct RakeRow {
    /// `rake:<table>`.
    pub house_account_id: String,
    /// The rake to add.
    pub amount: i64,
}

/// The house account's row holding a table's rake.
pub(crate) fn rake_row(table: TableId) -> String {
    format!("rake:{table}")
}

/// The ledger rows of committed hands (one movement each: the seats' changes and the
/// rake) and the rake per table, in the tables' order (rows are locked in one order on
/// every node).
pub(crate) fn hand_ledger(todo: &[&CompletedHand]) -> (Vec<HandEntry>, Vec<RakeRow>) {
    let mut entries = Vec::new();
    let mut rake_by_table: std::collections::BTreeMap<String, i64> = Default::default();
    for h in todo {
        let movement = Uuid::new_v4().to_string();
        let mut push = |account: String, amount: i64| {
            entries.push(HandEntry {
                movement_id: movement.clone(),
                account,
                poker_table_id: h.table_id.to_string(),
                amount,
                reference: h.hand_id.to_string(),
            });
        };
        for p in &h.players {
            let delta = p.finishing_stack as i64 - p.starting_stack as i64;
            if delta != 0 {
                push(seat_account(h.table_id, p.player_id), delta);
            }
        }
        if h.rake > 0 {
            *rake_by_table.entry(rake_row(h.table_id)).or_default() += h.rake as i64;
            push("house:rake".to_string(), h.rake as i64);
        }
    }
    let rake = rake_by_table
        .into_iter()
        .map(|(house_account_id, amount)| RakeRow {
            house_account_id,
            amount,
        })
        .collect();
    (entries, rake)
}

/// One seat of a pending hand: the stack it must still hold, and will hold (a row of the
/// JSON array SQLite's commit reads, by these names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct SeatChange {
    /// The hand.
    pub hand_id: String,
    /// Its table.
    pub table_id: String,
    /// The seated player.
    pub player_id: String,
    /// The seat.
    pub seat_no: i64,
    /// The stack the seat must hold (the hand's starting stack), or the hand is stale.
    pub start: i64,
    /// The stack after the hand.
    pub end: i64,
    /// When the hand ended.
    pub at: i64,
    /// When the hand was dealt.
    pub started_at: i64,
    /// The big blind it was played for, 0 when none is known ([`crate::big_blind`]).
    pub big_blind: i64,
}

/// A day in unix milliseconds: `table_day`'s days are `ended_at / DAY_MS` (UTC).
pub(crate) const DAY_MS: i64 = 86_400_000;

/// A table's hands and rake on one day (UTC): a row of `table_day`, added to by each
/// commit (a row of the JSON array SQLite's commit reads, by these names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct DayRow {
    /// The day: `ended_at / 86_400_000`.
    pub day: i64,
    /// The table.
    pub poker_table_id: String,
    /// The hands that ended that day.
    pub hands: i64,
    /// Their rake.
    pub rake: i64,
}

/// Everything a commit writes, decided without the database.
#[derive(Debug)]
pub(crate) struct CommitPlan<'a> {
    /// Hands recorded as started: marked complete.
    pub started: Vec<&'a CompletedHand>,
    /// Hands never recorded: inserted complete.
    pub fresh: Vec<&'a CompletedHand>,
    /// Every seat of every pending hand.
    pub seats: Vec<SeatChange>,
    /// One movement per hand: the seats' changes and the rake.
    pub ledger: Vec<HandEntry>,
    /// The rake of the pending hands, per table, for the house account.
    pub rake: Vec<RakeRow>,
    /// The pending hands and their rake per table and day, for the rake page.
    pub days: Vec<DayRow>,
}

impl CommitPlan<'_> {
    /// How many hands it commits.
    pub fn hands(&self) -> usize {
        self.started.len() + self.fresh.len()
    }
}

/// The plan of committing `hands`, given the `(hand_id, status)` rows the database holds
/// for them: `None` when every one is already committed or void (a retried batch
/// applies once); an error, and nothing written, when a hand does not conserve chips.
pub(crate) fn plan<'a>(
    hands: &'a [CompletedHand],
    found: &[(String, String)],
) -> StoreResult<Option<CommitPlan<'a>>> {
    check_conserved(hands)?;
    let todo = pending(hands, found);
    if todo.is_empty() {
        return Ok(None);
    }
    let known: std::collections::HashSet<&str> = found.iter().map(|(i, _)| i.as_str()).collect();
    let (started, fresh): (Vec<&CompletedHand>, Vec<&CompletedHand>) = todo
        .iter()
        .partition(|h| known.contains(h.hand_id.to_string().as_str()));
    let mut seats = Vec::new();
    let mut days: std::collections::BTreeMap<(i64, String), (i64, i64)> = Default::default();
    for h in &todo {
        let big_blind = crate::big_blind(&h.record, Some(&h.phh)).map_or(Ok(0), to_i64)?;
        let day = days
            .entry((h.ended_at.div_euclid(DAY_MS), h.table_id.to_string()))
            .or_default();
        day.0 += 1;
        day.1 += to_i64(h.rake)?;
        for p in &h.players {
            seats.push(SeatChange {
                hand_id: h.hand_id.to_string(),
                table_id: h.table_id.to_string(),
                player_id: p.player_id.to_string(),
                seat_no: i64::from(p.seat_no),
                start: to_i64(p.starting_stack)?,
                end: to_i64(p.finishing_stack)?,
                at: h.ended_at,
                started_at: h.started_at,
                big_blind,
            });
        }
        to_i64(h.number)?;
    }
    let (ledger, rake) = hand_ledger(&todo);
    let days = days
        .into_iter()
        .map(|((day, poker_table_id), (hands, rake))| DayRow {
            day,
            poker_table_id,
            hands,
            rake,
        })
        .collect();
    Ok(Some(CommitPlan {
        started,
        fresh,
        seats,
        ledger,
        rake,
        days,
    }))
}

/// Hands still to commit: never recorded, or started and not yet complete or void.
pub(crate) fn pending<'a>(
    hands: &'a [CompletedHand],
    rows: &[(String, String)],
) -> Vec<&'a CompletedHand> {
    let status: std::collections::HashMap<&str, &str> =
        rows.iter().map(|(i, s)| (i.as_str(), s.as_str())).collect();
    hands
        .iter()
        .filter(|h| {
            status
                .get(h.hand_id.to_string().as_str())
                .is_none_or(|s| *s == "started")
        })
        .collect()
}

/// The Postgres hand commit: the [`plan`] written by one fixed statement per table over
/// arrays, so any batch size costs a handful of round trips.
pub(crate) async fn commit_hands_pg(
    pool: &sqlx::PgPool,
    hands: &[CompletedHand],
) -> StoreResult<usize> {
    check_conserved(hands)?;
    let mut tx = pool.begin().await?;
    // The fenced tables' leases, share-locked until the commit: a node taking one of
    // these tables over waits for this batch, so a hand is never committed after its
    // table has passed to another owner.
    let tables = fenced_tables(hands);
    if !tables.is_empty() {
        let leases: Vec<(String, i64)> = sqlx::query_as(
            "select poker_table_id, token from table_lease where poker_table_id = any($1) \
             order by poker_table_id for share",
        )
        .bind(&tables)
        .fetch_all(&mut *tx)
        .await?;
        check_fences(hands, &leases)?;
    }
    let ids: Vec<String> = hands.iter().map(|h| h.hand_id.to_string()).collect();
    let found: Vec<(String, String)> =
        sqlx::query_as("select hand_id, status from hand where hand_id = any($1)")
            .bind(&ids)
            .fetch_all(&mut *tx)
            .await?;
    let Some(plan) = plan(hands, &found)? else {
        return Ok(0);
    };
    let now = now_ms();
    type Hands<'p> = [&'p CompletedHand];
    let text = |hs: &Hands, f: &dyn Fn(&CompletedHand) -> String| -> Vec<String> {
        hs.iter().map(|h| f(h)).collect()
    };
    let num = |hs: &Hands, f: &dyn Fn(&CompletedHand) -> i64| -> Vec<i64> {
        hs.iter().map(|h| f(h)).collect()
    };
    let started = &plan.started;
    let completed = sqlx::query(
        "update hand set status = 'complete', phh = v.phh, record = v.record, rake = v.rake, ended_at = v.ended \
         from unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[]) \
              as v (id, phh, record, rake, ended) \
         where hand.hand_id = v.id and hand.status = 'started'",
    )
    .bind(text(started, &|h| h.hand_id.to_string()))
    .bind(text(started, &|h| h.phh.clone()))
    .bind(text(started, &|h| h.record.to_json()))
    .bind(num(started, &|h| h.rake as i64))
    .bind(num(started, &|h| h.ended_at))
    .execute(&mut *tx)
    .await?;
    // The statuses were read without a lock: a hand voided since (a failed table's, or
    // a table taken over) is no longer `started`, and its chips must not move.
    if completed.rows_affected() != started.len() as u64 {
        return Err(StoreError::StaleHand(started[0].hand_id));
    }
    let fresh = &plan.fresh;
    sqlx::query(
        "insert into hand (hand_id, poker_table_id, number, status, phh, record, rake, started_at, ended_at, created_at) \
         select v.id, v.t, v.n, 'complete', v.phh, v.record, v.rake, v.s, v.e, $9 \
         from unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], \
                     $8::bigint[]) as v (id, t, n, phh, record, rake, s, e)",
    )
    .bind(text(fresh, &|h| h.hand_id.to_string()))
    .bind(text(fresh, &|h| h.table_id.to_string()))
    .bind(num(fresh, &|h| h.number as i64))
    .bind(text(fresh, &|h| h.phh.clone()))
    .bind(text(fresh, &|h| h.record.to_json()))
    .bind(num(fresh, &|h| h.rake as i64))
    .bind(num(fresh, &|h| h.started_at))
    .bind(num(fresh, &|h| h.ended_at))
    .bind(now)
    .execute(&mut *tx)
    .await?;
    // The stacks: each seat must still hold the hand's starting stack.
    let seats = &plan.seats;
    let s_text = |f: &dyn Fn(&SeatChange) -> &str| -> Vec<String> {
        seats.iter().map(|s| f(s).to_string()).collect()
    };
    let s_num = |f: &dyn Fn(&SeatChange) -> i64| -> Vec<i64> { seats.iter().map(f).collect() };
    let updated = sqlx::query(
        "update seat set stack = v.f from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) as v (t, p, s, f) \
         where seat.poker_table_id = v.t and seat.player_id = v.p and seat.stack = v.s",
    )
    .bind(s_text(&|s| &s.table_id))
    .bind(s_text(&|s| &s.player_id))
    .bind(s_num(&|s| s.start))
    .bind(s_num(&|s| s.end))
    .execute(&mut *tx)
    .await?;
    if updated.rows_affected() != seats.len() as u64 {
        return Err(StoreError::StaleHand(
            plan.started
                .iter()
                .chain(&plan.fresh)
                .next()
                .expect("a hand")
                .hand_id,
        ));
    }
    sqlx::query(
        "insert into hand_player (hand_id, player_id, seat_no, starting_stack, finishing_stack, created_at, \
         started_at, big_blind) \
         select * from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], \
         $7::bigint[], $8::bigint[])",
    )
    .bind(s_text(&|s| &s.hand_id))
    .bind(s_text(&|s| &s.player_id))
    .bind(s_num(&|s| s.seat_no))
    .bind(s_num(&|s| s.start))
    .bind(s_num(&|s| s.end))
    .bind(s_num(&|s| s.at))
    .bind(s_num(&|s| s.started_at))
    .bind(s_num(&|s| s.big_blind))
    .execute(&mut *tx)
    .await?;
    // The ledger: one movement per hand, the seats' changes and the rake.
    let entries = &plan.ledger;
    let l_move: Vec<&str> = entries.iter().map(|e| e.movement_id.as_str()).collect();
    let l_account: Vec<&str> = entries.iter().map(|e| e.account.as_str()).collect();
    let l_table: Vec<&str> = entries.iter().map(|e| e.poker_table_id.as_str()).collect();
    let l_amount: Vec<i64> = entries.iter().map(|e| e.amount).collect();
    let l_ref: Vec<&str> = entries.iter().map(|e| e.reference.as_str()).collect();
    sqlx::query(
        "insert into ledger_entry (movement_id, account, poker_table_id, kind, amount, reference, created_at) \
         select v.m, v.a, v.t, 'hand', v.x, v.r, $6 \
         from unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[]) as v (m, a, t, x, r)",
    )
    .bind(&l_move)
    .bind(&l_account)
    .bind(&l_table)
    .bind(&l_amount)
    .bind(&l_ref)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    // The house's rake rows and the tables' days, in one statement (one round trip).
    let r_account: Vec<&str> = plan
        .rake
        .iter()
        .map(|r| r.house_account_id.as_str())
        .collect();
    let r_amount: Vec<i64> = plan.rake.iter().map(|r| r.amount).collect();
    let days = &plan.days;
    sqlx::query(
        "with rake as (insert into house_account (house_account_id, balance, created_at) \
         select v.a, v.x, $3 from unnest($1::text[], $2::bigint[]) as v (a, x) \
         on conflict (house_account_id) do update set balance = house_account.balance + excluded.balance) \
         insert into table_day (day, poker_table_id, hands, rake) \
         select * from unnest($4::bigint[], $5::text[], $6::bigint[], $7::bigint[]) \
         on conflict (day, poker_table_id) do update \
         set hands = table_day.hands + excluded.hands, rake = table_day.rake + excluded.rake",
    )
    .bind(&r_account)
    .bind(&r_amount)
    .bind(now)
    .bind(days.iter().map(|d| d.day).collect::<Vec<_>>())
    .bind(days.iter().map(|d| d.poker_table_id.as_str()).collect::<Vec<_>>())
    .bind(days.iter().map(|d| d.hands).collect::<Vec<_>>())
    .bind(days.iter().map(|d| d.rake).collect::<Vec<_>>())
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(plan.hands())
}

impl SqlStore {
    /// One write that moves no money, inside `tx` ([`SqlStore::save_table_writes`]).
    pub(crate) async fn table_write(&self, tx: &mut Tx, write: &TableWrite) -> StoreResult<()> {
        match write {
            TableWrite::State { table, state } => {
                let done =
                    sqlx::query("update poker_table set state = $1 where poker_table_id = $2")
                        .bind(state.clone())
                        .bind(table.to_string())
                        .execute(&mut **tx)
                        .await?;
                if done.rows_affected() == 0 {
                    return Err(StoreError::NotFound("table"));
                }
            }
            TableWrite::SittingOut { table, player, out } => {
                let done = sqlx::query(
                    "update seat set sitting_out = $1 where poker_table_id = $2 and player_id = $3",
                )
                .bind(i64::from(*out))
                .bind(table.to_string())
                .bind(player.to_string())
                .execute(&mut **tx)
                .await?;
                if done.rows_affected() == 0 {
                    return Err(StoreError::NotSeated);
                }
            }
            TableWrite::MissedBlinds {
                table,
                player,
                small,
                big,
            } => {
                sqlx::query(
                    "delete from missed_blind where poker_table_id = $1 and player_id = $2",
                )
                .bind(table.to_string())
                .bind(player.to_string())
                .execute(&mut **tx)
                .await?;
                if *small || *big {
                    sqlx::query(
                        "insert into missed_blind (poker_table_id, player_id, owes_small, \
                         owes_big, created_at) values ($1, $2, $3, $4, $5)",
                    )
                    .bind(table.to_string())
                    .bind(player.to_string())
                    .bind(i64::from(*small))
                    .bind(i64::from(*big))
                    .bind(now_ms())
                    .execute(&mut **tx)
                    .await?;
                }
            }
            TableWrite::SitAddress {
                table,
                player,
                address,
                at,
                flagged_with,
            } => {
                self.sit_address_in(tx, *table, *player, address, *at, flagged_with)
                    .await?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand(stacks: &[(u64, u64)], rake: u64) -> CompletedHand {
        CompletedHand {
            hand_id: HandId::new(),
            table_id: TableId::new(),
            number: 1,
            players: stacks
                .iter()
                .enumerate()
                .map(|(i, &(s, f))| HandPlayer {
                    player_id: PlayerId::new(),
                    seat_no: i as u32,
                    starting_stack: s,
                    finishing_stack: f,
                })
                .collect(),
            rake,
            phh: String::new(),
            record: HandRecord::default(),
            started_at: 1,
            ended_at: 2,
            fence: None,
        }
    }

    #[test]
    fn a_hand_that_does_not_conserve_chips_plans_nothing() {
        let bad = [hand(&[(100, 150), (100, 60)], 0)];
        assert!(matches!(plan(&bad, &[]), Err(StoreError::Invalid(_))));
    }

    #[test]
    fn every_movement_sums_to_zero_and_the_rake_goes_to_the_house() {
        let hands = [
            hand(&[(100, 147), (100, 50)], 3),
            hand(&[(80, 80), (90, 90)], 0),
        ];
        let plan = plan(&hands, &[]).unwrap().unwrap();
        assert_eq!((plan.hands(), plan.fresh.len()), (2, 2));
        assert_eq!(
            plan.rake,
            vec![RakeRow {
                house_account_id: format!("rake:{}", hands[0].table_id),
                amount: 3
            }]
        );
        let mut movements: std::collections::HashMap<&str, i64> = Default::default();
        for e in &plan.ledger {
            *movements.entry(&e.movement_id).or_default() += e.amount;
        }
        assert!(movements.values().all(|&sum| sum == 0), "{movements:?}");
        assert!(plan
            .ledger
            .iter()
            .any(|e| e.account == "house:rake" && e.amount == 3));
        // A hand where nobody's stack changed writes no ledger row but still its seats.
        assert_eq!(plan.ledger.len(), 3);
        assert_eq!(plan.seats.len(), 4);
        assert_eq!(
            (plan.seats[0].start, plan.seats[0].end, plan.seats[1].end),
            (100, 147, 50)
        );
    }

    #[test]
    fn a_committed_or_void_hand_is_not_planned_again_and_a_started_one_is_updated() {
        let hands = [
            hand(&[(100, 110), (100, 90)], 0),
            hand(&[(100, 110), (100, 90)], 0),
            hand(&[(100, 110), (100, 90)], 0),
        ];
        let found = vec![
            (hands[0].hand_id.to_string(), "complete".to_string()),
            (hands[1].hand_id.to_string(), "void".to_string()),
            (hands[2].hand_id.to_string(), "started".to_string()),
        ];
        let plan = plan(&hands, &found).unwrap().unwrap();
        assert_eq!((plan.started.len(), plan.fresh.len()), (1, 0));
        assert_eq!(plan.started[0].hand_id, hands[2].hand_id);
        assert!(super::plan(&hands[..2], &found).unwrap().is_none());
    }

    #[test]
    fn a_hand_whose_fence_is_not_the_leases_token_is_refused_and_an_unfenced_one_is_not() {
        let mut hands = [
            hand(&[(100, 110), (100, 90)], 0),
            hand(&[(100, 110), (100, 90)], 0),
            hand(&[(100, 110), (100, 90)], 0),
        ];
        hands[1].fence = Some(4);
        hands[2].fence = Some(u64::MAX);
        let table = |i: usize| hands[i].table_id.to_string();
        let mut wanted = vec![table(1), table(2)];
        wanted.sort();
        assert_eq!(fenced_tables(&hands), wanted, "only fenced hands' tables");
        let live = vec![(table(1), 4), (table(2), i64::MAX)];
        assert!(check_fences(&hands[..2], &live).is_ok());
        let passed = vec![(table(1), 5)];
        assert!(matches!(
            check_fences(&hands[..2], &passed),
            Err(StoreError::Fenced { token: 4, table }) if table == hands[1].table_id
        ));
        assert!(
            matches!(
                check_fences(&hands[1..2], &[]),
                Err(StoreError::Fenced { .. })
            ),
            "a fenced hand of a table without a lease"
        );
        assert!(
            matches!(
                check_fences(&hands[2..], &live),
                Err(StoreError::Fenced { .. })
            ),
            "a token past what the database holds matches no lease"
        );
        assert!(check_fences(&hands[..1], &[]).is_ok(), "no fence, no check");
    }

    #[test]
    fn amounts_past_what_the_database_holds_are_refused() {
        let huge = [hand(&[(u64::MAX, u64::MAX)], 0)];
        assert!(matches!(plan(&huge, &[]), Err(StoreError::Invalid(_))));
    }
}
