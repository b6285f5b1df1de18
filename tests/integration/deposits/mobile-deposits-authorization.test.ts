import "../admin-support";
import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, ledgerTransactions, mobileDeposits } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import * as depositRoute from "~/routes/member/deposit";
import * as imageRoute from "~/routes/admin/deposit-image";
import * as queuesRoute from "~/routes/admin/queues";
import * as layoutRoute from "~/routes/admin/layout";
import { submitMobileDeposit } from "~/server/deposits/deposits.server";
import { openTestDatabase } from "../test-database";
import {
  expectSentAway,
  itRefuses,
  matrixCast,
  refusedStatus,
  routeContext,
  run,
  SignedIn,
} from "../authorization-matrix";
import { asFile, checkJpeg, checkPng, htmlBytes, pdfBytes, pngBomb } from "../../check-images";

/**
 * Who may do what with mobile deposits (docs/product.md#mobile-deposit): the deposit page and its
 * form are a member's, for their own accounts only; approving, rejecting and the check photos are
 * for staff who may move money (a reviewer is refused like a member). A refused request changes
 * nothing, and the ledger verifies after each test. The form's bad input comes back as messages
 * with a 4xx, never a 500.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];

let database: Database;
let people: SignedIn<Persona>;
let member: Awaited<ReturnType<typeof matrixCast>>["member"];
let deposit_id = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, { member: { checking_cents: 10_000 }, other_member: { checking_cents: 10_000 } });
  member = cast.member;
  const made = await submitMobileDeposit(
    db,
    member.member,
    {
      account_id: member.checking.id,
      amount_cents: 25_000,
      idempotency_key: crypto.randomUUID(),
      front: asFile(await checkJpeg(501), "f.jpg"),
      back: asFile(await checkJpeg(502), "b.jpg"),
    },
    { request_id: "setup", ip: "203.0.113.1" },
  );
  if (!made.ok) throw new Error(made.message);
  deposit_id = made.deposit_id;
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
afterEach(async () => {
  const report = await verifyLedger(database.db);
  expect(report.problems).toEqual([]);
});

const context = routeContext({ request_id: "deposit-matrix-0001", ip: "203.0.113.79" });
/** A page, or the form posted (multipart: the check photos are files). */
const request = (
  persona: Persona,
  path: string,
  body?: Record<string, string | File>,
  headers: Record<string, string> = {},
) => (body ? people.upload(persona, path, body, headers) : people.get(persona, path));

async function snapshot() {
  const db = database.db;
  const [audits] = await db.select({ n: count() }).from(auditLog);
  const [transactions] = await db.select({ n: count() }).from(ledgerTransactions);
  const deposits = await db
    .select({ id: mobileDeposits.id, status: mobileDeposits.status })
    .from(mobileDeposits)
    .orderBy(mobileDeposits.id);
  return { audits: Number(audits!.n), transactions: Number(transactions!.n), deposits };
}

async function depositForm(overrides: Record<string, string | File> = {}) {
  return {
    account_id: String(member.checking.id),
    amount: "120.00",
    idempotency_key: crypto.randomUUID(),
    front_image: asFile(await checkJpeg(crypto.randomInt(1000)), "front.jpg"),
    back_image: asFile(await checkPng(crypto.randomInt(1000)), "back.png", "image/png"),
    ...overrides,
  };
}

