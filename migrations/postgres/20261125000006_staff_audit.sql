-- The card room's staff: accounts separate from players, each with a role (admin:
-- everything; cashier: deposits and withdrawals; floor: tables and players), their own
-- login sessions (only the SHA-256 of each token kept), and the audit log every staff
-- action is written to, with who did it. Players can be locked out by staff.
create table staff (
    staff_id text primary key,
    name text not null,
    name_key text not null unique,
    password_hash text not null,
    role text not null,
    created_at bigint not null
);
create table staff_session (
    token_hash text primary key,
    staff_id text not null references staff (staff_id),
    expires_at bigint not null,
    created_at bigint not null
);
create table audit_log (
    audit_id text primary key,
    at bigint not null,
    actor text not null,
    action text not null,
    target text not null,
    detail text not null,
    created_at bigint not null
);
create index audit_log_at on audit_log (at);
alter table player add column locked bigint not null default 0;
