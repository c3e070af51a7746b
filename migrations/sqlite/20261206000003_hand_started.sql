-- The hands dealt and not yet committed or voided: a handful at any time, however many
-- hands the archive holds. Start-up recovery and a failed table's voiding find them here
-- instead of reading every hand (issue 38 item 4; docs/persistence.md, The hand archive).
create index hand_started on hand (poker_table_id) where status = 'started';
