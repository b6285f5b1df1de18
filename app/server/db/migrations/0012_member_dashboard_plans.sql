-- The dashboard's two larger statements as PL/pgSQL functions, so that each database connection
-- plans them once and reuses the plan. Planning them took twice as long as running them
-- (EXPLAIN on the bench's 100,000 transactions, embedded PGlite: 1.3 ms planning against 0.6 ms
-- execution each), on every page view. The code that calls them is in
-- app/server/member-app/dashboard.server.ts and history.server.ts; they only read.

-- Pending, this month's income and outgoing, and spending by category since `spending_from`, for
-- the given accounts: posted money from ledger_daily_totals, pending from the entries of pending
-- transactions. Kinds in `own_kinds` (money between a member's own accounts) are neither income
-- nor spending. One row per category (or one row with a null category when there is none), each
-- carrying the pending figures.
CREATE FUNCTION member_range_figures(account_ids bigint[], month_from date, spending_from date, own_kinds text[])
RETURNS TABLE (pending_total text, pending_count integer, category text, income text, outgoing text, spent text)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    WITH pending_entries AS (
      SELECT t.id, t.kind, t.effective_date, coalesce(t.category, 'Other') AS category, e.amount_cents
        FROM ledger_transactions t
        JOIN ledger_entries e ON e.transaction_id = t.id AND e.account_id = ANY (account_ids)
       WHERE t.status = 'pending'
    ), flows AS (
      SELECT coalesce(nullif(d.category, ''), 'Other') AS category, d.effective_date, d.credits_cents, d.debits_cents, true AS posted
        FROM ledger_daily_totals d
       WHERE d.account_id = ANY (account_ids) AND d.effective_date >= least(month_from, spending_from) AND d.kind <> ALL (own_kinds)
      UNION ALL
      SELECT p.category, p.effective_date, 0::bigint, -p.amount_cents, false
        FROM pending_entries p
       WHERE p.amount_cents < 0 AND p.effective_date >= spending_from AND p.kind <> ALL (own_kinds)
    ), grouped AS (
      SELECT f.category,
             (sum(f.credits_cents) FILTER (WHERE f.posted AND f.effective_date >= month_from))::text AS income,
             (sum(f.debits_cents) FILTER (WHERE f.posted AND f.effective_date >= month_from))::text AS outgoing,
             (sum(f.debits_cents) FILTER (WHERE f.effective_date >= spending_from))::text AS spent
        FROM flows f GROUP BY 1
    ), pending AS (
      SELECT coalesce(sum(abs(p.amount_cents)), 0)::text AS pending_total, count(DISTINCT p.id)::integer AS pending_count FROM pending_entries p
    )
    SELECT p.pending_total, p.pending_count, g.category, g.income, g.outgoing, g.spent FROM pending p LEFT JOIN grouped g ON true;
END;
$$;
--> statement-breakpoint
-- The newest `row_limit` entries of the given accounts (all of them, no filter), older than the
-- entry `before_id` when it is given: per account a backward walk of the (account_id, id) index
-- for ids only, the newest of those, and only then their entries and transactions. One JSON
-- array (the embedded driver converts one JSON value far faster than many columns).
CREATE FUNCTION member_recent_entries(account_ids bigint[], before_id bigint, row_limit integer)
RETURNS json
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
    SELECT coalesce(json_agg(h ORDER BY h.entry_id DESC), '[]')
      FROM (
        SELECT e.id AS entry_id, e.account_id, e.transaction_id, e.amount_cents, t.kind, t.status,
               t.effective_date::text AS effective_date, (extract(epoch FROM t.created_at) * 1000)::float8 AS created_at_ms,
               t.memo, t.reference, t.category
          FROM (
            SELECT r.id
              FROM unnest(account_ids) AS a(id)
              CROSS JOIN LATERAL (
                SELECT x.id FROM ledger_entries x
                 WHERE x.account_id = a.id AND x.id < coalesce(before_id, 9223372036854775807)
                 ORDER BY x.account_id DESC, x.id DESC
                 LIMIT row_limit
              ) r
             ORDER BY r.id DESC
             LIMIT row_limit
          ) newest
          JOIN ledger_entries e ON e.id = newest.id
          JOIN ledger_transactions t ON t.id = e.transaction_id
      ) h
  );
END;
$$;
