CREATE TABLE "tax_forms" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"tax_year" integer NOT NULL,
	"form" text NOT NULL,
	"interest_cents" bigint NOT NULL,
	"tin_type" text,
	"tin_last_four" text,
	"backup_withholding_flag" boolean NOT NULL,
	"issued_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tax_forms_member_year_form_unique" UNIQUE("member_id","tax_year","form"),
	CONSTRAINT "tax_forms_amount_positive" CHECK ("tax_forms"."interest_cents" > 0),
	CONSTRAINT "tax_forms_tin" CHECK (("tax_forms"."tin_type" is null) = ("tax_forms"."tin_last_four" is null))
);
--> statement-breakpoint
ALTER TABLE "tax_forms" ADD CONSTRAINT "tax_forms_member_id_users_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;