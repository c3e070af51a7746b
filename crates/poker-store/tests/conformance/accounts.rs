//! Accounts: players' names and sessions, bad requests, staff accounts and sessions, the
//! audit log, revocation and password resets.

use super::*;

pub(crate) async fn a_hands_players_are_named_by_their_ids_alone(store: &SqlStore) {
    let (a, b) = (
        player(store, "Nadia", 0).await,
        player(store, "omar", 0).await,
    );
    let stranger = PlayerId::new();
    let names = store.player_names(&[a, b, a, stranger]).await.unwrap();
    assert_eq!(names.len(), 2, "the unknown id is left out: {names:?}");
    assert_eq!((names[&a].as_str(), names[&b].as_str()), ("Nadia", "omar"));
    assert!(store.player_names(&[]).await.unwrap().is_empty());
    // More ids than one statement binds.
    let mut many: Vec<PlayerId> = (0..1200).map(|_| PlayerId::new()).collect();
    many.push(b);
    let names = store.player_names(&many).await.unwrap();
    assert_eq!(names.len(), 1);
    assert_eq!(names[&b], "omar");
}

pub(crate) async fn bad_requests_are_refused_without_moving_money(store: &SqlStore) {
    let l = player(store, "liam", 100).await;
    let m = player(store, "mia", 100).await;
    let table = store.create_table("t9", "{}").await.unwrap();
    assert!(matches!(
        store.create_player("liam", "x").await,
        Err(StoreError::NameTaken)
    ));
    assert!(matches!(
        store.deposit(l, 0, None).await,
        Err(StoreError::Invalid(_))
    ));
    assert!(matches!(
        store.deposit(PlayerId::new(), 10, None).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.withdraw(l, 101, None).await,
        Err(StoreError::InsufficientFunds { balance: 100 })
    ));
    store.buy_in(table, 0, l, 50, None, None).await.unwrap();
    assert!(matches!(
        store.buy_in(table, 0, m, 50, None, None).await,
        Err(StoreError::SeatTaken)
    ));
    assert!(matches!(
        store.buy_in(table, 1, l, 10, None, None).await,
        Err(StoreError::AlreadySeated)
    ));
    assert!(matches!(
        store.cash_out(table, m, 0, None).await,
        Err(StoreError::NotSeated)
    ));
    assert!(matches!(
        store.buy_in(table, 1, m, 500, None, None).await,
        Err(StoreError::InsufficientFunds { .. })
    ));
    assert_eq!(store.balance(m).await.unwrap(), 100);
    assert_eq!(store.balance(l).await.unwrap(), 50);
    audit_holds(store).await;
}

pub(crate) async fn sessions_survive_reconnection_and_expire(store: &SqlStore, url: &str) {
    let s = player(store, "sally", 0).await;
    let now = now_ms();
    store
        .create_session("live-hash", s, now + 60_000)
        .await
        .unwrap();
    store.create_session("old-hash", s, now - 1).await.unwrap();
    let again = SqlStore::connect(url).await.unwrap();
    let found = again
        .session("live-hash")
        .await
        .unwrap()
        .expect("a live session");
    assert_eq!((found.player_id, found.name.as_str()), (s, "sally"));
    assert!(
        again.session("old-hash").await.unwrap().is_none(),
        "expired"
    );
    assert!(again.session("no-such-hash").await.unwrap().is_none());
    assert!(again.session_expiry("live-hash").await.unwrap().unwrap() > now_ms());
    assert_eq!(again.session_expiry("old-hash").await.unwrap(), None);
    // A sign-in's one read: the player and the expiry together, nothing for an expired or
    // unknown session.
    assert_eq!(
        again.session_and_expiry("live-hash").await.unwrap(),
        Some((found.clone(), now + 60_000))
    );
    assert_eq!(again.session_and_expiry("old-hash").await.unwrap(), None);
    assert_eq!(
        again.session_and_expiry("no-such-hash").await.unwrap(),
        None
    );
    // A WebSocket's sign-in: the same player and expiry, no seat, no notice; nothing for
    // an expired or unknown session.
    assert_eq!(
        again.sign_in("live-hash").await.unwrap(),
        Some(poker_store::SignIn {
            player: found.clone(),
            expires_at: now + 60_000,
            tables: Vec::new(),
            notices: false,
        })
    );
    assert_eq!(again.sign_in("old-hash").await.unwrap(), None);
    assert_eq!(again.sign_in("no-such-hash").await.unwrap(), None);
    // What a node cut off from the others checks: which of its sessions are still live.
    let all = ["live-hash", "old-hash", "no-such-hash"];
    assert_eq!(
        again.live_sessions(&all).await.unwrap(),
        ["live-hash".to_string()].into()
    );
    assert!(again.live_sessions(&[]).await.unwrap().is_empty());
    again.delete_session("live-hash").await.unwrap();
    assert_eq!(store.session_expiry("live-hash").await.unwrap(), None);
    assert_eq!(store.session_and_expiry("live-hash").await.unwrap(), None);
    assert_eq!(store.sign_in("live-hash").await.unwrap(), None);
    assert!(store.live_sessions(&all).await.unwrap().is_empty());
    assert!(
        store.session("live-hash").await.unwrap().is_none(),
        "logged out"
    );
    again.close().await;
}

