import "../admin-support";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, notifications, sanctionsScreenings, suspiciousActivityReports } from "~/server/db/schema";
import { loadSanctionsLists } from "~/server/sanctions/lists.server";
import { decideScreening } from "~/server/sanctions/screening.server";
import { approveSar, markSarFiled, openSar, sarCase, sarList } from "~/server/sanctions/suspicious-activity.server";
import { isEncryptedField } from "~/server/security/crypto.server";
import { flagComplianceDeadlines } from "~/server/jobs/compliance-deadlines.server";
import { APP_JOBS } from "~/server/jobs/registry.server";
import { outbox } from "~/server/db/schema";
import { addCalendarDays, businessDayOnOrAfter } from "~/domain/payment-dates";
import { openTestDatabase } from "../test-database";
import { matrixCast } from "../authorization-matrix";
import { person } from "../admin-support";
import { queueAch } from "../rails-support";

/**
 * A suspicious activity report's life (31 CFR 1020.320, docs/product.md#suspicious-activity-reports):
 * opened from a confirmed screening match with its deadline (30 calendar days from detection, 60
 * with no suspect), its narrative encrypted; approved by a second staff member only; marked filed
 * with the BSA ID. The member is never told, and no audit row names them.
 */
const fixtures = path.resolve(import.meta.dirname, "../../fixtures/sanctions");
let database: Database;
let cast: Awaited<ReturnType<typeof matrixCast>>;
let second: { id: string; email: string };
let screening_id: number;
const origin = { request_id: "sar-0001", ip: "203.0.113.70" };

beforeAll(async () => {
  database = await openTestDatabase();
  cast = await matrixCast(database.db, { member: { checking_cents: 100_000 } });
  const other = await person(database.db, "admin");
  second = { id: other.id, email: other.email };
  const loaded = await loadSanctionsLists(database.db, {
    files: ["SDN.CSV", "ALT.CSV", "ADD.CSV"].map((name) => ({
      name,
      bytes: fs.readFileSync(path.join(fixtures, name)),
    })),
    published_on: "2026-11-28",
    loader: null,
  });
  if (!loaded.ok) throw new Error(loaded.message);
  const { payment_id } = await queueAch(database.db, cast.member.member, cast.member.checking.id, {
    amount: "75.00",
    account_name: "Jose Luis Gonzales Moreno",
  });
  const [s] = await database.db
    .select()
    .from(sanctionsScreenings)
    .where(eq(sanctionsScreenings.subject_id, String(payment_id)));
  screening_id = s!.id;
  const staff = { id: cast.staff.id, email: cast.staff.email };
  await decideScreening(database.db, {
    screening_id,
    decision: "request_confirm",
    reason: "Same person",
    staff,
    origin,
  });
  await decideScreening(database.db, { screening_id, decision: "approve_confirm", reason: "", staff: second, origin });
});
afterAll(async () => {
  await database?.close();
});

const NARRATIVE =
  "The member tried to send $75.00 to a person on the SDN list (entry 10005); the payment was stopped and the account frozen.";

