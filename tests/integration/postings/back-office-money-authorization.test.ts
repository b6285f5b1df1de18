import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, sql } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, balanceAdjustments, memberAccountSettings } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as indexRoute from "~/routes/admin/index";
import * as layoutRoute from "~/routes/admin/layout";
import * as auditRoute from "~/routes/admin/audit";
import { institution } from "~/config/institution.server";
import { requestAdjustment } from "~/server/member-accounts/adjustments.server";
import { placeStaffHold } from "~/server/member-accounts/holds.server";
import { memberTransactionsPage } from "~/server/member-accounts/transactions.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { placeHold } from "~/server/ledger/ledger.server";
import { transferEntries } from "~/domain/ledger-rules";
import { openTestDatabase } from "../test-database";
import { person, staffThroughGrant } from "../admin-support";
import { itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { fundedMember } from "../../factories";

/**
 * The authorization matrix of the back office's money actions (docs/product.md#access-rules):
 * each new intent of /admin for a visitor, an applicant, the member, another member, a reviewer
 * (staff without money powers) and staff. Everyone but staff is refused (401 signed out, 403
 * otherwise) and nothing changes: no ledger transaction, no audit row, no account setting, no
 * adjustment. Staff can do each one.
 */
type Persona = "anonymous" | "applicant" | "member" | "another_member" | "reviewer" | "staff";
const REFUSED: Persona[] = ["anonymous", "applicant", "member", "another_member", "reviewer"];

let database: Database;
let people: SignedIn<Persona>;
let member: Awaited<ReturnType<typeof fundedMember>>;
let reverseAllMember: Awaited<ReturnType<typeof fundedMember>>;
let applicantId = "";
let depositId = 0;
let holdId = 0;
let pendingPostingId = 0;
let approveId = 0;
let declineId = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, {
    member: { checking_cents: 50_000, savings_cents: 10_000 },
    other_member: { checking_cents: 1_000 },
  });
  // A second staff member makes the holds and adjustments (the second approval needs another).
  const maker = await person(db, "admin");
  member = cast.member;
  reverseAllMember = await fundedMember(db, { checking_cents: 2_000 });
  applicantId = cast.applicant.id;
  people = await SignedIn.as(db, {
    staff: cast.staff.id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: member.member.id,
    another_member: cast.other_member.member.id,
  });
  depositId = (await memberTransactionsPage(db, member.member.id)).rows.find((r) =>
    r.legs.some((l) => l.account_id === member.checking.id),
  )!.id;
  const origin = { request_id: "matrix-0001", ip: "203.0.113.7" };
  const hold = await placeStaffHold(db, {
    staff: maker,
    origin,
    member_id: member.member.id,
    account_id: member.savings.id,
    amount_cents: 100,
    reason: "Matrix hold",
    request_key: crypto.randomUUID(),
  });
  holdId = (hold as { transaction_id: number }).transaction_id;
  // A Pending row of Add Transactions, as that service writes it: a staff hold of kind import.
  const cash = await institutionAccount(db, "cash");
  const pending = await placeHold(db, {
    kind: "import",
    idempotency_key: `matrix-batch#hold-2`,
    initiator: `staff:${maker.id}`,
    created_by: maker.id,
    entries: transferEntries(cash.id, member.checking.id, 2_500),
    memo: "Check deposit",
  });
  pendingPostingId = (pending as { transaction: { id: number } }).transaction.id;
  const limit = institution().limits.adjustment_second_approval_above_cents;
  const big = () =>
    requestAdjustment(db, {
      staff: maker,
      origin,
      member_id: member.member.id,
      account_id: member.checking.id,
      target_cents: 50_000 + limit + 1,
      reason: "Matrix adjustment",
    });
  approveId = ((await big()) as { adjustment_id: number }).adjustment_id;
  declineId = ((await big()) as { adjustment_id: number }).adjustment_id;
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "money-matrix-0001", ip: "203.0.113.78" });
const request = (persona: Persona, form?: Record<string, string>, path = "/admin?index") =>
  people.request(persona, path, form);

const ACTIONS: { intent: string; form: () => Record<string, string> }[] = [
  {
    intent: "account_edit",
    form: () => ({
      member_id: member.member.id,
      account_id: String(member.checking.id),
      account_number: member.checking.account_number,
      routing_number: "021000021",
      status: "active",
      status_reason: "",
    }),
  },
  {
    intent: "adjust_balance",
    form: () => ({
      member_id: member.member.id,
      account_id: String(member.checking.id),
      target_balance: "510.00",
      reason: "Matrix correction",
    }),
  },
  {
    intent: "place_hold",
    form: () => ({
      member_id: member.member.id,
      account_id: String(member.checking.id),
      amount: "1.00",
      reason: "Matrix",
      request_key: crypto.randomUUID(),
    }),
  },
  {
    intent: "release_hold",
    form: () => ({ member_id: member.member.id, transaction_id: String(holdId), reason: "Matrix release" }),
  },
  { intent: "reverse_transaction", form: () => ({ member_id: member.member.id, transaction_id: String(depositId) }) },
  {
    intent: "post_transaction",
    form: () => ({ member_id: member.member.id, transaction_id: String(pendingPostingId) }),
  },
  {
    intent: "reverse_all",
    form: () => ({ member_id: reverseAllMember.member.id, confirm_email: reverseAllMember.member.email }),
  },
  { intent: "approve_adjustment", form: () => ({ adjustment_id: String(approveId) }) },
  { intent: "decline_adjustment", form: () => ({ adjustment_id: String(declineId), reason: "Matrix decline" }) },
];