/// One rule for names before the database: NFC, no control or format characters,
/// trimmed; unique regardless of case and width; players made before name keys get
/// theirs when the store connects, and every one of them can still log in.
pub(crate) async fn names_are_checked_before_the_database_and_unique_regardless_of_case(
    store: &SqlStore,
    url: &str,
) {
    use poker_store::names::NameError;
    for bad in ["a\0b", "a\nb", "rtl\u{202E}x", "zero\u{200B}width", "   "] {
        match store.create_player(bad, "x").await {
            Err(StoreError::BadName(_)) => {}
            other => panic!("{bad:?}: {other:?}"),
        }
        assert!(matches!(
            store.player_by_name(bad).await,
            Err(StoreError::NotFound(_))
        ));
    }
    assert!(matches!(
        store.create_table("t\r\n*** SUMMARY ***", "{}").await,
        Err(StoreError::BadName(NameError::Forbidden('\r')))
    ));
    let zed = store.create_player("  Zed  ", "x").await.expect("Zed");
    for taken in ["zed", "ZED", "\u{FF3A}ed", " zed"] {
        assert!(
            matches!(
                store.create_player(taken, "x").await,
                Err(StoreError::NameTaken)
            ),
            "{taken:?}"
        );
    }
    let found = store
        .player_by_name("ZED")
        .await
        .expect("any case finds Zed");
    assert_eq!((found.player_id, found.name.as_str()), (zed, "Zed"));
    // Decomposed and precomposed forms are one name.
    store.create_player("Re\u{301}my", "x").await.expect("Rémy");
    assert_eq!(
        store.player_by_name("R\u{e9}my").await.expect("NFC").name,
        "R\u{e9}my"
    );

    // Two players stored before keys existed, whose names differ only by case.
    let raw = sqlx::AnyPool::connect(url).await.expect("raw pool");
    let dollar = |sql: &str| match store.backend() {
        poker_store::Backend::Postgres => sql.to_string(),
        poker_store::Backend::Sqlite => sql.replace('$', "?"),
    };
    for (id, name, at) in [
        (PlayerId::new(), "Legacy", now_ms()),
        (PlayerId::new(), "LEGACY", now_ms() + 1),
    ] {
        sqlx::query(&dollar(
            "insert into player (player_id, name, password_hash, created_at) values ($1, $2, 'x', $3)",
        ))
        .bind(id.to_string())
        .bind(name)
        .bind(at)
        .execute(&raw)
        .await
        .expect("an old row");
        sqlx::query(&dollar(
            "insert into wallet (player_id, balance, created_at) values ($1, 0, $2)",
        ))
        .bind(id.to_string())
        .bind(at)
        .execute(&raw)
        .await
        .expect("its wallet");
    }
    raw.close().await;
    let again = SqlStore::connect(url).await.expect("reconnect");
    assert_eq!(again.player_by_name("legacy").await.unwrap().name, "Legacy");
    assert_eq!(again.player_by_name("LEGACY").await.unwrap().name, "LEGACY");
    assert!(matches!(
        again.create_player("lEgAcY", "x").await,
        Err(StoreError::NameTaken)
    ));
    again.close().await;
    audit_holds(store).await;
}

