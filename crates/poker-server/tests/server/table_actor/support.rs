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
        bomb_pot: None,
        dealers_choice: Vec::new(),
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
        play_money: true,
    }
}

/// Ann and Ben, 1,000 in each wallet, and a table for them.
pub(super) async fn ann_and_ben(
    store: &SqlStore,
) -> (poker_store::PlayerId, poker_store::PlayerId, TableId) {
    two_at(store, ["ann", "ben"], 1000, "NL 1/2").await
}

/// Two players with `deposit` in each wallet, and a table named `table` for them.
pub(super) async fn two_at(
    store: &SqlStore,
    [a, b]: [&str; 2],
    deposit: u64,
    table: &str,
) -> (poker_store::PlayerId, poker_store::PlayerId, TableId) {
    let (a, b) = (
        store.create_player(a, "x").await.unwrap(),
        store.create_player(b, "x").await.unwrap(),
    );
    store.deposit(a, deposit, None).await.unwrap();
    store.deposit(b, deposit, None).await.unwrap();
    let table_id = store.create_table(table, "{}").await.unwrap();
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

/// Three players at a fresh table: the database (kept while the test runs), the store,
/// the players, the table and each player's messages in seat order.
pub(super) type Three = (
    TestSqlite,
    Arc<SqlStore>,
    Vec<poker_store::PlayerId>,
    TableId,
    TableHandle,
    Vec<table_actor::Subscription>,
);

/// Three players at a fresh table: 500 in each wallet, 100 each at seats 0, 2 and 4 (sat
/// as `p0`, `p1`, `p2`), each subscribed.
pub(super) async fn three_seated(names: [&str; 3]) -> Three {
    let db = TestSqlite::new();
    let store = Arc::new(SqlStore::connect(&db.url).await.unwrap());
    let mut players = Vec::new();
    for name in names {
        let p = store.create_player(name, "x").await.unwrap();
        store.deposit(p, 500, None).await.unwrap();
        players.push(p);
    }
    let table_id = store.create_table("t", "{}").await.unwrap();
    let table = spawn(table_id, &store).await;
    let mut rx = Vec::new();
    for &p in &players {
        rx.push(table.subscribe(Some(p), 1024).await);
    }
    for (i, &p) in players.iter().enumerate() {
        table
            .sit(p, format!("p{i}"), i as u32 * 2, 100, Entry::PostNow)
            .await
            .unwrap();
    }
    (db, store, players, table_id, table, rx)
}

/// Checks when it may, else folds.
pub(super) fn check_or_fold(legal: &poker_rules::LegalActions) -> Action {
    if legal.check {
        Action::Check
    } else {
        Action::Fold
    }
}

/// Seats a player (posting at once), who must be seated.
pub(super) async fn sit_now(
    table: &TableHandle,
    player: poker_store::PlayerId,
    name: &str,
    seat: u32,
    buy_in: u64,
) {
    let entry = Entry::PostNow;
    table
        .sit(player, name.into(), seat, buy_in, entry)
        .await
        .unwrap();
}

/// Seats a player (posting at once), who must be refused: the refusal's code.
pub(super) async fn sit_refused(
    table: &TableHandle,
    player: poker_store::PlayerId,
    name: &str,
    seat: u32,
    buy_in: u64,
) -> ErrorCode {
    let entry = Entry::PostNow;
    let refused = table.sit(player, name.into(), seat, buy_in, entry).await;
    refused.unwrap_err().code()
}

/// Calls when there is a bet, else checks.
pub(super) fn call_or_check(legal: &poker_rules::LegalActions) -> Action {
    if legal.call.is_some() {
        Action::Call
    } else {
        Action::Check
    }
}

/// The stacks at the table as stored, in seat order.
pub(super) async fn stacks_of(store: &SqlStore, table_id: TableId) -> Vec<u64> {
    let seats = store.seats(table_id).await.unwrap();
    seats.iter().map(|s| s.stack).collect()
}
