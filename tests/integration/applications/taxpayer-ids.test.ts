import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { applicationDecisions, auditLog, ledgerAccounts, memberProfiles, taxpayerIds, users } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as tinRoute from "~/routes/admin/member-tin";
import * as indexRoute from "~/routes/admin/index";
import { memberDetail, reviewerMemberDetail } from "~/server/admin/directory.server";
import { approveApplication } from "~/server/admin/review.server";
import { getProfileSettings } from "~/server/settings/settings.server";
import { getApplicantOverview } from "~/server/applications/applications.server";
import { taxpayerIdContext } from "~/server/members/taxpayer-ids.server";
import { decryptField } from "~/server/security/crypto.server";
import { IDENTITY_MESSAGES } from "~/domain/taxpayer-id";
import { openTestDatabase } from "../test-database";
import { applicant, fullChecklist, IDENTITY_VERIFIED, ORIGIN } from "../admin-support";
import { expectSentAway, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";

/**
 * Taxpayer identification numbers (docs/product.md#taxpayer-identification, 31 CFR 1020.220):
 * stored encrypted with the last four apart, shown masked to the member and staff, revealed in
 * full only to staff with money powers for a stated reason (audited, without the number), and an
 * approval refused without the identity-verification record.
 */
const SSN = "555-01-2468";
const SSN_DIGITS = "555012468";
const JOINT_ITIN = "912-78-4478";
const JOINT_DIGITS = "912784478";

type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const REFUSED: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer"];

let database: Database;
let people: SignedIn<Persona>;
let staff: { id: string; email: string };
let joint: { id: string; email: string };

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db);
  staff = cast.staff;
  joint = await applicant(db, {
    joint_account: "on",
    joint_name: "Lee Rivera",
    joint_email: `lee-${Date.now()}@example.com`,
    joint_phone: "555 010 2222",
    joint_tin_type: "itin",
    joint_tin: JOINT_ITIN,
  });
  people = await SignedIn.as(db, {
    staff: cast.staff.id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: cast.member.member.id,
    other_member: cast.other_member.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "tin-matrix-0001", ip: "203.0.113.81" });
const path = (member_id: string) => `/admin/members/${member_id}/tin`;
const reveal = (persona: Persona, member_id: string, form: Record<string, string>) =>
  run(() =>
    tinRoute.action({
      request: people.post(persona, path(member_id), form),
      params: { memberId: member_id },
      context: context(),
    } as never),
  );
const reveals = () =>
  database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, "member.tin.reveal"), eq(auditLog.member_id, joint.id)));

describe("stored encrypted, last four apart", () => {
  it("the application stores both numbers encrypted: the plaintext is nowhere in the row", async () => {
    const rows = await database.db.select().from(taxpayerIds).where(eq(taxpayerIds.user_id, joint.id));
    expect(rows.map((r) => [r.party, r.tin_type, r.last_four, r.country]).sort()).toEqual([
      ["joint", "itin", "4478", null],
      ["member", "ssn", "2468", null],
    ]);
    for (const row of rows) {
      const text = JSON.stringify(row);
      for (const secret of [SSN, SSN_DIGITS, JOINT_ITIN, JOINT_DIGITS]) expect(text).not.toContain(secret);
      expect(row.number_enc).toMatch(/^v1\./);
    }
    const member = rows.find((r) => r.party === "member")!;
    expect(decryptField(member.number_enc, taxpayerIdContext(joint.id, "member"))).toBe(SSN_DIGITS);
    // Bound to its party: the member's ciphertext does not open as the joint owner's.
    expect(() => decryptField(member.number_enc, taxpayerIdContext(joint.id, "joint"))).toThrow();
    const [profile] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, joint.id));
    expect(JSON.stringify(profile)).not.toContain(SSN_DIGITS);
  });
});

