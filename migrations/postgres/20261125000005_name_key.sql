-- Player names are unique regardless of case and of compatibility forms (ZED, zed and
-- full-width ｚｅｄ are one name): the key is computed by the store (poker_store::names)
-- and filled in for older rows when the store connects.
alter table player add column name_key text;
create unique index player_unique_name_key on player (name_key);
