CREATE TABLE "staff_role_grants" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"user_id" text,
	"profile" jsonb,
	"status" text DEFAULT 'pending' NOT NULL,
	"requested_by" text,
	"requested_by_email" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_by" text,
	"decided_by_email" text,
	"decided_at" timestamp with time zone,
	"decline_reason" text,
	CONSTRAINT "staff_role_grants_kind_valid" CHECK ("staff_role_grants"."kind" in ('create', 'raise')),
	CONSTRAINT "staff_role_grants_role_valid" CHECK ("staff_role_grants"."role" in ('admin', 'reviewer')),
	CONSTRAINT "staff_role_grants_status_valid" CHECK ("staff_role_grants"."status" in ('pending', 'approved', 'declined')),
	CONSTRAINT "staff_role_grants_email_lower" CHECK ("staff_role_grants"."email" = lower("staff_role_grants"."email") and length("staff_role_grants"."email") > 0),
	CONSTRAINT "staff_role_grants_raise_has_user" CHECK ("staff_role_grants"."kind" <> 'raise' or "staff_role_grants"."user_id" is not null),
	CONSTRAINT "staff_role_grants_create_has_profile" CHECK ("staff_role_grants"."kind" <> 'create' or "staff_role_grants"."profile" is not null),
	CONSTRAINT "staff_role_grants_approver_not_requester" CHECK ("staff_role_grants"."decided_by" is null or "staff_role_grants"."requested_by" is null or "staff_role_grants"."decided_by" <> "staff_role_grants"."requested_by"),
	CONSTRAINT "staff_role_grants_decided" CHECK ("staff_role_grants"."status" = 'pending' or ("staff_role_grants"."decided_by" is not null and "staff_role_grants"."decided_at" is not null)),
	CONSTRAINT "staff_role_grants_declined_has_reason" CHECK ("staff_role_grants"."status" <> 'declined' or length("staff_role_grants"."decline_reason") > 0)
);
--> statement-breakpoint
CREATE INDEX "staff_role_grants_pending_idx" ON "staff_role_grants" USING btree ("requested_at","id") WHERE "staff_role_grants"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "staff_role_grants_one_pending_per_email" ON "staff_role_grants" USING btree ("email") WHERE "staff_role_grants"."status" = 'pending';