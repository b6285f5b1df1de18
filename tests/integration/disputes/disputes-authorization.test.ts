import "../admin-support";
import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { count } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, disputeAttachments, disputeCases, disputeEvents, ledgerTransactions } from "~/server/db/schema";
import * as memberAttachmentRoute from "~/routes/member/dispute-attachment";
import * as staffAttachmentRoute from "~/routes/admin/dispute-attachment";
import * as enterRoute from "~/routes/admin/dispute-new";
import { asFile, pdfBytes } from "../../check-images";
import { setAppDatabase } from "~/server/db/db.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { reportDispute } from "~/server/disputes/disputes.server";
import * as newRoute from "~/routes/member/dispute-new";
import * as listRoute from "~/routes/member/disputes";
import * as caseRoute from "~/routes/member/dispute";
import * as queueRoute from "~/routes/admin/disputes";
import * as staffCaseRoute from "~/routes/admin/dispute";
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

/**
 * Who may do what with disputes (docs/product.md#disputes): reporting and reading cases are a
 * member's, for their own transactions and cases only (another member's reads as not found); the
 * queue and case pages are the back office's (staff and reviewers); notes are for both; a
 * provisional credit and a resolution move money, so only staff who may move money. A refused
 * request changes nothing; the ledger verifies after each test.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];

let database: Database;
let people: SignedIn<Persona>;
let transaction_id = 0;
let other_transaction_id = 0;
let case_id = 0;
/** A case the member sent a PDF with, and the PDF's id. */
let attached_case_id = 0;
let attachment_id = 0;
let member_email = "";
let entry_transaction_id = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, { member: { checking_cents: 50_000 }, other_member: { checking_cents: 50_000 } });
  const card = await institutionAccount(db, "card_settlement");
  const buy = async (account_id: number, member_id: string) => {
    const answer = await postTransfer(db, {
      idempotency_key: crypto.randomUUID(),
      initiator: `member:${member_id}`,
      kind: "card_payment",
      created_by: member_id,
      memo: "CORNER BOOKS",
      entries: [
        { account_id, amount_cents: -2_500 },
        { account_id: card.id, amount_cents: 2_500 },
      ],
    });
    if (!answer.ok) throw new Error(answer.code);
    return answer.transaction.id;
  };
  transaction_id = await buy(cast.member.checking.id, cast.member.member.id);
  other_transaction_id = await buy(cast.member.checking.id, cast.member.member.id);
  const made = await reportDispute(
    db,
    cast.member.member,
    { transaction_id, kind: "not_mine", details: "I was at home that day.", idempotency_key: crypto.randomUUID() },
    { request_id: "setup", ip: "203.0.113.1" },
  );
  if (!made.ok) throw new Error(made.message);
  case_id = made.case_id;
  const attached = await reportDispute(
    db,
    cast.member.member,
    {
      transaction_id: await buy(cast.member.checking.id, cast.member.member.id),
      kind: "wrong_amount",
      details: "The receipt says $20.00.",
      idempotency_key: crypto.randomUUID(),
    },
    { request_id: "setup", ip: "203.0.113.1" },
    new Date(),
    { attachments: { attachment_1: asFile(pdfBytes(), "receipt.pdf", "application/pdf") } },
  );
  if (!attached.ok) throw new Error(attached.message);
  attached_case_id = attached.case_id;
  attachment_id = (await db.select().from(disputeAttachments))[0]!.id;
  member_email = cast.member.member.email;
  entry_transaction_id = await buy(cast.member.checking.id, cast.member.member.id);
  people = await SignedIn.as(db, {
    staff: cast.staff.id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: cast.member.member.id,
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

const context = routeContext({ request_id: "dispute-matrix-0001", ip: "203.0.113.80" });

async function snapshot() {
  const db = database.db;
  const n = async (table: typeof auditLog | typeof disputeCases | typeof disputeEvents | typeof ledgerTransactions) =>
    Number((await db.select({ n: count() }).from(table))[0]!.n);
  const cases = await db
    .select({ id: disputeCases.id, status: disputeCases.status })
    .from(disputeCases)
    .orderBy(disputeCases.id);
  return {
    audits: await n(auditLog),
    events: await n(disputeEvents),
    transactions: await n(ledgerTransactions),
    cases,
  };
}

const report = (tx: number) => ({
  transaction_id: String(tx),
  kind: "duplicate",
  details: "Charged twice at the bookshop.",
  idempotency_key: crypto.randomUUID(),
});

describe("member pages", () => {
  it("the report form, the list and the case are for members; others are sent away", async () => {
    const pages: Array<[string, (request: Request) => Promise<unknown>]> = [
      [
        `/dashboard/disputes/new?transaction=${other_transaction_id}`,
        (request) => newRoute.loader({ request, params: {}, context: context() } as never),
      ],
      ["/dashboard/disputes", (request) => listRoute.loader({ request, params: {}, context: context() } as never)],
      [
        `/dashboard/disputes/${case_id}`,
        (request) => caseRoute.loader({ request, params: { caseId: String(case_id) }, context: context() } as never),
      ],
    ];
    for (const [path, load] of pages)
      for (const persona of PERSONAS) {
        const outcome = await run(() => load(people.get(persona, path)));
        if (persona === "member") expect(outcome, `${persona} ${path}`).toMatchObject({ kind: "ok" });
        else if (persona === "other_member") {
          // Another member's transaction and case read as not found; their own list is empty of it.
          if (path === "/dashboard/disputes") {
            expect(outcome.kind).toBe("ok");
            expect(outcome.body).not.toContain("I was at home");
          } else expect(outcome, path).toMatchObject({ kind: "refused", status: 404 });
        } else expectSentAway(outcome, persona, path.split("?")[0]!);
      }
  });

  itRefuses(
    "a report",
    ["anonymous", "applicant", "reviewer", "staff"] as const,
    (persona) =>
      newRoute.action({
        request: people.post(
          persona,
          `/dashboard/disputes/new?transaction=${other_transaction_id}`,
          report(other_transaction_id),
        ),
        params: {},
        context: context(),
      } as never),
    { unchanged: snapshot },
  );

  it("another member cannot report on this member's transaction: not found, nothing written", async () => {
    const before = await snapshot();
    const outcome = await run(() =>
      newRoute.action({
        request: people.post("other_member", "/dashboard/disputes/new", report(other_transaction_id)),
        params: {},
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 404 });
    expect(outcome.body).toContain("We could not find that transaction in your accounts.");
    expect(outcome.body).not.toContain("CORNER BOOKS");
    expect(await snapshot()).toEqual(before);
  });

  it("bad input: a 400 with the message by its field, nothing written", async () => {
    for (const [override, message] of [
      [{ kind: "mine" }, "Choose what is wrong."],
      [{ details: "" }, "Tell us what happened"],
      [{ details: "bad\u0000text here" }, "Please use only letters"],
      [{ transaction_id: "abc" }, "Choose the transaction."],
    ] as const) {
      const before = await snapshot();
      const outcome = await run(() =>
        newRoute.action({
          request: people.post("member", "/dashboard/disputes/new", { ...report(other_transaction_id), ...override }),
          params: {},
          context: context(),
        } as never),
      );
      expect(outcome, message).toMatchObject({ kind: "refused", status: 400 });
      expect(outcome.body).toContain(message);
      expect(await snapshot()).toEqual(before);
    }
  });

  it("the member reports and is sent to the case's confirmation", async () => {
    const outcome = await run(() =>
      newRoute.action({
        request: people.post("member", "/dashboard/disputes/new", report(other_transaction_id)),
        params: {},
        context: context(),
      } as never),
    );
    expect(outcome.kind).toBe("redirect");
    expect(outcome.location).toMatch(/^\/dashboard\/disputes\/\d+\?reported=1$/);
  });
});

describe("back office", () => {
  it("the queue and the case page are for staff and reviewers; others are sent away", async () => {
    for (const persona of PERSONAS) {
      const queue = await run(() =>
        queueRoute.loader({ request: people.get(persona, "/admin/disputes"), params: {}, context: context() } as never),
      );
      const one = await run(() =>
        staffCaseRoute.loader({
          request: people.get(persona, `/admin/disputes/${case_id}`),
          params: { caseId: String(case_id) },
          context: context(),
        } as never),
      );
      if (persona === "staff" || persona === "reviewer") {
        expect(queue, persona).toMatchObject({ kind: "ok" });
        expect(one, persona).toMatchObject({ kind: "ok" });
      } else {
        expectSentAway(queue, persona, "/admin/disputes");
        expectSentAway(one, persona, `/admin/disputes/${case_id}`);
      }
    }
  });

  const act = (persona: Persona, form: Record<string, string>) =>
    staffCaseRoute.action({
      request: people.post(persona, `/admin/disputes/${case_id}`, form),
      params: { caseId: String(case_id) },
      context: context(),
    } as never);

  itRefuses(
    "a note",
    ["anonymous", "applicant", "member", "other_member"] as const,
    (p) => act(p, { intent: "note", text: "x" }),
    {
      unchanged: snapshot,
    },
  );
  itRefuses(
    "a provisional credit",
    ["anonymous", "applicant", "member", "other_member", "reviewer"] as const,
    (p) => act(p, { intent: "credit", amount: "25.00" }),
    { unchanged: snapshot },
  );
  itRefuses(
    "a resolution",
    ["anonymous", "applicant", "member", "other_member", "reviewer"] as const,
    (p) => act(p, { intent: "resolve", outcome: "error", explanation: "Found it." }),
    { unchanged: snapshot },
  );

  itRefuses(
    "marking a card purchase for chargeback",
    ["anonymous", "applicant", "member", "other_member", "reviewer"] as const,
    (p) => act(p, { intent: "chargeback" }),
    { unchanged: snapshot },
  );

  it("staff mark the card purchase for chargeback once (the network step is theirs to do outside)", async () => {
    const marked = await run(() => act("staff", { intent: "chargeback" }));
    expect(marked).toMatchObject({ kind: "ok" });
    expect(marked.body).toContain("Raise it now in the card network");
    const before = await snapshot();
    expect(await run(() => act("staff", { intent: "chargeback" }))).toMatchObject({ kind: "refused", status: 409 });
    expect(await snapshot()).toEqual(before);
  });

  it("a reviewer may add a note; staff credit and resolve; bad input is a 400 by its field", async () => {
    expect(await run(() => act("reviewer", { intent: "note", text: "Called the member." }))).toMatchObject({
      kind: "ok",
    });
    for (const [form, field] of [
      [{ intent: "credit", amount: "twelve" }, "amount"],
      [{ intent: "credit", amount: "99.00" }, "amount"],
      [{ intent: "resolve", outcome: "", explanation: "x" }, "outcome"],
      [{ intent: "resolve", outcome: "error", explanation: "" }, "explanation"],
      [{ intent: "note", text: "" }, "text"],
    ] as const) {
      const before = await snapshot();
      const outcome = await run(() => act("staff", form));
      expect(outcome, JSON.stringify(form)).toMatchObject({ kind: "refused", status: 400 });
      expect((outcome.value as { field?: string }).field).toBe(field);
      expect(await snapshot()).toEqual(before);
    }
    expect(await run(() => act("staff", { intent: "credit", amount: "25.00" }))).toMatchObject({ kind: "ok" });
    expect(
      await run(() => act("staff", { intent: "resolve", outcome: "error", explanation: "The card was skimmed." })),
    ).toMatchObject({ kind: "ok" });
    expect(await run(() => act("staff", { intent: "bogus" }))).toMatchObject({ kind: "refused", status: 400 });
    expect(refusedStatus("staff")).toBe(403);
  });
});

describe("attachments", () => {
  const memberPath = () => `/dashboard/disputes/${attached_case_id}/attachments/${attachment_id}`;
  const staffPath = () => `/admin/disputes/${attached_case_id}/attachments/${attachment_id}`;
  const ids = () => ({ caseId: String(attached_case_id), attachmentId: String(attachment_id) });
  const views = async () =>
    (await database.db.select().from(auditLog)).filter((a) => a.action === "dispute.attachment_view").length;

  it("the member reads their own file; another member is not found; staff and applicants are sent away", async () => {
    for (const persona of PERSONAS) {
      const outcome = await run(() =>
        memberAttachmentRoute.loader({
          request: people.get(persona, memberPath()),
          params: ids(),
          context: context(),
        } as never),
      );
      if (persona === "member") {
        expect(outcome).toMatchObject({ kind: "ok", status: 200, body: "[application/pdf]" });
        const response = outcome.value as Response;
        expect(response.headers.get("cache-control")).toBe("private, no-store");
        expect(response.headers.get("content-security-policy")).toContain("sandbox");
        expect(Buffer.from(await response.arrayBuffer()).equals(pdfBytes())).toBe(true);
      } else if (persona === "other_member") expect(outcome).toMatchObject({ kind: "refused", status: 404 });
      else expectSentAway(outcome, persona, memberPath());
    }
    // Another case's number with this file's id is not found either.
    expect(
      await run(() =>
        memberAttachmentRoute.loader({
          request: people.get("member", memberPath()),
          params: { caseId: String(case_id), attachmentId: String(attachment_id) },
          context: context(),
        } as never),
      ),
    ).toMatchObject({ kind: "refused", status: 404 });
  });

  it("staff and reviewers read it, each view audited first; members and applicants are sent away", async () => {
    for (const persona of PERSONAS) {
      const before = await views();
      const outcome = await run(() =>
        staffAttachmentRoute.loader({
          request: people.get(persona, staffPath()),
          params: ids(),
          context: context(),
        } as never),
      );
      if (persona === "staff" || persona === "reviewer") {
        expect(outcome, persona).toMatchObject({ kind: "ok", status: 200, body: "[application/pdf]" });
        expect(await views()).toBe(before + 1);
      } else {
        expectSentAway(outcome, persona, staffPath());
        expect(await views()).toBe(before);
      }
    }
    expect(
      await run(() =>
        staffAttachmentRoute.loader({
          request: people.get("staff", staffPath()),
          params: { caseId: "abc", attachmentId: String(attachment_id) },
          context: context(),
        } as never),
      ),
    ).toMatchObject({ kind: "refused", status: 404 });
  });
});

describe("a report staff enter for a member", () => {
  const entry = () => ({
    member_id: "",
    transaction_id: String(entry_transaction_id),
    kind: "not_received",
    details: "The member phoned: the goods never came.",
    reported_via: "phone",
    received_on: "",
    idempotency_key: crypto.randomUUID(),
  });

  it("the page is for staff who may move money: a reviewer and everyone else are sent away", async () => {
    const path = `/admin/disputes/new?email=${encodeURIComponent(member_email)}`;
    for (const persona of PERSONAS) {
      const outcome = await run(() =>
        enterRoute.loader({ request: people.get(persona, path), params: {}, context: context() } as never),
      );
      if (persona === "staff") {
        expect(outcome).toMatchObject({ kind: "ok" });
        expect(outcome.body).toContain("CORNER BOOKS");
      } else if (persona === "reviewer") {
        // A reviewer sees no money data: sent back to the back office's home, shown nothing.
        expect(outcome).toMatchObject({ kind: "redirect" });
        expect(outcome.body ?? "").not.toContain("CORNER BOOKS");
      } else expectSentAway(outcome, persona, "/admin/disputes/new");
    }
  });

  itRefuses(
    "entering a report",
    ["anonymous", "applicant", "member", "other_member", "reviewer"] as const,
    (persona) =>
      enterRoute.action({
        request: people.post(persona, "/admin/disputes/new", entry()),
        params: {},
        context: context(),
      } as never),
    { unchanged: snapshot },
  );

  it("staff enter it: bad input by its field changes nothing; then the case opens, dated the day the member told us", async () => {
    const member_id = (await database.db.select().from(disputeCases))[0]!.member_id;
    const today = new Date().toISOString().slice(0, 10);
    for (const [override, message] of [
      [{ reported_via: "email" }, "Choose how the member told us."],
      [{ received_on: "2026-02-30" }, "Enter the date the member told us (YYYY-MM-DD)."],
      [{ received_on: "2999-01-01" }, "The date the member told us cannot be after today."],
      [{ details: "" }, "Tell us what happened"],
    ] as const) {
      const before = await snapshot();
      const outcome = await run(() =>
        enterRoute.action({
          request: people.post("staff", "/admin/disputes/new", {
            ...entry(),
            member_id,
            received_on: today,
            ...override,
          }),
          params: {},
          context: context(),
        } as never),
      );
      expect(outcome, message).toMatchObject({ kind: "refused", status: 400 });
      expect(outcome.body).toContain(message);
      expect(await snapshot()).toEqual(before);
    }
    const made = await run(() =>
      enterRoute.action({
        request: people.post("staff", "/admin/disputes/new", { ...entry(), member_id, received_on: today }),
        params: {},
        context: context(),
      } as never),
    );
    expect(made.kind).toBe("redirect");
    expect(made.location).toMatch(/^\/admin\/disputes\/\d+\?entered=1$/);
  });
});
