-- Players and their wallets. Money is whole chips in bigint; times are unix milliseconds.
create table player (
    player_id text primary key,
    name text not null unique,
    password_hash text not null,
    created_at bigint not null
);

-- A wallet can never go negative: the database refuses it, not only the code.
create table wallet (
    player_id text primary key references player (player_id),
    balance bigint not null check (balance >= 0),
    created_at bigint not null
);

-- The house's accounts (the rake it has taken).
create table house_account (
    house_account_id text primary key,
    balance bigint not null check (balance >= 0),
    created_at bigint not null
);

-- Double-entry ledger: every movement of money is a group of entries summing to zero.
-- Accounts: 'external' (the outside world), 'wallet:<player>', 'seat:<table>:<player>',
-- 'house:rake'.
create table ledger_entry (
    ledger_entry_id bigint generated always as identity primary key,
    movement_id text not null,
    account text not null,
    player_id text,
    poker_table_id text,
    kind text not null,
    amount bigint not null,
    reference text,
    created_at bigint not null
);
create index ledger_entry_player on ledger_entry (player_id, ledger_entry_id);

-- Client-retried operations are applied once: the key and the answer given.
create table idempotency_key (
    idempotency_key_id text primary key,
    operation text not null,
    result text not null,
    created_at bigint not null
);

create table poker_table (
    poker_table_id text primary key,
    name text not null,
    config text not null,
    status text not null check (status in ('open', 'closing', 'closed')),
    created_at bigint not null
);

-- Table stakes: the chips each seated player has on the table. They change only with a
-- buy-in, a top-up, a cash-out or a committed hand.
create table seat (
    poker_table_id text not null references poker_table (poker_table_id),
    seat_no bigint not null,
    player_id text not null references player (player_id),
    stack bigint not null check (stack >= 0),
    created_at bigint not null,
    primary key (poker_table_id, seat_no),
    unique (poker_table_id, player_id)
) with (fillfactor = 50);

-- What a player took away when leaving (no ratholing) and what blinds they owe; both
-- survive leaving the table and restarting the server.
create table rathole (
    poker_table_id text not null references poker_table (poker_table_id),
    player_id text not null references player (player_id),
    stack bigint not null,
    left_at bigint not null,
    created_at bigint not null,
    primary key (poker_table_id, player_id)
);

create table missed_blind (
    poker_table_id text not null references poker_table (poker_table_id),
    player_id text not null references player (player_id),
    owes_small bigint not null,
    owes_big bigint not null,
    created_at bigint not null,
    primary key (poker_table_id, player_id)
);

-- Hands: started when dealt, complete when committed with the stacks they changed, void
-- when the server stopped before committing them.
create table hand (
    hand_id text primary key,
    poker_table_id text not null references poker_table (poker_table_id),
    number bigint not null,
    status text not null check (status in ('started', 'complete', 'void')),
    phh text,
    record text,
    rake bigint not null default 0,
    started_at bigint not null,
    ended_at bigint,
    created_at bigint not null
);
create index hand_table on hand (poker_table_id, started_at);

-- Who played which hand. Written in bulk with its hand in one transaction, so it
-- carries no foreign keys (their per-row checks would dominate the hand commit).
create table hand_player (
    hand_id text not null,
    player_id text not null,
    seat_no bigint not null,
    starting_stack bigint not null,
    finishing_stack bigint not null,
    created_at bigint not null
);
create index hand_player_player on hand_player (player_id, created_at);
