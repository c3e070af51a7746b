//! The fair-play operations on both backends: sit addresses, same-address flags and the
//! reads of the collusion report.

use std::collections::HashMap;

use super::*;

/// An address as the store keeps it: 1 to [`MAX_ADDRESS_LEN`] characters, no control
/// character.
pub(crate) fn check_address(address: &str) -> StoreResult<&str> {
    let n = address.chars().count();
    if n == 0 || n > MAX_ADDRESS_LEN || address.chars().any(char::is_control) {
        return Err(StoreError::Invalid(format!(
            "an address has 1 to {MAX_ADDRESS_LEN} characters, none a control character"
        )));
    }
    Ok(address)
}

/// The complete hands two players were dealt in, dealt in a window of time, newest first,
/// with `$1` and `$2` the players, `$3` to `$4` the window and `$5` the limit, and a
/// condition added before the order (a literal).
///
/// Both players' rows know when their hand was dealt (`hand_player_started`): one side
/// reads its hands of the window from the index, the other is looked up in the same index
/// by that deal time and hand (a hand's rows share its `started_at`, so no row is read
/// from the heap: on SQLite the lookup by hand read six rows a hand, 65 ms at 10M hands
/// against 6), and only the pair's common hands are read from `hand`. Rows a node of the
/// previous release wrote during a roll do not (`started_at` null, on both rows of a hand:
/// one commit writes them): those are read the old way, from their commit (`created_at`,
/// at or after the deal).
macro_rules! hands_together {
    ($and:literal) => {
        concat!(
            "select ",
            hand_columns!(),
            " from (select x.hand_id, x.started_at as s from hand_player x \
               join hand_player y on y.hand_id = x.hand_id \
               where x.player_id = $1 and y.player_id = $2 \
               and x.started_at >= $3 and x.started_at < $4 \
               and y.started_at = x.started_at \
             union all select x.hand_id, o.started_at from hand_player x \
               join hand_player y on y.hand_id = x.hand_id join hand o on o.hand_id = x.hand_id \
               where x.player_id = $1 and y.player_id = $2 \
               and x.started_at is null and y.started_at is null \
               and x.created_at >= $3 and y.created_at >= $3 \
               and o.started_at >= $3 and o.started_at < $4) p \
             join hand h on h.hand_id = p.hand_id where h.status = 'complete'",
            $and,
            " order by p.s desc, p.hand_id limit $5"
        )
    };
}

/// The hands of a pair at any table.
const HANDS_TOGETHER: &str = hands_together!("");

/// The hands of a pair at one table, `$6`.
const HANDS_TOGETHER_AT_TABLE: &str = hands_together!(" and h.poker_table_id = $6");

/// The histories of some hands (one JSON array of ids): those whose records lack their
/// folds, for the collusion report to replay.
const PHH_OF: Dialects = Dialects {
    postgres: "select hand_id, phh from hand \
               where hand_id in (select jsonb_array_elements_text(cast($1 as jsonb)))",
    sqlite: "select hand_id, phh from hand where hand_id in (select value from json_each($1))",
};

/// Hands whose histories one statement reads.
const PHH_CHUNK: usize = 1_000;