describe("/dashboard/deposit: members, their own accounts", () => {
  it("the page is for members only", async () => {
    for (const persona of PERSONAS) {
      const outcome = await run(() =>
        depositRoute.loader({
          request: request(persona, "/dashboard/deposit"),
          params: {},
          context: context(),
        } as never),
      );
      if (persona === "member" || persona === "other_member") expect(outcome, persona).toMatchObject({ kind: "ok" });
      else expect(outcome.kind, persona).toBe("redirect");
    }
    const theirs = (await depositRoute.loader({
      request: request("other_member", "/dashboard/deposit"),
      params: {},
      context: context(),
    } as never)) as { deposits: { id: number }[]; accounts: { value: string }[] };
    expect(theirs.deposits).toEqual([]);
    expect(theirs.accounts.map((a) => a.value)).not.toContain(String(member.checking.id));
  });

  for (const persona of ["anonymous", "applicant", "reviewer", "staff"] as const) {
    it(`a deposit by ${persona} is refused (${refusedStatus(persona)}) and changes nothing`, async () => {
      const before = await snapshot();
      const outcome = await run(async () =>
        depositRoute.action({
          request: request(persona, "/dashboard/deposit", await depositForm()),
          params: {},
          context: context(),
        } as never),
      );
      expect(outcome).toMatchObject({ kind: "refused", status: refusedStatus(persona) });
      expect(await snapshot()).toEqual(before);
    });
  }

  it("another member depositing to this member's account is refused: 'Please choose one of your accounts'", async () => {
    const before = await snapshot();
    const outcome = await run(async () =>
      depositRoute.action({
        request: request("other_member", "/dashboard/deposit", await depositForm()),
        params: {},
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 404 });
    expect(outcome.body).toContain("Please choose one of your accounts");
    expect(await snapshot()).toEqual(before);
  });

  it("bad input through the form: a 4xx with the message by its field, nothing written", async () => {
    const cases: Array<[Record<string, string | File>, number, string]> = [
      [{ amount: "10000.01" }, 400, "The maximum for one check is $10,000.00"],
      [{ amount: "0" }, 400, "Please enter a valid amount"],
      [{ amount: "" }, 400, "Please fill in all fields"],
      [
        { front_image: asFile(pdfBytes(), "check.jpg") },
        400,
        "The photo of the front of the check must be a JPEG or PNG image",
      ],
      [
        { back_image: asFile(htmlBytes(), "check.jpg") },
        400,
        "The photo of the back of the check must be a JPEG or PNG image",
      ],
      [{ front_image: asFile(pngBomb(), "big.png", "image/png") }, 400, "could not be read"],
      [{ account_id: "999999999" }, 404, "Please choose one of your accounts"],
    ];
    for (const [overrides, status, message] of cases) {
      const before = await snapshot();
      const outcome = await run(async () =>
        depositRoute.action({
          request: request("member", "/dashboard/deposit", await depositForm(overrides)),
          params: {},
          context: context(),
        } as never),
      );
      expect(outcome, message).toMatchObject({ kind: "refused", status });
      expect(outcome.body).toContain(message);
      expect(await snapshot()).toEqual(before);
    }
  });

  it("a post declaring more than two full photos is refused (413) before its body is read", async () => {
    const before = await snapshot();
    const outcome = await run(async () =>
      depositRoute.action({
        request: request("member", "/dashboard/deposit", await depositForm(), {
          "content-length": String(21 * 1024 * 1024),
        }),
        params: {},
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 413 });
    expect(outcome.body).toContain("larger than 10 MB each");
    expect(await snapshot()).toEqual(before);
  });

  it("the member deposits to their own account: pending review", async () => {
    const outcome = await run(async () =>
      depositRoute.action({
        request: request("member", "/dashboard/deposit", await depositForm({ amount: "10000.00" })),
        params: {},
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "ok" });
    expect(outcome.body).toContain("$10,000.00 was received and is pending review");
  });
});

describe("staff actions and the check photos: staff who may move money only", () => {
  for (const persona of PERSONAS) {
    it(`a photo for ${persona}`, async () => {
      const path = `/admin/queues/deposits/${deposit_id}/front`;
      const outcome = await run(() =>
        imageRoute.loader({
          request: request(persona, path),
          params: { depositId: String(deposit_id), side: "front" },
          context: context(),
        } as never),
      );
      if (persona === "staff") {
        expect(outcome).toMatchObject({ kind: "ok", status: 200, body: "[image/jpeg]" });
        return;
      }
      expectSentAway(outcome, persona, "");
    });
  }

  it("staff: a photo is no-store, audited; an unknown deposit or side is 404", async () => {
    const before = await snapshot();
    const response = (await imageRoute.loader({
      request: request("staff", "/x"),
      params: { depositId: String(deposit_id), side: "back" },
      context: context(),
    } as never)) as Response;
    expect(response.headers.get("content-type")).toBe("image/jpeg");
    expect(response.headers.get("cache-control")).toBe("private, no-store");
    expect((await snapshot()).audits).toBe(before.audits + 1);
    for (const [id, side] of [
      ["99999999", "front"],
      ["abc", "front"],
      [String(deposit_id), "side"],
      [String(deposit_id), "../../secrets"],
    ]) {
      expect(
        await run(() =>
          imageRoute.loader({
            request: request("staff", "/x"),
            params: { depositId: id, side },
            context: context(),
          } as never),
        ),
      ).toMatchObject({ kind: "refused", status: 404 });
    }
  });

  const actions = [
    { name: "approve", form: () => ({ intent: "approve_deposit", deposit_id: String(deposit_id) }) },
    {
      name: "reject",
      form: () => ({ intent: "reject_deposit", deposit_id: String(deposit_id), reason: "Not signed" }),
    },
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

  it("staff see the deposit in the queue and the navigation's count", async () => {
    const view = (await queuesRoute.loader({
      request: request("staff", "/admin/queues"),
      params: {},
      context: context(),
    } as never)) as { counts: Record<string, number>; deposits: { id: number }[] };
    expect(view.counts.deposits).toBeGreaterThanOrEqual(1);
    expect(view.deposits.map((d) => d.id)).toContain(deposit_id);
    const layout = (await layoutRoute.loader({
      request: request("staff", "/admin"),
      params: {},
      context: context(),
    } as never)) as { counts: Record<string, number> };
    expect(layout.counts.queues).toBeGreaterThanOrEqual(view.counts.deposits!);
  });

  it("staff: reject without a reason is a 400 next to the field; a bad id is 404; then approve; a second decision is 409", async () => {
    const before = await snapshot();
    const empty = await run(() =>
      queuesRoute.action({
        request: request("staff", "/admin/queues", {
          intent: "reject_deposit",
          deposit_id: String(deposit_id),
          reason: " ",
        }),
        params: {},
        context: context(),
      } as never),
    );
    expect(empty).toMatchObject({ kind: "refused", status: 400 });
    expect(empty.body).toContain("Please give the reason the deposit is rejected.");
    for (const id of ["abc", "0", "99999999"]) {
      expect(
        await run(() =>
          queuesRoute.action({
            request: request("staff", "/admin/queues", { intent: "approve_deposit", deposit_id: id }),
            params: {},
            context: context(),
          } as never),
        ),
      ).toMatchObject({ kind: "refused", status: 404 });
    }
    // An exception hold staff choose (Regulation CC 229.13): a reasonable-cause hold needs its reason, by its field.
    for (const [hold, message] of [
      [
        { hold_exception: "reasonable_cause", hold_reason: "  " },
        "Please write why you believe the check will not be paid",
      ],
      [{ hold_exception: "emergency" }, "Please choose one of the holds listed."],
    ] as const) {
      const refused = await run(() =>
        queuesRoute.action({
          request: request("staff", "/admin/queues", {
            intent: "approve_deposit",
            deposit_id: String(deposit_id),
            ...hold,
          }),
          params: {},
          context: context(),
        } as never),
      );
      expect(refused).toMatchObject({ kind: "refused", status: 400 });
      expect(refused.body).toContain(message);
    }
    expect(await snapshot()).toEqual(before);
    const approved = await run(() =>
      queuesRoute.action({
        request: request("staff", "/admin/queues", { intent: "approve_deposit", deposit_id: String(deposit_id) }),
        params: {},
        context: context(),
      } as never),
    );
    expect(approved).toMatchObject({ kind: "ok" });
    expect(approved.body).toContain("approved");
    const [row] = await database.db.select().from(mobileDeposits).where(eq(mobileDeposits.id, deposit_id));
    expect(row!.status).toBe("approved");
    const again = await run(() =>
      queuesRoute.action({
        request: request("staff", "/admin/queues", {
          intent: "reject_deposit",
          deposit_id: String(deposit_id),
          reason: "late",
        }),
        params: {},
        context: context(),
      } as never),
    );
    expect(again).toMatchObject({ kind: "refused", status: 409 });
  });
});
