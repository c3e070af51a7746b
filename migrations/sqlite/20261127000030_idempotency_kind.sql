-- An idempotency key now names one request of a player, whatever its kind: the kind is
-- in the request stored with it. The room's own credits were stored as deposits; they
-- become grants and reloads, so that a cashier's deposit reusing one of their keys is
-- refused rather than taken for their repeat.
update idempotency_key set operation = 'grant ' || substr(operation, 9)
 where operation like 'deposit %'
   and (idempotency_key_id like 'deposit:%:grant:%'
        or idempotency_key_id like 'deposit:%:bot-grant:%');
update idempotency_key set operation = 'reload ' || substr(operation, 9)
 where operation like 'deposit %' and idempotency_key_id like 'deposit:%:reload:%';
