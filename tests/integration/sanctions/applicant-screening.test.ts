import "../admin-support";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, desc, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, ledgerAccounts, memberProfiles, outbox, sanctionsScreenings } from "~/server/db/schema";
import { loadSanctionsLists } from "~/server/sanctions/lists.server";
import { approveApplication } from "~/server/admin/review.server";
import { decideScreeningCase } from "~/server/admin/screening-decisions.server";
import { createMemberByStaff } from "~/server/admin/create-member.server";
import { users } from "~/server/db/schema";
import { openTestDatabase } from "../test-database";
import { applicant, fullChecklist, IDENTITY_VERIFIED, ORIGIN, person } from "../admin-support";

/**
 * Applicants and joint owners screened before approval (docs/product.md#sanctions-screening,
 * 31 CFR 501): at submission, so the queue sees a possible match early, and again at approval,
 * which a match still open refuses. Cleared with a reason, the approval goes on; confirmed by a
 * second staff member, the application is declined with no account opened, and the applicant is
 * told without a list named.
 */
const fixtures = path.resolve(import.meta.dirname, "../../fixtures/sanctions");
let database: Database;
let first: { id: string; email: string };
let second: { id: string; email: string };

async function loadList() {
  const loaded = await loadSanctionsLists(database.db, {
    files: ["SDN.CSV", "ALT.CSV", "ADD.CSV"].map((name) => ({
      name,
      bytes: fs.readFileSync(path.join(fixtures, name)),
    })),
    published_on: "2026-11-28",
    loader: null,
  });
  if (!loaded.ok) throw new Error(loaded.message);
}

// The fixture lists "GONZALEZ MORENO, Jose Luis", born 21 Aug 1975, Mexican.
const LISTED = {
  first_name: "Jose Luis",
  last_name: "Gonzales Moreno",
  date_of_birth: "1975-08-21",
  country: "Mexico",
};

beforeAll(async () => {
  database = await openTestDatabase();
  const a = await person(database.db, "admin");
  const b = await person(database.db, "admin");
  first = { id: a.id, email: a.email };
  second = { id: b.id, email: b.email };
});
afterAll(async () => database?.close());

const screeningsOf = (user_id: string) =>
  database.db
    .select()
    .from(sanctionsScreenings)
    .where(and(eq(sanctionsScreenings.subject_type, "application"), eq(sanctionsScreenings.subject_id, user_id)))
    .orderBy(sanctionsScreenings.id);
const profileOf = async (user_id: string) =>
  (await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, user_id)))[0]!;
const accountsOf = (user_id: string) =>
  database.db.select().from(ledgerAccounts).where(eq(ledgerAccounts.member_id, user_id));
const approve = (member_id: string, staff = first) =>
  approveApplication(database.db, {
    member_id,
    staff,
    checklist: fullChecklist(),
    identity: IDENTITY_VERIFIED,
    origin: ORIGIN,
  });

