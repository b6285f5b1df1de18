CREATE TABLE "card_authorizations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"card_id" bigint NOT NULL,
	"account_id" bigint NOT NULL,
	"transaction_id" bigint NOT NULL,
	"merchant" text NOT NULL,
	"category" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"business_date" date NOT NULL,
	"status" text NOT NULL,
	"initiator" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone,
	CONSTRAINT "card_authorizations_initiator_key_unique" UNIQUE("initiator","idempotency_key"),
	CONSTRAINT "card_authorizations_transaction_unique" UNIQUE("transaction_id"),
	CONSTRAINT "card_authorizations_amount_positive" CHECK ("card_authorizations"."amount_cents" > 0),
	CONSTRAINT "card_authorizations_status_valid" CHECK ("card_authorizations"."status" in ('pending', 'settled', 'released'))
);
--> statement-breakpoint
ALTER TABLE "ledger_accounts" DROP CONSTRAINT "ledger_accounts_type_matches_owner";--> statement-breakpoint
ALTER TABLE "debit_cards" DROP CONSTRAINT "debit_cards_status_valid";--> statement-breakpoint
ALTER TABLE "debit_cards" ADD COLUMN "pin_changed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "debit_cards" ADD COLUMN "blocked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "debit_cards" ADD COLUMN "blocked_reason" text;--> statement-breakpoint
ALTER TABLE "debit_cards" ADD COLUMN "replaced_by_id" bigint;--> statement-breakpoint
ALTER TABLE "card_authorizations" ADD CONSTRAINT "card_authorizations_card_id_debit_cards_id_fk" FOREIGN KEY ("card_id") REFERENCES "public"."debit_cards"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_authorizations" ADD CONSTRAINT "card_authorizations_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_authorizations" ADD CONSTRAINT "card_authorizations_transaction_id_ledger_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "card_authorizations_card_day_idx" ON "card_authorizations" USING btree ("card_id","business_date");--> statement-breakpoint
ALTER TABLE "debit_cards" ADD CONSTRAINT "debit_cards_replaced_by_id_debit_cards_id_fk" FOREIGN KEY ("replaced_by_id") REFERENCES "public"."debit_cards"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_accounts" ADD CONSTRAINT "ledger_accounts_type_matches_owner" CHECK (("ledger_accounts"."owner" = 'member' and "ledger_accounts"."type" in ('checking', 'savings', 'credit_card') and "ledger_accounts"."member_id" is not null)
        or ("ledger_accounts"."owner" = 'institution' and "ledger_accounts"."type" in ('cash', 'ach_settlement', 'wire_settlement', 'bill_pay_settlement', 'deposits_in_transit', 'adjustments', 'fees_income', 'card_settlement') and "ledger_accounts"."member_id" is null));--> statement-breakpoint
ALTER TABLE "debit_cards" ADD CONSTRAINT "debit_cards_blocked_shape" CHECK (("debit_cards"."status" = 'blocked') = ("debit_cards"."blocked_at" is not null and "debit_cards"."blocked_reason" in ('lost', 'stolen')) and ("debit_cards"."replaced_by_id" is null or "debit_cards"."status" = 'blocked'));--> statement-breakpoint
ALTER TABLE "debit_cards" ADD CONSTRAINT "debit_cards_status_valid" CHECK ("debit_cards"."status" in ('active', 'locked', 'blocked'));