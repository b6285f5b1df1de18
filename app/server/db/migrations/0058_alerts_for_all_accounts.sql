ALTER TABLE "member_alerts" ALTER COLUMN "account_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "member_alerts" ADD COLUMN "all_accounts_alert_id" bigint;--> statement-breakpoint
ALTER TABLE "member_alerts" ADD CONSTRAINT "member_alerts_all_accounts_alert_id_member_alerts_id_fk" FOREIGN KEY ("all_accounts_alert_id") REFERENCES "public"."member_alerts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "member_alerts_all_accounts_live_unique" ON "member_alerts" USING btree ("member_id","kind") WHERE "member_alerts"."account_id" is null and "member_alerts"."removed_at" is null;--> statement-breakpoint
CREATE INDEX "member_alerts_all_accounts_idx" ON "member_alerts" USING btree ("all_accounts_alert_id") WHERE "member_alerts"."all_accounts_alert_id" is not null;--> statement-breakpoint
ALTER TABLE "member_alerts" ADD CONSTRAINT "member_alerts_all_accounts_shape" CHECK ("member_alerts"."account_id" is not null or "member_alerts"."all_accounts_alert_id" is null);--> statement-breakpoint
-- An alert "for all my accounts" (docs/product.md#alerts): an account opened later gets the
-- alert's row, and its alerts_on flag, in the transaction that opens it, whichever code opens it
-- (docs/decisions/0026-alerts-in-the-posting.md).
CREATE FUNCTION member_alerts_for_new_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- The lock addAlert takes too: an alert for all accounts added at the same moment sees this
  -- account, or this account sees the alert.
  PERFORM pg_advisory_xact_lock(hashtext('member-alerts:' || NEW.member_id));
  INSERT INTO member_alerts (member_id, account_id, kind, amount_cents, all_accounts_alert_id)
  SELECT a.member_id, NEW.id, a.kind, a.amount_cents, a.id
    FROM member_alerts a
   WHERE a.member_id = NEW.member_id AND a.account_id IS NULL AND a.removed_at IS NULL;
  IF FOUND THEN
    UPDATE ledger_accounts SET alerts_on = true WHERE id = NEW.id;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_accounts_all_accounts_alerts
  AFTER INSERT ON ledger_accounts
  FOR EACH ROW WHEN (NEW.owner = 'member' AND NEW.member_id IS NOT NULL)
  EXECUTE FUNCTION member_alerts_for_new_account();
