import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { memberProfiles, users } from "~/server/db/schema";
import { approveApplication, rejectApplication, requestInformation } from "~/server/admin/review.server";
import { createMemberByStaff } from "~/server/admin/create-member.server";
import {
  DIRECTORY_PAGE_SIZE,
  directoryCounts,
  listDirectory,
  memberDetail,
  type DirectoryCounts,
} from "~/server/admin/directory.server";
import { joinedVerb, personKind, showsApplicationStatus } from "~/domain/staff-roles";
import { openTestDatabase, onPostgres } from "../test-database";
import { applicant, fullChecklist, IDENTITY_VERIFIED, ORIGIN, person } from "../admin-support";

/**
 * The member directory (docs/product.md#member-directory): the tab counts are kept by triggers on
 * member_profiles (migration 0009) and must always equal a real COUNT; search and pages are
 * chosen from indexes and must list exactly what the plain query would.
 */
let database: Database;
let staff: { id: string; email: string };
beforeAll(async () => {
  database = await openTestDatabase({ pool_max: 8 });
  staff = await person(database.db, "admin");
});
afterAll(async () => {
  await database?.close();
});

async function realCounts(): Promise<DirectoryCounts> {
  const rows = (
    await database.db.execute<{ status: "pending" | "approved" | "rejected"; n: number }>(
      sql`select status, count(*)::int as n from member_profiles group by status`,
    )
  ).rows;
  const counts: DirectoryCounts = { all: 0, pending: 0, approved: 0, rejected: 0 };
  for (const row of rows) {
    counts[row.status] = Number(row.n);
    counts.all += Number(row.n);
  }
  return counts;
}

async function expectExactCounts(): Promise<DirectoryCounts> {
  const counts = await directoryCounts(database.db);
  expect(counts).toEqual(await realCounts());
  return counts;
}

describe("tab counts", () => {
  it("match a real COUNT after apply, approve, reject, request info, create, edit, delete and bulk changes", async () => {
    const start = await expectExactCounts();

    const a = await applicant(database.db);
    const b = await applicant(database.db);
    const c = await applicant(database.db);
    expect((await expectExactCounts()).pending).toBe(start.pending + 3);

    expect(
      (
        await approveApplication(database.db, {
          member_id: a.id,
          staff,
          checklist: fullChecklist(),
          identity: IDENTITY_VERIFIED,
          origin: ORIGIN,
        })
      ).ok,
    ).toBe(true);
    expect(await expectExactCounts()).toMatchObject({
      pending: start.pending + 2,
      approved: start.approved + 1,
      all: start.all + 3,
    });

    expect(
      (
        await rejectApplication(database.db, {
          member_id: b.id,
          staff,
          checklist: fullChecklist(),
          reason: "Document unreadable",
          origin: ORIGIN,
        })
      ).ok,
    ).toBe(true);
    expect(await expectExactCounts()).toMatchObject({ pending: start.pending + 1, rejected: start.rejected + 1 });

    // No status change: no count moves.
    expect(
      (
        await requestInformation(database.db, {
          member_id: c.id,
          staff,
          checklist: fullChecklist(),
          message: "A clearer photo, please.",
          origin: ORIGIN,
        })
      ).ok,
    ).toBe(true);
    await database.db.update(memberProfiles).set({ city: "Dover" }).where(eq(memberProfiles.user_id, c.id));
    expect(await expectExactCounts()).toMatchObject({
      pending: start.pending + 1,
      approved: start.approved + 1,
      rejected: start.rejected + 1,
    });

    const created = await createMemberByStaff(database.db, {
      staff,
      member: {
        email: `directory-created-${Date.now()}@example.com`,
        password: "Temporary harbor pass 9",
        first_name: "Robin",
        last_name: "Countwell",
        phone: "(555) 010-7777",
        street: "1 Dock Road",
        city: "Portsmouth",
        state: "NH",
        postal_code: "03801",
        role: "user",
        joint_account: false,
      },
      origin: ORIGIN,
    });
    expect(created.status).toBe("created");
    await expectExactCounts();

    // A user deleted: the profile goes by cascade, and so does its count.
    await database.db.delete(users).where(eq(users.id, c.id));
    expect(await expectExactCounts()).toMatchObject({ pending: start.pending });

    // One statement changing many rows across statuses (an operator's bulk fix).
    const d = await applicant(database.db);
    const e = await applicant(database.db);
    await database.db
      .update(memberProfiles)
      .set({
        status: sql`case when ${memberProfiles.user_id} = ${d.id} then 'rejected' else 'approved' end`,
        rejection_reason: "Bulk test",
        document_status: "verified",
      })
      .where(sql`${memberProfiles.user_id} in (${d.id}, ${e.id}, ${a.id})`);
    await expectExactCounts();

    // Truncation empties the counts too (rolled back: the rest of this file keeps its members).
    await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`truncate member_profiles cascade`);
        const rows = await tx.execute<{ n: string }>(
          sql`select coalesce(sum(members), 0)::text as n from member_directory_counts`,
        );
        expect(Number(rows.rows[0]!.n)).toBe(0);
        throw new Error("rollback");
      })
      .catch((error: Error) => {
        if (error.message !== "rollback") throw error;
      });
    await expectExactCounts();
  });

  it.runIf(onPostgres)("stay exact under concurrent applications and decisions", async () => {
    const pending = await Promise.all(Array.from({ length: 6 }, () => applicant(database.db)));
    await Promise.all([
      ...pending.slice(0, 3).map((p) =>
        approveApplication(database.db, {
          member_id: p.id,
          staff,
          checklist: fullChecklist(),
          identity: IDENTITY_VERIFIED,
          origin: ORIGIN,
        }),
      ),
      ...pending.slice(3).map((p) =>
        rejectApplication(database.db, {
          member_id: p.id,
          staff,
          checklist: fullChecklist(),
          reason: "Concurrent test",
          origin: ORIGIN,
        }),
      ),
      ...Array.from({ length: 4 }, () => applicant(database.db)),
    ]);
    await expectExactCounts();
  });
});

