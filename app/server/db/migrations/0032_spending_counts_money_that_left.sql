-- Written by hand (drizzle cannot express a function): the dashboard's figures count only money
-- that has left (docs/product.md#dashboard). member_range_figures (migration 0012) counted
-- pending debits in the 30 days of spending with no end date, so a bill payment scheduled for next
-- year, held today and dated its payment date, was "spent in the last 30 days". Now income,
-- outgoing and spending are posted money dated from the range's start up to `today` (the
-- institution's business date, passed in: never a day after it); pending transactions make only
-- the Pending figure. The new argument changes the signature, so the old function is dropped.
DROP FUNCTION member_range_figures(bigint[], date, date, text[]);
--> statement-breakpoint
CREATE FUNCTION member_range_figures(account_ids bigint[], month_from date, spending_from date, today date, own_kinds text[])
RETURNS TABLE (pending_total text, pending_count integer, category text, income text, outgoing text, spent text)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    WITH pending_entries AS (
      SELECT t.id, e.amount_cents
        FROM ledger_transactions t
        JOIN ledger_entries e ON e.transaction_id = t.id AND e.account_id = ANY (account_ids)
       WHERE t.status = 'pending'
    ), grouped AS (
      SELECT coalesce(nullif(d.category, ''), 'Other') AS category,
             (sum(d.credits_cents) FILTER (WHERE d.effective_date >= month_from))::text AS income,
             (sum(d.debits_cents) FILTER (WHERE d.effective_date >= month_from))::text AS outgoing,
             (sum(d.debits_cents) FILTER (WHERE d.effective_date >= spending_from))::text AS spent
        FROM ledger_daily_totals d
       WHERE d.account_id = ANY (account_ids) AND d.effective_date >= least(month_from, spending_from) AND d.effective_date <= today
         AND d.kind <> ALL (own_kinds)
       GROUP BY 1
    ), pending AS (
      SELECT coalesce(sum(abs(p.amount_cents)), 0)::text AS pending_total, count(DISTINCT p.id)::integer AS pending_count FROM pending_entries p
    )
    SELECT p.pending_total, p.pending_count, g.category, g.income, g.outgoing, g.spent FROM pending p LEFT JOIN grouped g ON true;
END;
$$;
