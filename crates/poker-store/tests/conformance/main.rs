//! The store's conformance suite, run against a real PostgreSQL (a throwaway cluster, or
//! `DATABASE_URL`) and a real SQLite file. Every scenario ends with the ledger audit:
//! wallets + table stacks + rake = deposits - withdrawals, every movement balanced, every
//! account's ledger equal to its balance.
//!
//! Each scenario is its own test on each backend (`sqlite::NAME`, `postgres::NAME`), on a
//! fresh database of its own (a SQLite file; a schema of its own in the PostgreSQL cluster
//! the tests running at once share, or a new database in the server `DATABASE_URL` names),
//! so a failure names its scenario and the scenarios run in parallel.

mod accounts;
mod archive;
mod audit;
mod buy_ins;
mod fair_play;
mod fences;
mod hands;
mod leases;
mod money;
mod notes;
mod skew;

use poker_store::testing::{TestPostgres, TestSqlite};
use poker_store::{
    hash_password, now_ms, verify_password, Backend, Chips, CompletedHand, Credit, HandId,
    HandPlayer, HandRecord, HandStart, HandStatus, Lease, Persister, PlayerId, SqlStore,
    StoreError, TableId, TableStatus, TableWrite, MAX_MONEY,
};
use std::sync::Arc;

async fn audit_holds(store: &SqlStore) {
    let audit = store.audit().await.expect("audit");
    assert!(audit.holds(), "the ledger invariant broke: {audit:?}");
}

/// What `player` last left `table` with, as the table's actor reads it at its start
/// (`ratholes_since`, here from the beginning of time).
async fn rathole(
    store: &SqlStore,
    table: TableId,
    player: PlayerId,
) -> Option<poker_store::RatholeRow> {
    let all = store
        .ratholes_since(table, i64::MIN)
        .await
        .expect("ratholes");
    all.into_iter().find(|(p, _)| *p == player).map(|(_, r)| r)
}

/// The password hash every scenario's players share: hashed once per process (a hash is
/// made slow on purpose; a scenario of 360 players spent 11 s hashing the same password).
fn secret_hash() -> &'static str {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| hash_password("secret"))
}

async fn player(store: &SqlStore, name: &str, deposit: Chips) -> PlayerId {
    let id = store
        .create_player(name, secret_hash())
        .await
        .expect("player");
    if deposit > 0 {
        store.deposit(id, deposit, None).await.expect("deposit");
    }
    id
}

fn hand(
    table: TableId,
    number: u64,
    players: &[(PlayerId, u32, Chips, Chips)],
    rake: Chips,
) -> CompletedHand {
    CompletedHand {
        hand_id: HandId::new(),
        table_id: table,
        number,
        players: players
            .iter()
            .map(
                |&(player_id, seat_no, starting_stack, finishing_stack)| HandPlayer {
                    player_id,
                    seat_no,
                    starting_stack,
                    finishing_stack,
                },
            )
            .collect(),
        rake,
        phh: format!("variant = 'NT'\n# hand {number}\n"),
        record: HandRecord {
            button: number as usize,
            ..HandRecord::default()
        },
        started_at: 1_000 + number as i64,
        ended_at: 2_000 + number as i64,
        fence: None,
    }
}

/// A fresh SQLite file and the store on it, unless this process is a child of
/// [`skew`] (which runs its own role alone).
async fn on_sqlite() -> Option<(TestSqlite, SqlStore)> {
    if std::env::var_os(skew::SKEWED_NODE_ENV).is_some() {
        return None;
    }
    let db = TestSqlite::new();
    let store = SqlStore::connect(&db.url)
        .await
        .expect("connect and migrate");
    Some((db, store))
}