describe("search and pages", () => {
  it("list exactly what the plain query lists, newest first, each member once", async () => {
    // Members whose email and name both match the same term: listed once.
    const stamp = Date.now();
    const made: string[] = [];
    for (let i = 0; i < DIRECTORY_PAGE_SIZE + 3; i++) {
      const m = await applicant(database.db, {
        email: `ulrika.vantongeren${i}-${stamp}@example.com`,
        first_name: "Ulrika",
        last_name: `Vantongeren`,
      });
      made.push(m.id);
    }
    await approveApplication(database.db, {
      member_id: made[0]!,
      staff,
      checklist: fullChecklist(),
      identity: IDENTITY_VERIFIED,
      origin: ORIGIN,
    });

    const expected = (
      await database.db.execute<{ user_id: string }>(
        sql`select user_id from member_profiles where lower(first_name) = 'ulrika' order by created_at desc, user_id desc`,
      )
    ).rows.map((r) => r.user_id);
    expect(expected).toHaveLength(made.length);
    for (const term of ["ulrika", "ulrika van", "Vantong", `ulrika.vantongeren1`]) {
      const first = await listDirectory(database.db, { tab: "all", query: term });
      const matching =
        term === "ulrika.vantongeren1"
          ? expected.filter((id) => made.indexOf(id) === 1 || (made.indexOf(id) >= 10 && made.indexOf(id) <= 19))
          : expected;
      expect(first.items.map((i) => i.user_id)).toEqual(matching.slice(0, DIRECTORY_PAGE_SIZE));
      expect(first.total).toBeNull();
      expect(first.has_next).toBe(matching.length > DIRECTORY_PAGE_SIZE);
      if (first.has_next) {
        const second = await listDirectory(database.db, { tab: "all", query: term, page: 2 });
        expect(second.items.map((i) => i.user_id)).toEqual(
          matching.slice(DIRECTORY_PAGE_SIZE, 2 * DIRECTORY_PAGE_SIZE),
        );
        expect(second.has_next).toBe(false);
      }
    }
    expect(
      (await listDirectory(database.db, { tab: "approved", query: "ulrika" })).items.map((i) => i.user_id),
    ).toEqual([made[0]]);
    expect((await listDirectory(database.db, { tab: "pending", query: "ulrika" })).items).toHaveLength(
      DIRECTORY_PAGE_SIZE,
    );
    expect((await listDirectory(database.db, { tab: "rejected", query: "ulrika" })).items).toHaveLength(0);
  });

  it("pages a tab newest first without gaps or repeats, with its count as total", async () => {
    const counts = await expectExactCounts();
    for (const tab of ["all", "pending", "approved"] as const) {
      const expected = (
        await database.db.execute<{ user_id: string }>(
          tab === "all"
            ? sql`select user_id from member_profiles order by created_at desc, user_id desc`
            : sql`select user_id from member_profiles where status = ${tab} order by created_at desc, user_id desc`,
        )
      ).rows.map((r) => r.user_id);
      expect(expected.length).toBe(counts[tab]);
      const seen: string[] = [];
      for (let page = 1; ; page++) {
        const list = await listDirectory(database.db, { tab, page, counts });
        expect(list.total).toBe(counts[tab]);
        seen.push(...list.items.map((i) => i.user_id));
        if (!list.has_next) break;
      }
      expect(seen).toEqual(expected);
    }
  });
});

describe("each kind of person reads right, the same in the list and the details", () => {
  /** A person as the demo seed makes them: the profile dated long ago, the account row today. */
  async function seeded(role: "user" | "admin" | "reviewer", source: "application" | "staff", last_name: string) {
    const made = await person(database.db, role, {
      profile: { first_name: "Kind", last_name, source, created_at: new Date("2025-03-01T12:00:00Z") },
    });
    return made.id;
  }

  it("role and source come through unchanged, and both views date a person by their profile", async () => {
    const member = await seeded("user", "application", "Kindmember");
    const staffer = await seeded("admin", "staff", "Kindstaff");
    const reviewer = await seeded("reviewer", "staff", "Kindreviewer");
    const list = await listDirectory(database.db, { tab: "all", query: "Kind" });
    const row = (id: string) => list.items.find((i) => i.user_id === id)!;
    expect(row(member)).toMatchObject({ role: "user", source: "application" });
    expect(row(staffer)).toMatchObject({ role: "admin", source: "staff" });
    // A reviewer is not listed as staff with money powers.
    expect(row(reviewer)).toMatchObject({ role: "reviewer", source: "staff" });
    for (const id of [member, staffer, reviewer]) {
      const detail = (await memberDetail(database.db, { member_id: id }))!;
      expect(new Date(detail.created_at).toISOString(), id).toBe(new Date(row(id).created_at).toISOString());
      expect(detail.role).toBe(row(id).role);
    }
  });

  it("staff and reviewers show their role, not an application status; a date reads Applied or Created by how the person came", () => {
    expect([
      personKind("admin"),
      personKind("reviewer"),
      personKind("user"),
      personKind("pending"),
      personKind(null),
    ]).toEqual(["staff", "reviewer", "member", "applicant", "member"]);
    expect([
      showsApplicationStatus("admin"),
      showsApplicationStatus("reviewer"),
      showsApplicationStatus("user"),
      showsApplicationStatus("pending"),
    ]).toEqual([false, false, true, true]);
    expect([joinedVerb("application"), joinedVerb("staff")]).toEqual(["Applied", "Created"]);
  });
});
