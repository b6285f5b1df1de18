import "../admin-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, sql } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, scheduledTransferRuns, scheduledTransfers } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as scheduledRoute from "~/routes/member/scheduled-transfers";
import * as dashboardRoute from "~/routes/member/dashboard";
import { scheduleTransfer } from "~/server/payments/scheduled-transfers.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { businessDayOnOrAfter } from "~/domain/payment-dates";
import { addDays } from "~/domain/schedule";
import { whenSchema } from "~/domain/scheduled-transfers";
import { betweenAccountsSchema } from "~/domain/transfers";
import { openTestDatabase } from "../test-database";
import { expectSentAway, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import type { newMember } from "../member-support";

/**
 * Who may see and change scheduled transfers (docs/product.md#scheduled-transfers): a signed-in
 * member, their own only. A visitor is sent to sign in; an applicant, a reviewer and staff are sent
 * to their own home (the page) or refused (a post); another member sees none of the member's and
 * cannot skip, edit or cancel them ("not found"), nor set one up from the member's account. A
 * refused request changes nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];

let database: Database;
let people: SignedIn<Persona>;
let member: Awaited<ReturnType<typeof newMember>>;
let series_id = 0;
const today = businessDate(institution().time_zone);
const first_day = businessDayOnOrAfter(addDays(today, 1));
const later_day = businessDayOnOrAfter(addDays(first_day, 3));
const ORIGIN = { request_id: "scheduled-matrix-0001", ip: "203.0.113.90" };

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, {
    member: { checking_cents: 50_000, savings_cents: 1_000 },
    other_member: { checking_cents: 50_000, savings_cents: 1_000 },
  });
  member = cast.member;
  const set = await scheduleTransfer(
    db,
    { id: member.member.id, email: member.member.email, name: member.member.name },
    {
      kind: "internal",
      form: betweenAccountsSchema.parse({
        from_account_id: String(member.checking.id),
        to_account_id: String(member.savings.id),
        amount: "15",
        reference: "Rainy day",
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
const context = routeContext({ request_id: "scheduled-matrix-0002", ip: "203.0.113.91" });
const page = (persona: Persona) =>
  run(() => scheduledRoute.loader({ request: people.get(persona, PATH), params: {}, context: context() } as never));
const post = (persona: Persona, form: Record<string, string>) =>
  run(() =>
    scheduledRoute.action({ request: people.post(persona, PATH, form), params: {}, context: context() } as never),
  );
const dashboardPost = (persona: Persona, form: Record<string, string>) =>
  run(() =>
    dashboardRoute.action({
      request: people.post(persona, "/dashboard?transfer=internal", form),
      params: {},
      context: context(),
    } as never),
  );

/** Everything a post here could change. */
async function state() {
  const db = database.db;
  const [audit] = await db.select({ n: count() }).from(auditLog);
  const series = await db.select().from(scheduledTransfers).orderBy(scheduledTransfers.id);
  const runs = await db.select().from(scheduledTransferRuns).orderBy(scheduledTransferRuns.id);
  const ledger = await db.execute(sql`select count(*)::int as n from ledger_transactions`);
  return { audit: Number(audit!.n), series, runs, ledger: ledger.rows[0] };
}

const POSTS: Array<{ intent: string; form: () => Record<string, string> }> = [
  { intent: "skip", form: () => ({ series_id: String(series_id) }) },
  { intent: "cancel", form: () => ({ series_id: String(series_id) }) },
  { intent: "edit", form: () => ({ series_id: String(series_id), amount: "1.00", next_date: later_day }) },
];

describe("the Scheduled transfers page: the member's own only", () => {
  for (const persona of PERSONAS) {
    it(`${PATH} for ${persona}`, async () => {
      const result = await page(persona);
      if (persona === "member" || persona === "other_member") {
        expect(result.status).toBe(200);
        const data = result.value as { transfers: { id: number }[] };
        expect(data.transfers.some((t) => t.id === series_id)).toBe(persona === "member");
        if (persona === "other_member") expect(result.body).not.toContain("Rainy day");
        return;
      }
      expect(result.status).toBe(302);
      expectSentAway(result, persona, PATH);
    });
  }

  for (const { intent, form } of POSTS) {
    for (const persona of PERSONAS.filter((p) => p !== "member")) {
      it(`${intent} by ${persona} is refused and changes nothing`, async () => {
        const before = await state();
        const result = await post(persona, { intent, ...form() });
        if (persona === "other_member") {
          expect(result.status).toBe(404);
          expect(result.body).not.toContain("Rainy day");
        } else expect([401, 403]).toContain(result.status);
        expect(await state()).toEqual(before);
      });
    }
  }

  it("an unknown intent is a 400 and changes nothing", async () => {
    const before = await state();
    expect((await post("member", { intent: "delete", series_id: String(series_id) })).status).toBe(400);
    expect(await state()).toEqual(before);
  });

  it("setting one up from the member's account: refused to everyone else, nothing changed", async () => {
    const form = () => ({
      intent: "internal",
      from_account_id: String(member.checking.id),
      to_account_id: String(member.savings.id),
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
    const mine = await dashboardPost("member", form());
    expect(mine.value).toMatchObject({ status: "scheduled", amount_cents: 300 });
  });

  it("the member skips, edits and cancels their own, each audited with the request", async () => {
    expect((await post("member", { intent: "skip", series_id: String(series_id) })).value).toMatchObject({ ok: true });
    const edited = await post("member", {
      intent: "edit",
      series_id: String(series_id),
      amount: "16.50",
      next_date: later_day > first_day ? businessDayOnOrAfter(addDays(later_day, 40)) : later_day,
    });
    expect(edited.value).toMatchObject({ ok: true });
    const bad = await post("member", { intent: "edit", series_id: String(series_id), amount: "x", next_date: today });
    expect(bad.status).toBe(400);
    expect((await post("member", { intent: "cancel", series_id: String(series_id) })).value).toMatchObject({
      ok: true,
    });
    const audit = await database.db.select().from(auditLog);
    expect(
      audit
        .filter((a) => a.action.startsWith("scheduled_transfer.") && a.request_id === "scheduled-matrix-0002")
        .map((a) => a.action),
    ).toEqual(
      expect.arrayContaining(["scheduled_transfer.skip", "scheduled_transfer.edit", "scheduled_transfer.cancel"]),
    );
  });
});