describe("masked for the member and staff", () => {
  it("staff, reviewers and the member's profile get •••-••-last four, never the number", async () => {
    const detail = await memberDetail(database.db, { member_id: joint.id, reveal: null });
    expect(detail!.taxpayer_ids).toEqual([
      { party: "member", type: "ssn", type_label: "SSN", masked: "•••-••-2468", country: null },
      { party: "joint", type: "itin", type_label: "ITIN", masked: "•••-••-4478", country: null },
    ]);
    const reviewer = await reviewerMemberDetail(database.db, { member_id: joint.id });
    const profile = await getProfileSettings(database.db, joint.id);
    expect(profile!.taxpayer_ids.map((t) => t.masked)).toEqual(["•••-••-2468", "•••-••-4478"]);
    // The applicant's status page ("What you sent us") too.
    const overview = await getApplicantOverview(database.db, joint.id);
    expect(overview!.taxpayer_ids_masked).toEqual(["SSN •••-••-2468", "Joint owner: ITIN •••-••-4478"]);
    // Even the audited "show in full" of date of birth and ID number keeps the TIN masked.
    const shown = await memberDetail(database.db, { member_id: joint.id, reveal: { staff, origin: ORIGIN } });
    for (const view of [detail, reviewer, profile, shown, overview])
      for (const secret of [SSN_DIGITS, SSN, JOINT_DIGITS, JOINT_ITIN])
        expect(JSON.stringify(view)).not.toContain(secret);
  });
});

describe("revealed in full to staff only, with a stated reason, audited", () => {
  it("staff with a reason see the joint owner's number; the audit row has who, whose, the reason and no number", async () => {
    const before = (await reveals()).length;
    const outcome = await reveal("staff", joint.id, { party: "joint", reason: "Form 1099 returned by the IRS" });
    expect(outcome.status).toBe(200);
    expect(outcome.value).toMatchObject({ status: "revealed", party: "joint", type_label: "ITIN", number: JOINT_ITIN });
    const rows = await reveals();
    expect(rows).toHaveLength(before + 1);
    const row = rows.at(-1)!;
    expect(row).toMatchObject({ actor_id: staff.id, subject_id: joint.id, ip: "203.0.113.81" });
    expect(row.after).toEqual({
      party: "joint",
      type: "itin",
      masked: "•••-••-4478",
      reason: "Form 1099 returned by the IRS",
    });
    expect(JSON.stringify(row)).not.toContain(JOINT_DIGITS);
    expect(JSON.stringify(row)).not.toContain(JOINT_ITIN);
  });

  it("without a reason nothing is revealed or recorded, and the message is next to the field", async () => {
    const before = (await reveals()).length;
    for (const reason of ["", "why", "\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000"]) {
      const outcome = await reveal("staff", joint.id, { party: "member", reason });
      expect(outcome.status).toBe(400);
      expect(outcome.body).not.toContain(SSN);
      expect((outcome.value as { reply: { error: Record<string, string[]> } }).reply.error.reason).toHaveLength(1);
    }
    expect(await reveals()).toHaveLength(before);
  });

  it("a member without a joint owner's number: not found, nothing recorded", async () => {
    const single = await applicant(database.db);
    const outcome = await reveal("staff", single.id, { party: "joint", reason: "Checking the joint owner" });
    expect(outcome.status).toBe(404);
    const rows = await database.db.select().from(auditLog).where(eq(auditLog.member_id, single.id));
    expect(rows.filter((r) => r.action === "member.tin.reveal")).toHaveLength(0);
  });

  for (const persona of REFUSED) {
    it(`a reveal by ${persona} is refused and changes nothing`, async () => {
      const before = await reveals();
      const outcome = await reveal(persona, joint.id, { party: "member", reason: "I would like to see it please" });
      expect(outcome).toMatchObject({ kind: "refused", status: persona === "anonymous" ? 401 : 403 });
      expect(outcome.body).not.toContain(SSN);
      expect(await reveals()).toEqual(before);
    });

    it(`the reveal page sends ${persona} away`, async () => {
      const page = await run(() =>
        tinRoute.loader({
          request: people.get(persona, path(joint.id)),
          params: { memberId: joint.id },
          context: context(),
        } as never),
      );
      expectSentAway(page, persona, path(joint.id));
    });
  }

  it("the page itself shows staff only the masked numbers", async () => {
    const page = await run(() =>
      tinRoute.loader({
        request: people.get("staff", `${path(joint.id)}?party=joint`),
        params: { memberId: joint.id },
        context: context(),
      } as never),
    );
    expect(page.status).toBe(200);
    expect(page.value).toMatchObject({ party: "joint", joint_name: "Lee Rivera" });
    for (const secret of [SSN_DIGITS, SSN, JOINT_DIGITS, JOINT_ITIN]) expect(page.body).not.toContain(secret);
    const missing = await run(() =>
      tinRoute.loader({
        request: people.get("staff", path("no-such-member")),
        params: { memberId: "no-such-member" },
        context: context(),
      } as never),
    );
    expect(missing.status).toBe(404);
  });
});

