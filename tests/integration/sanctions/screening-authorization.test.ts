import "../admin-support";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { setAppDatabase } from "~/server/db/db.server";
import { auditLog, externalPayments, ledgerAccounts, memberProfiles, sanctionsScreenings } from "~/server/db/schema";
import { loadSanctionsLists } from "~/server/sanctions/lists.server";
import * as sanctionsRoute from "~/routes/admin/sanctions";
import * as itemRoute from "~/routes/admin/sanctions-screening";
import * as indexRoute from "~/routes/admin/index";
import * as pendingRoute from "~/routes/auth/pending-approval";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { applicant, fullChecklist, person } from "../admin-support";
import { queueAch } from "../rails-support";

/**
 * Who may see and decide the screening queue (docs/product.md#screening-queue): staff ("admin")
 * only. A visitor, the applicant who is a possible match, the member whose payment waits, another
 * member and a reviewer are refused every page and every decision (clear, ask to confirm, approve
 * or decline a confirmation), on the queue and on an item's page, and a refused request changes
 * nothing: no screening, payment, account, application or audit row moves. Bad input from staff
 * gets its message next to the field and changes nothing. A reviewer's approval of an applicant
 * with an open match is refused with the reason; the applicant's own page names no list.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff" | "second_staff";
const NOT_STAFF = ["anonymous", "applicant", "member", "other_member", "reviewer"] as const;
const fixtures = path.resolve(import.meta.dirname, "../../fixtures/sanctions");
const context = routeContext({ request_id: "screening-authz-0001", ip: "203.0.113.64" });

let database: Database;
let people: SignedIn<Persona>;
let paymentScreening: number;
let applicationScreening: number;
let applicantId: string;

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
  // The applicant of the cast is the possible match: screened when the application came in.
  const listed = await applicant(database.db, {
    first_name: "Jose Luis",
    last_name: "Gonzales Moreno",
    date_of_birth: "1975-08-21",
    country: "Mexico",
  });
  applicantId = listed.id;
  await queueAch(database.db, cast.member.member, cast.member.checking.id, {
    amount: "25.00",
    account_name: "Jose Luis Gonzales Moreno",
  });
  const rows = await database.db.select().from(sanctionsScreenings).orderBy(sanctionsScreenings.id);
  applicationScreening = rows.find((r) => r.subject_type === "application")!.id;
  paymentScreening = rows.find((r) => r.subject_type === "payment")!.id;
  people = await SignedIn.as(database.db, {
    staff: cast.staff.id,
    second_staff: second.id,
    reviewer: cast.reviewer.id,
    applicant: listed.id,
    member: cast.member.member.id,
    other_member: cast.other_member.member.id,
  });
});
afterAll(async () => database?.close());

/** Everything a decision could change. */
async function snapshot() {
  const db = database.db;
  const [audits] = await db.select({ n: count() }).from(auditLog);
  return {
    screenings: await db
      .select({
        id: sanctionsScreenings.id,
        status: sanctionsScreenings.status,
        cleared_by: sanctionsScreenings.cleared_by,
        confirm_requested_by: sanctionsScreenings.confirm_requested_by,
        confirmed_by: sanctionsScreenings.confirmed_by,
      })
      .from(sanctionsScreenings)
      .orderBy(sanctionsScreenings.id),
    payments: await db
      .select({ id: externalPayments.id, status: externalPayments.status })
      .from(externalPayments)
      .orderBy(externalPayments.id),
    accounts: await db
      .select({ id: ledgerAccounts.id, status: ledgerAccounts.status })
      .from(ledgerAccounts)
      .orderBy(ledgerAccounts.id),
    applications: await db
      .select({ id: memberProfiles.user_id, status: memberProfiles.status })
      .from(memberProfiles)
      .orderBy(memberProfiles.user_id),
    audits: Number(audits!.n),
  };
}

const queueAction = (persona: Persona, form: Record<string, string>) =>
  sanctionsRoute.action({
    request: people.post(persona, "/admin/sanctions", form),
    params: {},
    context: context(),
  } as never);
const itemAction = (persona: Persona, id: number | string, form: Record<string, string>) =>
  itemRoute.action({
    request: people.post(persona, `/admin/sanctions/screenings/${id}`, form),
    params: { screeningId: String(id) },
    context: context(),
  } as never);
const itemPage = (persona: Persona, id: number | string) =>
  itemRoute.loader({
    request: people.get(persona, `/admin/sanctions/screenings/${id}`),
    params: { screeningId: String(id) },
    context: context(),
  } as never);

