import "../member-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Db } from "~/server/db/client.server";
import { getAccount } from "~/server/ledger/accounts.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { awaitingAdjustments, decideAdjustment, requestAdjustment } from "~/server/member-accounts/adjustments.server";
import { ApproveAdjustmentSchema } from "~/domain/member-accounts";
import { institution } from "~/config/institution.server";
import { openTestDatabase } from "../test-database";
import { fundedMember, person } from "../../factories";
import { deposit } from "../ledger-fixtures";

/**
 * An adjustment waiting for a second approval while the account's balance moves (a deposit
 * between the request and the approval): the approver sees the balance at the request and now,
 * and what approving leaves; approving on what the screen showed before the move is refused with
 * a clear message and posts nothing; approving on the balance now posts exactly the amount asked
 * for (docs/product.md#member-accounts-staff). Before, the approval posted the stored difference
 * whatever had happened, with nothing on screen to say the result would miss the typed balance.
 */
let database: Database;
const db = (): Db => database.db;
const ORIGIN = { request_id: "adjust-moved-0001", ip: "203.0.113.5" };
let maker: { id: string; email: string };
let checker: { id: string; email: string };

beforeAll(async () => {
  database = await openTestDatabase();
  maker = await person(db(), "admin");
  checker = await person(db(), "admin");
});
afterAll(async () => {
  await database?.close();
});

async function current(account_id: number): Promise<number> {
  return (await getAccount(db(), account_id))!.current_cents;
}

describe("an adjustment approved after the balance moved", () => {
  it("shows the balance now, refuses an approval made on the older balance, and posts the amount asked for on the new one", async () => {
    const m = await fundedMember(db(), { checking_cents: 100 });
    const amount = institution().limits.adjustment_second_approval_above_cents + 1;
    const asked = await requestAdjustment(db(), {
      staff: maker,
      origin: ORIGIN,
      member_id: m.member.id,
      account_id: m.checking.id,
      target_cents: 100 + amount,
      reason: "Wire received by phone",
    });
    expect(asked).toMatchObject({ status: "awaiting_approval" });
    const id = (asked as { adjustment_id: number }).adjustment_id;
    const seen_before = (await awaitingAdjustments(db())).find((a) => a.id === id)!;
    expect(seen_before).toMatchObject({ from_cents: 100, balance_now_cents: 100, amount_cents: amount });

    await deposit(db(), m.checking.id, 5_000);
    const seen_after = (await awaitingAdjustments(db())).find((a) => a.id === id)!;
    expect(seen_after).toMatchObject({
      from_cents: 100,
      balance_now_cents: 5_100,
      target_cents: 100 + amount,
      amount_cents: amount,
    });

    // Approved from a screen loaded before the deposit: refused, nothing posts.
    const stale = await decideAdjustment(db(), {
      staff: checker,
      origin: ORIGIN,
      adjustment_id: id,
      decision: "approve",
      seen_balance_cents: seen_before.balance_now_cents,
    });
    expect(stale).toMatchObject({ ok: false, kind: "conflict", code: "balance_changed" });
    expect((stale as { message: string }).message).toContain("is now $51.00 (it was $1.00 when you looked");
    expect(await current(m.checking.id)).toBe(5_100);

    // Approved on the balance now: the amount asked for posts, as the screen said.
    expect(
      await decideAdjustment(db(), {
        staff: checker,
        origin: ORIGIN,
        adjustment_id: id,
        decision: "approve",
        seen_balance_cents: seen_after.balance_now_cents,
      }),
    ).toMatchObject({ status: "posted" });
    expect(await current(m.checking.id)).toBe(5_100 + amount);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it("the approve form carries the balance seen; a broken one is a clear 400 message", () => {
    expect(ApproveAdjustmentSchema.safeParse({ adjustment_id: "7", seen_balance_cents: "-250" })).toMatchObject({
      success: true,
      data: { adjustment_id: 7, seen_balance_cents: -250 },
    });
    expect(ApproveAdjustmentSchema.safeParse({ adjustment_id: "7" })).toMatchObject({
      success: true,
      data: { adjustment_id: 7 },
    });
    for (const seen of ["", "12.5", "1e3", "x"]) {
      const parsed = ApproveAdjustmentSchema.safeParse({ adjustment_id: "7", seen_balance_cents: seen });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe(
        "This page is out of date. Please reload it and look at the adjustment again.",
      );
    }
  });
});
