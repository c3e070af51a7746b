-- A player's hands by when they were dealt, read from the index alone (issue 38 item 4;
-- docs/persistence.md, The hand archive). `started_at` is the hand's deal, `big_blind`
-- the big blind it was played for (0 when none is known: see `poker_store::big_blind`),
-- both written by the commit. A range of a player's hands (stats, the history download, a
-- pair's hands on the flags page) then reads exactly its hands, and stats read nothing
-- but the index. The rows already there, and those a node of the previous release writes
-- during a roll, have neither: the queries read those the old way (`started_at is null`)
-- until each node's background filler (`SqlStore::fill_hand_players`) has filled them,
-- a batch at a time, found by the partial index `hand_player_unfilled`. (Filling them here
-- took 144 s a million hands on PostgreSQL, while the new release could not start.)
alter table hand_player add column started_at bigint;
alter table hand_player add column big_blind bigint;
create index hand_player_started on hand_player (player_id, started_at, hand_id, starting_stack, finishing_stack, big_blind);
-- The rows still to fill, and only those: built with the columns (every row of the room
-- is in it at first), it empties as the filler goes, and a commit of this release, which
-- writes `started_at`, adds nothing to it.
create index hand_player_unfilled on hand_player (hand_id) where started_at is null;