describe("screening applicants before approval", () => {
  it("an application that came before any list is screened at approval: a possible match stops it", async () => {
    const listed = await applicant(database.db, LISTED);
    expect(await screeningsOf(listed.id)).toHaveLength(0);
    await loadList();
    const answer = await approve(listed.id);
    expect(answer).toMatchObject({ ok: false, code: "screening_hit", found_now: true });
    const [screening] = await screeningsOf(listed.id);
    expect(screening).toMatchObject({
      status: "open",
      screened_name: "Jose Luis Gonzales Moreno",
      member_id: listed.id,
    });
    expect(screening!.matches[0]).toMatchObject({ uid: "10005", birth_date: "match", country: "match" });
    expect((await profileOf(listed.id)).status).toBe("pending");
    expect(await accountsOf(listed.id)).toHaveLength(0);
  });

  it("a clean applicant is approved as before, and nothing waits in the queue", async () => {
    const clean = await applicant(database.db);
    expect(await screeningsOf(clean.id)).toHaveLength(0);
    expect(await approve(clean.id)).toMatchObject({ ok: true });
    expect(await accountsOf(clean.id)).toHaveLength(2);
  });

  it("submitted after the list is loaded, a possible match is in the queue at once; approval waits until it is cleared", async () => {
    const listed = await applicant(database.db, LISTED);
    const [screening] = await screeningsOf(listed.id);
    expect(screening).toMatchObject({ status: "open" });
    expect(screening!.screened_details).toMatchObject({ kind: "Membership application", country: "MX" });

    // Still open: refused again, and no second item is filed.
    expect(await approve(listed.id)).toMatchObject({ ok: false, code: "screening_hit", found_now: false });
    expect(await screeningsOf(listed.id)).toHaveLength(1);
    expect(await accountsOf(listed.id)).toHaveLength(0);

    // A reason is required: refused, nothing changes.
    const blank = await decideScreeningCase(database.db, {
      screening_id: screening!.id,
      decision: "clear",
      reason: "  ",
      staff: first,
      origin: ORIGIN,
    });
    expect(blank).toMatchObject({ ok: false, field: "reason" });
    expect((await screeningsOf(listed.id))[0]!.status).toBe("open");

    const cleared = await decideScreeningCase(database.db, {
      screening_id: screening!.id,
      decision: "clear",
      reason: "Different person: born in Texas, US passport checked",
      staff: first,
      origin: ORIGIN,
    });
    expect(cleared).toEqual({ ok: true, message: "Cleared: the application can be approved." });
    // The cleared entry is not filed again at approval: the member is approved.
    expect(await approve(listed.id)).toMatchObject({ ok: true });
    expect(await screeningsOf(listed.id)).toHaveLength(1);
    expect(await accountsOf(listed.id)).toHaveLength(2);
    const [audit] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "sanctions.screening.clear"), eq(auditLog.subject_id, String(screening!.id))));
    expect(audit).toMatchObject({ actor_id: first.id });
  });

  it("a joint owner who may be listed stops the approval too", async () => {
    const joint = await applicant(database.db, {
      joint_account: "on",
      joint_name: "Dmitry Petrovskiy",
      joint_email: `joint-${Date.now()}@example.com`,
      joint_phone: "(555) 010-4321",
      joint_tin_type: "ssn",
      joint_tin: "555-01-3579",
    });
    const [screening] = await screeningsOf(joint.id);
    expect(screening!.screened_details.joint_owner).toBe("Dmitry Petrovskiy");
    expect(screening!.matches[0]).toMatchObject({ uid: "10002", screened_name: "Dmitry Petrovskiy" });
    expect(await approve(joint.id)).toMatchObject({ ok: false, code: "screening_hit" });
  });

  it("confirmed by two staff members, the application is declined: no account, a plain email, all audited", async () => {
    const listed = await applicant(database.db, LISTED);
    const [screening] = await screeningsOf(listed.id);
    const asked = await decideScreeningCase(database.db, {
      screening_id: screening!.id,
      decision: "request_confirm",
      reason: "Date of birth and nationality agree with the listing",
      staff: first,
      origin: ORIGIN,
    });
    expect(asked.ok).toBe(true);
    // The one who asked cannot approve it; the application waits meanwhile.
    expect(
      await decideScreeningCase(database.db, {
        screening_id: screening!.id,
        decision: "approve_confirm",
        reason: "",
        staff: first,
        origin: ORIGIN,
      }),
    ).toMatchObject({ ok: false, kind: "conflict" });
    expect(await approve(listed.id, second)).toMatchObject({ ok: false, code: "screening_hit", found_now: false });

    const confirmed = await decideScreeningCase(database.db, {
      screening_id: screening!.id,
      decision: "approve_confirm",
      reason: "",
      staff: second,
      origin: ORIGIN,
    });
    expect(confirmed).toEqual({
      ok: true,
      message: "Confirmed: the application is declined and no account was opened.",
    });
    const profile = await profileOf(listed.id);
    expect(profile).toMatchObject({ status: "rejected", decided_by: second.id });
    expect(profile.rejection_reason).not.toMatch(/sanction|OFAC|SDN|list/i);
    expect(await accountsOf(listed.id)).toHaveLength(0);
    expect(await approve(listed.id)).toMatchObject({
      ok: false,
      code: "already_decided",
      message: "Failed: this application was already rejected.",
    });
    expect((await screeningsOf(listed.id))[0]!.report_draft).toMatchObject({
      kind: "declined_application",
      due_by: null,
      party: "Jose Luis Gonzales Moreno",
    });

    const [email] = await database.db
      .select()
      .from(outbox)
      .where(eq(outbox.to_email, listed.email))
      .orderBy(desc(outbox.id))
      .limit(1);
    expect(`${email!.subject} ${email!.text_body}`).not.toMatch(/sanction|OFAC|SDN|specially designated/i);
    const actions = (
      await database.db
        .select({ action: auditLog.action, after: auditLog.after })
        .from(auditLog)
        .where(eq(auditLog.member_id, listed.id))
    ).map((r) => r.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        "sanctions.screening.hit",
        "sanctions.screening.request_confirm",
        "sanctions.screening.approve_confirm",
      ]),
    );
    const [reject] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "application.reject"), eq(auditLog.subject_id, listed.id)));
    expect(reject!.after).toMatchObject({ screening_id: screening!.id, status: "rejected" });
  });

  it("a member staff open directly is screened too: a possible match creates nobody, and the refusal is audited", async () => {
    const email = `created-listed-${Date.now()}@example.com`;
    const result = await createMemberByStaff(database.db, {
      staff: first,
      member: {
        email,
        password: "Temporary harbor pass 9",
        first_name: "Jose Luis",
        last_name: "Gonzales Moreno",
        phone: "(555) 010-7777",
        street: "1 Dock Road",
        city: "Portsmouth",
        state: "NH",
        postal_code: "03801",
        role: "user",
        joint_account: false,
      } as never,
      origin: ORIGIN,
    });
    expect(result).toEqual({ status: "screening_hit" });
    expect(await database.db.select().from(users).where(eq(users.email, email))).toHaveLength(0);
    const [audit] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "member.create_refused"), eq(auditLog.actor_id, first.id)));
    expect(audit!.after).toMatchObject({ screened_name: "Jose Luis Gonzales Moreno" });
  });
});
