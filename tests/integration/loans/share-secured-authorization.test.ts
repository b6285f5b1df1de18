import "../admin-support";
import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { count } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, ledgerTransactions, loanApplications, sharePledges } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import * as applyRoute from "~/routes/member/loan-apply";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";

/**
 * Applying for a share-secured loan through its page (docs/product.md#share-secured-loans): only a
 * member applies, pledging only their own open savings; the pledge and the amount are answered by
 * their fields; a refused request changes nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];
const PATH = "/dashboard/loans/apply/share-secured";

let database: Database;
let people: SignedIn<Persona>;
let savings_id = 0;
let other_savings_id = 0;
let checking_id = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const cast = await matrixCast(database.db, {
    member: { checking_cents: 10_000, savings_cents: 2_000_00 },
    other_member: { savings_cents: 9_000_00 },
  });
  savings_id = cast.member.savings.id;
  checking_id = cast.member.checking.id;
  other_savings_id = cast.other_member.savings.id;
  people = await SignedIn.as(database.db, {
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
afterEach(async () => {
  expect((await verifyLedger(database.db)).problems).toEqual([]);
});

const context = routeContext({ request_id: "share-secured-matrix", ip: "203.0.113.84" });

async function snapshot() {
  const db = database.db;
  const n = async (
    table: typeof auditLog | typeof ledgerTransactions | typeof loanApplications | typeof sharePledges,
  ) => Number((await db.select({ n: count() }).from(table))[0]!.n);
  return {
    audits: await n(auditLog),
    transactions: await n(ledgerTransactions),
    applications: await n(loanApplications),
    pledges: await n(sharePledges),
  };
}

const form = (overrides: Record<string, string> = {}) => ({
  amount: "1500",
  term_months: "12",
  purpose: "Building credit",
  annual_income: "30000",
  employer: "Harbor Bakery",
  pledged_account: String(savings_id),
  idempotency_key: crypto.randomUUID(),
  ...overrides,
});

const act = (persona: Persona, body: Record<string, string>) =>
  applyRoute.action({
    request: people.post(persona, PATH, body),
    params: { product: "share-secured" },
    context: context(),
  } as never);

describe("applying for a share-secured loan", () => {
  it("the page is a member's, with their savings to pledge; everyone else is sent away", async () => {
    for (const persona of PERSONAS) {
      const outcome = await run(() =>
        applyRoute.loader({
          request: people.get(persona, PATH),
          params: { product: "share-secured" },
          context: context(),
        } as never),
      );
      if (persona === "member" || persona === "other_member") {
        expect(outcome, persona).toMatchObject({ kind: "ok" });
        const pledgeable = (outcome.value as { pledgeable: { value: string; label: string }[] }).pledgeable;
        expect(
          pledgeable.map((p) => p.value),
          persona,
        ).toEqual([String(persona === "member" ? savings_id : other_savings_id)]);
      } else expectSentAway(outcome, persona, PATH);
    }
  });

  itRefuses("an application", ["anonymous", "applicant", "reviewer", "staff"] as const, (p) => act(p, form()), {
    unchanged: snapshot,
  });

  it("another member's savings, a checking account or none cannot be pledged; too much is refused by the amount", async () => {
    for (const [override, field, message] of [
      [{ pledged_account: String(other_savings_id) }, "pledged_account", "Choose the savings account to pledge."],
      [{ pledged_account: String(checking_id) }, "pledged_account", "Choose the savings account to pledge."],
      [{ pledged_account: "" }, "pledged_account", "Choose the savings account to pledge."],
      [{ amount: "1800.01" }, "amount", "At most $1,800.00 may be borrowed against"],
    ] as const) {
      const before = await snapshot();
      const outcome = await run(() => act("member", form(override)));
      expect(outcome, message).toMatchObject({ kind: "refused", status: 400 });
      const reply = (outcome.value as { reply: { error?: Record<string, string[]> } }).reply;
      expect(reply.error?.[field]?.[0], message).toContain(message);
      expect(await snapshot()).toEqual(before);
    }
  });

  it("the member applies, pledging their savings", async () => {
    const outcome = await run(() => act("member", form()));
    expect(outcome.kind).toBe("redirect");
    expect((await snapshot()).pledges).toBe(1);
  });
});
