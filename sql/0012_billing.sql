-- Billing through Stripe (src/billing/): each account's Stripe customer and the state of its
-- subscription as last read back from Stripe, and the ids of the webhook events already applied.
--
-- The plan itself stays in accounts.plan, where admission reads it on every call: a sync writes
-- both in one transaction, so a plan change reaches the quota on the next call.

create table billing_customers (
  account_id integer primary key references accounts (id) on delete cascade,
  -- Created once per account and reused by every checkout and portal session.
  customer_id text not null unique,
  -- The subscription that decides the plan (src/billing/state.ts); null before the first one.
  subscription_id text,
  subscription_status text,
  -- The plan the subscription pays for now (its price), and when the paid period ends.
  paid_plan text check (paid_plan in ('pro', 'business')),
  current_period_end timestamptz,
  -- Set when the subscription is cancelled for the end of the period (or a given date).
  cancel_at timestamptz,
  -- A change scheduled for the end of the period (a downgrade through the portal).
  pending_plan text check (pending_plan in ('free', 'pro', 'business')),
  pending_at timestamptz,
  -- The newest invoice of the subscription: paid, or failed (with Stripe's next retry, if any).
  last_invoice_id text,
  last_payment text check (last_payment in ('paid', 'failed')),
  last_payment_at timestamptz,
  next_payment_attempt timestamptz,
  -- The ticket (billing_read_tickets) taken before the state above was read from Stripe: a read
  -- that began earlier never overwrites one that began later, whatever order webhooks arrive and
  -- finish in. A sequence rather than a clock: strictly increasing, across instances too.
  read_ticket bigint,
  synced_at timestamptz,
  created_at timestamptz not null default now()
);

create sequence billing_read_tickets;

create table billing_events (
  -- Stripe's event id (evt_...): an event delivered twice is applied once.
  event_id text primary key,
  type text not null,
  received_at timestamptz not null default now()
);
