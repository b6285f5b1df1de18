-- Ledger invariants the database keeps by itself, whatever code writes to it
-- (docs/product.md#ledger-only, docs/product.md#nothing-deleted, docs/product.md#balances).
-- CHECK constraints live in 0001_ledger; here is what a CHECK cannot express.

-- 1. Every transaction has at least two entries and they sum to zero. Checked at COMMIT
--    (deferred), because the entries of one transaction are written one statement after the
--    transaction row. Fired by a new transaction (catches one with no entries at all) and by
--    every new entry (catches an entry slipped into an existing transaction).
CREATE FUNCTION ledger_check_transaction_balanced(p_transaction_id bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  total_cents numeric;
  entry_count integer;
BEGIN
  SELECT coalesce(sum(amount_cents), 0), count(*) INTO total_cents, entry_count
    FROM ledger_entries WHERE transaction_id = p_transaction_id;
  IF entry_count < 2 OR total_cents <> 0 THEN
    RAISE EXCEPTION 'ledger transaction % is unbalanced: % entries summing to % cents',
      p_transaction_id, entry_count, total_cents
      USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_transaction_balanced';
  END IF;
END
$$;
--> statement-breakpoint
CREATE FUNCTION ledger_entries_balanced() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ledger_check_transaction_balanced(NEW.transaction_id);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION ledger_transactions_balanced() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ledger_check_transaction_balanced(NEW.id);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER ledger_entries_balanced
  AFTER INSERT OR UPDATE ON ledger_entries
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_balanced();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER ledger_transactions_balanced
  AFTER INSERT ON ledger_transactions
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION ledger_transactions_balanced();
--> statement-breakpoint

-- 2. Nothing is deleted (docs/product.md#nothing-deleted): entries never change; transactions
--    and accounts are never deleted (an account is closed, a transaction reversed). TRUNCATE
--    stays possible for tests.
CREATE FUNCTION ledger_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% on % is refused: the ledger is append-only; correct a posting by reversing it',
    TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'object_not_in_prerequisite_state';
END
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_append_only
  BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER ledger_transactions_no_delete
  BEFORE DELETE ON ledger_transactions
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER ledger_accounts_no_delete
  BEFORE DELETE ON ledger_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint

-- 3. A transaction's facts never change after it is written; only its status moves, and only
--    forward: pending -> posted | failed, posted -> reversed. (Category stays editable: members
--    may re-file their spending.)
CREATE FUNCTION ledger_transactions_guard_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.id, NEW.kind, NEW.initiator, NEW.idempotency_key, NEW.batch_key, NEW.reverses_id,
      NEW.effective_date, NEW.created_at, NEW.created_by, NEW.memo, NEW.reference)
     IS DISTINCT FROM
     (OLD.id, OLD.kind, OLD.initiator, OLD.idempotency_key, OLD.batch_key, OLD.reverses_id,
      OLD.effective_date, OLD.created_at, OLD.created_by, OLD.memo, OLD.reference) THEN
    RAISE EXCEPTION 'ledger transaction %: only its status, resolution and category may change', OLD.id
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  IF NEW.status IS DISTINCT FROM OLD.status
     AND NOT ((OLD.status = 'pending' AND NEW.status IN ('posted', 'failed'))
           OR (OLD.status = 'posted' AND NEW.status = 'reversed')) THEN
    RAISE EXCEPTION 'ledger transaction %: status % cannot become %', OLD.id, OLD.status, NEW.status
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_transactions_guard_update
  BEFORE UPDATE ON ledger_transactions
  FOR EACH ROW EXECUTE FUNCTION ledger_transactions_guard_update();