/// Two players seated at two tables (`PREFIX-a`, `PREFIX-b`; the first table's lease
/// held by `node-a`, whose token is returned): the fencing scenarios' room.
async fn two_tables_one_leased(
    store: &SqlStore,
    prefix: &str,
) -> (PlayerId, PlayerId, TableId, TableId, u64) {
    let (a, b) = (
        player(store, &format!("{prefix}-a"), 1000).await,
        player(store, &format!("{prefix}-b"), 1000).await,
    );
    let table = store
        .create_table(&format!("{prefix}-fenced"), "{}")
        .await
        .unwrap();
    let other = store
        .create_table(&format!("{prefix}-other"), "{}")
        .await
        .unwrap();
    store.buy_in(table, 0, a, 500, None, None).await.unwrap();
    store.buy_in(table, 1, b, 500, None, None).await.unwrap();
    store.buy_in(other, 0, a, 100, None, None).await.unwrap();
    store.buy_in(other, 1, b, 100, None, None).await.unwrap();
    let lease = store
        .acquire_lease(table, "node-a", 60_000)
        .await
        .unwrap()
        .unwrap();
    (a, b, table, other, lease)
}

/// A fresh PostgreSQL database and the store on it (`None` when PostgreSQL is not
/// installed, outside CI, or in a child of [`skew`]).
async fn on_postgres(what: &str) -> Option<(TestPostgres, SqlStore)> {
    if std::env::var_os(skew::SKEWED_NODE_ENV).is_some() {
        return None;
    }
    let db = TestPostgres::shared_or_skip(what).await?;
    let store = SqlStore::connect(&db.url)
        .await
        .expect("connect and migrate");
    Some((db, store))
}

/// Calls a scenario with the store, and with its URL when the scenario takes one
/// (`, url` after its name).
macro_rules! call {
    ($scenario:path, $store:expr, $url:expr) => {{
        let _ = $url;
        $scenario($store).await
    }};
    ($scenario:path, $store:expr, $url:expr, url) => {
        $scenario($store, $url).await
    };
}

/// One test per scenario and backend: `sqlite::NAME` and `postgres::NAME`.
macro_rules! scenarios {
    ($($module:ident :: $name:ident $(, $url:ident)?;)*) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let Some((db, store)) = super::on_sqlite().await else {
                        return;
                    };
                    call!(super::$module::$name, &store, &db.url $(, $url)?);
                    store.close().await;
                }
            )*
        }

        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let Some((db, store)) = super::on_postgres(stringify!($name)).await else {
                        return;
                    };
                    call!(super::$module::$name, &store, &db.url $(, $url)?);
                    store.close().await;
                }
            )*
        }
    };
}

