import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import type { Database } from "~/server/db/client.server";
import { balanceAdjustments } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { requestInfoContext } from "~/context";
import * as queuesRoute from "~/routes/admin/queues";
import * as layoutRoute from "~/routes/admin/layout";
import { requestAdjustment } from "~/server/member-accounts/adjustments.server";
import { queueCounts } from "~/server/rails/queues.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { getBalances } from "~/server/ledger/accounts.server";
import { institution } from "~/config/institution.server";
import { QUEUE_TITLES } from "~/domain/queues";
import { openTestDatabase } from "../test-database";
import { person, signedIn } from "../admin-support";
import { newMember } from "../member-support";

/**
 * /admin/queues lists the balance adjustments waiting for a second approval (maker-checker,
 * docs/product.md#payment-queues): their count is in the page's section and in the navigation's
 * Queues total; a second staff member approves (it posts) or declines with a reason from the
 * queue, through the same decision as the member's page; the one who asked cannot, nor can a
 * reviewer.
 */
let database: Database;
const cookies: Record<string, string> = {};
let member: Awaited<ReturnType<typeof newMember>>;
let approve_id = 0;
let decline_id = 0;
const origin = { request_id: "queues-adjustments", ip: "203.0.113.5" };

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const maker = await person(db, "admin");
  const checker = await person(db, "admin");
  const reviewer = await person(db, "reviewer");
  member = await newMember(db, { checking_cents: 50_000 });
  const limit = institution().limits.adjustment_second_approval_above_cents;
  const big = async () => {
    const answer = (await requestAdjustment(db, {
      staff: maker,
      origin,
      member_id: member.member.id,
      account_id: member.checking.id,
      target_cents: 50_000 + limit + 1,
      reason: "Queue adjustment",
    })) as { adjustment_id?: number };
    if (!answer.adjustment_id) throw new Error(`not awaiting approval: ${JSON.stringify(answer)}`);
    return answer.adjustment_id;
  };
  approve_id = await big();
  decline_id = await big();
  cookies.maker = await signedIn(db, maker.id);
  cookies.checker = await signedIn(db, checker.id);
  cookies.reviewer = await signedIn(db, reviewer.id);
});
afterAll(async () => {
  expect((await verifyLedger(database.db)).ok).toBe(true);
  await database?.close();
});

function context() {
  const provider = new RouterContextProvider();
  provider.set(requestInfoContext, { request_id: "queues-adjustments-0001", ip: "203.0.113.5", nonce: "" });
  return provider;
}

function request(who: string, form?: Record<string, string>): Request {
  const headers = new Headers({ origin: "http://localhost:3000", cookie: cookies[who]! });
  if (!form) return new Request("http://localhost:3000/admin/queues", { headers });
  headers.set("content-type", "application/x-www-form-urlencoded");
  return new Request("http://localhost:3000/admin/queues", {
    method: "POST",
    headers,
    body: new URLSearchParams(form),
  });
}

async function act(who: string, form: Record<string, string>): Promise<{ status: number; body: string }> {
  let value: unknown;
  try {
    value = await queuesRoute.action({ request: request(who, form), params: {}, context: context() } as never);
  } catch (thrown) {
    value = thrown;
  }
  const init = (value as { init?: { status?: number } } | null)?.init;
  return { status: init?.status ?? 200, body: JSON.stringify((value as { data?: unknown }).data ?? value) };
}

async function status(id: number) {
  const [row] = await database.db
    .select({ status: balanceAdjustments.status })
    .from(balanceAdjustments)
    .where(eq(balanceAdjustments.id, id));
  return row!.status;
}

describe("adjustments waiting for a second approval in /admin/queues", () => {
  it("are listed with their count, counted in the navigation's Queues total", async () => {
    expect((await queueCounts(database.db)).sections.adjustments).toBe(2);
    const page = await queuesRoute.loader({ request: request("checker"), params: {}, context: context() } as never);
    expect(page.counts.adjustments).toBe(2);
    expect(QUEUE_TITLES.adjustments).toBe("Staff postings waiting for a second approval");
    expect(page.adjustments.map((a) => a.id)).toEqual([approve_id, decline_id]);
    const layout = (await layoutRoute.loader({
      request: request("checker"),
      params: {},
      context: context(),
    } as never)) as { counts: Record<string, number> };
    expect(layout.counts.queues).toBe(2);
  });

  it("the one who asked and a reviewer cannot decide; nothing changes", async () => {
    const maker = await act("maker", { intent: "approve_adjustment", adjustment_id: String(approve_id) });
    expect(maker.status).toBe(403);
    expect(maker.body).toContain("another staff member must approve or decline it");
    expect((await act("reviewer", { intent: "approve_adjustment", adjustment_id: String(approve_id) })).status).toBe(
      403,
    );
    expect(await status(approve_id)).toBe("awaiting_approval");
  });

  it("a second staff member approves one (it posts) and declines the other with a reason; a decline without one is refused", async () => {
    const [before] = await getBalances(database.db, [member.checking.id]);
    const approved = await act("checker", { intent: "approve_adjustment", adjustment_id: String(approve_id) });
    expect(approved.status).toBe(200);
    expect(approved.body).toContain("approved and posted");
    expect(await status(approve_id)).toBe("posted");
    const [after] = await getBalances(database.db, [member.checking.id]);
    expect(after!.current_cents).toBeGreaterThan(before!.current_cents);

    expect((await act("checker", { intent: "decline_adjustment", adjustment_id: String(decline_id) })).status).toBe(
      400,
    );
    expect(await status(decline_id)).toBe("awaiting_approval");
    const declined = await act("checker", {
      intent: "decline_adjustment",
      adjustment_id: String(decline_id),
      reason: "Not supported by the file",
    });
    expect(declined.status).toBe(200);
    expect(await status(decline_id)).toBe("declined");
    expect((await queueCounts(database.db)).sections.adjustments).toBe(0);
  });
});
