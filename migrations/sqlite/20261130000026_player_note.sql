-- Player notes (issue 26): a player's private note on another player, shown to its owner
-- only (on a seat's card at the table). One note per owner and subject; an empty note is
-- deleted rather than stored.
create table player_note (
    owner_id text not null references player (player_id),
    subject_id text not null references player (player_id),
    note text not null,
    updated_at bigint not null,
    created_at bigint not null,
    primary key (owner_id, subject_id)
);

