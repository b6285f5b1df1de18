CREATE TABLE "member_alerts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"account_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"amount_cents" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp with time zone,
	CONSTRAINT "member_alerts_kind_valid" CHECK ("member_alerts"."kind" in ('balance_below', 'transaction_above', 'deposit_posted', 'payment_sent', 'payment_returned', 'card_declined')),
	CONSTRAINT "member_alerts_amount_matches_kind" CHECK (("member_alerts"."kind" in ('balance_below', 'transaction_above')) = ("member_alerts"."amount_cents" is not null)),
	CONSTRAINT "member_alerts_amount_positive" CHECK ("member_alerts"."amount_cents" is null or "member_alerts"."amount_cents" > 0)
);
--> statement-breakpoint
ALTER TABLE "ledger_accounts" ADD COLUMN "alerts_on" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "member_alerts" ADD CONSTRAINT "member_alerts_member_id_users_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_alerts" ADD CONSTRAINT "member_alerts_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "member_alerts_member_idx" ON "member_alerts" USING btree ("member_id","id");--> statement-breakpoint
CREATE INDEX "member_alerts_account_live_idx" ON "member_alerts" USING btree ("account_id") WHERE "member_alerts"."removed_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "member_alerts_live_unique" ON "member_alerts" USING btree ("account_id","kind") WHERE "member_alerts"."removed_at" is null;