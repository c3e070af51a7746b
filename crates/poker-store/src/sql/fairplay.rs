//! The fair-play operations of [`Store`] on both backends: sit addresses, same-address
//! flags and the reads of the collusion report (the trait's methods call these).

use super::*;

/// An address as the store keeps it: 1 to [`MAX_ADDRESS_LEN`] characters, no control
/// character.
fn check_address(address: &str) -> StoreResult<&str> {
    let n = address.chars().count();
    if n == 0 || n > MAX_ADDRESS_LEN || address.chars().any(char::is_control) {
        return Err(StoreError::Invalid(format!(
            "an address has 1 to {MAX_ADDRESS_LEN} characters, none a control character"
        )));
    }
    Ok(address)
}

/// The hand columns prefixed with `h.`, for joins.
fn hand_columns() -> String {
    HAND_COLUMNS
        .split(", ")
        .map(|c| format!("h.{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl SqlStore {
    /// [`Store::record_sit_address`] on both backends.
    pub(super) async fn record_sit_address_impl(
        &self,
        table: TableId,
        player: PlayerId,
        address: &str,
        at: i64,
        flagged_with: &[PlayerId],
    ) -> StoreResult<()> {
        let address = check_address(address)?;
        let now = now_ms();
        let mut tx = self.begin().await?;
        sqlx::query(&self.sql(
            "insert into seat_address (poker_table_id, player_id, address, at, created_at) \
             values ($1, $2, $3, $4, $5) \
             on conflict (poker_table_id, player_id) do update set address = excluded.address, at = excluded.at",
        ))
        .bind(table.to_string())
        .bind(player.to_string())
        .bind(address)
        .bind(at)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        sqlx::query(&self.sql(
            "insert into player_address (player_id, address, first_at, last_at, sits, created_at) \
             values ($1, $2, $3, $3, 1, $4) \
             on conflict (player_id, address) do update set last_at = excluded.last_at, \
             sits = player_address.sits + 1",
        ))
        .bind(player.to_string())
        .bind(address)
        .bind(at)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        for other in flagged_with {
            sqlx::query(&self.sql(
                "insert into address_flag (address_flag_id, poker_table_id, player_id, other_player_id, address, at, created_at) \
                 values ($1, $2, $3, $4, $5, $6, $7)",
            ))
            .bind(uuid::Uuid::new_v4().to_string())
            .bind(table.to_string())
            .bind(player.to_string())
            .bind(other.to_string())
            .bind(address)
            .bind(at)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// [`Store::seat_addresses`] on both backends.
    pub(super) async fn seat_addresses_impl(
        &self,
        table: TableId,
    ) -> StoreResult<Vec<(PlayerId, String)>> {
        let rows: Vec<(String, String)> = sqlx::query_as(&self.sql(
            "select a.player_id, a.address from seat_address a join seat s \
             on s.poker_table_id = a.poker_table_id and s.player_id = a.player_id \
             where a.poker_table_id = $1 and a.at >= s.created_at order by a.player_id",
        ))
        .bind(table.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(player, address)| Ok((PlayerId(uuid(&player)?), address)))
            .collect()
    }

    /// [`Store::address_flags`] on both backends.
    pub(super) async fn address_flags_impl(
        &self,
        limit: u32,
        offset: u32,
    ) -> StoreResult<Vec<AddressFlag>> {
        let rows: Vec<SqlAddressFlag> = sqlx::query_as(&self.sql(
            "select address_flag_id, poker_table_id, player_id, other_player_id, address, at \
             from address_flag order by at desc, address_flag_id limit $1 offset $2",
        ))
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// [`Store::shared_addresses`] on both backends.
    pub(super) async fn shared_addresses_impl(
        &self,
        since: i64,
    ) -> StoreResult<Vec<PlayerAddress>> {
        let rows: Vec<SqlPlayerAddress> = sqlx::query_as(&self.sql(
            "select player_id, address, first_at, last_at, sits from player_address \
             where last_at >= $1 and address in (select address from player_address \
             where last_at >= $1 group by address having count(*) > 1) \
             order by address, player_id",
        ))
        .bind(since)
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// [`Store::hands_between`] on both backends.
    pub(super) async fn hands_between_impl(
        &self,
        since: i64,
        until: i64,
        limit: u32,
    ) -> StoreResult<Vec<HandRow>> {
        let rows: Vec<SqlHand> = sqlx::query_as(&self.sql(&format!(
            "select {HAND_COLUMNS} from hand where started_at >= $1 and started_at < $2 \
             and status = 'complete' order by started_at desc, hand_id limit $3"
        )))
        .bind(since)
        .bind(until)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// [`Store::hands_together`] on both backends.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn hands_together_impl(
        &self,
        a: PlayerId,
        b: PlayerId,
        table: Option<TableId>,
        since: i64,
        until: i64,
        limit: u32,
    ) -> StoreResult<Vec<HandRow>> {
        // A hand's players are written when it is committed, after it was dealt: their
        // rows' `created_at` is at or after `since` too, which the players' index serves.
        let one_table = if table.is_some() {
            " and h.poker_table_id = $6"
        } else {
            ""
        };
        let sql = self.sql(&format!(
            "select {} from hand_player x join hand_player y on y.hand_id = x.hand_id \
             join hand h on h.hand_id = x.hand_id \
             where x.player_id = $1 and y.player_id = $2 and x.created_at >= $3 \
             and h.started_at >= $3 and h.started_at < $4 and h.status = 'complete'{one_table} \
             order by h.started_at desc, h.hand_id limit $5",
            hand_columns()
        ));
        let mut query = sqlx::query_as::<_, SqlHand>(&sql)
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
