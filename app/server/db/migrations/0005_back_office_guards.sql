-- The audit log and the decision records are append-only (docs/product.md#nothing-deleted): the
-- database refuses any UPDATE or DELETE, whoever asks. (TRUNCATE, an owner-only maintenance
-- statement, is left to the operator: tests empty their throw-away databases with it.)
CREATE FUNCTION refuse_change_to_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON "audit_log" FOR EACH ROW EXECUTE FUNCTION refuse_change_to_append_only();
--> statement-breakpoint
CREATE TRIGGER application_decisions_append_only BEFORE UPDATE OR DELETE ON "application_decisions" FOR EACH ROW EXECUTE FUNCTION refuse_change_to_append_only();
--> statement-breakpoint
-- The member directory's search (docs/product.md#member-directory: name, email or account number;
-- fast with 100,000 members): prefix searches on lower-cased text, each served by its own index.
CREATE INDEX "users_email_prefix_idx" ON "users" USING btree ("email" text_pattern_ops);
--> statement-breakpoint
CREATE INDEX "member_profiles_full_name_prefix_idx" ON "member_profiles" USING btree ((lower("first_name" || ' ' || "last_name")) text_pattern_ops);
--> statement-breakpoint
CREATE INDEX "member_profiles_last_name_prefix_idx" ON "member_profiles" USING btree ((lower("last_name")) text_pattern_ops);
--> statement-breakpoint
CREATE INDEX "ledger_accounts_account_number_prefix_idx" ON "ledger_accounts" USING btree ("account_number" text_pattern_ops);
--> statement-breakpoint
-- "All Users", newest first.
CREATE INDEX "member_profiles_created_idx" ON "member_profiles" USING btree ("created_at", "user_id");
