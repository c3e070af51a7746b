-- Whether a seated player is sitting out, so that a restart does not deal in (and post
-- blinds for) players who were away. 0 or 1.
alter table seat add column sitting_out integer not null default 0;
