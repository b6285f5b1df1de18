CREATE TABLE "mobile_deposits" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"account_id" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	"status" text DEFAULT 'pending_review' NOT NULL,
	"pending_transaction_id" bigint NOT NULL,
	"idempotency_key" text NOT NULL,
	"front_image_file" text NOT NULL,
	"back_image_file" text NOT NULL,
	"front_image_sha256" text NOT NULL,
	"back_image_sha256" text NOT NULL,
	"duplicate_of_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"reviewed_at" timestamp with time zone,
	"reviewed_by" text,
	"reject_reason" text,
	"next_day_amount_cents" bigint DEFAULT 0 NOT NULL,
	"next_day_available_on" date,
	"next_day_hold_transaction_id" bigint,
	"later_amount_cents" bigint DEFAULT 0 NOT NULL,
	"later_available_on" date,
	"later_hold_transaction_id" bigint,
	"funds_available_at" timestamp with time zone,
	CONSTRAINT "mobile_deposits_member_key_unique" UNIQUE("member_id","idempotency_key"),
	CONSTRAINT "mobile_deposits_status_valid" CHECK ("mobile_deposits"."status" in ('pending_review', 'approved', 'rejected')),
	CONSTRAINT "mobile_deposits_amount_positive" CHECK ("mobile_deposits"."amount_cents" > 0),
	CONSTRAINT "mobile_deposits_reviewed" CHECK (("mobile_deposits"."status" = 'pending_review') = ("mobile_deposits"."reviewed_at" is null)),
	CONSTRAINT "mobile_deposits_rejected_has_reason" CHECK (("mobile_deposits"."status" = 'rejected') = ("mobile_deposits"."reject_reason" is not null)),
	CONSTRAINT "mobile_deposits_availability_split" CHECK ("mobile_deposits"."next_day_amount_cents" >= 0 and "mobile_deposits"."later_amount_cents" >= 0 and "mobile_deposits"."next_day_amount_cents" + "mobile_deposits"."later_amount_cents" <= "mobile_deposits"."amount_cents")
);
--> statement-breakpoint
CREATE INDEX "mobile_deposits_status_idx" ON "mobile_deposits" USING btree ("status","id");--> statement-breakpoint
CREATE INDEX "mobile_deposits_member_idx" ON "mobile_deposits" USING btree ("member_id","id");--> statement-breakpoint
CREATE INDEX "mobile_deposits_same_check_idx" ON "mobile_deposits" USING btree ("account_id","amount_cents");--> statement-breakpoint
CREATE INDEX "mobile_deposits_availability_idx" ON "mobile_deposits" USING btree ("id") WHERE "mobile_deposits"."status" = 'approved' and "mobile_deposits"."funds_available_at" is null;