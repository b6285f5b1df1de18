ALTER TABLE "scheduled_transfers" DROP CONSTRAINT "scheduled_transfers_kind_valid";--> statement-breakpoint
ALTER TABLE "member_alerts" ALTER COLUMN "account_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "scheduled_transfers" ADD COLUMN "ach_routing_number" text;--> statement-breakpoint
ALTER TABLE "scheduled_transfers" ADD COLUMN "ach_account_number_enc" text;--> statement-breakpoint
ALTER TABLE "scheduled_transfers" ADD COLUMN "ach_account_last4" text;--> statement-breakpoint
ALTER TABLE "scheduled_transfers" ADD COLUMN "ach_account_type" text;--> statement-breakpoint
ALTER TABLE "scheduled_transfers" ADD COLUMN "ach_account_name" text;--> statement-breakpoint
ALTER TABLE "scheduled_transfers" ADD COLUMN "linked_account_id" bigint;--> statement-breakpoint
ALTER TABLE "member_alerts" ADD COLUMN "all_accounts_alert_id" bigint;--> statement-breakpoint
ALTER TABLE "scheduled_transfers" ADD CONSTRAINT "scheduled_transfers_linked_account_id_linked_accounts_id_fk" FOREIGN KEY ("linked_account_id") REFERENCES "public"."linked_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_alerts" ADD CONSTRAINT "member_alerts_all_accounts_alert_id_member_alerts_id_fk" FOREIGN KEY ("all_accounts_alert_id") REFERENCES "public"."member_alerts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "member_alerts_all_accounts_live_unique" ON "member_alerts" USING btree ("member_id","kind") WHERE "member_alerts"."account_id" is null and "member_alerts"."removed_at" is null;--> statement-breakpoint
CREATE INDEX "member_alerts_all_accounts_idx" ON "member_alerts" USING btree ("all_accounts_alert_id") WHERE "member_alerts"."all_accounts_alert_id" is not null;--> statement-breakpoint
ALTER TABLE "scheduled_transfers" ADD CONSTRAINT "scheduled_transfers_kind_valid" CHECK (("scheduled_transfers"."kind" = 'internal' and "scheduled_transfers"."to_account_id" is not null and "scheduled_transfers"."recipient_member_id" is null and "scheduled_transfers"."ach_account_number_enc" is null) or ("scheduled_transfers"."kind" = 'member' and "scheduled_transfers"."to_account_id" is null and "scheduled_transfers"."recipient_member_id" is not null and "scheduled_transfers"."ach_account_number_enc" is null) or ("scheduled_transfers"."kind" = 'ach' and "scheduled_transfers"."to_account_id" is null and "scheduled_transfers"."recipient_member_id" is null and "scheduled_transfers"."ach_routing_number" is not null and "scheduled_transfers"."ach_account_number_enc" is not null and "scheduled_transfers"."ach_account_last4" is not null and "scheduled_transfers"."ach_account_type" in ('checking', 'savings') and "scheduled_transfers"."ach_account_name" is not null));--> statement-breakpoint
ALTER TABLE "member_alerts" ADD CONSTRAINT "member_alerts_all_accounts_shape" CHECK ("member_alerts"."account_id" is not null or "member_alerts"."all_accounts_alert_id" is null);
--> statement-breakpoint
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
