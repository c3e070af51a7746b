-- A player's hands by when they were dealt, read from the index alone (issue 38 item 4;
-- docs/persistence.md, The hand archive). `started_at` is the hand's deal, `big_blind`
-- the big blind it was played for (0 when none is known: see `poker_store::big_blind`),
-- both written by the commit. A range of a player's hands (stats, the history download, a
-- pair's hands on the flags page) then reads exactly its hands, and stats read nothing
-- but the index. Rows written by a node of the previous release during a roll have
-- neither: the queries read those the old way (`started_at is null`).
alter table hand_player add column started_at bigint;
alter table hand_player add column big_blind bigint;
-- Fills the new columns of the rows already there (a column this release adds only), each
-- hand's record read once for its six players.
update hand_player set started_at = x.started_at, big_blind = x.big_blind
  from (select h.hand_id, h.started_at,
               (select max((p ->> 'amount')::bigint) from json_array_elements(h.record::json -> 'posts') p
                where p ->> 'kind' = 'big_blind' and (p ->> 'amount')::bigint > 0) as big_blind
        from hand h where h.status = 'complete') x
  where x.hand_id = hand_player.hand_id;
create index hand_player_started on hand_player (player_id, started_at)
  include (hand_id, starting_stack, finishing_stack, big_blind);