describe("the screening pages", () => {
  for (const persona of [...NOT_STAFF, "staff"] as const) {
    it(`the queue and an item for ${persona}`, async () => {
      const queue = await run(() =>
        sanctionsRoute.loader({
          request: people.get(persona, "/admin/sanctions"),
          params: {},
          context: context(),
        } as never),
      );
      const item = await run(() => itemPage(persona, paymentScreening));
      if (persona === "staff") {
        expect(queue).toMatchObject({ kind: "ok", status: 200 });
        expect(queue.body).toContain("Jose Luis Gonzales Moreno");
        expect(item).toMatchObject({ kind: "ok", status: 200 });
        expect(item.body).toContain("GONZALEZ MORENO, Jose Luis");
      } else {
        expectSentAway(queue, persona, "/admin/sanctions");
        expectSentAway(item, persona, `/admin/sanctions/screenings/${paymentScreening}`);
        expect(item.body).not.toContain("GONZALEZ");
      }
    });
  }

  it("an item that does not exist, or a malformed id, is not found for staff", async () => {
    expect(await run(() => itemPage("staff", 999_999))).toMatchObject({ kind: "refused", status: 404 });
    expect(await run(() => itemPage("staff", "1;drop"))).toMatchObject({ kind: "refused", status: 404 });
  });
});

describe("decisions by anyone but staff", () => {
  const forms = {
    clear: (id: number) => ({ intent: "clear", screening_id: String(id), reason: "Not the same person" }),
    request_confirm: (id: number) => ({ intent: "request_confirm", screening_id: String(id), reason: "Same person" }),
    approve_confirm: (id: number) => ({ intent: "approve_confirm", screening_id: String(id) }),
    decline_confirm: (id: number) => ({ intent: "decline_confirm", screening_id: String(id) }),
  };
  for (const [name, form] of Object.entries(forms)) {
    itRefuses(
      `${name} on the queue (a payment)`,
      NOT_STAFF,
      (persona) => queueAction(persona, form(paymentScreening)),
      {
        unchanged: snapshot,
      },
    );
    itRefuses(
      `${name} on an item's page (an applicant)`,
      NOT_STAFF,
      (persona) => itemAction(persona, applicationScreening, form(applicationScreening)),
      { unchanged: snapshot },
    );
  }
});

describe("staff's decisions", () => {
  it("bad input is answered next to the field and changes nothing", async () => {
    for (const reason of ["", "   ", "tab\tinside", "x".repeat(501)]) {
      const before = await snapshot();
      const outcome = await run(() =>
        itemAction("staff", paymentScreening, { intent: "clear", screening_id: String(paymentScreening), reason }),
      );
      expect(outcome).toMatchObject({ kind: "refused", status: 400 });
      expect(outcome.value).toMatchObject({ field: "reason", tone: "error" });
      expect(await snapshot()).toEqual(before);
    }
    const before = await snapshot();
    expect(
      await run(() => queueAction("staff", { intent: "clear", screening_id: "999999", reason: "Not them" })),
    ).toMatchObject({ kind: "refused", status: 404 });
    expect(
      await run(() => queueAction("staff", { intent: "clear", screening_id: "abc", reason: "Not them" })),
    ).toMatchObject({ kind: "refused", status: 404 });
    expect(await run(() => queueAction("staff", { intent: "sweep" }))).toMatchObject({ kind: "refused", status: 400 });
    expect(await snapshot()).toEqual(before);
  });

  it("a reviewer's approval of the applicant is refused while the match is open, with the reason, and changes nothing", async () => {
    const before = await snapshot();
    const outcome = await run(() =>
      indexRoute.action({
        request: people.post("reviewer", "/admin?index", {
          intent: "review",
          member_id: applicantId,
          decision: "approve",
          ...Object.fromEntries(Object.keys(fullChecklist()).map((k) => [`check_${k}`, "on"])),
          identity_method: "documentary",
          discrepancy: "none",
        }),
        params: {},
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 409 });
    expect(outcome.body).toContain("still in the screening queue");
    expect(await snapshot()).toEqual(before);
  });

  it("the applicant's own page names no list and no screening", async () => {
    const outcome = await run(() =>
      pendingRoute.loader({
        request: people.get("applicant", "/pending-approval"),
        params: {},
        context: context(),
      } as never),
    );
    expect(outcome.kind).toBe("ok");
    expect(outcome.body).not.toMatch(/sanction|OFAC|SDN|screening|GONZALEZ/i);
  });

  it("the one who asked to confirm cannot approve it (nothing changes); a second staff member can", async () => {
    const asked = await run(() =>
      itemAction("staff", paymentScreening, {
        intent: "request_confirm",
        screening_id: String(paymentScreening),
        reason: "Name and country agree",
      }),
    );
    expect(asked).toMatchObject({ kind: "ok" });
    const before = await snapshot();
    const own = await run(() => itemAction("staff", paymentScreening, { intent: "approve_confirm" }));
    expect(own).toMatchObject({ kind: "refused", status: 409 });
    expect(await snapshot()).toEqual(before);
    const approved = await run(() => itemAction("second_staff", paymentScreening, { intent: "approve_confirm" }));
    expect(approved).toMatchObject({ kind: "ok" });
    expect(approved.body).toContain("the account is frozen");
    const [row] = await database.db
      .select()
      .from(sanctionsScreenings)
      .where(and(eq(sanctionsScreenings.id, paymentScreening)));
    expect(row).toMatchObject({ status: "confirmed" });
  });
});
