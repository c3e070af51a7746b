-- Staff can be revoked: a disabled account cannot sign in and its sessions end at once;
-- a staff session also ends after admin.staff_idle_minutes without a request (last_seen,
-- moved forward as it is used).
alter table staff add column disabled integer not null default 0;
alter table staff_session add column last_seen bigint not null default 0;
update staff_session set last_seen = created_at;
create index staff_session_staff on staff_session (staff_id);
-- A player's password reset code, issued by staff with the floor duty: shown to them
-- once, kept only as its SHA-256, it expires and is used once. One per player: a new
-- code replaces the last.
create table password_reset (
    player_id text primary key references player (player_id),
    code_hash text not null,
    issued_by text not null,
    expires_at bigint not null,
    created_at bigint not null
);
-- A password changed by staff (set by an admin, or with a code a staff member issued):
-- the player is told who and when at their next login, once.
create table password_notice (
    player_id text primary key references player (player_id),
    changed_by text not null,
    changed_at bigint not null,
    created_at bigint not null
);
