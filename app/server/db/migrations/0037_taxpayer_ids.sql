CREATE TABLE "taxpayer_ids" (
	"user_id" text NOT NULL,
	"party" text NOT NULL,
	"tin_type" text NOT NULL,
	"number_enc" text NOT NULL,
	"last_four" text NOT NULL,
	"country" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "taxpayer_ids_user_id_party_pk" PRIMARY KEY("user_id","party"),
	CONSTRAINT "taxpayer_ids_party_valid" CHECK ("taxpayer_ids"."party" in ('member', 'joint')),
	CONSTRAINT "taxpayer_ids_type_valid" CHECK ("taxpayer_ids"."tin_type" in ('ssn', 'itin', 'foreign')),
	CONSTRAINT "taxpayer_ids_last_four" CHECK (length("taxpayer_ids"."last_four") = 4),
	CONSTRAINT "taxpayer_ids_country_for_foreign" CHECK (("taxpayer_ids"."tin_type" = 'foreign') = ("taxpayer_ids"."country" is not null))
);
--> statement-breakpoint
ALTER TABLE "application_decisions" ADD COLUMN "identity_verification" jsonb;--> statement-breakpoint
ALTER TABLE "taxpayer_ids" ADD CONSTRAINT "taxpayer_ids_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;