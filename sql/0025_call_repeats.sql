-- Issue 49: the same call twice is charged once. The admission statement that charges a call
-- claims its fingerprint here (its operation and parsed parameters, hashed:
-- src/metering/repeats.ts) with the data version it is answered from; the same call of the same
-- account at the same data version within 24 hours is a repeat and is not charged. One row per
-- (account, call): a stale claim (another data version, older than 24 hours) is overwritten by
-- the next charge of that call, and a refunded call gives its claim back.
-- Used in: admit (src/metering/admission.ts), by primary key.
create table call_repeats (
  account_id integer not null references accounts (id) on delete cascade,
  fingerprint text not null,
  data_version bigint not null,
  at timestamptz not null,
  primary key (account_id, fingerprint)
);

-- Clearing claims older than 24 hours (forgetOldCalls).
create index call_repeats_at on call_repeats (at);

-- Repeats answered free in the month, beside `used`, on the row a repeat writes anyway.
alter table usage_counters add column repeats integer not null default 0;

-- Raised by the admission statement when it claimed a call whose charge the quota then refused
-- (a concurrent call took the last unit after the statement's snapshot): the error rolls the
-- claim back with the statement, and admit runs it again. A claim is never left without its charge.
create function admission_raced() returns boolean language plpgsql as $$
begin
  raise exception 'A call was claimed but the quota refused its charge' using errcode = 'OI049';
end $$;