impl SqlStore {
    /// Records the client address (see [`AddressFlag::address`]) a player has just sat
    /// down from at a table and, for each player of `flagged_with` (seated there from that
    /// address, as the table decided), an [`AddressFlag`], in one transaction. The seat's
    /// address replaces any older one of that player at that table; the player's list of
    /// addresses counts the sit.
    pub async fn record_sit_address(
        &self,
        table: TableId,
        player: PlayerId,
        address: &str,
        at: i64,
        flagged_with: &[PlayerId],
    ) -> StoreResult<()> {
        let mut tx = self.begin().await?;
        self.sit_address_in(&mut tx, table, player, address, at, flagged_with)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// [`SqlStore::record_sit_address`] inside `tx`.
    pub(crate) async fn sit_address_in(
        &self,
        tx: &mut Tx,
        table: TableId,
        player: PlayerId,
        address: &str,
        at: i64,
        flagged_with: &[PlayerId],
    ) -> StoreResult<()> {
        let address = check_address(address)?;
        let now = now_ms();
        sqlx::query(
            "insert into seat_address (poker_table_id, player_id, address, at, created_at) \
             values ($1, $2, $3, $4, $5) \
             on conflict (poker_table_id, player_id) do update set address = excluded.address, at = excluded.at",
        )
        .bind(table.to_string())
        .bind(player.to_string())
        .bind(address)
        .bind(at)
        .bind(now)
        .execute(&mut **tx)
        .await?;
        // The first and last sits from the address, whatever order the sits are written
        // in (two sits' writes may pass each other).
        let (least, greatest) = match self.backend {
            Backend::Postgres => ("least", "greatest"),
            Backend::Sqlite => ("min", "max"),
        };
        sqlx::query(&format!(
            "insert into player_address (player_id, address, first_at, last_at, sits, created_at) \
             values ($1, $2, $3, $3, 1, $4) \
             on conflict (player_id, address) do update \
             set first_at = {least}(player_address.first_at, excluded.first_at), \
             last_at = {greatest}(player_address.last_at, excluded.last_at), \
             sits = player_address.sits + 1"
        ))
        .bind(player.to_string())
        .bind(address)
        .bind(at)
        .bind(now)
        .execute(&mut **tx)
        .await?;
        for other in flagged_with {
            sqlx::query(
                "insert into address_flag (address_flag_id, poker_table_id, player_id, other_player_id, address, at, created_at) \
                 values ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(uuid::Uuid::new_v4().to_string())
            .bind(table.to_string())
            .bind(player.to_string())
            .bind(other.to_string())
            .bind(address)
            .bind(at)
            .bind(now)
            .execute(&mut **tx)
            .await?;
        }
        Ok(())
    }

    /// The addresses the players seated at a table sat down from: only addresses recorded
    /// since the player took the seat they hold now.
    pub async fn seat_addresses(&self, table: TableId) -> StoreResult<Vec<(PlayerId, String)>> {
        let rows: Vec<(String, String)> = sqlx::query_as(
            "select a.player_id, a.address from seat_address a join seat s \
             on s.poker_table_id = a.poker_table_id and s.player_id = a.player_id \
             where a.poker_table_id = $1 and a.at >= s.created_at order by a.player_id",
        )
        .bind(table.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(player, address)| Ok((PlayerId(uuid(&player)?), address)))
            .collect()
    }

    /// Same-address pairs, newest first.
    pub async fn address_flags(&self, limit: u32, offset: u32) -> StoreResult<Vec<AddressFlag>> {
        let rows: Vec<SqlAddressFlag> = sqlx::query_as(
            "select address_flag_id, poker_table_id, player_id, other_player_id, address, at \
             from address_flag order by at desc, address_flag_id limit $1 offset $2",
        )
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// Every address that more than one player has sat down from, with each such player,
    /// among sits at or after `since` (unix milliseconds); by address, then player.
    pub async fn shared_addresses(&self, since: i64) -> StoreResult<Vec<PlayerAddress>> {
        let rows: Vec<SqlPlayerAddress> = sqlx::query_as(
            "select player_id, address, first_at, last_at, sits from player_address \
             where last_at >= $1 and address in (select address from player_address \
             where last_at >= $1 group by address having count(*) > 1) \
             order by address, player_id",
        )
        .bind(since)
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// What the collusion report reads of the complete hands dealt from `since` to before
    /// `until` (unix milliseconds), at any table, newest first, at most `limit`: each
    /// record's players, stacks and folds, and the history only of a hand whose record
    /// lacks its folds (read by a second statement, for those hands alone). A record is
    /// read as text and only those fields parsed: a hand's deck and history are most of
    /// its row's bytes, and the report needs neither.
    pub async fn fair_play_hands(
        &self,
        since: i64,
        until: i64,
        limit: u32,
    ) -> StoreResult<Vec<FairPlayHand>> {
        let rows: Vec<(String, i64, Option<String>)> = sqlx::query_as(
            "select hand_id, started_at, record from hand \
             where started_at >= $1 and started_at < $2 \
             and status = 'complete' order by started_at desc, hand_id limit $3",
        )
        .bind(since)
        .bind(until)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        let mut hands = Vec::with_capacity(rows.len());
        let mut replayed: HashMap<String, usize> = HashMap::new();
        for (hand_id, started_at, record) in rows {
            let facts: Option<HandFacts> = record
                .map(|r| serde_json::from_str(&r))
                .transpose()
                .map_err(|e| StoreError::Corrupt(format!("a hand record: {e}")))?;
            if facts.as_ref().is_some_and(|f| f.folds.is_none()) {
                replayed.insert(hand_id.clone(), hands.len());
            }
            hands.push(FairPlayHand {
                hand_id: HandId(uuid(&hand_id)?),
                started_at,
                facts,
                phh: None,
            });
        }
        let ids: Vec<&String> = replayed.keys().collect();
        for chunk in ids.chunks(PHH_CHUNK) {
            let phhs: Vec<(String, Option<String>)> = sqlx::query_as(PHH_OF.of(self.backend))
                .bind(json_rows(chunk)?)
                .fetch_all(&self.pool)
                .await?;
            for (hand_id, phh) in phhs {
                if let Some(&i) = replayed.get(&hand_id) {
                    hands[i].phh = phh;
                }
            }
        }
        Ok(hands)
    }

    /// Complete hands both players were dealt in, dealt from `since` to before `until`
    /// (at one table if given), newest first, at most `limit`.
    #[allow(clippy::too_many_arguments)]
    pub async fn hands_together(
        &self,
        a: PlayerId,
        b: PlayerId,
        table: Option<TableId>,
        since: i64,
        until: i64,
        limit: u32,
    ) -> StoreResult<Vec<HandRow>> {
        let sql = match table {
            Some(_) => HANDS_TOGETHER_AT_TABLE,
            None => HANDS_TOGETHER,
        };
        let mut query = sqlx::query_as::<_, SqlHand>(sql)
            .bind(a.to_string())
            .bind(b.to_string())
            .bind(since)
            .bind(until)
            .bind(i64::from(limit));
        if let Some(t) = table {
            query = query.bind(t.to_string());
        }
        let rows = query.fetch_all(&self.pool).await?;
        convert(rows)
    }
}
