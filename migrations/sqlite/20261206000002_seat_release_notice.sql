-- Seats released while their player was away with no page open (issue 37 item 8): what the
-- player is told on coming back, kept until then (and deleted once told). One row per
-- release; the chips themselves moved through the ledger when the seat was released.
create table seat_release_notice (
    seat_release_notice_id text primary key,
    player_id text not null references player (player_id),
    poker_table_id text not null references poker_table (poker_table_id),
    table_name text not null,
    away_secs bigint not null,
    amount bigint not null,
    created_at bigint not null
);
create index seat_release_notice_by_player on seat_release_notice (player_id, created_at);
