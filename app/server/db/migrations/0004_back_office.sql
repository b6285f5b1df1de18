CREATE TABLE "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_id" text,
	"actor_email" text,
	"action" text NOT NULL,
	"subject_type" text,
	"subject_id" text,
	"member_id" text,
	"before" jsonb,
	"after" jsonb,
	"request_id" text,
	"ip" text
);
--> statement-breakpoint
CREATE TABLE "debit_cards" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"account_id" bigint NOT NULL,
	"card_number_enc" text NOT NULL,
	"card_number_hash" text NOT NULL,
	"masked_number" text NOT NULL,
	"last4" text NOT NULL,
	"expiry_month" integer NOT NULL,
	"expiry_year" integer NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"daily_limit_cents" bigint NOT NULL,
	"pin_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "debit_cards_card_number_hash_unique" UNIQUE("card_number_hash"),
	CONSTRAINT "debit_cards_status_valid" CHECK ("debit_cards"."status" in ('active', 'locked')),
	CONSTRAINT "debit_cards_last4_format" CHECK ("debit_cards"."last4" ~ '^[0-9]{4}$'),
	CONSTRAINT "debit_cards_expiry_valid" CHECK ("debit_cards"."expiry_month" between 1 and 12 and "debit_cards"."expiry_year" between 2000 and 2200),
	CONSTRAINT "debit_cards_daily_limit_not_negative" CHECK ("debit_cards"."daily_limit_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "application_decisions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"decision" text NOT NULL,
	"checklist" jsonb NOT NULL,
	"snapshot" jsonb NOT NULL,
	"note" text,
	"decided_by" text NOT NULL,
	"decided_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "application_decisions_decision_valid" CHECK ("application_decisions"."decision" in ('approved', 'rejected', 'info_requested')),
	CONSTRAINT "application_decisions_note_required" CHECK ("application_decisions"."decision" = 'approved' or ("application_decisions"."note" is not null and length("application_decisions"."note") > 0))
);
--> statement-breakpoint
CREATE TABLE "password_change_requirements" (
	"user_id" text PRIMARY KEY NOT NULL,
	"reason" text DEFAULT 'temporary_password' NOT NULL,
	"set_by" text,
	"set_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cleared_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "staff_code_panel_clears" (
	"staff_id" text PRIMARY KEY NOT NULL,
	"cleared_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "debit_cards" ADD CONSTRAINT "debit_cards_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "audit_log" USING btree ("at","id");--> statement-breakpoint
CREATE INDEX "audit_log_actor_idx" ON "audit_log" USING btree ("actor_id","id");--> statement-breakpoint
CREATE INDEX "audit_log_member_idx" ON "audit_log" USING btree ("member_id","id");--> statement-breakpoint
CREATE INDEX "audit_log_action_idx" ON "audit_log" USING btree ("action","id");--> statement-breakpoint
CREATE INDEX "debit_cards_member_idx" ON "debit_cards" USING btree ("member_id");--> statement-breakpoint
CREATE INDEX "debit_cards_account_idx" ON "debit_cards" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "application_decisions_user_idx" ON "application_decisions" USING btree ("user_id","decided_at");