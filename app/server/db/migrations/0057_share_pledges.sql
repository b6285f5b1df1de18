CREATE TABLE "share_pledges" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"application_id" bigint NOT NULL,
	"member_id" text NOT NULL,
	"account_id" bigint NOT NULL,
	"loan_id" bigint,
	"status" text DEFAULT 'pledged' NOT NULL,
	"hold_transaction_id" bigint,
	"held_cents" bigint DEFAULT 0 NOT NULL,
	"released_on" date,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "share_pledges_application_unique" UNIQUE("application_id"),
	CONSTRAINT "share_pledges_loan_unique" UNIQUE("loan_id"),
	CONSTRAINT "share_pledges_status_valid" CHECK ("share_pledges"."status" in ('pledged', 'held', 'released')),
	CONSTRAINT "share_pledges_held_not_negative" CHECK ("share_pledges"."held_cents" >= 0),
	CONSTRAINT "share_pledges_hold_matches" CHECK (("share_pledges"."hold_transaction_id" is null) = ("share_pledges"."held_cents" = 0) and ("share_pledges"."status" = 'held' or "share_pledges"."held_cents" = 0)),
	CONSTRAINT "share_pledges_held_has_loan" CHECK ("share_pledges"."status" = 'pledged' or "share_pledges"."loan_id" is not null),
	CONSTRAINT "share_pledges_released_dated" CHECK (("share_pledges"."status" = 'released') = ("share_pledges"."released_on" is not null))
);
--> statement-breakpoint
ALTER TABLE "share_pledges" ADD CONSTRAINT "share_pledges_application_id_loan_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."loan_applications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_pledges" ADD CONSTRAINT "share_pledges_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_pledges" ADD CONSTRAINT "share_pledges_loan_id_loans_id_fk" FOREIGN KEY ("loan_id") REFERENCES "public"."loans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_pledges" ADD CONSTRAINT "share_pledges_hold_transaction_id_ledger_transactions_id_fk" FOREIGN KEY ("hold_transaction_id") REFERENCES "public"."ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "share_pledges_account_idx" ON "share_pledges" USING btree ("account_id");