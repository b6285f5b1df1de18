import "../admin-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, creditLineChanges, creditLines, ledgerTransactions } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import * as staffLineRoute from "~/routes/admin/line-of-credit";
import * as memberLineRoute from "~/routes/member/line-of-credit";
import * as queueRoute from "~/routes/admin/loans";
import { person } from "../admin-support";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { openLine, castPeople } from "./loan-fixtures";

/**
 * Who may service a line of credit (docs/product.md#line-of-credit-servicing): staff and reviewers
 * read it in the back office, listed under Loans; only staff who may move money freeze, unfreeze,
 * close, change its APR or lower its limit; members, applicants and accountants are sent away. The
 * member closes their own line from its page; another member's reads as not found; no one else
 * may. A refused request changes nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "accountant" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "accountant", "staff"];
const NOT_STAFF = ["anonymous", "applicant", "member", "other_member", "reviewer", "accountant"] as const;
const NOT_MEMBERS = ["anonymous", "applicant", "reviewer", "staff", "accountant"] as const;

let database: Database;
let people: SignedIn<Persona>;
let line_id = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, { member: { checking_cents: 50_000 }, other_member: { checking_cents: 50_000 } });
  line_id = await openLine(db, cast, { draw_cents: 500_00 });
  people = await SignedIn.as(db, { ...castPeople(cast), accountant: (await person(db, "accountant")).id });
});
afterAll(async () => {
  await database?.close();
});
afterEach(async () => {
  expect((await verifyLedger(database.db)).problems).toEqual([]);
});

const context = routeContext({ request_id: "line-servicing-matrix", ip: "203.0.113.84" });
const staffPath = () => `/admin/loans/lines/${line_id}`;
const memberPath = () => `/dashboard/loans/lines/${line_id}`;

async function snapshot() {
  const db = database.db;
  const n = async (table: typeof auditLog | typeof ledgerTransactions | typeof creditLineChanges) =>
    Number((await db.select({ n: count() }).from(table))[0]!.n);
  const [line] = await db.select().from(creditLines).where(eq(creditLines.id, line_id));
  return {
    audits: await n(auditLog),
    transactions: await n(ledgerTransactions),
    changes: await n(creditLineChanges),
    line,
  };
}

const staffAct = (persona: Persona, form: Record<string, string>) =>
  staffLineRoute.action({
    request: people.post(persona, staffPath(), form),
    params: { lineId: String(line_id) },
    context: context(),
  } as never);
const memberAct = (persona: Persona, form: Record<string, string>) =>
  memberLineRoute.action({
    request: people.post(persona, memberPath(), form),
    params: { lineId: String(line_id) },
    context: context(),
  } as never);

const FORMS = {
  freeze: { intent: "freeze", reason: "fraud", note: "Card testing" },
  unfreeze: { intent: "unfreeze", note: "Cleared" },
  close: { intent: "close", reason: "delinquency", note: "Charged off" },
  rate: { intent: "rate", rate: "15.99", note: "Repricing" },
  limit: { intent: "limit", limit: "2000", note: "Income fell" },
};

describe("a line of credit in the back office", () => {
  it("is for staff and reviewers, listed under Loans; everyone else is sent away", async () => {
    for (const persona of PERSONAS) {
      const outcome = await run(() =>
        staffLineRoute.loader({
          request: people.get(persona, staffPath()),
          params: { lineId: String(line_id) },
          context: context(),
        } as never),
      );
      if (persona === "staff" || persona === "reviewer") {
        expect(outcome, persona).toMatchObject({ kind: "ok" });
        expect((outcome.value as { may_service: boolean }).may_service, persona).toBe(persona === "staff");
      } else expectSentAway(outcome, persona, staffPath());
    }
    const queue = await run(() =>
      queueRoute.loader({ request: people.get("reviewer", "/admin/loans"), params: {}, context: context() } as never),
    );
    expect((queue.value as { lines: { id: number }[] }).lines.map((l) => l.id)).toContain(line_id);
  });

  it("a line that does not exist is 404", async () => {
    const outcome = await run(() =>
      staffLineRoute.loader({
        request: people.get("staff", "/admin/loans/lines/999999"),
        params: { lineId: "999999" },
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 404 });
  });

  for (const [name, form] of Object.entries(FORMS))
    itRefuses(`${name} on a line`, NOT_STAFF, (p) => staffAct(p, form), { unchanged: snapshot });

  it("staff: bad input is a 400 by its field, nothing written; then each change is made", async () => {
    for (const [form, status, field] of [
      [{ ...FORMS.freeze, reason: "" }, 400, "reason"],
      [{ ...FORMS.freeze, note: " " }, 400, "note"],
      [{ ...FORMS.rate, rate: "lots" }, 400, "rate"],
      [{ ...FORMS.rate, rate: "5" }, 400, "rate"],
      [{ ...FORMS.limit, limit: "100" }, 400, "limit"],
      [{ ...FORMS.limit, limit: "9000" }, 400, "limit"],
      [FORMS.unfreeze, 409, undefined],
      [{ intent: "other" }, 400, undefined],
    ] as const) {
      const before = await snapshot();
      const outcome = await run(() => staffAct("staff", form));
      expect(outcome, JSON.stringify(form)).toMatchObject({ kind: "refused", status });
      expect((outcome.value as { field?: string }).field, JSON.stringify(form)).toBe(field);
      expect(await snapshot()).toEqual(before);
    }
    for (const form of [FORMS.freeze, FORMS.unfreeze, FORMS.rate, FORMS.limit])
      expect(await run(() => staffAct("staff", form)), form.intent).toMatchObject({ kind: "ok" });
    const after = await snapshot();
    expect(after.line).toMatchObject({ frozen_reason: null, credit_limit_cents: 2_000_00, rate_ppm: 129_900 });
    expect(after.changes).toBe(4);
  });
});

describe("the member closes their own line", () => {
  itRefuses("closing the line", NOT_MEMBERS, (p) => memberAct(p, { intent: "close", confirm: "yes" }), {
    unchanged: snapshot,
  });

  it("another member's is not found; without the box ticked it is a 400 by the box; then it closes", async () => {
    let before = await snapshot();
    expect(await run(() => memberAct("other_member", { intent: "close", confirm: "yes" }))).toMatchObject({
      kind: "refused",
      status: 404,
    });
    expect(await snapshot()).toEqual(before);
    before = await snapshot();
    const unticked = await run(() => memberAct("member", { intent: "close" }));
    expect(unticked).toMatchObject({ kind: "refused", status: 400 });
    expect((unticked.value as { reply: { error?: Record<string, string[]> } }).reply.error?.confirm?.[0]).toContain(
      "Tick the box",
    );
    expect(await snapshot()).toEqual(before);
    expect(await run(() => memberAct("member", { intent: "close", confirm: "yes" }))).toMatchObject({
      kind: "redirect",
      location: `${memberPath()}?done=close`,
    });
    expect((await snapshot()).line).toMatchObject({ closing_reason: "member_request", status: "active" });
  });
});
