CREATE TABLE "credit_line_changes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"line_id" bigint NOT NULL,
	"member_id" text NOT NULL,
	"kind" text NOT NULL,
	"reason" text,
	"note" text NOT NULL,
	"rate_from_ppm" integer,
	"rate_to_ppm" integer,
	"limit_from_cents" bigint,
	"limit_to_cents" bigint,
	"effective_on" date NOT NULL,
	"status" text NOT NULL,
	"notice_channel" text NOT NULL,
	"actor_id" text NOT NULL,
	"actor_email" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_line_changes_kind_valid" CHECK ("credit_line_changes"."kind" in ('freeze', 'unfreeze', 'close', 'rate', 'limit')),
	CONSTRAINT "credit_line_changes_shape" CHECK (("credit_line_changes"."kind" <> 'rate' or ("credit_line_changes"."rate_from_ppm" >= 0 and "credit_line_changes"."rate_to_ppm" >= 0 and "credit_line_changes"."rate_from_ppm" <> "credit_line_changes"."rate_to_ppm"))
        and ("credit_line_changes"."kind" <> 'limit' or ("credit_line_changes"."limit_to_cents" > 0 and "credit_line_changes"."limit_to_cents" < "credit_line_changes"."limit_from_cents"))
        and ("credit_line_changes"."kind" = 'rate' or "credit_line_changes"."status" = 'in_effect')
        and ("credit_line_changes"."kind" not in ('freeze', 'close') or "credit_line_changes"."reason" in ('fraud', 'delinquency', 'member_request')))
);
--> statement-breakpoint
ALTER TABLE "credit_lines" ADD COLUMN "frozen_reason" text;--> statement-breakpoint
ALTER TABLE "credit_lines" ADD COLUMN "closing_reason" text;--> statement-breakpoint
ALTER TABLE "credit_lines" ADD COLUMN "closed_on" date;--> statement-breakpoint
ALTER TABLE "credit_line_changes" ADD CONSTRAINT "credit_line_changes_line_id_credit_lines_id_fk" FOREIGN KEY ("line_id") REFERENCES "public"."credit_lines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credit_line_changes_line_idx" ON "credit_line_changes" USING btree ("line_id","id");--> statement-breakpoint
CREATE INDEX "credit_line_changes_scheduled_idx" ON "credit_line_changes" USING btree ("line_id","effective_on") WHERE "credit_line_changes"."status" = 'scheduled';--> statement-breakpoint
ALTER TABLE "credit_lines" ADD CONSTRAINT "credit_lines_stop_reasons_valid" CHECK (coalesce("credit_lines"."frozen_reason", 'fraud') in ('fraud', 'delinquency', 'member_request') and coalesce("credit_lines"."closing_reason", 'fraud') in ('fraud', 'delinquency', 'member_request'));