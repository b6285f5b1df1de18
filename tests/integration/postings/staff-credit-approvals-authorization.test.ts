import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, balanceAdjustments, ledgerTransactions, staffPostingRequests } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as queuesRoute from "~/routes/admin/queues";
import * as transactionsRoute from "~/routes/admin/add-transactions";
import { requestAdjustment } from "~/server/member-accounts/adjustments.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { person } from "../admin-support";

/**
 * Who may decide a staff credit held back by dual control (docs/security.md#dual-control): in
 * /admin/queues, staff who may move money other than the one who asked. A visitor (401), an
 * applicant, a member, another member, a reviewer and the maker (403) are refused and nothing
 * changes; the list is shown to money staff only. A second staff member approves and declines.
 */
type Persona = "anonymous" | "applicant" | "member" | "another_member" | "reviewer" | "maker" | "checker";
const REFUSED: Persona[] = ["anonymous", "applicant", "member", "another_member", "reviewer", "maker"];

let database: Database;
let people: SignedIn<Persona>;
let member_email = "";
const requests: Record<"approve" | "decline", number> = { approve: 0, decline: 0 };
let adjustment_id = 0;

const context = routeContext({ request_id: "dual-control-matrix-0001", ip: "203.0.113.79" });

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, { member: { checking_cents: 10_000 }, other_member: { checking_cents: 1_000 } });
  const checker = await person(db, "admin");
  member_email = cast.member.member.email;
  people = await SignedIn.as(db, {
    maker: cast.staff.id,
    checker: checker.id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: cast.member.member.id,
    another_member: cast.other_member.member.id,
  });
  // The maker sends two large tables through the route itself, as the page does.
  for (const which of ["approve", "decline"] as const) {
    const form = {
      intent: "add_rows",
      idempotency_key: crypto.randomUUID(),
      account: "Checking",
      type: "credit",
      amount: "25000.00",
      description: `Matrix ${which}`,
      category: "Deposit",
      date: "",
      time: "",
      status: "Completed",
    };
    const outcome = await run(() =>
      transactionsRoute.action({
        request: people.post("maker", `/admin/members/${cast.member.member.id}/transactions`, form),
        params: { memberId: cast.member.member.id },
        context: context(),
      } as never),
    );
    expect(outcome.body).toContain("Sent for a second staff member's approval");
  }
  const rows = await db
    .select({ id: staffPostingRequests.id })
    .from(staffPostingRequests)
    .orderBy(staffPostingRequests.id);
  requests.approve = rows[0]!.id;
  requests.decline = rows[1]!.id;
  const asked = await requestAdjustment(db, {
    staff: cast.staff,
    origin: { request_id: "setup", ip: "203.0.113.1" },
    member_id: cast.member.member.id,
    account_id: cast.member.checking.id,
    target_cents: 10_000 + 2_000_000,
    reason: "Matrix adjustment",
  });
  adjustment_id = (asked as { adjustment_id: number }).adjustment_id;
});
afterAll(async () => {
  expect((await verifyLedger(database.db)).ok).toBe(true);
  await database?.close();
});

async function snapshot() {
  const db = database.db;
  const [audits] = await db.select({ n: count() }).from(auditLog);
  const [transactions] = await db.select({ n: count() }).from(ledgerTransactions);
  const posting = await db
    .select({
      id: staffPostingRequests.id,
      status: staffPostingRequests.status,
      decided_by: staffPostingRequests.decided_by,
    })
    .from(staffPostingRequests)
    .orderBy(staffPostingRequests.id);
  const adjustments = await db
    .select({ id: balanceAdjustments.id, status: balanceAdjustments.status })
    .from(balanceAdjustments)
    .orderBy(balanceAdjustments.id);
  return { audits: Number(audits!.n), transactions: Number(transactions!.n), posting, adjustments };
}

const act = (persona: Persona, form: Record<string, string>) =>
  queuesRoute.action({ request: people.post(persona, "/admin/queues", form), params: {}, context: context() } as never);

