import "../admin-support";
import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { count } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, ledgerTransactions, loanApplications, outbox } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import * as listRoute from "~/routes/member/loans";
import * as applyRoute from "~/routes/member/loan-apply";
import * as applicationRoute from "~/routes/member/loan-application";
import * as pdfRoute from "~/routes/member/loan-disclosure-pdf";
import * as queueRoute from "~/routes/admin/loans";
import * as staffRoute from "~/routes/admin/loan";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { applyFor, approve, castPeople } from "./loan-fixtures";

/**
 * Who may do what with loans (docs/product.md#loans): applying, reading an application and
 * accepting its offer are a member's, for their own applications only (another member's reads as
 * not found); the queue and an application's page are the back office's (staff and reviewers);
 * deciding is for staff who may move money. A refused request changes nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];

let database: Database;
let people: SignedIn<Persona>;
/** Waiting for a decision; approved (an open offer); another waiting one the matrix may decide. */
let submitted_id = 0;
let offered_id = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, { member: { checking_cents: 50_000 }, other_member: { checking_cents: 50_000 } });
  const apply = () =>
    applyFor(db, cast.member.member, { product_slug: "personal", amount_cents: 4_000_00, term_months: 24 });
  submitted_id = await apply();
  offered_id = await apply();
  await approve(db, cast.staff, offered_id, { rate_ppm: 79_900, term_months: 24 });
  people = await SignedIn.as(db, castPeople(cast));
});
afterAll(async () => {
  await database?.close();
});
afterEach(async () => {
  expect((await verifyLedger(database.db)).problems).toEqual([]);
});

const context = routeContext({ request_id: "loan-matrix-0001", ip: "203.0.113.81" });

async function snapshot() {
  const db = database.db;
  const n = async (table: typeof auditLog | typeof ledgerTransactions | typeof outbox) =>
    Number((await db.select({ n: count() }).from(table))[0]!.n);
  const applications = await db
    .select({ id: loanApplications.id, status: loanApplications.status })
    .from(loanApplications)
    .orderBy(loanApplications.id);
  return { audits: await n(auditLog), transactions: await n(ledgerTransactions), mail: await n(outbox), applications };
}

const applicationForm = () => ({
  amount: "3000",
  term_months: "24",
  purpose: "New roof",
  annual_income: "52000",
  employer: "Harbor Freight Lines",
  idempotency_key: crypto.randomUUID(),
});