pub(crate) async fn staff_accounts_sessions_the_audit_log_locks_and_rake_by_day(store: &SqlStore) {
    use poker_store::{AuditEntry, Role};
    // Staff: unique names regardless of case, a role each, sessions by token hash.
    let id = store
        .create_staff("Floor Fran", &hash_password("secret"), Role::Floor)
        .await
        .unwrap();
    assert!(matches!(
        store
            .create_staff("floor fran", &hash_password("x"), Role::Admin)
            .await,
        Err(StoreError::NameTaken)
    ));
    let fran = store.staff_by_name("FLOOR FRAN").await.unwrap();
    assert_eq!(
        (fran.staff_id.as_str(), fran.role),
        (id.as_str(), Role::Floor)
    );
    assert!(verify_password("secret", &fran.password_hash));
    assert!(matches!(
        store.staff_by_name("nobody").await,
        Err(StoreError::NotFound(_))
    ));
    store
        .create_staff_session("staffhash", &id, now_ms() + 60_000)
        .await
        .unwrap();
    store
        .create_staff_session("oldhash", &id, now_ms() - 1)
        .await
        .unwrap();
    assert_eq!(
        store
            .staff_session("staffhash")
            .await
            .unwrap()
            .unwrap()
            .name,
        "Floor Fran"
    );
    assert!(
        store.staff_session("oldhash").await.unwrap().is_none(),
        "expired"
    );
    assert!(store.staff_session("nohash").await.unwrap().is_none());
    store
        .create_staff_session("gonehash", &id, now_ms() + 60_000)
        .await
        .unwrap();
    store.delete_staff_session("gonehash").await.unwrap();
    assert!(
        store.staff_session("gonehash").await.unwrap().is_none(),
        "signed out"
    );
    assert!(
        store.staff_session("staffhash").await.unwrap().is_some(),
        "others stand"
    );
    assert!(store
        .staff()
        .await
        .unwrap()
        .iter()
        .any(|s| s.name == "Floor Fran"));

    // The audit log, newest first.
    for (i, action) in ["deposit", "lock_player", "create_table"]
        .iter()
        .enumerate()
    {
        store
            .record_audit(&AuditEntry {
                at: 5_000 + i as i64,
                actor: "staff:Floor Fran".into(),
                action: action.to_string(),
                target: format!("t{i}"),
                detail: "{\"amount\":5}".into(),
            })
            .await
            .unwrap();
    }
    let log = store.audit_log(2, 0).await.unwrap();
    let actions: Vec<&str> = log.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, ["create_table", "lock_player"]);
    assert_eq!(store.audit_log(2, 2).await.unwrap()[0].action, "deposit");

    // A locked player has no session; a new password ends every session.
    let p = player(store, "lockme", 0).await;
    store
        .create_session("lockhash", p, now_ms() + 60_000)
        .await
        .unwrap();
    store.set_player_locked(p, true).await.unwrap();
    assert!(store.session("lockhash").await.unwrap().is_none());
    assert!(store
        .session_and_expiry("lockhash")
        .await
        .unwrap()
        .is_none());
    assert!(store.player_by_name("lockme").await.unwrap().locked);
    store
        .create_session("lockhash2", p, now_ms() + 60_000)
        .await
        .unwrap();
    assert!(
        store.session("lockhash2").await.unwrap().is_none(),
        "locked: no session counts"
    );
    assert!(
        store
            .session_and_expiry("lockhash2")
            .await
            .unwrap()
            .is_none(),
        "locked: no session counts for a sign-in either"
    );
    assert!(
        store
            .live_sessions(&["lockhash2"])
            .await
            .unwrap()
            .is_empty(),
        "locked: not live for a node's check either"
    );
    assert_eq!(
        store.session_expiry("lockhash2").await.unwrap(),
        None,
        "locked: not live for a sign-in's second read either"
    );
    assert_eq!(
        store.sign_in("lockhash2").await.unwrap(),
        None,
        "locked: no WebSocket sign-in"
    );
    store.set_player_locked(p, false).await.unwrap();
    assert!(!store.player_by_name("lockme").await.unwrap().locked);
    assert!(store.session("lockhash2").await.unwrap().is_some());
    store
        .set_password(p, &hash_password("another"))
        .await
        .unwrap();
    assert!(
        store.session("lockhash2").await.unwrap().is_none(),
        "sessions end"
    );
    assert!(verify_password(
        "another",
        &store.player_by_name("lockme").await.unwrap().password_hash
    ));
    assert!(matches!(
        store.set_player_locked(PlayerId::new(), true).await,
        Err(StoreError::NotFound(_))
    ));

    // Rake per day and table, from the hands completed since a time.
    let (a, b) = (
        player(store, "rakea", 1000).await,
        player(store, "rakeb", 1000).await,
    );
    let table = store.create_table("rake table", "{}").await.unwrap();
    store.buy_in(table, 0, a, 500, None, None).await.unwrap();
    store.buy_in(table, 1, b, 500, None, None).await.unwrap();
    let day = 86_400_000i64;
    let mut stacks = (500, 500);
    for (n, ended) in [(1u64, 3 * day + 10), (2, 3 * day + 20), (3, 4 * day + 5)] {
        let mut h = hand(
            table,
            n,
            &[
                (a, 0, stacks.0, stacks.0 + 10),
                (b, 1, stacks.1, stacks.1 - 12),
            ],
            2,
        );
        h.started_at = ended - 5;
        h.ended_at = ended;
        stacks = (stacks.0 + 10, stacks.1 - 12);
        store
            .start_hand(h.hand_id, table, n, h.started_at, None)
            .await
            .unwrap();
        store.commit_hands(std::slice::from_ref(&h)).await.unwrap();
    }
    let rows: Vec<_> = store
        .rake_by_day(3 * day)
        .await
        .unwrap()
        .into_iter()
        .filter(|r| r.table_id == table)
        .collect();
    let summary: Vec<(&str, u64, u64)> = rows
        .iter()
        .map(|r| (r.day.as_str(), r.rake, r.hands))
        .collect();
    assert_eq!(summary, [("1970-01-05", 2, 1), ("1970-01-04", 4, 2)]);
    assert!(store
        .rake_by_day(4 * day)
        .await
        .unwrap()
        .iter()
        .all(|r| r.day != "1970-01-04"));
    audit_holds(store).await;
}