describe("the waiting list in /admin/queues", () => {
  for (const persona of ["anonymous", "applicant", "member", "another_member", "reviewer"] as const) {
    it(`is not shown to ${persona}`, async () => {
      const outcome = await run(() =>
        queuesRoute.loader({ request: people.get(persona, "/admin/queues"), params: {}, context: context() } as never),
      );
      expectSentAway(outcome, persona, "/admin/queues");
      expect(outcome.body).not.toContain(member_email);
    });
  }

  it("is shown to staff who may move money, the maker too (without a say)", async () => {
    for (const persona of ["maker", "checker"] as const) {
      const page = (await queuesRoute.loader({
        request: people.get(persona, "/admin/queues"),
        params: {},
        context: context(),
      } as never)) as { posting_requests: { id: number }[]; counts: Record<string, number> };
      expect(page.posting_requests.map((r) => r.id)).toEqual([requests.approve, requests.decline]);
      expect(page.counts.adjustments).toBe(3);
    }
  });
});

describe("deciding a waiting request", () => {
  itRefuses(
    "approving an Add Transactions request",
    REFUSED,
    (persona) => act(persona, { intent: "approve_posting_request", request_id: String(requests.approve) }),
    { unchanged: snapshot, hides: member_email },
  );
  itRefuses(
    "declining an Add Transactions request",
    REFUSED,
    (persona) =>
      act(persona, {
        intent: "decline_posting_request",
        request_id: String(requests.decline),
        reason: "Matrix decline",
      }),
    { unchanged: snapshot, hides: member_email },
  );
  itRefuses(
    "approving a balance adjustment from the queue",
    REFUSED,
    (persona) => act(persona, { intent: "approve_adjustment", adjustment_id: String(adjustment_id) }),
    { unchanged: snapshot, hides: member_email },
  );

  it("the checker: bad input is a 400 next to the field and changes nothing", async () => {
    const before = await snapshot();
    expect(
      await run(() => act("checker", { intent: "decline_posting_request", request_id: String(requests.decline) })),
    ).toMatchObject({ kind: "refused", status: 400 });
    expect(await run(() => act("checker", { intent: "approve_posting_request", request_id: "abc" }))).toMatchObject({
      kind: "refused",
      status: 400,
    });
    expect(await run(() => act("checker", { intent: "approve_posting_request", request_id: "999999" }))).toMatchObject({
      kind: "refused",
      status: 404,
    });
    expect(await snapshot()).toEqual(before);
  });

  it("the checker approves one (its rows post) and declines the other", async () => {
    const approved = await run(() =>
      act("checker", { intent: "approve_posting_request", request_id: String(requests.approve) }),
    );
    expect(approved).toMatchObject({ kind: "ok", status: 200 });
    expect(approved.body).toContain("Approved and posted: 1 transaction, $25,000.00 in credits and $0.00 in debits.");
    const declined = await run(() =>
      act("checker", {
        intent: "decline_posting_request",
        request_id: String(requests.decline),
        reason: "No paperwork",
      }),
    );
    expect(declined).toMatchObject({ kind: "ok", status: 200 });
    const rows = await database.db
      .select({ id: staffPostingRequests.id, status: staffPostingRequests.status })
      .from(staffPostingRequests)
      .orderBy(staffPostingRequests.id);
    expect(rows.map((r) => r.status)).toEqual(["posted", "declined"]);
    const again = await run(() =>
      act("checker", { intent: "approve_posting_request", request_id: String(requests.approve) }),
    );
    expect(again).toMatchObject({ kind: "refused", status: 409 });
    expect(again.body).toContain("This request was already approved.");
    const [row] = await database.db
      .select()
      .from(staffPostingRequests)
      .where(eq(staffPostingRequests.id, requests.approve));
    expect(row!.decided_by).not.toBe(row!.requested_by);
  });
});
