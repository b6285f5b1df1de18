import "../admin-support";
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { count, sql } from "drizzle-orm";
import { auditLog, scheduledTransferRuns, scheduledTransfers } from "~/server/db/schema";
import * as scheduledRoute from "~/routes/member/scheduled-transfers";
import * as dashboardRoute from "~/routes/member/dashboard";
import { scheduleTransfer } from "~/server/payments/scheduled-transfers.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { businessDayOnOrAfter } from "~/domain/payment-dates";
import { addDays } from "~/domain/schedule";
import { whenSchema } from "~/domain/scheduled-transfers";
import { betweenAccountsSchema } from "~/domain/transfers";
import {
  itKeepsToTheMember,
  MEMBER_OWN_PERSONAS,
  memberOwnMatrix,
  run,
  type MemberOwnPersona,
} from "../authorization-matrix";

/**
 * Who may see and change scheduled transfers (docs/product.md#scheduled-transfers): a signed-in
 * member, their own only. A visitor is sent to sign in; an applicant, a reviewer and staff are sent
 * to their own home (the page) or refused (a post); another member sees none of the member's and
 * cannot skip, edit or cancel them ("not found"), nor set one up from the member's account. A
 * refused request changes nothing.
 */
const PATH = "/dashboard/scheduled-transfers";
const today = businessDate(institution().time_zone);
const first_day = businessDayOnOrAfter(addDays(today, 1));
const later_day = businessDayOnOrAfter(addDays(first_day, 3));
const ORIGIN = { request_id: "scheduled-matrix-0001", ip: "203.0.113.90" };

const matrix = memberOwnMatrix({
  path: PATH,
  route: scheduledRoute,
  request: { request_id: "scheduled-matrix-0002", ip: "203.0.113.91" },
  cast: {
    member: { checking_cents: 50_000, savings_cents: 1_000 },
    other_member: { checking_cents: 50_000, savings_cents: 1_000 },
  },
  prepare: async (db, member) => {
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
    return { series_id: set.series_id };
  },
});
const { post } = matrix;
const seriesId = () => String(matrix.prepared.series_id);
const dashboardPost = (persona: MemberOwnPersona, form: Record<string, string>) =>
  run(() =>
    dashboardRoute.action({
      request: matrix.people.post(persona, "/dashboard?transfer=internal", form),
      params: {},
      context: matrix.context(),
    } as never),
  );

/** Everything a post here could change. */
async function state() {
  const db = matrix.database.db;
  const [audit] = await db.select({ n: count() }).from(auditLog);
  const series = await db.select().from(scheduledTransfers).orderBy(scheduledTransfers.id);
  const runs = await db.select().from(scheduledTransferRuns).orderBy(scheduledTransferRuns.id);
  const ledger = await db.execute(sql`select count(*)::int as n from ledger_transactions`);
  return { audit: Number(audit!.n), series, runs, ledger: ledger.rows[0] };
}

describe("the Scheduled transfers page: the member's own only", () => {
  itKeepsToTheMember(matrix, PATH, {
    sees: (persona, result) => {
      const data = result.value as { transfers: { id: number }[] };
      expect(data.transfers.some((t) => t.id === matrix.prepared.series_id)).toBe(persona === "member");
      if (persona === "other_member") expect(result.body).not.toContain("Rainy day");
    },
    posts: [
      { intent: "skip", form: () => ({ series_id: seriesId() }) },
      { intent: "cancel", form: () => ({ series_id: seriesId() }) },
      { intent: "edit", form: () => ({ series_id: seriesId(), amount: "1.00", next_date: later_day }) },
    ],
    state,
    hides: "Rainy day",
  });

  it("an unknown intent is a 400 and changes nothing", async () => {
    const before = await state();
    expect((await post("member", { intent: "delete", series_id: seriesId() })).status).toBe(400);
    expect(await state()).toEqual(before);
  });

  it("setting one up from the member's account: refused to everyone else, nothing changed", async () => {
    const form = () => ({
      intent: "internal",
      from_account_id: String(matrix.member.checking.id),
      to_account_id: String(matrix.member.savings.id),
      amount: "3.00",
      reference: "Not mine",
      when: "date",
      transfer_date: first_day,
      idempotency_key: crypto.randomUUID(),
    });
    for (const persona of MEMBER_OWN_PERSONAS.filter((p) => p !== "member")) {
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
    expect((await post("member", { intent: "skip", series_id: seriesId() })).value).toMatchObject({ ok: true });
    const edited = await post("member", {
      intent: "edit",
      series_id: seriesId(),
      amount: "16.50",
      next_date: later_day > first_day ? businessDayOnOrAfter(addDays(later_day, 40)) : later_day,
    });
    expect(edited.value).toMatchObject({ ok: true });
    const bad = await post("member", { intent: "edit", series_id: seriesId(), amount: "x", next_date: today });
    expect(bad.status).toBe(400);
    expect((await post("member", { intent: "cancel", series_id: seriesId() })).value).toMatchObject({
      ok: true,
    });
    const audit = await matrix.database.db.select().from(auditLog);
    expect(
      audit
        .filter((a) => a.action.startsWith("scheduled_transfer.") && a.request_id === "scheduled-matrix-0002")
        .map((a) => a.action),
    ).toEqual(
      expect.arrayContaining(["scheduled_transfer.skip", "scheduled_transfer.edit", "scheduled_transfer.cancel"]),
    );
  });
});
