CREATE TABLE "member_directory_counts" (
	"status" text PRIMARY KEY NOT NULL,
	"members" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "member_directory_counts_status_valid" CHECK ("member_directory_counts"."status" in ('pending', 'approved', 'rejected')),
	CONSTRAINT "member_directory_counts_not_negative" CHECK ("member_directory_counts"."members" >= 0)
);