describe("member pages", () => {
  it("the list, the form, an application and its PDF are for members; others are sent away", async () => {
    const pages: Array<[string, (request: Request) => Promise<unknown>]> = [
      ["/dashboard/loans", (request) => listRoute.loader({ request, params: {}, context: context() } as never)],
      [
        "/dashboard/loans/apply/personal",
        (request) => applyRoute.loader({ request, params: { product: "personal" }, context: context() } as never),
      ],
      [
        `/dashboard/loans/applications/${offered_id}`,
        (request) =>
          applicationRoute.loader({
            request,
            params: { applicationId: String(offered_id) },
            context: context(),
          } as never),
      ],
    ];
    for (const [path, load] of pages)
      for (const persona of PERSONAS) {
        const outcome = await run(() => load(people.get(persona, path)));
        if (persona === "member") expect(outcome, `${persona} ${path}`).toMatchObject({ kind: "ok" });
        else if (persona === "other_member") {
          if (path.includes("/applications/")) expect(outcome, path).toMatchObject({ kind: "refused", status: 404 });
          else {
            expect(outcome.kind, path).toBe("ok");
            expect(JSON.stringify(outcome.value ?? outcome.body)).not.toContain("Car repairs");
          }
        } else expectSentAway(outcome, persona, path);
      }
    // The PDF exists only once accepted: 404 to its member before, and to anyone else.
    const pdf = (persona: Persona) =>
      run(() =>
        pdfRoute.loader({
          request: people.get(persona, `/dashboard/loans/applications/${offered_id}/disclosure.pdf`),
          params: { applicationId: String(offered_id) },
          context: context(),
        } as never),
      );
    expect(await pdf("member")).toMatchObject({ kind: "refused", status: 404 });
    expect(await pdf("other_member")).toMatchObject({ kind: "refused", status: 404 });
    expectSentAway(await pdf("anonymous"), "anonymous", `/dashboard/loans/applications/${offered_id}/disclosure.pdf`);
  });

  it("an unknown product is not found", async () => {
    const outcome = await run(() =>
      applyRoute.loader({
        request: people.get("member", "/dashboard/loans/apply/yacht"),
        params: { product: "yacht" },
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 404 });
  });

  itRefuses(
    "an application",
    ["anonymous", "applicant", "reviewer", "staff"] as const,
    (persona) =>
      applyRoute.action({
        request: people.post(persona, "/dashboard/loans/apply/personal", applicationForm()),
        params: { product: "personal" },
        context: context(),
      } as never),
    { unchanged: snapshot },
  );

  itRefuses(
    "accepting an offer",
    ["anonymous", "applicant", "reviewer", "staff"] as const,
    (persona) =>
      applicationRoute.action({
        request: people.post(persona, `/dashboard/loans/applications/${offered_id}`, { intent: "accept" }),
        params: { applicationId: String(offered_id) },
        context: context(),
      } as never),
    { unchanged: snapshot },
  );

  it("another member cannot accept this member's offer: not found, nothing written", async () => {
    const before = await snapshot();
    const outcome = await run(() =>
      applicationRoute.action({
        request: people.post("other_member", `/dashboard/loans/applications/${offered_id}`, { intent: "accept" }),
        params: { applicationId: String(offered_id) },
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 404 });
    expect(await snapshot()).toEqual(before);
  });

  it("bad input is a 400 with the message by its field, nothing written", async () => {
    for (const [override, field, message] of [
      [{ amount: "" }, "amount", "Enter the amount you want to borrow."],
      [{ amount: "lots" }, "amount", "Enter an amount in dollars"],
      [{ amount: "999" }, "amount", "Enter an amount from $1,000 to $50,000."],
      [{ term_months: "72" }, "term_months", "Choose a term from 12 to 60 months."],
      [{ purpose: "" }, "purpose", "Tell us what the loan is for."],
      [{ annual_income: "" }, "annual_income", "Enter your yearly income before taxes."],
      [{ employer: "" }, "employer", "Enter your employer"],
    ] as const) {
      const before = await snapshot();
      const outcome = await run(() =>
        applyRoute.action({
          request: people.post("member", "/dashboard/loans/apply/personal", { ...applicationForm(), ...override }),
          params: { product: "personal" },
          context: context(),
        } as never),
      );
      expect(outcome, message).toMatchObject({ kind: "refused", status: 400 });
      const reply = (outcome.value as { reply: { error?: Record<string, string[]> } }).reply;
      expect(reply.error?.[field]?.[0], message).toContain(message);
      expect(await snapshot()).toEqual(before);
    }
  });

  it("the member applies and is sent to the application", async () => {
    const outcome = await run(() =>
      applyRoute.action({
        request: people.post("member", "/dashboard/loans/apply/personal", applicationForm()),
        params: { product: "personal" },
        context: context(),
      } as never),
    );
    expect(outcome.kind).toBe("redirect");
    expect(outcome.location).toMatch(/^\/dashboard\/loans\/applications\/\d+\?sent=1$/);
  });
});

describe("back office", () => {
  it("the queue and an application are for staff and reviewers; others are sent away", async () => {
    for (const persona of PERSONAS) {
      const queue = await run(() =>
        queueRoute.loader({ request: people.get(persona, "/admin/loans"), params: {}, context: context() } as never),
      );
      const one = await run(() =>
        staffRoute.loader({
          request: people.get(persona, `/admin/loans/${submitted_id}`),
          params: { applicationId: String(submitted_id) },
          context: context(),
        } as never),
      );
      if (persona === "staff" || persona === "reviewer") {
        expect(queue, persona).toMatchObject({ kind: "ok" });
        expect(one, persona).toMatchObject({ kind: "ok" });
      } else {
        expectSentAway(queue, persona, "/admin/loans");
        expectSentAway(one, persona, `/admin/loans/${submitted_id}`);
      }
    }
  });

  const act = (persona: Persona, form: Record<string, string | string[]>) =>
    staffRoute.action({
      request: people.post(persona, `/admin/loans/${submitted_id}`, form),
      params: { applicationId: String(submitted_id) },
      context: context(),
    } as never);

  itRefuses(
    "an approval",
    ["anonymous", "applicant", "member", "other_member", "reviewer"] as const,
    (p) => act(p, { outcome: "approve", rate: "7.99", term_months: "24" }),
    { unchanged: snapshot },
  );
  itRefuses(
    "a decline",
    ["anonymous", "applicant", "member", "other_member", "reviewer"] as const,
    (p) => act(p, { outcome: "decline", reasons: "income_insufficient" }),
    { unchanged: snapshot },
  );

  it("staff: bad input is a 400 by its field; then the approval stands and a second decision is refused", async () => {
    for (const [form, field] of [
      [{ outcome: "approve", rate: "abc", term_months: "24" }, "rate"],
      [{ outcome: "approve", rate: "4.00", term_months: "24" }, "rate"],
      [{ outcome: "approve", rate: "7.99", term_months: "90" }, "term_months"],
      [{ outcome: "counter", amount: "", rate: "7.99", term_months: "24" }, "amount"],
      [{ outcome: "decline" }, "reasons"],
      [{ outcome: "decline", reasons: "other", other_text: "" }, "other_text"],
    ] as const) {
      const before = await snapshot();
      const outcome = await run(() => act("staff", form));
      expect(outcome, JSON.stringify(form)).toMatchObject({ kind: "refused", status: 400 });
      expect((outcome.value as { field?: string }).field, JSON.stringify(form)).toBe(field);
      expect(await snapshot()).toEqual(before);
    }
    expect(await run(() => act("staff", { outcome: "approve", rate: "7.99", term_months: "24" }))).toMatchObject({
      kind: "ok",
    });
    const before = await snapshot();
    expect(await run(() => act("staff", { outcome: "decline", reasons: "bankruptcy" }))).toMatchObject({
      kind: "refused",
      status: 409,
    });
    expect(await snapshot()).toEqual(before);
  });
});
