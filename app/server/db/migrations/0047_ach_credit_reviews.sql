CREATE TABLE "ach_credit_reviews" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"entry_id" bigint NOT NULL,
	"account_id" bigint NOT NULL,
	"member_id" text NOT NULL,
	"credit_transaction_id" bigint NOT NULL,
	"hold_transaction_id" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	"reasons" jsonb NOT NULL,
	"status" text DEFAULT 'waiting' NOT NULL,
	"return_code" text,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ach_credit_reviews_entry_unique" UNIQUE("entry_id"),
	CONSTRAINT "ach_credit_reviews_hold_unique" UNIQUE("hold_transaction_id"),
	CONSTRAINT "ach_credit_reviews_status_valid" CHECK ("ach_credit_reviews"."status" in ('waiting', 'released', 'returned')),
	CONSTRAINT "ach_credit_reviews_returned_has_code" CHECK ("ach_credit_reviews"."status" <> 'returned' or "ach_credit_reviews"."return_code" in ('R17', 'R23')),
	CONSTRAINT "ach_credit_reviews_decided" CHECK ("ach_credit_reviews"."status" = 'waiting' or ("ach_credit_reviews"."decided_by" is not null and "ach_credit_reviews"."decided_at" is not null)),
	CONSTRAINT "ach_credit_reviews_amount" CHECK ("ach_credit_reviews"."amount_cents" > 0)
);
--> statement-breakpoint
CREATE INDEX "ach_credit_reviews_waiting_idx" ON "ach_credit_reviews" USING btree ("id") WHERE "ach_credit_reviews"."status" = 'waiting';