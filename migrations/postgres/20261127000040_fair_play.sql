-- Fair play (issue 24, items 9 and 10).
--
-- The client address each player sat down from at a table: an IPv4 address, or the /64 of
-- an IPv6 one (written 2001:db8:1:2::/64), as the login guards count addresses. The table
-- compares a newcomer with the players seated (room.same_address_seating), also after a
-- restart or a move to another node: a row counts for a seat when written after the seat
-- was taken (at >= seat.created_at). Written once per sit, never on the hand's path.
create table seat_address (
    poker_table_id text not null references poker_table (poker_table_id),
    player_id text not null references player (player_id),
    address text not null,
    at bigint not null,
    created_at bigint not null,
    primary key (poker_table_id, player_id)
);

-- Every address a player has sat down from, for the collusion report's shared addresses.
create table player_address (
    player_id text not null references player (player_id),
    address text not null,
    first_at bigint not null,
    last_at bigint not null,
    sits bigint not null,
    created_at bigint not null,
    primary key (player_id, address)
);
create index player_address_address on player_address (address);

-- Two players seated at one table from one address, let sit under
-- room.same_address_seating = "flag": player_id sat down while other_player_id was seated.
create table address_flag (
    address_flag_id text primary key,
    poker_table_id text not null references poker_table (poker_table_id),
    player_id text not null references player (player_id),
    other_player_id text not null references player (player_id),
    address text not null,
    at bigint not null,
    created_at bigint not null
);
create index address_flag_at on address_flag (at);

-- The collusion report reads the hands dealt in a window of time, across tables.
create index hand_started_at on hand (started_at);
