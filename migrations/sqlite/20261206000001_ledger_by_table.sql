-- A table's ledger (a private game's settle-up) sums its seats' movements: found by the
-- table, not by reading the whole ledger.
create index ledger_entry_table on ledger_entry (poker_table_id, account);
