import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq, sql } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, externalPayments, paymentExportFiles } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as queuesRoute from "~/routes/admin/queues";
import * as fileRoute from "~/routes/admin/queues-file";
import * as layoutRoute from "~/routes/admin/layout";
import * as memberPaymentsRoute from "~/routes/member/payments";
import { exportPayments } from "~/server/rails/export.server";
import { setCurrencyRate } from "~/server/payments/rates.server";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { queueAch, queueWire } from "../rails-support";

/**
 * Who may use the payment queues (docs/product.md#payment-queues): /admin/queues, its file
 * downloads and actions are for staff who may move money; a reviewer, a member, an applicant and a
 * visitor are refused (pages redirect, actions 401/403) and nothing changes. A member's payments
 * page shows and cancels only their own payments: another member's is "not found".
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];

let database: Database;
let people: SignedIn<Persona>;
let payment_id = 0; // the member's pending ACH transfer
let wire_id = 0;
let file_id = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  await setCurrencyRate(db, { code: "EUR", usd_per_unit: "1.08375", updated_by: "test" });
  const {
    staff,
    reviewer,
    applicant,
    member,
    other_member: other,
  } = await matrixCast(db, { member: { checking_cents: 100_000 }, other_member: { checking_cents: 100_000 } });
  // One file already exported (for the download), then the payments the actions would touch.
  await queueAch(db, other.member, other.checking.id, { amount: "1.00" });
  const exported = await exportPayments(db, "ach", staff, { request_id: "setup", ip: "203.0.113.1" });
  if (!exported.ok) throw new Error(exported.message);
  file_id = exported.file.id;
  payment_id = (await queueAch(db, member.member, member.checking.id, { amount: "10.00" })).payment_id;
  wire_id = (await queueWire(db, member.member, member.checking.id, { amount: "5.00" })).payment_id;
  // Its member's 30-minute cancellation window (docs/product.md#remittance-transfers) has passed, so the export takes it.
  await db.execute(sql`update external_payments set cancel_until = now() - interval '1 minute' where id = ${wire_id}`);
  people = await SignedIn.as(db, {
    staff: staff.id,
    reviewer: reviewer.id,
    applicant: applicant.id,
    member: member.member.id,
    other_member: other.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "queues-matrix-0001", ip: "203.0.113.78" });
const request = (persona: Persona, path: string, form?: Record<string, string>) => people.request(persona, path, form);

async function snapshot() {
  const db = database.db;
  const [audits] = await db.select({ n: count() }).from(auditLog);
  const [files] = await db.select({ n: count() }).from(paymentExportFiles);
  const payments = await db
    .select({ id: externalPayments.id, status: externalPayments.status })
    .from(externalPayments)
    .orderBy(externalPayments.id);
  return { audits: Number(audits!.n), files: Number(files!.n), payments };
}

describe("/admin/queues and its downloads: staff who may move money only", () => {
  const pages = [
    {
      path: "/admin/queues",
      load: (r: Request) => queuesRoute.loader({ request: r, params: {}, context: context() } as never),
    },
    {
      path: "/admin/queues/files/FILE",
      load: (r: Request) =>
        fileRoute.loader({ request: r, params: { fileId: String(file_id) }, context: context() } as never),
    },
  ];
  for (const page of pages) {
    for (const persona of PERSONAS) {
      it(`${page.path} for ${persona}`, async () => {
        const outcome = await run(() => page.load(request(persona, page.path.replace("FILE", String(file_id)))));
        if (persona === "staff") {
          expect(outcome).toMatchObject({ kind: "ok", status: 200 });
          return;
        }
        expectSentAway(outcome, persona, "/admin/queues");
        expect(outcome.body).not.toContain("members.example");
      });
    }
  }

  it("staff download the file byte for byte, as an attachment, not cached; the download is audited; an unknown id is 404", async () => {
    const before = await snapshot();
    const response = (await fileRoute.loader({
      request: request("staff", `/admin/queues/files/${file_id}`),
      params: { fileId: String(file_id) },
      context: context(),
    } as never)) as Response;
    const [stored] = await database.db.select().from(paymentExportFiles).where(eq(paymentExportFiles.id, file_id));
    expect(await response.text()).toBe(stored!.content);
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${stored!.file_name}"`);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect((await snapshot()).audits).toBe(before.audits + 1);
    for (const id of ["999999", "abc", "-1", "1e3"]) {
      expect(
        await run(() =>
          fileRoute.loader({
            request: request("staff", `/admin/queues/files/${id}`),
            params: { fileId: id },
            context: context(),
          } as never),
        ),
      ).toMatchObject({ kind: "refused", status: 404 });
    }
  });

  it("the navigation shows staff the number waiting, and reviewers nothing of it", async () => {
    const staff = (await layoutRoute.loader({
      request: request("staff", "/admin"),
      params: {},
      context: context(),
    } as never)) as { counts: Record<string, number> };
    expect(staff.counts.queues).toBe(2);
    const reviewer = (await layoutRoute.loader({
      request: request("reviewer", "/admin"),
      params: {},
      context: context(),
    } as never)) as { counts: Record<string, number> };
    // Reviewers work the secure-message inbox (its count), never the payment queues.
    expect(reviewer.counts).toEqual({ inbox: 0 });
  });
});

describe("/admin/queues actions", () => {
  const actions = [
    { name: "export ACH", form: () => ({ intent: "export", kind: "ach" }) },
    { name: "export wires", form: () => ({ intent: "export", kind: "wire" }) },
    { name: "cancel", form: () => ({ intent: "cancel", payment_id: String(payment_id) }) },
  ];
  for (const action of actions) {
    itRefuses(
      action.name,
      PERSONAS.filter((p) => p !== "staff"),
      (persona) =>
        queuesRoute.action({
          request: request(persona, "/admin/queues", action.form()),
          params: {},
          context: context(),
        } as never),
      { unchanged: snapshot },
    );
  }

  it("staff: bad input is a 400 with a message and changes nothing", async () => {
    const before = await snapshot();
    for (const form of [{ intent: "export", kind: "cheque" }, { intent: "explode" }, {}] as Record<string, string>[]) {
      const outcome = await run(() =>
        queuesRoute.action({
          request: request("staff", "/admin/queues", form),
          params: {},
          context: context(),
        } as never),
      );
      expect(outcome).toMatchObject({ kind: "refused", status: 400 });
      expect(outcome.body).toContain("could not be processed");
    }
    for (const id of ["abc", "0", "-5", "99999999"]) {
      expect(
        await run(() =>
          queuesRoute.action({
            request: request("staff", "/admin/queues", { intent: "cancel", payment_id: id }),
            params: {},
            context: context(),
          } as never),
        ),
      ).toMatchObject({ kind: "refused", status: 404 });
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("/dashboard/payments: the member's own payments", () => {
  it("only members see it; each sees their own payments", async () => {
    for (const persona of ["anonymous", "applicant", "reviewer", "staff"] as const) {
      const outcome = await run(() =>
        memberPaymentsRoute.loader({
          request: request(persona, "/dashboard/payments"),
          params: {},
          context: context(),
        } as never),
      );
      expect(outcome.kind, persona).toBe("redirect");
    }
    const mine = (await memberPaymentsRoute.loader({
      request: request("member", "/dashboard/payments"),
      params: {},
      context: context(),
    } as never)) as { payments: { id: number }[] };
    expect(mine.payments.map((p) => p.id).sort()).toEqual([payment_id, wire_id].sort());
    const theirs = (await memberPaymentsRoute.loader({
      request: request("other_member", "/dashboard/payments"),
      params: {},
      context: context(),
    } as never)) as { payments: { id: number }[] };
    expect(theirs.payments.map((p) => p.id)).not.toContain(payment_id);
  });

  it("cancel by anyone but the member who made it is refused and changes nothing", async () => {
    for (const persona of ["anonymous", "applicant", "reviewer", "staff", "other_member"] as const) {
      const before = await snapshot();
      const outcome = await run(() =>
        memberPaymentsRoute.action({
          request: request(persona, "/dashboard/payments", { intent: "cancel", payment_id: String(payment_id) }),
          params: {},
          context: context(),
        } as never),
      );
      expect(outcome, persona).toMatchObject({
        kind: "refused",
        status: persona === "anonymous" ? 401 : persona === "other_member" ? 404 : 403,
      });
      expect(await snapshot()).toEqual(before);
    }
  });

  it("the member cancels their own pending transfer; a second cancel says it is already cancelled", async () => {
    const outcome = await run(() =>
      memberPaymentsRoute.action({
        request: request("member", "/dashboard/payments", { intent: "cancel", payment_id: String(payment_id) }),
        params: {},
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "ok" });
    expect(outcome.body).toContain("$10.00 is available");
    const again = await run(() =>
      memberPaymentsRoute.action({
        request: request("member", "/dashboard/payments", { intent: "cancel", payment_id: String(payment_id) }),
        params: {},
        context: context(),
      } as never),
    );
    expect(again).toMatchObject({ kind: "refused", status: 409 });
    expect(again.body).toContain("already cancelled");
  });

  it("staff export through the page: a success line; then 'nothing pending' is a 409 with its message", async () => {
    const done = await run(() =>
      queuesRoute.action({
        request: request("staff", "/admin/queues", { intent: "export", kind: "wire" }),
        params: {},
        context: context(),
      } as never),
    );
    expect(done).toMatchObject({ kind: "ok" });
    expect(done.body).toMatch(/1 wire \(\$[\d.,]+\) exported as wires-/);
    const none = await run(() =>
      queuesRoute.action({
        request: request("staff", "/admin/queues", { intent: "export", kind: "wire" }),
        params: {},
        context: context(),
      } as never),
    );
    expect(none).toMatchObject({ kind: "refused", status: 409 });
    expect(none.body).toContain("There are no pending wires to export.");
  });
});
