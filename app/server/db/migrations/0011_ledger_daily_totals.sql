-- ledger_daily_totals (posted money per account, day, kind and category; see schema/ledger.ts) is
-- kept exact by the database itself, in the transaction that changes the ledger, whatever code
-- writes: statement triggers with transition tables, one adjustment per key per statement.
-- A transaction counts while its status is 'posted', under its category:
--   * entries written for a posted transaction are added (a posting, a reversal, a batch);
--   * a status change into 'posted' (a hold settled) adds the transaction's entries, a change out
--     of it (a reversal marking the original 'reversed') subtracts them;
--   * a new category on a posted transaction (a member re-filing spending) moves them.
-- Keys are adjusted in key order, and always after the posting code has locked the accounts
-- involved (ledger.server.ts locks accounts first), so concurrent postings cannot deadlock here.
-- `ledger:verify` recomputes the table from the entries.
CREATE FUNCTION ledger_daily_totals_entries_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_daily_totals AS d (account_id, effective_date, kind, category, credits_cents, debits_cents)
  SELECT e.account_id, t.effective_date, t.kind, coalesce(t.category, ''),
         coalesce(sum(e.amount_cents) FILTER (WHERE e.amount_cents > 0), 0),
         coalesce(-sum(e.amount_cents) FILTER (WHERE e.amount_cents < 0), 0)
    FROM new_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
   WHERE t.status = 'posted'
   GROUP BY 1, 2, 3, 4
   ORDER BY 1, 2, 3, 4
  ON CONFLICT (account_id, effective_date, kind, category) DO UPDATE
     SET credits_cents = d.credits_cents + excluded.credits_cents,
         debits_cents = d.debits_cents + excluded.debits_cents;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION ledger_daily_totals_transactions_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_daily_totals AS d (account_id, effective_date, kind, category, credits_cents, debits_cents)
  SELECT c.account_id, c.effective_date, c.kind, c.category,
         coalesce(sum(c.sign * e_amount) FILTER (WHERE e_amount > 0), 0),
         coalesce(-sum(c.sign * e_amount) FILTER (WHERE e_amount < 0), 0)
    FROM (
      -- counted before the statement, and no longer (or under another category): taken out
      SELECT e.account_id, o.effective_date, o.kind, coalesce(o.category, '') AS category, -1 AS sign, e.amount_cents AS e_amount
        FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN ledger_entries e ON e.transaction_id = o.id
       WHERE o.status = 'posted' AND (n.status <> 'posted' OR n.category IS DISTINCT FROM o.category)
      UNION ALL
      -- counted after the statement, and not before (or under another category): put in
      SELECT e.account_id, n.effective_date, n.kind, coalesce(n.category, ''), 1, e.amount_cents
        FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN ledger_entries e ON e.transaction_id = n.id
       WHERE n.status = 'posted' AND (o.status <> 'posted' OR n.category IS DISTINCT FROM o.category)
    ) AS c
   GROUP BY 1, 2, 3, 4
   ORDER BY 1, 2, 3, 4
  ON CONFLICT (account_id, effective_date, kind, category) DO UPDATE
     SET credits_cents = d.credits_cents + excluded.credits_cents,
         debits_cents = d.debits_cents + excluded.debits_cents;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_daily_totals AFTER INSERT ON ledger_entries REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION ledger_daily_totals_entries_added();
--> statement-breakpoint
CREATE TRIGGER ledger_transactions_daily_totals AFTER UPDATE ON ledger_transactions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ledger_daily_totals_transactions_changed();
--> statement-breakpoint
-- The totals of what is already posted, taken after the triggers exist (creating them locks both
-- tables against writes until this migration commits, so nothing is missed or counted twice).
INSERT INTO ledger_daily_totals (account_id, effective_date, kind, category, credits_cents, debits_cents)
SELECT e.account_id, t.effective_date, t.kind, coalesce(t.category, ''),
       coalesce(sum(e.amount_cents) FILTER (WHERE e.amount_cents > 0), 0),
       coalesce(-sum(e.amount_cents) FILTER (WHERE e.amount_cents < 0), 0)
  FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
 WHERE t.status = 'posted'
 GROUP BY 1, 2, 3, 4;
