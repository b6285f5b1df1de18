import { person } from "../admin-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq, sql } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import {
  auditLog,
  externalPayments,
  linkedAccounts,
  outbox,
  scheduledTransferRuns,
  scheduledTransfers,
} from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as scheduledRoute from "~/routes/member/scheduled-transfers";
import * as dashboardRoute from "~/routes/member/dashboard";
import { scheduleTransfer } from "~/server/payments/scheduled-transfers.server";
import { linkAccount } from "~/server/linked-accounts/linked-accounts.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { businessDayOnOrAfter } from "~/domain/payment-dates";
import { addDays } from "~/domain/schedule";
import { whenSchema } from "~/domain/scheduled-transfers";
import { toUsBankSchema } from "~/domain/transfers";
import { linkAccountSchema } from "~/domain/linked-accounts";
import { openTestDatabase } from "../test-database";
import { expectSentAway, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import type { newMember } from "../member-support";

/**
 * Who may send To US Bank to a linked account and set up, see or change a scheduled To US Bank
 * transfer (docs/product.md#to-us-bank, #scheduled-transfers): the signed-in member, with their own
 * verified links and series only. A visitor is sent to sign in; an applicant, a reviewer and staff
 * are refused; another member cannot pay to the member's link ("choose one of your verified linked
 * accounts"), nor from the member's account, nor see, skip, edit or cancel the member's series
 * ("not found"). A refused request changes nothing and sends no code.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff" | "accountant";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff", "accountant"];

let database: Database;
let people: SignedIn<Persona>;
let member: Awaited<ReturnType<typeof newMember>>;
let other: Awaited<ReturnType<typeof newMember>>;
let link_id = 0;
let series_id = 0;
const today = businessDate(institution().time_zone);
const first_day = businessDayOnOrAfter(addDays(today, 1));
const later_day = businessDayOnOrAfter(addDays(first_day, 3));
const ORIGIN = { request_id: "us-bank-matrix-0001", ip: "203.0.113.92" };
const ACCOUNT_NUMBER = "7770001234567";

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, {
    member: { checking_cents: 50_000, savings_cents: 1_000 },
    other_member: { checking_cents: 50_000, savings_cents: 1_000 },
  });
  member = cast.member;
  other = cast.other_member;
  const link = await linkAccount(
    db,
    member.member,
    linkAccountSchema.parse({
      routing_number: "121000248",
      account_number: ACCOUNT_NUMBER,
      account_type: "checking",
      nickname: "Credit union two",
    }),
    ORIGIN,
  );
  await db.update(linkedAccounts).set({ status: "verified" }).where(eq(linkedAccounts.id, link.id));
  link_id = link.id;
  const set = await scheduleTransfer(
    db,
    { id: member.member.id, email: member.member.email, name: member.member.name },
    {
      kind: "ach",
      form: toUsBankSchema.parse({
        from_account_id: String(member.checking.id),
        routing_number: "121000248",
        account_number: ACCOUNT_NUMBER,
        account_type: "checking",
        account_name: "Sam Saver",
        amount: "25",
        reference: "Hidden rent",
        idempotency_key: crypto.randomUUID(),
      }),
    },
    whenSchema(today).parse({
      when: "repeat",
      transfer_date: first_day,
      frequency: "monthly",
      ends: "count",
      payment_count: "6",
      on_failure: "continue",
    })!,
    ORIGIN,
  );
  if (!set.ok) throw new Error(set.message);
  series_id = set.series_id;
  people = await SignedIn.as(db, {
    staff: cast.staff.id,
    accountant: (await person(db, "accountant")).id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: member.member.id,
    other_member: cast.other_member.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

const PATH = "/dashboard/scheduled-transfers";
const context = routeContext({ request_id: "us-bank-matrix-0002", ip: "203.0.113.93" });
const page = (persona: Persona) =>
  run(() => scheduledRoute.loader({ request: people.get(persona, PATH), params: {}, context: context() } as never));
const post = (persona: Persona, form: Record<string, string>) =>
  run(() =>
    scheduledRoute.action({ request: people.post(persona, PATH, form), params: {}, context: context() } as never),
  );
const dashboardPost = (persona: Persona, form: Record<string, string>) =>
  run(() =>
    dashboardRoute.action({
      request: people.post(persona, "/dashboard?transfer=ach", form),
      params: {},
      context: context(),
    } as never),
  );

/** Everything a post here could change, codes mailed included. */
async function state() {
  const db = database.db;
  const [audit] = await db.select({ n: count() }).from(auditLog);
  const [mail] = await db.select({ n: count() }).from(outbox);
  const series = await db.select().from(scheduledTransfers).orderBy(scheduledTransfers.id);
  const runs = await db.select().from(scheduledTransferRuns).orderBy(scheduledTransferRuns.id);
  const payments = await db.select().from(externalPayments).orderBy(externalPayments.id);
  const ledger = await db.execute(sql`select count(*)::int as n from ledger_transactions`);
  return { audit: Number(audit!.n), mail: Number(mail!.n), series, runs, payments, ledger: ledger.rows[0] };
}

describe("To US Bank to a linked account", () => {
  for (const intent of ["ach-review", "ach-send", "ach-passkey"])
    it(`${intent} to the member's link: refused to everyone else, nothing changed`, async () => {
      for (const persona of PERSONAS.filter((p) => p !== "member")) {
        const before = await state();
        // Another member pays from their own account to the member's link.
        const from = persona === "other_member" ? other.checking.id : member.checking.id;
        const result = await dashboardPost(persona, {
          intent,
          from_account_id: String(from),
          payee: String(link_id),
          amount: "5.00",
          reference: "Not my link",
          otp: "123456",
          idempotency_key: crypto.randomUUID(),
        });
        if (persona === "other_member")
          expect(result.value).toMatchObject({ status: "refused", code: "linked_account_unavailable" });
        else expect([401, 403]).toContain(result.status);
        expect(result.body).not.toContain(ACCOUNT_NUMBER);
        expect(await state()).toEqual(before);
      }
    });

  it("the member's own link goes to the code step", async () => {
    const result = await dashboardPost("member", {
      intent: "ach-review",
      from_account_id: String(member.checking.id),
      payee: String(link_id),
      amount: "5.00",
      reference: "Mine",
      idempotency_key: crypto.randomUUID(),
    });
    expect(result.value).toMatchObject({ status: "otp" });
    expect(result.body).not.toContain(ACCOUNT_NUMBER);
  });
});

describe("scheduled To US Bank transfers: the member's own only", () => {
  for (const persona of PERSONAS)
    it(`${PATH} for ${persona}`, async () => {
      const result = await page(persona);
      if (persona === "member" || persona === "other_member") {
        expect(result.status).toBe(200);
        const data = result.value as { transfers: { id: number }[] };
        expect(data.transfers.some((t) => t.id === series_id)).toBe(persona === "member");
        expect(result.body).not.toContain(ACCOUNT_NUMBER);
        if (persona === "other_member") expect(result.body).not.toContain("Hidden rent");
        return;
      }
      expect(result.status).toBe(302);
      expectSentAway(result, persona, PATH);
    });

  const POSTS = [
    { intent: "skip", form: () => ({ series_id: String(series_id) }) },
    { intent: "cancel", form: () => ({ series_id: String(series_id) }) },
    { intent: "edit", form: () => ({ series_id: String(series_id), amount: "1.00", next_date: later_day }) },
  ];
  for (const { intent, form } of POSTS)
    for (const persona of PERSONAS.filter((p) => p !== "member"))
      it(`${intent} of the member's To US Bank series by ${persona} is refused and changes nothing`, async () => {
        const before = await state();
        const result = await post(persona, { intent, ...form() });
        if (persona === "other_member") {
          expect(result.status).toBe(404);
          expect(result.body).not.toContain("Hidden rent");
        } else expect([401, 403]).toContain(result.status);
        expect(await state()).toEqual(before);
      });

  it("setting one up from the member's account: refused to everyone else, nothing changed, no code sent", async () => {
    const form = () => ({
      intent: "ach-review",
      from_account_id: String(member.checking.id),
      payee: "new",
      bank: "other",
      routing_number: "121000248",
      account_number: ACCOUNT_NUMBER,
      account_type: "checking",
      account_name: "Sam Saver",
      amount: "3.00",
      reference: "Not mine",
      when: "date",
      transfer_date: first_day,
      idempotency_key: crypto.randomUUID(),
    });
    for (const persona of PERSONAS.filter((p) => p !== "member")) {
      const before = await state();
      const result = await dashboardPost(persona, form());
      if (persona === "other_member")
        expect(result.value).toMatchObject({ status: "refused", code: "not_your_account" });
      else expect([401, 403]).toContain(result.status);
      expect(await state()).toEqual(before);
    }
    expect((await dashboardPost("member", form())).value).toMatchObject({ status: "otp" });
  });
});
