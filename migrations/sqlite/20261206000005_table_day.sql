-- The hands and rake of each table and day (UTC, `ended_at / 86400000`), kept by the
-- hands' commit beside the house's rake rows, so that the rake page reads a row per table
-- and day instead of every hand of its window (issue 38 item 4; docs/persistence.md, The
-- hand archive). Archived hands keep their rows here. Hands a node of the previous release
-- commits during a roll are not counted (docs/operations.md, this roll's notes).
create table table_day (
    day bigint not null,
    poker_table_id text not null,
    hands bigint not null,
    rake bigint not null,
    primary key (day, poker_table_id)
);
insert into table_day (day, poker_table_id, hands, rake)
  select ended_at / 86400000, poker_table_id, count(*), coalesce(sum(rake), 0)
  from hand where status = 'complete' group by ended_at / 86400000, poker_table_id;
