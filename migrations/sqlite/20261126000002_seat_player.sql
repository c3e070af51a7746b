-- A player who signs in rejoins the tables where they hold a seat: found by player.
create index seat_player on seat (player_id);
