-- The member directory's tab counts (docs/product.md#member-directory: tabs with counts, fast with
-- 100,000 members) are kept exact by the database itself: every statement that inserts, updates,
-- deletes (cascades included) or truncates member_profiles adjusts member_directory_counts in the
-- same transaction. Statement triggers with transition tables: one adjustment per status per
-- statement, however many rows (a bulk import does not update the same row 100,000 times), and none
-- when no status changed. Rows are adjusted in status order, so concurrent decisions lock them in
-- the same order and cannot deadlock on them. A missing row is created, so emptying every table at
-- once (truncateAll, for tests) leaves counts that are still right; a count that would go below
-- zero is refused (CHECK), loudly, rather than shown wrong.
CREATE FUNCTION member_directory_counts_add(counted_status text, delta bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE member_directory_counts SET members = members + delta WHERE status = counted_status;
  IF NOT FOUND THEN
    INSERT INTO member_directory_counts AS c (status, members) VALUES (counted_status, delta)
    ON CONFLICT (status) DO UPDATE SET members = c.members + excluded.members;
  END IF;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION member_directory_counts_adjust() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d record;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    UPDATE member_directory_counts SET members = 0 WHERE members <> 0;
  ELSIF TG_OP = 'INSERT' THEN
    FOR d IN SELECT status, count(*) AS delta FROM new_rows GROUP BY status ORDER BY status LOOP
      PERFORM member_directory_counts_add(d.status, d.delta);
    END LOOP;
  ELSIF TG_OP = 'DELETE' THEN
    FOR d IN SELECT status, -count(*) AS delta FROM old_rows GROUP BY status ORDER BY status LOOP
      PERFORM member_directory_counts_add(d.status, d.delta);
    END LOOP;
  ELSE
    FOR d IN
      SELECT status, sum(delta) AS delta
      FROM (SELECT status, 1 AS delta FROM new_rows UNION ALL SELECT status, -1 FROM old_rows) AS changes
      GROUP BY status HAVING sum(delta) <> 0 ORDER BY status
    LOOP
      PERFORM member_directory_counts_add(d.status, d.delta);
    END LOOP;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER member_profiles_directory_counts_insert AFTER INSERT ON "member_profiles" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_directory_counts_adjust();
--> statement-breakpoint
CREATE TRIGGER member_profiles_directory_counts_update AFTER UPDATE ON "member_profiles" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_directory_counts_adjust();
--> statement-breakpoint
CREATE TRIGGER member_profiles_directory_counts_delete AFTER DELETE ON "member_profiles" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION member_directory_counts_adjust();
--> statement-breakpoint
CREATE TRIGGER member_profiles_directory_counts_truncate AFTER TRUNCATE ON "member_profiles" FOR EACH STATEMENT EXECUTE FUNCTION member_directory_counts_adjust();
--> statement-breakpoint
-- The starting counts, taken after the triggers exist (their creation locks member_profiles
-- against writes until this migration commits, so no change is missed or counted twice).
INSERT INTO "member_directory_counts" ("status", "members")
SELECT s.status, (SELECT count(*) FROM "member_profiles" p WHERE p.status = s.status)
FROM (VALUES ('pending'), ('approved'), ('rejected')) AS s(status);
--> statement-breakpoint
-- Search answered from the indexes (no table rows read until the page's 25 are chosen). The
-- prefix indexes of migration 0005 are replaced by covering ones: each lookup yields the
-- member's id, status and created_at (the order of the list) from the index alone. An expression
-- index is only used for an index-only scan when the columns of its expression are in it too,
-- hence first_name and last_name in INCLUDE.
DROP INDEX "member_profiles_full_name_prefix_idx";
--> statement-breakpoint
CREATE INDEX "member_profiles_full_name_prefix_idx" ON "member_profiles" USING btree ((lower("first_name" || ' ' || "last_name")) text_pattern_ops) INCLUDE ("first_name", "last_name", "status", "created_at", "user_id");
--> statement-breakpoint
DROP INDEX "member_profiles_last_name_prefix_idx";
--> statement-breakpoint
CREATE INDEX "member_profiles_last_name_prefix_idx" ON "member_profiles" USING btree ((lower("last_name")) text_pattern_ops) INCLUDE ("last_name", "status", "created_at", "user_id");
--> statement-breakpoint
DROP INDEX "users_email_prefix_idx";
--> statement-breakpoint
CREATE INDEX "users_email_prefix_idx" ON "users" USING btree ("email" text_pattern_ops) INCLUDE ("id");
--> statement-breakpoint
DROP INDEX "ledger_accounts_account_number_prefix_idx";
--> statement-breakpoint
CREATE INDEX "ledger_accounts_account_number_prefix_idx" ON "ledger_accounts" USING btree ("account_number" text_pattern_ops) INCLUDE ("owner", "member_id");
--> statement-breakpoint
-- A member's status and created_at by id, from the index alone: how an email or account number
-- match (found on users or ledger_accounts) is placed in the list.
CREATE UNIQUE INDEX "member_profiles_user_directory_idx" ON "member_profiles" USING btree ("user_id") INCLUDE ("status", "created_at");
