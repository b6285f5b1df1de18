import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { achCreditReviews, achInboundEntries, auditLog, ledgerTransactions, notifications } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as queuesRoute from "~/routes/admin/queues";
import { receiveAchFile } from "~/server/rails/inbound.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { openTestDatabase } from "../test-database";
import { matrixCast, refusedStatus, routeContext, run, SignedIn } from "../authorization-matrix";
import { buildInboundFile } from "../../unit/nacha-inbound-builder";

/**
 * Who may decide an incoming credit held for review (docs/product.md#incoming-credits-to-review):
 * Release and Return on /admin/queues are for staff who may move money. The member the credit
 * paid, another member, a reviewer, an applicant and a visitor are refused (401/403) and nothing
 * changes; staff release one and return another through the page's form, and a return without its
 * reason is refused next to the field.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];

let database: Database;
let people: SignedIn<Persona>;
let review_ids: number[] = [];

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db);
  const origin = { request_id: "setup", ip: "203.0.113.1" };
  // Two credits naming someone else than the holder: both held for review.
  const sent = await receiveAchFile(db, {
    bytes: new TextEncoder().encode(
      buildInboundFile([
        {
          company_name: "Review Co",
          entries: [
            {
              code: "22",
              account_number: cast.member.checking.account_number,
              amount_cents: 200_000,
              name: "SAM OTHER",
            },
            {
              code: "22",
              account_number: cast.member.checking.account_number,
              amount_cents: 210_000,
              name: "SAM OTHER",
            },
          ],
        },
      ]),
    ),
    file_name: "review.ach",
    staff: cast.staff,
    origin,
  });
  if (!sent.ok) throw new Error(sent.message);
  review_ids = (await db.select({ id: achCreditReviews.id }).from(achCreditReviews).orderBy(achCreditReviews.id)).map(
    (r) => Number(r.id),
  );
  if (review_ids.length !== 2) throw new Error(`expected two credits to review, found ${review_ids.length}`);
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

const context = routeContext({ request_id: "credit-review-matrix-0001", ip: "203.0.113.80" });
const formRequest = (persona: Persona, form: Record<string, string>) => people.post(persona, "/admin/queues", form);

async function snapshot() {
  const db = database.db;
  const n = async (table: typeof auditLog | typeof ledgerTransactions | typeof notifications) =>
    Number((await db.select({ n: count() }).from(table as typeof auditLog))[0]!.n);
  const waiting = Number(
    (await db.select({ n: count() }).from(achCreditReviews).where(eq(achCreditReviews.status, "waiting")))[0]!.n,
  );
  const returned = Number(
    (await db.select({ n: count() }).from(achInboundEntries).where(eq(achInboundEntries.status, "returned")))[0]!.n,
  );
  return {
    audits: await n(auditLog),
    transactions: await n(ledgerTransactions),
    notifications: await n(notifications),
    waiting,
    returned,
  };
}

describe("Incoming credits to review on /admin/queues: staff who may move money only", () => {
  for (const persona of PERSONAS.filter((p) => p !== "staff")) {
    it(`Release and Return by ${persona} are refused (${refusedStatus(persona)}) and change nothing`, async () => {
      const before = await snapshot();
      for (const form of [
        { intent: "ach_credit_release", review_id: String(review_ids[0]), return_code: "" },
        { intent: "ach_credit_return", review_id: String(review_ids[1]), return_code: "R17" },
      ]) {
        const outcome = await run(() =>
          queuesRoute.action({ request: formRequest(persona, form), params: {}, context: context() } as never),
        );
        expect(outcome).toMatchObject({ kind: "refused", status: refusedStatus(persona) });
      }
      expect(await snapshot()).toEqual(before);
    });
  }

  it("staff: a Return without its reason is 400 next to the field; Release and Return through the form; decided or unknown ones are 409 or 404 and change nothing", async () => {
    const before = await snapshot();
    const missing = await run(() =>
      queuesRoute.action({
        request: formRequest("staff", { intent: "ach_credit_return", review_id: String(review_ids[1]) }),
        params: {},
        context: context(),
      } as never),
    );
    expect(missing).toMatchObject({ kind: "refused", status: 400 });
    expect(missing.body).toContain("Please choose why the credit goes back");
    expect(await snapshot()).toEqual(before);

    const released = await run(() =>
      queuesRoute.action({
        request: formRequest("staff", { intent: "ach_credit_release", review_id: String(review_ids[0]) }),
        params: {},
        context: context(),
      } as never),
    );
    expect(released).toMatchObject({ kind: "ok", status: 200 });
    expect(released.body).toContain("The credit of $2,000.00 was released; it is available to the member.");
    const returned = await run(() =>
      queuesRoute.action({
        request: formRequest("staff", {
          intent: "ach_credit_return",
          review_id: String(review_ids[1]),
          return_code: "R23",
        }),
        params: {},
        context: context(),
      } as never),
    );
    expect(returned).toMatchObject({ kind: "ok", status: 200 });
    expect(returned.body).toContain("was returned as R23");
    const after = await snapshot();
    for (const [review_id, status] of [
      [String(review_ids[0]), 409],
      [String(review_ids[1]), 409],
      ["999999999", 404],
      ["abc", 404],
    ] as const) {
      for (const form of [
        { intent: "ach_credit_release", review_id, return_code: "" },
        { intent: "ach_credit_return", review_id, return_code: "R17" },
      ]) {
        const outcome = await run(() =>
          queuesRoute.action({ request: formRequest("staff", form), params: {}, context: context() } as never),
        );
        expect(outcome, `${form.intent} ${review_id}`).toMatchObject({ kind: "refused", status });
      }
    }
    expect(await snapshot()).toEqual(after);
    expect((await verifyLedger(database.db)).problems).toEqual([]);
  });
});
