CREATE TABLE "books_reconciliations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"rail" text NOT NULL,
	"business_date" date NOT NULL,
	"statement_cents" bigint NOT NULL,
	"ledger_cents" bigint NOT NULL,
	"entered_by" text NOT NULL,
	"entered_by_email" text,
	"entered_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "books_reconciliations_rail_valid" CHECK ("books_reconciliations"."rail" in ('ach', 'wire', 'bill_pay', 'card'))
);
--> statement-breakpoint
CREATE INDEX "books_reconciliations_rail_date_idx" ON "books_reconciliations" USING btree ("rail","business_date","id");