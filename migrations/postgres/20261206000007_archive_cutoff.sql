-- The hand archive (docs/persistence.md, Retention): `pokerd archive --before DAY` moves
-- the complete and void hands dealt before DAY to files and deletes their rows. The room
-- remembers the latest such day here (one row, `archive_cutoff_id = 'hands'`, `before_at`
-- in unix milliseconds, never lowered), so a player's history can say that a range
-- before it is archived instead of answering it as if no hand had been played.
create table archive_cutoff (
    archive_cutoff_id text primary key,
    before_at bigint not null,
    created_at bigint not null,
    updated_at bigint not null
);

-- The archive reads each hand's players, and deletes them, by hand: without this index
-- every batch of 10,000 hands would read the whole of `hand_player`.
create index hand_player_hand on hand_player (hand_id);