describe("approval needs the identity-verification record", () => {
  it("the service refuses an approval without it and changes nothing", async () => {
    const a = await applicant(database.db);
    const result = await approveApplication(database.db, {
      member_id: a.id,
      staff,
      checklist: fullChecklist(),
      identity: null,
      origin: ORIGIN,
    });
    expect(result).toMatchObject({ ok: false, kind: "bad_input", code: "identity_unverified" });
    const [profile] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, a.id));
    expect(profile!.status).toBe("pending");
    expect(await database.db.select().from(ledgerAccounts).where(eq(ledgerAccounts.member_id, a.id))).toHaveLength(0);
    expect(
      await database.db.select().from(applicationDecisions).where(eq(applicationDecisions.user_id, a.id)),
    ).toHaveLength(0);
  });

  it("the review form answers with the message next to each missing part, then approves once recorded", async () => {
    const a = await applicant(database.db);
    const checks = Object.fromEntries(Object.keys(fullChecklist()).map((id) => [`check_${id}`, "on"]));
    const post = (extra: Record<string, string>) =>
      run(() =>
        indexRoute.action({
          request: people.post("reviewer", "/admin?member=" + a.id, {
            intent: "review",
            member_id: a.id,
            decision: "approve",
            ...checks,
            ...extra,
          }),
          params: {},
          context: context(),
        } as never),
      );
    const refused = await post({});
    expect(refused.status).toBe(400);
    const value = refused.value as { message: string; reply: { error: Record<string, string[]> } };
    expect(value.message).toBe(`Failed: ${IDENTITY_MESSAGES.method_missing}`);
    expect(value.reply.error.identity_method).toEqual([IDENTITY_MESSAGES.method_missing]);
    expect(value.reply.error.discrepancy).toEqual([IDENTITY_MESSAGES.discrepancy_missing]);
    const note = await post({ identity_method: "non_documentary", discrepancy: "resolved" });
    expect((note.value as { reply: { error: Record<string, string[]> } }).reply.error.discrepancy_note).toEqual([
      IDENTITY_MESSAGES.discrepancy_note_missing,
    ]);
    const [still] = await database.db.select().from(users).where(eq(users.id, a.id));
    expect(still!.role).toBe("pending");

    const approved = await post({
      identity_method: "non_documentary",
      discrepancy: "resolved",
      discrepancy_note: "Address on the credit file was the previous one; utility bill confirms the new one.",
    });
    expect(approved.kind).toBe("redirect");
    const [decision] = await database.db
      .select()
      .from(applicationDecisions)
      .where(eq(applicationDecisions.user_id, a.id));
    expect(decision!.identity_verification).toEqual({
      method: "non_documentary",
      discrepancy: "Address on the credit file was the previous one; utility bill confirms the new one.",
    });
    const [audit] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "application.approve"), eq(auditLog.member_id, a.id)));
    expect((audit!.after as { identity_verification: unknown }).identity_verification).toEqual(
      decision!.identity_verification,
    );
  });

  it("an approval with it keeps the record on the decision", async () => {
    const a = await applicant(database.db);
    const result = await approveApplication(database.db, {
      member_id: a.id,
      staff,
      checklist: fullChecklist(),
      identity: IDENTITY_VERIFIED,
      origin: ORIGIN,
    });
    expect(result.ok).toBe(true);
    const detail = await memberDetail(database.db, { member_id: a.id, reveal: null });
    expect(detail!.decisions[0]!.identity_verification).toEqual(IDENTITY_VERIFIED);
  });
});
