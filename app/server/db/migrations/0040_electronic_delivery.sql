CREATE TABLE "disclosure_notices" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"kind" text NOT NULL,
	"version" text NOT NULL,
	"effective_on" text NOT NULL,
	"channel" text NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "disclosure_notices_once" UNIQUE("member_id","kind","version")
);
--> statement-breakpoint
CREATE TABLE "electronic_delivery_choices" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"choice" text NOT NULL,
	"disclosure_version" text NOT NULL,
	"disclosure_versions" jsonb NOT NULL,
	"made_by" text NOT NULL,
	"request_id" text,
	"ip" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "electronic_delivery_samples" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"code" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "electronic_delivery_samples_code" CHECK ("electronic_delivery_samples"."code" ~ '^[A-Z0-9]{6}$')
);
--> statement-breakpoint
ALTER TABLE "account_statements" ADD COLUMN "mail_paper_copy" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "disclosure_notices" ADD CONSTRAINT "disclosure_notices_member_id_users_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "electronic_delivery_choices" ADD CONSTRAINT "electronic_delivery_choices_member_id_users_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "electronic_delivery_samples" ADD CONSTRAINT "electronic_delivery_samples_member_id_users_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "electronic_delivery_choices_member_idx" ON "electronic_delivery_choices" USING btree ("member_id","at");--> statement-breakpoint
CREATE INDEX "electronic_delivery_samples_member_idx" ON "electronic_delivery_samples" USING btree ("member_id","created_at");