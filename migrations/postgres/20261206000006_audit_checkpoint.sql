-- Where the last audit that held left the ledger, so the next audit reads only the ledger
-- rows after it (docs/persistence.md, The hand archive; crates/poker-store/src/sql/audit.rs).
-- One row: every ledger row up to ledger_entry_id is summed, every movement up to it
-- balanced, and these are the deposits and withdrawals up to it.
create table audit_checkpoint (
    audit_checkpoint_id bigint primary key,
    ledger_entry_id bigint not null,
    deposits bigint not null,
    withdrawals bigint not null,
    created_at bigint not null
);

-- Each ledger account's sum up to the checkpoint (the id is the account, as in
-- ledger_entry.account; an account not here sums to 0). Written with the checkpoint's row.
create table audit_checkpoint_account (
    audit_checkpoint_account_id text primary key,
    total bigint not null,
    created_at bigint not null
);
