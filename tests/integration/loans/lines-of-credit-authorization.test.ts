import "../admin-support";
import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, creditLineActivity, creditLines, ledgerTransactions, loanApplications } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import * as lineRoute from "~/routes/member/line-of-credit";
import * as applyRoute from "~/routes/member/loan-apply";
import * as decideRoute from "~/routes/admin/loan";
import { person } from "../admin-support";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { applyFor, castPeople, openLine } from "./loan-fixtures";

/**
 * Who may do what with a line of credit (docs/product.md#lines-of-credit): its page, a draw, a
 * payment and autopay are its member's only (another member's reads as not found); applicants,
 * reviewers, staff and accountants have no member powers. Applying for a line is a member's;
 * deciding one is for staff who may move money. A refused request changes nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff" | "accountant";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff", "accountant"];

let database: Database;
let people: SignedIn<Persona>;
let line_id = 0;
let submitted_id = 0;
let checking_id = 0;
let other_checking_id = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, { member: { checking_cents: 50_000 }, other_member: { checking_cents: 50_000 } });
  line_id = await openLine(db, cast);
  submitted_id = await applyFor(db, cast.other_member.member, {
    product_slug: "line-of-credit",
    amount_cents: 3_000_00,
    term_months: null,
  });
  checking_id = cast.member.checking.id;
  other_checking_id = cast.other_member.checking.id;
  people = await SignedIn.as(db, { ...castPeople(cast), accountant: (await person(db, "accountant")).id });
});
afterAll(async () => {
  await database?.close();
});
afterEach(async () => {
  expect((await verifyLedger(database.db)).problems).toEqual([]);
});

const context = routeContext({ request_id: "line-matrix", ip: "203.0.113.83" });
const path = () => `/dashboard/loans/lines/${line_id}`;

async function snapshot() {
  const db = database.db;
  const n = async (
    table: typeof auditLog | typeof ledgerTransactions | typeof creditLineActivity | typeof loanApplications,
  ) => Number((await db.select({ n: count() }).from(table))[0]!.n);
  const [line] = await db.select().from(creditLines).where(eq(creditLines.id, line_id));
  const [submitted] = await db.select().from(loanApplications).where(eq(loanApplications.id, submitted_id));
  return {
    audits: await n(auditLog),
    transactions: await n(ledgerTransactions),
    activity: await n(creditLineActivity),
    applications: await n(loanApplications),
    line,
    submitted,
  };
}

const drawForm = (overrides: Record<string, string> = {}) => ({
  intent: "draw",
  to: String(checking_id),
  amount: "100.00",
  idempotency_key: crypto.randomUUID(),
  ...overrides,
});
const payForm = (overrides: Record<string, string> = {}) => ({
  intent: "pay",
  from: String(checking_id),
  pay: "amount",
  amount: "10.00",
  idempotency_key: crypto.randomUUID(),
  ...overrides,
});

const act = (persona: Persona, form: Record<string, string>) =>
  lineRoute.action({
    request: people.post(persona, path(), form),
    params: { lineId: String(line_id) },
    context: context(),
  } as never);

const NOT_MEMBERS = ["anonymous", "applicant", "reviewer", "staff", "accountant"] as const;

describe("a line of credit's page", () => {
  it("is its member's; another member's is not found; everyone else is sent away", async () => {
    for (const persona of PERSONAS) {
      const outcome = await run(() =>
        lineRoute.loader({
          request: people.get(persona, path()),
          params: { lineId: String(line_id) },
          context: context(),
        } as never),
      );
      if (persona === "member") expect(outcome).toMatchObject({ kind: "ok" });
      else if (persona === "other_member") expect(outcome).toMatchObject({ kind: "refused", status: 404 });
      else expectSentAway(outcome, persona, path());
    }
  });
});

describe("drawing, paying and autopay", () => {
  itRefuses("a draw", NOT_MEMBERS, (p) => act(p, drawForm()), { unchanged: snapshot });
  itRefuses("a payment", NOT_MEMBERS, (p) => act(p, payForm()), { unchanged: snapshot });
  itRefuses(
    "turning autopay on",
    NOT_MEMBERS,
    (p) => act(p, { intent: "autopay", autopay_from: String(checking_id) }),
    {
      unchanged: snapshot,
    },
  );

  it("another member can neither draw, pay nor set autopay on this line: not found, nothing written", async () => {
    for (const form of [
      drawForm({ to: String(other_checking_id) }),
      payForm({ from: String(other_checking_id) }),
      { intent: "autopay", autopay_from: String(other_checking_id) },
    ]) {
      const before = await snapshot();
      expect(await run(() => act("other_member", form))).toMatchObject({ kind: "refused", status: 404 });
      expect(await snapshot()).toEqual(before);
    }
  });

  it("bad input is a 400 with the message by its field, nothing written", async () => {
    for (const [form, field, message] of [
      [drawForm({ to: "" }), "to", "Choose the account to put the money in."],
      [
        drawForm({ to: String(other_checking_id) }),
        "to",
        "Please choose one of your open checking or savings accounts.",
      ],
      [drawForm({ amount: "lots" }), "amount", "Enter an amount in dollars"],
      [drawForm({ amount: "3000.01" }), "amount", "That is more than your available credit of $3,000.00."],
      [payForm({ amount: "10" }), "amount", "You owe nothing on this line."],
    ] as const) {
      const before = await snapshot();
      const outcome = await run(() => act("member", form));
      expect(outcome, message).toMatchObject({ kind: "refused", status: 400 });
      const reply = (outcome.value as { reply: { error?: Record<string, string[]> } }).reply;
      expect(reply.error?.[field]?.[0], message).toContain(message);
      expect(await snapshot()).toEqual(before);
    }
  });

  it("the member draws, pays and turns autopay on and off", async () => {
    expect(await run(() => act("member", drawForm()))).toMatchObject({
      kind: "redirect",
      location: `${path()}?done=draw`,
    });
    expect(await run(() => act("member", payForm()))).toMatchObject({
      kind: "redirect",
      location: `${path()}?done=pay`,
    });
    const on = await run(() => act("member", { intent: "autopay", autopay_from: String(checking_id) }));
    expect(on).toMatchObject({ kind: "redirect", location: `${path()}?done=autopay` });
    expect((await snapshot()).line!.autopay_account_id).toBe(checking_id);
    await run(() => act("member", { intent: "autopay", autopay_from: "off" }));
    expect((await snapshot()).line!.autopay_account_id).toBeNull();
  });
});

describe("applying for and deciding a line", () => {
  const applyForm = () => ({
    credit_limit: "2500",
    purpose: "Emergencies",
    annual_income: "52000",
    employer: "Harbor Foods",
    idempotency_key: crypto.randomUUID(),
  });
  const apply = (persona: Persona, form: Record<string, string>) =>
    applyRoute.action({
      request: people.post(persona, "/dashboard/loans/apply/line-of-credit", form),
      params: { product: "line-of-credit" },
      context: context(),
    } as never);
  const decide = (persona: Persona, form: Record<string, string>) =>
    decideRoute.action({
      request: people.post(persona, `/admin/loans/${submitted_id}`, form),
      params: { applicationId: String(submitted_id) },
      context: context(),
    } as never);

  it("applying is refused to everyone but members, and a limit out of range is answered by its field", async () => {
    for (const persona of ["anonymous", "applicant", "reviewer", "staff", "accountant"] as const) {
      const before = await snapshot();
      const outcome = await run(() => apply(persona, applyForm()));
      expect(outcome.kind, persona).not.toBe("ok");
      expect(outcome.kind === "redirect" ? outcome.location : "", persona).not.toMatch(/applications/);
      expect(await snapshot()).toEqual(before);
    }
    const before = await snapshot();
    const refused = await run(() => apply("member", { ...applyForm(), credit_limit: "99000" }));
    expect(refused).toMatchObject({ kind: "refused", status: 400 });
    expect((refused.value as { reply: { error?: Record<string, string[]> } }).reply.error?.credit_limit?.[0]).toBe(
      "Enter a credit limit from $1,000.00 to $25,000.00.",
    );
    expect(await snapshot()).toEqual(before);
    expect(await run(() => apply("member", applyForm()))).toMatchObject({ kind: "redirect" });
  });

  itRefuses(
    "deciding a line",
    ["anonymous", "applicant", "member", "other_member", "reviewer"] as const,
    (p) => decide(p, { open_end: "1", outcome: "approve", rate: "12" }),
    { unchanged: snapshot },
  );

  it("staff approve a line by its rate, with no term; a rate out of range is answered by its field", async () => {
    const before = await snapshot();
    const wrong = await run(() => decide("staff", { open_end: "1", outcome: "approve", rate: "5" }));
    expect(wrong).toMatchObject({ kind: "refused", status: 400 });
    expect(wrong.value).toMatchObject({ field: "rate" });
    expect(await snapshot()).toEqual(before);
    expect(await run(() => decide("staff", { open_end: "1", outcome: "approve", rate: "12" }))).toMatchObject({
      kind: "ok",
    });
    expect((await snapshot()).submitted).toMatchObject({
      status: "approved",
      offer_term_months: null,
      offer_rate_ppm: 120_000,
      offer_amount_cents: 3_000_00,
    });
  });
});
