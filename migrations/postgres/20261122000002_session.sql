-- Login sessions: only the SHA-256 of each random token is kept, so a leaked database
-- gives no usable token. Expired rows are ignored and deleted on logout.
create table session (
    token_hash text primary key,
    player_id text not null references player (player_id),
    expires_at bigint not null,
    created_at bigint not null
);
create index session_player on session (player_id);
