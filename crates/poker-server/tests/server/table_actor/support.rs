//! What the table actor tests share: the table's rules, starting an actor on a real SQLite
//! store, two funded players, answering decisions and the conservation check.

use super::*;

pub(super) fn rules() -> TableRules {
    TableRules {
        game: Game::Holdem,
        structure: Structure::NoLimit,
        stakes: Stakes {
            min_bet: 2,
            ..Stakes::default()
        },
        max_raises: None,
        uncapped_heads_up: false,
        seat_count: 6,
        small_blind: 1,
        big_blind: 2,
        ante: AnteRule::None,
        button: ButtonRule::Dead,
        missed_blinds: MissedBlindRule::DeadSmallLiveBig,
        min_buy_in: 40,
        max_buy_in: 200,
        rathole_secs: 3600,
        max_missed_big_blinds: 10,
        kill: None,
        rock: false,
        straddle: false,
        options: Default::default(),
    }
}

pub(super) async fn spawn(table_id: TableId, store: &Arc<SqlStore>) -> TableHandle {
    let lobby = Arc::new(Lobby::default());
    spawn_with(table_id, store, &lobby, &Arc::new(Metrics::default())).await
}

/// A table publishing to this lobby and counting in these metrics.
pub(super) async fn spawn_with(
    table_id: TableId,
    store: &Arc<SqlStore>,
    lobby: &Arc<Lobby>,
    metrics: &Arc<Metrics>,
) -> TableHandle {
    start(table_id, store, lobby, metrics, Duration::ZERO).await
}

/// A table that holds back what concerns an onlooker for up to `coalesce`.
pub(super) async fn start(
    table_id: TableId,
    store: &Arc<SqlStore>,
    lobby: &Arc<Lobby>,
    metrics: &Arc<Metrics>,
    coalesce: Duration,
) -> TableHandle {
    let context = table_context(store, lobby, metrics, coalesce);
    table_actor::spawn(table_id, "NL 1/2".into(), nl_spec(), context)
        .await
        .unwrap()
}

/// NL 1/2 with the next hand at once.
pub(super) fn nl_spec() -> TableSpec {
    TableSpec {
        rules: rules(),
        clock: ClockRules {
            between_hands_ms: 0,
            ..ClockRules::default()
        },
        chat: Default::default(),
        rabbit_hunt: false,
        private: None,
    }
}

/// What a table runs with here: this store and a persister of its own, no fence or lease.
pub(super) fn table_context(
    store: &Arc<SqlStore>,
    lobby: &Arc<Lobby>,
    metrics: &Arc<Metrics>,
    coalesce: Duration,
) -> TableContext {
    TableContext {
        store: store.clone(),
        persister: Persister::spawn(store.clone(), 64),
        lobby: lobby.clone(),
        metrics: metrics.clone(),
        fence: None,
        lease: None,
        coalesce,
        same_address: poker_server::fairplay::SameAddressSeating::Allow,
        clock: poker_server::room_clock::RoomClock::default(),
    }
}

/// Ann and Ben, 1,000 in each wallet, and a table for them.
pub(super) async fn ann_and_ben(
    store: &SqlStore,
) -> (poker_store::PlayerId, poker_store::PlayerId, TableId) {
    let (a, b) = (
        store.create_player("ann", "x").await.unwrap(),
        store.create_player("ben", "x").await.unwrap(),
    );
    store.deposit(a, 1000, None).await.unwrap();
    store.deposit(b, 1000, None).await.unwrap();
    let table_id = store.create_table("NL 1/2", "{}").await.unwrap();
    (a, b, table_id)
}

/// The books balance and hold exactly what was deposited.
pub(super) async fn assert_conserved(store: &SqlStore, deposited: i64) {
    let audit = store.audit().await.unwrap();
    assert!(audit.holds(), "{audit:?}");
    assert_eq!(audit.wallets + audit.stacks + audit.rake, deposited);
}

/// Calls or checks when asked.
pub(super) async fn answer(table: &TableHandle, me: poker_store::PlayerId, msg: ServerMsg) {
    if let ServerMsg::Decide {
        decision_id, legal, ..
    } = msg
    {
        let action = if legal.call.is_some() {
            Action::Call
        } else {
            Action::Check
        };
        table.act(me, decision_id, action).await.unwrap();
    }
}

pub(super) async fn next(rx: &mut table_actor::Subscription) -> ServerMsg {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("a message in time")
        .expect("the table is open")
}
