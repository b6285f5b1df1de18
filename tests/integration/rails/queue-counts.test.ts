import "../admin-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "~/server/db/client.server";
import { setAppDatabase } from "~/server/db/db.server";
import * as queuesRoute from "~/routes/admin/queues";
import * as layoutRoute from "~/routes/admin/layout";
import { submitMobileDeposit } from "~/server/deposits/deposits.server";
import { openTestDatabase } from "../test-database";
import { matrixCast, routeContext, SignedIn } from "../authorization-matrix";
import { asFile, checkJpeg } from "../../check-images";

/**
 * /admin/queues counts its five queues once per page load: the admin frame's navigation (the
 * total) and the page (each section) read the same count, made by whichever loader asks first.
 */
let database: Database;
let people: SignedIn<"staff">;
let member: Awaited<ReturnType<typeof matrixCast>>["member"];

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const cast = await matrixCast(database.db, { member: { checking_cents: 10_000 } });
  member = cast.member;
  people = await SignedIn.as(database.db, { staff: cast.staff.id });
});
afterAll(async () => {
  await database?.close();
});

async function newDeposit(seed: number) {
  const made = await submitMobileDeposit(
    database.db,
    member.member,
    {
      account_id: member.checking.id,
      amount_cents: 1_000 + seed,
      idempotency_key: crypto.randomUUID(),
      front: asFile(await checkJpeg(seed), "f.jpg"),
      back: asFile(await checkJpeg(seed + 1), "b.jpg"),
    },
    { request_id: "setup", ip: "203.0.113.1" },
  );
  if (!made.ok) throw new Error(made.message);
}

describe("/admin/queues counts", () => {
  it("the frame and the page of one request share one count; the next request counts again", async () => {
    await newDeposit(801);
    const context = routeContext({ request_id: "queue-counts-0001", ip: "203.0.113.80" })();
    const layout = (await layoutRoute.loader({
      request: people.get("staff", "/admin/queues"),
      params: {},
      context,
    } as never)) as { counts: Record<string, number> };
    // A deposit arriving between the two loaders of the same request is not counted a second time.
    await newDeposit(803);
    const page = (await queuesRoute.loader({
      request: people.get("staff", "/admin/queues"),
      params: {},
      context,
    } as never)) as { counts: Record<string, number>; deposits: unknown[] };
    expect(page.counts.deposits).toBe(1);
    expect(layout.counts.queues).toBe(Object.values(page.counts).reduce((sum, n) => sum + n, 0));

    const next = (await queuesRoute.loader({
      request: people.get("staff", "/admin/queues"),
      params: {},
      context: routeContext({ request_id: "queue-counts-0002", ip: "203.0.113.80" })(),
    } as never)) as { counts: Record<string, number> };
    expect(next.counts.deposits).toBe(2);
  });
});
