-- One subscription per account (src/billing/billing.ts): the account's newest open Checkout
-- session. Opening Checkout swaps the new session in and expires the one it replaces, in a
-- transaction that locks the account's row, so that of any number of concurrent openings
-- exactly the last one stays payable.
alter table billing_customers add column open_checkout_id text;