/// Staff revocation and password resets (issue 24, items 5 and 6): a disabled account has
/// no session and its sessions are gone; a staff session ends after a while unused and
/// lives on while used (sliding); the last enabled admin is kept when asked, against two
/// admins racing to disable each other; a reset code works once, before it expires, for
/// its player only, and ends their sessions; a password set by staff leaves one notice.
pub(crate) async fn staff_are_revoked_and_passwords_reset_with_one_time_codes(store: &SqlStore) {
    use poker_store::Role;
    let hash = hash_password("secret");
    let ada = store
        .create_staff("Rev Ada", &hash, Role::Admin)
        .await
        .unwrap();
    let bob = store
        .create_staff("Rev Bob", &hash, Role::Admin)
        .await
        .unwrap();
    let cas = store
        .create_staff("Rev Cas", &hash, Role::Cashier)
        .await
        .unwrap();
    assert_eq!(store.staff_by_id(&cas).await.unwrap().name, "Rev Cas");
    assert!(matches!(
        store.staff_by_id("nobody").await,
        Err(StoreError::NotFound(_))
    ));
    // Sliding idle expiry, judged at the `now` given.
    let t0 = now_ms();
    store
        .create_staff_session("rev-cas", &cas, t0 + 3_600_000)
        .await
        .unwrap();
    let idle = 60_000;
    let seen = store
        .touch_staff_session("rev-cas", t0 + 50_000, idle)
        .await
        .unwrap();
    assert_eq!(seen.map(|s| s.role), Some(Role::Cashier));
    assert!(
        store
            .touch_staff_session("rev-cas", t0 + 100_000, idle)
            .await
            .unwrap()
            .is_some(),
        "used 50 s ago: still live though created 100 s ago"
    );
    assert!(
        store
            .touch_staff_session("rev-cas", t0 + 170_000, idle)
            .await
            .unwrap()
            .is_none(),
        "idle 70 s: over"
    );
    assert!(
        store
            .touch_staff_session("rev-cas", t0 + 100_001, idle)
            .await
            .unwrap()
            .is_none(),
        "an idle session is not brought back"
    );
    assert!(
        store
            .touch_staff_session("rev-cas", t0 + 4_000_000, i64::MAX / 4)
            .await
            .unwrap()
            .is_none(),
        "expired"
    );

    // Disabling ends every session at once; enabling does not bring them back.
    for h in ["rev-cas-1", "rev-cas-2"] {
        store
            .create_staff_session(h, &cas, now_ms() + 3_600_000)
            .await
            .unwrap();
    }
    store.set_staff_disabled(&cas, true, true).await.unwrap();
    assert!(store.staff_by_id(&cas).await.unwrap().disabled);
    assert!(store.staff_session("rev-cas-1").await.unwrap().is_none());
    store
        .create_staff_session("rev-cas-3", &cas, now_ms() + 3_600_000)
        .await
        .unwrap();
    assert!(
        store
            .touch_staff_session("rev-cas-3", now_ms(), idle)
            .await
            .unwrap()
            .is_none(),
        "a disabled account has no session"
    );
    store.set_staff_disabled(&cas, false, true).await.unwrap();
    assert!(store.staff_session("rev-cas-1").await.unwrap().is_none());
    assert!(store.staff_session("rev-cas-3").await.unwrap().is_some());
    assert_eq!(store.end_staff_sessions(&cas).await.unwrap(), 1);
    assert!(store.staff_session("rev-cas-3").await.unwrap().is_none());
    // Another role; a new password ends the sessions.
    assert_eq!(
        store.set_staff_role(&cas, Role::Floor, true).await.unwrap(),
        Role::Cashier
    );
    store
        .create_staff_session("rev-cas-4", &cas, now_ms() + 3_600_000)
        .await
        .unwrap();
    store
        .set_staff_password(&cas, &hash_password("newer"))
        .await
        .unwrap();
    assert!(store.staff_session("rev-cas-4").await.unwrap().is_none());
    let cas_row = store.staff_by_id(&cas).await.unwrap();
    assert_eq!(cas_row.role, Role::Floor);
    assert!(verify_password("newer", &cas_row.password_hash));
    assert!(matches!(
        store.set_staff_role("nobody", Role::Floor, true).await,
        Err(StoreError::NotFound(_))
    ));

    // The last enabled admin. Other suites' admins are made enabled-or-not here, so this
    // room's admins are exactly Ada and Bob.
    for s in store.staff().await.unwrap() {
        if s.role == Role::Admin && s.staff_id != ada && s.staff_id != bob {
            store
                .set_staff_role(&s.staff_id, Role::Floor, false)
                .await
                .unwrap();
        }
    }
    // Two admins disabling each other at once: one wins, one admin is left.
    let (a, b) = tokio::join!(
        store.set_staff_disabled(&ada, true, true),
        store.set_staff_disabled(&bob, true, true)
    );
    assert!(
        a.is_ok() != b.is_ok(),
        "exactly one of the two is disabled: {a:?} {b:?}"
    );
    let (left, gone) = if a.is_ok() {
        (&bob, &ada)
    } else {
        (&ada, &bob)
    };
    assert!(matches!(
        store.set_staff_disabled(left, true, true).await,
        Err(StoreError::LastAdmin)
    ));
    assert!(matches!(
        store.set_staff_role(left, Role::Cashier, true).await,
        Err(StoreError::LastAdmin)
    ));
    assert_eq!(
        store.set_staff_role(left, Role::Admin, true).await.unwrap(),
        Role::Admin,
        "an admin made admin again changes nothing"
    );
    // A disabled admin does not count; without the guard, anything goes.
    assert_eq!(
        store.set_staff_role(gone, Role::Floor, true).await.unwrap(),
        Role::Admin
    );
    store.set_staff_disabled(left, true, false).await.unwrap();
    assert!(store.staff_by_id(left).await.unwrap().disabled);
    store.set_staff_disabled(left, false, true).await.unwrap();

    // Reset codes: one per player, unexpired, once, for their player only.
    let p = player(store, "resetme", 0).await;
    let other = player(store, "notme", 0).await;
    store
        .create_session("reset-s1", p, now_ms() + 60_000)
        .await
        .unwrap();
    let t = now_ms();
    store
        .issue_reset_code(p, "code-1", "staff:Rev Cas", t + 60_000)
        .await
        .unwrap();
    assert!(
        store.session("reset-s1").await.unwrap().is_some(),
        "issuing a code ends no session"
    );
    store
        .issue_reset_code(p, "code-2", "staff:Rev Cas", t + 60_000)
        .await
        .unwrap();
    assert!(matches!(
        store
            .issue_reset_code(PlayerId::new(), "x", "token", t)
            .await,
        Err(StoreError::NotFound(_))
    ));
    let new_hash = hash_password("fresh-password");
    for (who, code, at) in [
        (p, "code-1", t),
        (other, "code-2", t),
        (p, "code-2", t + 60_000),
        (p, "wrong", t),
    ] {
        assert!(
            store
                .use_reset_code(who, code, &new_hash, at)
                .await
                .unwrap()
                .is_none(),
            "{code} at {at} for the wrong player, replaced or expired"
        );
    }
    assert!(store.session("reset-s1").await.unwrap().is_some());
    assert!(store.take_password_notice(p).await.unwrap().is_none());
    let used = store
        .use_reset_code(p, "code-2", &new_hash, t + 1)
        .await
        .unwrap()
        .expect("the live code");
    assert_eq!(
        (used.player_id, used.issued_by.as_str()),
        (p, "staff:Rev Cas")
    );
    assert!(
        store
            .use_reset_code(p, "code-2", &new_hash, t + 2)
            .await
            .unwrap()
            .is_none(),
        "used once"
    );
    assert!(
        store.session("reset-s1").await.unwrap().is_none(),
        "sessions end"
    );
    assert!(verify_password(
        "fresh-password",
        &store.player_by_name("resetme").await.unwrap().password_hash
    ));
    let notice = store.take_password_notice(p).await.unwrap().unwrap();
    assert_eq!((notice.by.as_str(), notice.at), ("staff:Rev Cas", t + 1));
    assert!(
        store.take_password_notice(p).await.unwrap().is_none(),
        "told once"
    );
    // Set by an admin: any code is void, a notice is left.
    store
        .issue_reset_code(p, "code-3", "staff:Rev Cas", t + 60_000)
        .await
        .unwrap();
    store
        .staff_set_password(p, &hash_password("by-admin-1"), "token", t + 5)
        .await
        .unwrap();
    assert!(store
        .use_reset_code(p, "code-3", &new_hash, t + 6)
        .await
        .unwrap()
        .is_none());
    assert_eq!(
        store.take_password_notice(p).await.unwrap().unwrap().by,
        "token"
    );
    assert!(matches!(
        store
            .staff_set_password(PlayerId::new(), "x", "token", t)
            .await,
        Err(StoreError::NotFound(_))
    ));

    // A name that reads as an id is refused for players, staff and tables; an account
    // named so before the rule is still found by its name.
    let id_like = other.to_string().replace('-', "");
    assert!(matches!(
        store.create_player(&id_like, "x").await,
        Err(StoreError::BadName(
            poker_store::names::NameError::LooksLikeId
        ))
    ));
    assert!(matches!(
        store
            .create_staff(&id_like.to_uppercase(), "x", Role::Floor)
            .await,
        Err(StoreError::BadName(_))
    ));
    assert!(matches!(
        store.create_table(&other.to_string(), "{}").await,
        Err(StoreError::BadName(_))
    ));
    audit_holds(store).await;
}
