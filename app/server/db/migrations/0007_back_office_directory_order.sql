-- The member directory's tabs page newest first with a tie-breaker (created_at, user_id): this
-- index serves that order for one status without sorting the whole tab.
CREATE INDEX "member_profiles_status_created_user_idx" ON "member_profiles" USING btree ("status", "created_at", "user_id");