async function state() {
  const db = database.db;
  const [audit] = await db.select({ n: count() }).from(auditLog);
  const transactions = await db.execute(
    sql`select count(*)::int as n, coalesce(sum(case when status = 'posted' then 1 else 0 end), 0)::int as posted from ledger_transactions`,
  );
  const settings = await db.select().from(memberAccountSettings);
  const adjustments = await db
    .select({ id: balanceAdjustments.id, status: balanceAdjustments.status })
    .from(balanceAdjustments);
  return { audit: Number(audit!.n), transactions: transactions.rows[0], settings, adjustments };
}

describe("the back office's money actions", () => {
  for (const action of ACTIONS) {
    itRefuses(
      action.intent,
      REFUSED,
      (persona) =>
        indexRoute.action({
          request: request(persona, { intent: action.intent, ...action.form() }),
          params: {},
          context: context(),
        } as never),
      { unchanged: state, hides: "members.example" },
    );
  }

  it("staff can do each of them, each audited, and the ledger verifies", async () => {
    for (const action of ACTIONS) {
      const before = await state();
      const outcome = await run(() =>
        indexRoute.action({
          request: request("staff", { intent: action.intent, ...action.form() }),
          params: {},
          context: context(),
        } as never),
      );
      expect(outcome.status, `${action.intent}: ${outcome.body}`).toBe(200);
      expect(JSON.parse(outcome.body)).toMatchObject({ intent: action.intent, tone: "success" });
      expect((await state()).audit, action.intent).toBe(before.audit + 1);
    }
    expect((await verifyLedger(database.db)).problems).toEqual([]);
  });

  it("a reviewer may open the back office but gets no money data; staff get it", async () => {
    // (The factory's funded members have no real encrypted application; an applicant has one.)
    const path = `/admin?index&member=${applicantId}`;
    const asReviewer = await run(() =>
      indexRoute.loader({ request: request("reviewer", undefined, path), params: {}, context: context() } as never),
    );
    expect(asReviewer.status).toBe(200);
    expect(JSON.parse(asReviewer.body)).toMatchObject({ money: null, approvals: [] });
    const asStaff = await run(() =>
      indexRoute.loader({ request: request("staff", undefined, path), params: {}, context: context() } as never),
    );
    expect(JSON.parse(asStaff.body).money).toMatchObject({
      member_id: applicantId,
      transactions: { rows: [] },
      holds: [],
    });
    expect(JSON.parse(asStaff.body).approvals).toEqual([]);
    const layout = await run(() =>
      layoutRoute.loader({
        request: request("reviewer", undefined, "/admin"),
        params: {},
        context: context(),
      } as never),
    );
    expect(JSON.parse(layout.body)).toMatchObject({ staff: { role: "reviewer" } });
    // Pages that are staff-only send a reviewer back to the back office's home.
    const audit = await run(() =>
      auditRoute.loader({
        request: request("reviewer", undefined, "/admin/audit"),
        params: {},
        context: context(),
      } as never),
    );
    expect(audit).toMatchObject({ status: 302, location: "/admin" });
  });

  it("a reviewer's member data holds no balance and no full account number (the loader's data, as the page and .data carry it); staff's does", async () => {
    // A funded member of its own, without the factory's placeholder application fields (they do not decrypt).
    const member = await fundedMember(database.db, { checking_cents: 50_000, savings_cents: 10_000 });
    await database.db.execute(
      sql`update member_profiles set date_of_birth_enc = null, id_number_enc = null where user_id = ${member.member.id}`,
    );
    const path = `/admin?index&member=${member.member.id}`;
    const numbers = [member.checking.account_number, member.savings.account_number];
    const asReviewer = await run(() =>
      indexRoute.loader({ request: request("reviewer", undefined, path), params: {}, context: context() } as never),
    );
    expect(asReviewer.status).toBe(200);
    const shown = JSON.parse(asReviewer.body) as { member: { view: string; accounts: Record<string, unknown>[] } };
    expect(shown.member.view).toBe("reviewer");
    for (const number of numbers) expect(asReviewer.body).not.toContain(number);
    for (const field of ["current_cents", "available_cents", "balance", "routing_number", "account_number"])
      expect(asReviewer.body).not.toContain(`"${field}"`);
    expect(asReviewer.body).not.toContain("50000");
    expect(shown.member.accounts.map((a) => a.masked_number)).toEqual(
      expect.arrayContaining(numbers.map((n) => `•••• ${n.slice(-4)}`)),
    );
    // The same page for staff with money powers carries them (so the checks above can fail).
    const asStaff = await run(() =>
      indexRoute.loader({ request: request("staff", undefined, path), params: {}, context: context() } as never),
    );
    for (const number of numbers) expect(asStaff.body).toContain(number);
    expect(asStaff.body).toContain('"current_cents":50000');
  });

  it("a reviewer cannot create users (staff among them)", async () => {
    const before = await state();
    const outcome = await run(() =>
      indexRoute.action({
        request: request("reviewer", {
          intent: "create_member",
          email: `rev-${Date.now()}@example.com`,
          password: "Temporary harbor pass 9",
          first_name: "Made",
          last_name: "ByReviewer",
          phone: "(555) 010-0000",
          street: "1 Road",
          city: "Dover",
          state: "NH",
          postal_code: "03820",
          role: "admin",
        }),
        params: {},
        context: context(),
      } as never),
    );
    expect(outcome.status).toBe(403);
    expect(await state()).toEqual(before);
  });

  it("a reviewer made through a role grant (one admin asks, another approves) has the staff role and no accounts", async () => {
    const requester = await person(database.db, "admin");
    const approver = await person(database.db, "admin");
    const made = await staffThroughGrant(database.db, { role: "reviewer", requester, approver });
    const [row] = await database.db
      .execute(sql`select id, role from users where email = ${made.email}`)
      .then((r) => r.rows);
    expect(row).toMatchObject({ role: "reviewer" });
    const accounts = await database.db.execute(
      sql`select count(*)::int as n from ledger_accounts where member_id = ${String(row!.id)}`,
    );
    expect(Number(accounts.rows[0]!.n)).toBe(0);
    // Staff, not a member: no member sign-in code for them.
    const code = await run(() =>
      indexRoute.action({
        request: request("staff", { intent: "issue_code", member_email: made.email }),
        params: {},
        context: context(),
      } as never),
    );
    expect(code.status).toBe(400);
    expect(code.body).toContain("sign-in codes are for members, not staff accounts");
  });

  it("an unknown intent is a 400 that changes nothing", async () => {
    const before = await state();
    const outcome = await run(() =>
      indexRoute.action({
        request: request("staff", { intent: "reverse_everything", member_id: member.member.id }),
        params: {},
        context: context(),
      } as never),
    );
    expect(outcome.status).toBe(400);
    expect(await state()).toEqual(before);
  });

  it("bad input from staff is a 400 with the message next to the field, nothing posted", async () => {
    for (const [fields, field] of [
      [
        {
          intent: "adjust_balance",
          member_id: member.member.id,
          account_id: String(member.checking.id),
          target_balance: "-5",
          reason: "x",
        },
        "target_balance",
      ],
      [
        {
          intent: "adjust_balance",
          member_id: member.member.id,
          account_id: String(member.checking.id),
          target_balance: "5.123",
          reason: "x",
        },
        "target_balance",
      ],
      [
        {
          intent: "place_hold",
          member_id: member.member.id,
          account_id: String(member.checking.id),
          amount: "0",
          reason: "x",
          request_key: crypto.randomUUID(),
        },
        "amount",
      ],
      [
        {
          intent: "place_hold",
          member_id: member.member.id,
          account_id: String(member.checking.id),
          amount: "1e9",
          reason: "x",
          request_key: crypto.randomUUID(),
        },
        "amount",
      ],
      [
        {
          intent: "account_edit",
          member_id: member.member.id,
          account_id: String(member.checking.id),
          account_number: "0123456789",
          routing_number: "021000021",
          status: "active",
          status_reason: "",
        },
        "account_number",
      ],
      [
        {
          intent: "account_edit",
          member_id: member.member.id,
          account_id: String(member.checking.id),
          account_number: member.checking.account_number,
          routing_number: "123456789",
          status: "active",
          status_reason: "",
        },
        "routing_number",
      ],
      [
        {
          intent: "account_edit",
          member_id: member.member.id,
          account_id: String(member.checking.id),
          account_number: member.checking.account_number,
          routing_number: "021000021",
          status: "frozen",
          status_reason: "",
        },
        "status_reason",
      ],
    ] as const) {
      const before = await state();
      const outcome = await run(() =>
        indexRoute.action({
          request: request("staff", fields as unknown as Record<string, string>),
          params: {},
          context: context(),
        } as never),
      );
      expect(outcome.status, JSON.stringify(fields)).toBe(400);
      expect(JSON.parse(outcome.body).reply.error).toHaveProperty(field);
      expect(await state()).toEqual(before);
    }
  });
});
