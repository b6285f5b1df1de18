-- (status, created_at) is a prefix of migration 0007's (status, created_at, user_id), which
-- serves every query the two-column index served; keeping both only slowed writes.
-- The three-column index already exists (0007, written by hand); schema.ts now declares it.
DROP INDEX "member_profiles_status_created_idx";