describe("suspicious activity reports", () => {
  it("opens from a confirmed match with its deadline; a second staff member approves; filed with the BSA ID", async () => {
    const db = database.db;
    const staff = { id: cast.staff.id, email: cast.staff.email };
    const notes_before = (
      await db.select().from(notifications).where(eq(notifications.member_id, cast.member.member.id))
    ).length;
    const opened = await openSar(db, {
      source_type: "screening",
      source_id: screening_id,
      suspect_identified: true,
      amount: "75.00",
      activity_from: "2026-11-30",
      activity_to: "2026-11-30",
      narrative: NARRATIVE,
      staff,
      origin,
    });
    expect(opened).toMatchObject({ ok: true });
    if (!opened.ok) return;
    const [row] = await db.select().from(suspiciousActivityReports).where(eq(suspiciousActivityReports.id, opened.id));
    expect(isEncryptedField(row!.narrative_enc)).toBe(true);
    expect(row!.narrative_enc).not.toContain("SDN");
    const detected = row!.detected_on;
    const plus30 = new Date(Date.parse(`${detected}T00:00:00Z`) + 30 * 86_400_000).toISOString().slice(0, 10);
    expect(row).toMatchObject({
      status: "open",
      amount_cents: 7_500,
      due_on: plus30,
      subject_member_ids: [cast.member.member.id],
    });

    // The one who opened it cannot approve; filing before approval is refused.
    expect(await approveSar(db, { id: opened.id, staff, origin })).toMatchObject({ ok: false, kind: "conflict" });
    expect(
      await markSarFiled(db, { id: opened.id, bsa_acknowledgement: "31000123456789", staff, origin }),
    ).toMatchObject({ ok: false, kind: "conflict" });
    expect(await approveSar(db, { id: opened.id, staff: second, origin })).toMatchObject({ ok: true });
    expect(
      await markSarFiled(db, { id: opened.id, bsa_acknowledgement: "31000123456789", staff, origin }),
    ).toMatchObject({ ok: true, message: "Recorded as filed, BSA ID 31000123456789." });
    const view = await sarCase(db, opened.id);
    expect(view).toMatchObject({
      status: "filed",
      narrative: NARRATIVE,
      bsa_acknowledgement: "31000123456789",
      approved_by_email: second.email,
      state: null,
    });
    expect((await sarList(db)).map((r) => r.id)).toContain(opened.id);

    // Confidential: no notification to the member, no audit row naming them, no narrative in the log.
    const notes_after = (
      await db.select().from(notifications).where(eq(notifications.member_id, cast.member.member.id))
    ).length;
    expect(notes_after).toBe(notes_before);
    const audit = await db.select().from(auditLog).where(eq(auditLog.subject_type, "suspicious_activity_report"));
    expect(audit.map((a) => a.action)).toEqual(["sar.opened", "sar.approved", "sar.filed"]);
    expect(audit.every((a) => a.member_id === null)).toBe(true);
    expect(JSON.stringify(audit)).not.toContain("SDN list");
  });

  it("with no suspect identified the deadline is 60 days; a source that is not confirmed is refused", async () => {
    const db = database.db;
    const staff = { id: cast.staff.id, email: cast.staff.email };
    const opened = await openSar(db, {
      source_type: "screening",
      source_id: screening_id,
      suspect_identified: false,
      amount: "75.00",
      activity_from: "2026-11-30",
      activity_to: "2026-11-30",
      narrative: NARRATIVE,
      staff,
      origin,
    });
    if (!opened.ok) throw new Error(opened.message);
    const [row] = await db.select().from(suspiciousActivityReports).where(eq(suspiciousActivityReports.id, opened.id));
    const plus60 = new Date(Date.parse(`${row!.detected_on}T00:00:00Z`) + 60 * 86_400_000).toISOString().slice(0, 10);
    expect(row!.due_on).toBe(plus60);
    expect(
      await openSar(db, {
        ...{ source_type: "screening", source_id: 999_999 },
        suspect_identified: true,
        amount: "1.00",
        activity_from: "2026-11-30",
        activity_to: "2026-11-30",
        narrative: NARRATIVE,
        staff,
        origin,
      }),
    ).toMatchObject({ ok: false, kind: "not_found" });
  });

  it("the compliance-deadlines job emails staff once a business day of the items at a deadline, by number only", async () => {
    const db = database.db;
    expect(APP_JOBS.some((job) => job.name === "compliance-deadlines")).toBe(true);
    const [open] = await db
      .select()
      .from(suspiciousActivityReports)
      .where(eq(suspiciousActivityReports.status, "open"));
    // The day after the open report's 60-day deadline, at noon in New York.
    const day = businessDayOnOrAfter(addCalendarDays(open!.due_on, 1));
    const now = new Date(`${day}T17:00:00Z`);
    const first = await flagComplianceDeadlines(db, now);
    expect(first.items).toBeGreaterThan(0);
    expect(first.told).toBeGreaterThan(0);
    const mails = await db.select().from(outbox).where(eq(outbox.kind, "compliance_deadline"));
    expect(mails.length).toBe(first.told);
    expect(mails[0]!.text_body).toContain(`Suspicious activity report ${open!.id} to file`);
    expect(mails[0]!.text_body).toContain("(Overdue)");
    expect(mails[0]!.text_body).not.toContain("SDN");
    // Told once a day.
    expect(await flagComplianceDeadlines(db, new Date(now.getTime() + 3_600_000))).toEqual({ items: 0, told: 0 });
  });
});
