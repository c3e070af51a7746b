-- Which server node runs each table when several share one database. The owner holds the
-- lease until expires_at (unix milliseconds) and renews it; token is the fencing token,
-- raised each time the table passes to an owner and never lowered, so a hand dealt under
-- an older lease cannot be committed. A released lease keeps its token, with expires_at 0.
create table table_lease (
    poker_table_id text primary key references poker_table (poker_table_id),
    node text not null,
    token bigint not null,
    expires_at bigint not null,
    created_at bigint not null
);
