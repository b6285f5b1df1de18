import "../admin-support";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { setAppDatabase } from "~/server/db/db.server";
import { auditLog, notifications, sanctionsScreenings, suspiciousActivityReports } from "~/server/db/schema";
import { loadSanctionsLists } from "~/server/sanctions/lists.server";
import { decideScreening } from "~/server/sanctions/screening.server";
import { openSar } from "~/server/sanctions/suspicious-activity.server";
import * as listRoute from "~/routes/admin/sar";
import * as caseRoute from "~/routes/admin/sar-case";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { person } from "../admin-support";
import { queueAch } from "../rails-support";

/**
 * Who may see and act on suspicious activity reports (docs/product.md#suspicious-activity-reports):
 * staff ("admin") only. A visitor, an applicant, the member the report is about, another member
 * and a reviewer are refused the list, a report's page, opening one, approving and marking filed,
 * and a refused request changes nothing. The member is never told (no notification). Staff's bad
 * input gets its message and changes nothing; the staff member who opened a report cannot approve it.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff" | "second_staff";
const NOT_STAFF = ["anonymous", "applicant", "member", "other_member", "reviewer"] as const;
const fixtures = path.resolve(import.meta.dirname, "../../fixtures/sanctions");
const context = routeContext({ request_id: "sar-authz-0001", ip: "203.0.113.71" });
const NARRATIVE = "Tried to pay a listed person (SDN entry 10005): payment stopped, account frozen, reported to OFAC.";

let database: Database;
let people: SignedIn<Persona>;
let screening_id: number;
let report_id: number;
let member_id: string;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const loaded = await loadSanctionsLists(database.db, {
    files: ["SDN.CSV", "ALT.CSV", "ADD.CSV"].map((name) => ({
      name,
      bytes: fs.readFileSync(path.join(fixtures, name)),
    })),
    published_on: "2026-11-28",
    loader: null,
  });
  if (!loaded.ok) throw new Error(loaded.message);
  const cast = await matrixCast(database.db, { member: { checking_cents: 100_000 } });
  const second = await person(database.db, "admin");
  member_id = cast.member.member.id;
  const { payment_id } = await queueAch(database.db, cast.member.member, cast.member.checking.id, {
    amount: "25.00",
    account_name: "Jose Luis Gonzales Moreno",
  });
  const [s] = await database.db
    .select()
    .from(sanctionsScreenings)
    .where(eq(sanctionsScreenings.subject_id, String(payment_id)));
  screening_id = s!.id;
  const origin = { request_id: "sar-authz-setup", ip: "203.0.113.71" };
  const staff = { id: cast.staff.id, email: cast.staff.email };
  await decideScreening(database.db, { screening_id, decision: "request_confirm", reason: "Same", staff, origin });
  await decideScreening(database.db, {
    screening_id,
    decision: "approve_confirm",
    reason: "",
    staff: { id: second.id, email: second.email },
    origin,
  });
  const opened = await openSar(database.db, {
    source_type: "screening",
    source_id: screening_id,
    suspect_identified: true,
    amount: "25.00",
    activity_from: "2026-11-30",
    activity_to: "2026-11-30",
    narrative: NARRATIVE,
    staff,
    origin,
  });
  if (!opened.ok) throw new Error(opened.message);
  report_id = opened.id;
  people = await SignedIn.as(database.db, {
    staff: cast.staff.id,
    second_staff: second.id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: cast.member.member.id,
    other_member: cast.other_member.member.id,
  });
});
afterAll(async () => database?.close());

async function snapshot() {
  const db = database.db;
  const [audits] = await db.select({ n: count() }).from(auditLog);
  const [notes] = await db.select({ n: count() }).from(notifications);
  return {
    reports: await db
      .select({
        id: suspiciousActivityReports.id,
        status: suspiciousActivityReports.status,
        approved_by: suspiciousActivityReports.approved_by,
        bsa: suspiciousActivityReports.bsa_acknowledgement,
      })
      .from(suspiciousActivityReports)
      .orderBy(suspiciousActivityReports.id),
    audits: Number(audits!.n),
    notifications: Number(notes!.n),
  };
}

const listPage = (persona: Persona, query = "") =>
  listRoute.loader({ request: people.get(persona, `/admin/sar${query}`), params: {}, context: context() } as never);
const openAction = (persona: Persona, query: string, form: Record<string, string>) =>
  listRoute.action({
    request: people.post(persona, `/admin/sar${query}`, form),
    params: {},
    context: context(),
  } as never);
const casePage = (persona: Persona, id: number | string) =>
  caseRoute.loader({
    request: people.get(persona, `/admin/sar/${id}`),
    params: { sarId: String(id) },
    context: context(),
  } as never);
const caseAction = (persona: Persona, id: number | string, form: Record<string, string>) =>
  caseRoute.action({
    request: people.post(persona, `/admin/sar/${id}`, form),
    params: { sarId: String(id) },
    context: context(),
  } as never);

const OPEN_FORM = {
  suspect_identified: "yes",
  amount: "25.00",
  activity_from: "2026-11-30",
  activity_to: "2026-11-30",
  narrative: NARRATIVE,
};

describe("the report pages", () => {
  for (const persona of [...NOT_STAFF, "staff"] as const) {
    it(`the list and a report for ${persona}`, async () => {
      const list = await run(() => listPage(persona));
      const one = await run(() => casePage(persona, report_id));
      if (persona === "staff") {
        expect(list).toMatchObject({ kind: "ok", status: 200 });
        expect(one).toMatchObject({ kind: "ok", status: 200 });
        expect(one.body).toContain("SDN entry 10005");
      } else {
        expectSentAway(list, persona, "/admin/sar");
        expectSentAway(one, persona, `/admin/sar/${report_id}`);
        expect(one.body).not.toContain("SDN entry");
      }
    });
  }

  it("a report that does not exist, or a malformed id, is not found for staff", async () => {
    expect(await run(() => casePage("staff", 999_999))).toMatchObject({ kind: "refused", status: 404 });
    expect(await run(() => casePage("staff", "1;drop"))).toMatchObject({ kind: "refused", status: 404 });
  });
});

describe("actions by anyone but staff", () => {
  itRefuses("opening a report", NOT_STAFF, (p) => openAction(p, `?source=screening&id=${screening_id}`, OPEN_FORM), {
    unchanged: snapshot,
  });
  itRefuses("approving a report", NOT_STAFF, (p) => caseAction(p, report_id, { intent: "approve" }), {
    unchanged: snapshot,
    hides: "SDN entry",
  });
  itRefuses(
    "marking a report filed",
    NOT_STAFF,
    (p) => caseAction(p, report_id, { intent: "file", bsa_acknowledgement: "31000123456789" }),
    { unchanged: snapshot },
  );
});

describe("staff", () => {
  it("bad input is answered with its message and changes nothing", async () => {
    const before = await snapshot();
    const short = await run(() =>
      openAction("staff", `?source=screening&id=${screening_id}`, { ...OPEN_FORM, narrative: "too short" }),
    );
    expect(short).toMatchObject({ kind: "refused", status: 400 });
    const backwards = await run(() =>
      openAction("staff", `?source=screening&id=${screening_id}`, { ...OPEN_FORM, activity_from: "2026-12-01" }),
    );
    expect(backwards).toMatchObject({ kind: "refused", status: 400 });
    const no_source = await run(() => openAction("staff", "?source=screening&id=999999", OPEN_FORM));
    expect(no_source).toMatchObject({ kind: "refused", status: 404 });
    expect(await run(() => caseAction("staff", report_id, { intent: "nonsense" }))).toMatchObject({
      kind: "refused",
      status: 400,
    });
    expect(await snapshot()).toEqual(before);
  });

  it("the opener cannot approve; a second staff member does; a bad BSA ID is refused; then it is filed", async () => {
    expect(await run(() => caseAction("staff", report_id, { intent: "approve" }))).toMatchObject({
      kind: "refused",
      status: 409,
    });
    expect(await run(() => caseAction("second_staff", report_id, { intent: "approve" }))).toMatchObject({
      kind: "ok",
    });
    const bad = await run(() => caseAction("staff", report_id, { intent: "file", bsa_acknowledgement: "12-34" }));
    expect(bad).toMatchObject({ kind: "refused", status: 400 });
    expect(bad.value).toMatchObject({ field: "bsa_acknowledgement" });
    const filed = await run(() =>
      caseAction("staff", report_id, { intent: "file", bsa_acknowledgement: "31000123456789" }),
    );
    expect(filed).toMatchObject({ kind: "ok" });
    const [row] = await database.db
      .select()
      .from(suspiciousActivityReports)
      .where(eq(suspiciousActivityReports.id, report_id));
    expect(row).toMatchObject({ status: "filed", bsa_acknowledgement: "31000123456789" });
    const told = await database.db.select().from(notifications).where(eq(notifications.member_id, member_id));
    expect(told.some((n) => /suspicious|report/i.test(`${n.title} ${n.body}`))).toBe(false);
  });

  it("opens a report from the page's form and is sent to it", async () => {
    const opened = await run(() => openAction("staff", `?source=screening&id=${screening_id}`, OPEN_FORM));
    expect(opened.kind).toBe("redirect");
    expect(opened.location).toMatch(/^\/admin\/sar\/\d+$/);
  });
});