scenarios! {
    money::deposits_buy_ins_top_ups_and_cash_outs_move_money_with_ledger_records;
    money::the_wallet_never_goes_negative_under_concurrent_requests;
    money::retried_operations_with_an_idempotency_key_apply_once;
    money::an_idempotency_key_names_one_request_of_its_player_whatever_its_kind, url;
    money::no_deposit_lets_the_money_in_the_room_pass_its_bound;
    money::a_hosts_stack_adjustment_moves_chips_with_its_ledger_record_and_shows_in_the_table_ledger;
    audit::audit_with_a_checkpoint_agrees_with_the_full_audit_as_hands_go_on, url;
    audit::audit_a_checkpoint_never_skips_a_movement_committed_after_it, url;
    audit::audit_full_sees_a_ledger_row_changed_under_the_checkpoint, url;
    buy_ins::buy_ins_in_one_batch_are_applied_or_refused_one_by_one;
    buy_ins::the_persister_group_commits_many_tables_buy_ins;
    buy_ins::buy_ins_a_batch_of_good_ones_leaves_what_one_by_one_does;
    hands::a_committed_hand_changes_stacks_exactly_once;
    hands::missed_blinds_and_rathole_records_survive_reconnection, url;
    hands::crash_recovery_voids_the_unfinished_hand_and_keeps_committed_stacks, url;
    hands::a_failed_tables_hand_is_voided_and_no_other;
    hands::hand_histories_are_queried_by_id_table_and_player_newest_first;
    hands::a_players_pages_are_their_hands_newest_dealt_first_whatever_their_ends;
    hands::a_hands_deck_record_reads_back_whole;
    hands::the_persister_commits_many_tables_hands_in_batches;
    hands::the_persister_writes_many_tables_starts_states_and_hands_together;
    hands::a_group_of_starts_writes_and_hands_is_written_together;
    hands::awkward_text_and_many_tables_in_one_group_are_written_exactly;
    accounts::a_hands_players_are_named_by_their_ids_alone;
    accounts::bad_requests_are_refused_without_moving_money;
    accounts::sessions_survive_reconnection_and_expire, url;
    accounts::names_are_checked_before_the_database_and_unique_regardless_of_case, url;
    accounts::staff_accounts_sessions_the_audit_log_locks_and_rake_by_day;
    accounts::staff_are_revoked_and_passwords_reset_with_one_time_codes;
    leases::lease_first_tables_are_made_once_by_nodes_starting_together;
    leases::lease_a_table_is_held_by_one_node_until_it_expires_or_is_released;
    leases::a_table_is_found_by_its_id_whatever_its_status;
    leases::lease_renewing_many_at_once_keeps_only_those_still_held;
    leases::lease_candidates_are_the_open_tables_without_a_live_lease;
    leases::lease_two_nodes_racing_for_a_table_never_both_win;
    fences::lease_a_hand_with_a_stale_fence_is_refused_and_moves_no_chip;
    fences::lease_money_moves_with_a_stale_fence_are_refused_and_move_nothing;
    fair_play::fair_play_sit_addresses_flags_shared_addresses_and_hands_of_a_window_or_a_pair;
    fair_play::fair_play_table_writes_in_one_batch_are_as_one_by_one_and_a_bad_one_writes_none;
    fair_play::fair_play_sits_count_first_to_last_in_any_order_and_batches_do_not_deadlock;
    fair_play::fair_play_a_sits_address_beside_a_fenced_hand_counts_once;
    notes::notes_are_private_to_their_owner_replaced_deleted_and_checked;
    notes::a_players_hands_are_read_by_date_oldest_first;
    notes::seat_release_notices_are_kept_until_told_once_to_their_player;
    notes::a_players_results_and_ranges_are_read_by_the_deal_and_rows_of_the_previous_release_too, url;
    archive::archive_moves_the_hands_dealt_before_a_day_to_verified_monthly_files_and_keeps_the_rest;
    archive::archive_a_second_run_at_the_same_time_is_refused_and_a_dead_runs_lock_is_let_go, url;
    archive::archive_a_rerun_deletes_the_hands_a_stopped_run_named_without_writing_them_again, url;
}

/// Several nodes' commits (Postgres only: an embedded SQLite has one writer).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_a_node_frozen_mid_commit_holds_no_other_tables_hand() {
    let Some((db, store)) =
        on_postgres("a_node_frozen_mid_commit_holds_no_other_tables_hand").await
    else {
        return;
    };
    hands::a_node_frozen_mid_commit_holds_no_other_tables_hand(&store, &db.url).await;
    store.close().await;
}

/// A void racing a commit (Postgres only: SQLite's commit reads and writes in one write
/// transaction, which no void can enter).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_a_hand_voided_while_its_commit_runs_moves_no_chip() {
    let Some((db, store)) = on_postgres("a_hand_voided_while_its_commit_runs_moves_no_chip").await
    else {
        return;
    };
    hands::a_hand_voided_while_its_commit_runs_moves_no_chip(&store, &db.url).await;
    store.close().await;
}

/// Several nodes' clocks (Postgres only: an embedded SQLite has one process's clock).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_lease_no_nodes_clock_decides_whether_a_lease_is_live() {
    let Some((db, store)) =
        on_postgres("lease_no_nodes_clock_decides_whether_a_lease_is_live").await
    else {
        return;
    };
    skew::lease_no_nodes_clock_decides_whether_a_lease_is_live(&store, &db.url).await;
    store.close().await;
}

/// A run whose session-held lock is lost (PostgreSQL only: SQLite's lock is a file lock
/// of the process).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_archive_a_run_whose_lock_is_lost_stops_before_naming_a_file_or_deleting() {
    let Some((db, store)) =
        on_postgres("archive_a_run_whose_lock_is_lost_stops_before_naming_a_file_or_deleting")
            .await
    else {
        return;
    };
    archive::archive_a_run_whose_lock_is_lost_stops_before_naming_a_file_or_deleting(
        &store, &db.url,
    )
    .await;
    store.close().await;
}
