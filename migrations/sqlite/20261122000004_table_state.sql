-- The table's between-hands state (button, blinds owed, dead seats, kill, rock, hand
-- count) as JSON, saved as it changes, so that a restarted server deals the next hand
-- where the last one left off. Seats and stacks remain in `seat`, which is the truth.
alter table poker_table add column state text;
