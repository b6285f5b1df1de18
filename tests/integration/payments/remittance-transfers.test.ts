import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, desc, eq } from "drizzle-orm";
import { extractText, getDocumentProxy } from "unpdf";
import type { Database, Db } from "~/server/db/client.server";
import { auditLog, externalPayments, ledgerEntries, outbox, outboxAttachments } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { getBalances } from "~/server/ledger/accounts.server";
import { institution } from "~/config/institution.server";
import { cancelPayment } from "~/server/rails/cancel.server";
import { exportPayments } from "~/server/rails/export.server";
import { setCurrencyRate } from "~/server/payments/rates.server";
import { reviewWire } from "~/server/payments/to-other-banks.server";
import { internationalSchema } from "~/domain/transfers";
import { CANCEL_WINDOW_PASSED } from "~/domain/remittance";
import * as receiptRoute from "~/routes/member/payment-receipt";
import * as receiptPdfRoute from "~/routes/member/payment-receipt-pdf";
import { openTestDatabase } from "../test-database";
import { expectLedgerVerifies } from "../ledger-fixtures";
import { expectSentAway, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { key, newMember } from "../member-support";
import { queueAch, queueWire } from "../rails-support";

/**
 * Remittance transfers (docs/product.md#remittance-transfers, 12 CFR 1005.30-1005.36): the
 * disclosure's figures at review, the receipt by email and as a PDF (read back with unpdf, not the
 * writer), the member's cancel within 30 minutes and its refusal after, the export waiting for the
 * window, the exemption switch, and who may open and act on a receipt.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";

let database: Database;
let db: Db;
let people: SignedIn<Persona>;
let cast: Awaited<ReturnType<typeof matrixCast>>;
const staffOf = () => ({ id: cast.staff.id, email: "staff@members.example" });
const origin = { request_id: "remittance-0001", ip: "203.0.113.40" };
const context = routeContext(origin);

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  db = database.db;
  await setCurrencyRate(db, { code: "EUR", usd_per_unit: "1.08375", updated_by: "test" });
  cast = await matrixCast(db, { member: { checking_cents: 2_000_000 }, other_member: { checking_cents: 100_000 } });
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

async function available(account_id: number): Promise<number> {
  const [a] = await getBalances(db, [account_id]);
  return a!.available_cents;
}

async function payment(id: number) {
  const [p] = await db.select().from(externalPayments).where(eq(externalPayments.id, id));
  return p!;
}

async function snapshot() {
  const [audits] = await db.select({ n: count() }).from(auditLog);
  const [entries] = await db.select({ n: count() }).from(ledgerEntries);
  const payments = await db
    .select({ id: externalPayments.id, status: externalPayments.status })
    .from(externalPayments)
    .orderBy(externalPayments.id);
  return { audits: Number(audits!.n), entries: Number(entries!.n), payments };
}

/** A fresh member's requests (signed in), for the route tests that need a member of their own. */
async function requestsOf(member_id: string) {
  const signed = await SignedIn.as(db, { fresh: member_id });
  return (path: string, form?: Record<string, string>) => signed.request("fresh", path, form);
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
  return text.replace(/\s+/g, " ");
}

const wireForm = (from: number, amount: string) =>
  internationalSchema.parse({
    from_account_id: String(from),
    recipient_name: "Hans Müller",
    bank_name: "Commerzbank",
    bic: "COBADEFFXXX",
    account_number: "0532013000",
    iban: "DE89370400440532013000",
    country: "DE",
    currency: "EUR",
    amount,
    reference: "Invoice 7",
    idempotency_key: key(),
  });

describe("the pre-payment disclosure (1005.31(b)(1))", () => {
  it("the review carries the figures: amount, fee, taxes 0, total, rate, amount received, date of availability", async () => {
    // A member of its own: step-up codes are limited to 5 a member in 10 minutes.
    const m = await newMember(db, { checking_cents: 2_000_000 });
    const review = await reviewWire(db, m.member, wireForm(m.checking.id, "1000.00"));
    if (!review.ok) throw new Error(review.message);
    expect(review.disclosure).toMatchObject({
      transfer_amount_cents: 108_375,
      fee_cents: institution().limits.wire_fee_cents,
      taxes_cents: 0,
      total_cents: 108_375 + institution().limits.wire_fee_cents,
      usd_per_unit: "1.08375",
      sent_minor: 100_000,
      third_party_fee_minor: 0,
      received_minor: 100_000,
    });
    expect(review.disclosure.available_on).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(review.remittance_exempt).toBe(false);
  });
});

describe("the receipt (1005.31(b)(2))", () => {
  it("is emailed once with its PDF, and the PDF states the figures, the recipient, the date, the cancel right and the error rights", async () => {
    // A member of its own: step-up codes are limited to 5 a member in 10 minutes.
    const m = await newMember(db, { checking_cents: 2_000_000 });
    const wire = await queueWire(db, m.member, m.checking.id, { amount: "1000.00" });
    const p = await payment(wire.payment_id);
    expect(p.cancel_until!.getTime() - p.created_at.getTime()).toBe(30 * 60_000);
    expect(p.available_on).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const mails = await db.select().from(outbox).where(eq(outbox.kind, "remittance_receipt")).orderBy(desc(outbox.id));
    const mail = mails.find((r) => r.subject.includes(wire.reference_number))!;
    expect(mail.to_email).toBe(m.member.email.toLowerCase());
    expect(mail.text_body).toContain("Total: $1,128.75");
    expect(mail.text_body).toContain("within 30 minutes");
    const [attachment] = await db.select().from(outboxAttachments).where(eq(outboxAttachments.outbox_id, mail.id));
    expect(attachment!.file_name).toBe(`receipt-${wire.reference_number}.pdf`);
    const emailed = await pdfText(new Uint8Array(attachment!.content));

    const as = await requestsOf(m.member.id);
    const response = (await receiptPdfRoute.loader({
      request: as(`/dashboard/payments/${wire.payment_id}/receipt.pdf`),
      params: { paymentId: String(wire.payment_id) },
      context: context(),
    } as never)) as Response;
    expect(response.headers.get("content-type")).toBe("application/pdf");
    const served = await pdfText(new Uint8Array(await response.arrayBuffer()));
    for (const text of [emailed, served]) {
      expect(text).toContain("Remittance transfer receipt");
      expect(text).toContain(wire.reference_number);
      expect(text).toContain("Hans Müller");
      expect(text).toContain("$1,083.75"); // transfer amount
      expect(text).toContain("$45.00"); // fee
      expect(text).toContain("$0.00"); // taxes
      expect(text).toContain("$1,128.75"); // total
      expect(text).toContain("1 EUR = 1.08375 USD");
      expect(text).toContain(`Date available: ${p.available_on}`);
      expect(text).toContain("Cancel by");
      expect(text).toContain("within 30 minutes");
      expect(text).toContain("within 180 days");
      expect(text).toContain(institution().support_phone);
    }
  });
});

describe("cancellation within 30 minutes (1005.34)", () => {
  it("the member cancels from the receipt: the amount and the fee come back through the ledger, audited", async () => {
    // A member of its own: step-up codes are limited to 5 a member in 10 minutes.
    const m = await newMember(db, { checking_cents: 2_000_000 });
    const before = await available(m.checking.id);
    const wire = await queueWire(db, m.member, m.checking.id, { amount: "100.00" });
    expect(await available(m.checking.id)).toBe(before - wire.held_cents);
    const as = await requestsOf(m.member.id);
    const page = (await receiptRoute.loader({
      request: as(`/dashboard/payments/${wire.payment_id}`),
      params: { paymentId: String(wire.payment_id) },
      context: context(),
    } as never)) as { receipt: { can_cancel: boolean } };
    expect(page.receipt.can_cancel).toBe(true);
    const answer = await receiptRoute.action({
      request: as(`/dashboard/payments/${wire.payment_id}`, { intent: "cancel" }),
      params: { paymentId: String(wire.payment_id) },
      context: context(),
    } as never);
    expect(answer).toMatchObject({ ok: true, message: expect.stringContaining("$153.38") });
    expect(await available(m.checking.id)).toBe(before);
    expect(await payment(wire.payment_id)).toMatchObject({ status: "cancelled" });
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "payment.cancel_by_member"))
      .orderBy(desc(auditLog.id))
      .limit(1);
    expect(audit).toMatchObject({ subject_id: String(wire.payment_id) });
    await expectLedgerVerifies(db);
  });

  it("after 30 minutes the member is refused with a clear message and nothing changes; staff can still cancel until it is sent", async () => {
    // A member of its own: step-up codes are limited to 5 a member in 10 minutes.
    const m = await newMember(db, { checking_cents: 2_000_000 });
    const wire = await queueWire(db, m.member, m.checking.id, { amount: "20.00" });
    const p = await payment(wire.payment_id);
    const late = new Date(p.cancel_until!.getTime() + 1_000);
    const before = await snapshot();
    const refused = await cancelPayment(
      db,
      wire.payment_id,
      { kind: "member", id: m.member.id, email: m.member.email },
      origin,
      { now: late },
    );
    expect(refused).toEqual({ ok: false, kind: "conflict", code: "window_passed", message: CANCEL_WINDOW_PASSED });
    expect(await snapshot()).toEqual(before);
    // Exactly at the deadline it is still the member's to cancel; an ACH transfer has no such window.
    const ach = await queueAch(db, m.member, m.checking.id, { amount: "5.00" });
    expect(
      await cancelPayment(db, ach.payment_id, { kind: "member", id: m.member.id, email: m.member.email }, origin, {
        now: late,
      }),
    ).toMatchObject({ ok: true });
    expect(
      await cancelPayment(db, wire.payment_id, { kind: "staff", ...staffOf() }, origin, { now: late }),
    ).toMatchObject({ ok: true });
    await expectLedgerVerifies(db);
  });

  it("the receipt page's action after the window is a 409 with the message, and the Cancel button is gone", async () => {
    // A member of its own: step-up codes are limited to 5 a member in 10 minutes.
    const m = await newMember(db, { checking_cents: 2_000_000 });
    const wire = await queueWire(db, m.member, m.checking.id, { amount: "15.00" });
    await db
      .update(externalPayments)
      .set({ cancel_until: new Date(Date.now() - 60_000) })
      .where(eq(externalPayments.id, wire.payment_id));
    const as = await requestsOf(m.member.id);
    const page = (await receiptRoute.loader({
      request: as(`/dashboard/payments/${wire.payment_id}`),
      params: { paymentId: String(wire.payment_id) },
      context: context(),
    } as never)) as { receipt: { can_cancel: boolean } };
    expect(page.receipt.can_cancel).toBe(false);
    const before = await snapshot();
    const outcome = await run(() =>
      receiptRoute.action({
        request: as(`/dashboard/payments/${wire.payment_id}`, { intent: "cancel" }),
        params: { paymentId: String(wire.payment_id) },
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 409 });
    expect(outcome.body).toContain("30 minutes to cancel");
    expect(await snapshot()).toEqual(before);
  });
});

describe("the export respects the window", () => {
  it("a wire inside its 30 minutes is not exported; after them it is", async () => {
    const m = await newMember(db, { checking_cents: 2_000_000 });
    // Everything older goes first, so this test sees only its own wire.
    await exportPayments(db, "wire", staffOf(), origin, { now: new Date(Date.now() + 31 * 60_000) });
    const wire = await queueWire(db, m.member, m.checking.id, { amount: "10.00" });
    const p = await payment(wire.payment_id);
    const early = await exportPayments(db, "wire", staffOf(), origin, {
      now: new Date(p.cancel_until!.getTime() - 1_000),
    });
    expect(early).toEqual({
      ok: false,
      kind: "conflict",
      code: "nothing_pending",
      message:
        "There are no pending wires to export yet: the one waiting is still inside the member's 30-minute cancellation window.",
    });
    expect(await payment(wire.payment_id)).toMatchObject({ status: "pending" });
    const later = await exportPayments(db, "wire", staffOf(), origin, { now: p.cancel_until! });
    expect(later).toMatchObject({ ok: true, file: { payment_count: 1 } });
    expect(await payment(wire.payment_id)).toMatchObject({ status: "sent" });
    await expectLedgerVerifies(db);
  });
});

describe("the small-provider exemption (1005.30(f)(2))", () => {
  it("when on: the disclosure and receipt stay, no 30-minute window, the member cancels until it is sent and the export does not wait", async () => {
    const profile = institution().remittance_transfers;
    profile.exempt = true;
    try {
      // A member of its own: step-up codes are limited to 5 a member in 10 minutes.
      const m = await newMember(db, { checking_cents: 2_000_000 });
      const wire = await queueWire(db, m.member, m.checking.id, { amount: "12.00" });
      expect(await payment(wire.payment_id)).toMatchObject({ cancel_until: null });
      const mails = await db.select().from(outbox).where(eq(outbox.kind, "remittance_receipt"));
      expect(mails.some((r) => r.subject.includes(wire.reference_number))).toBe(true);
      expect(
        await cancelPayment(db, wire.payment_id, { kind: "member", id: m.member.id, email: m.member.email }, origin, {
          now: new Date(Date.now() + 24 * 3_600_000),
        }),
      ).toMatchObject({ ok: true });
      const other = await queueWire(db, m.member, m.checking.id, { amount: "13.00" });
      expect(await exportPayments(db, "wire", staffOf(), origin)).toMatchObject({ ok: true });
      expect(await payment(other.payment_id)).toMatchObject({ status: "sent" });
    } finally {
      profile.exempt = false;
    }
  });
});

describe("who may open a receipt and cancel from it", () => {
  const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];
  let wire_id = 0;
  let ach_id = 0;
  beforeAll(async () => {
    wire_id = (await queueWire(db, cast.member.member, cast.member.checking.id, { amount: "7.00" })).payment_id;
    ach_id = (await queueAch(db, cast.member.member, cast.member.checking.id, { amount: "3.00" })).payment_id;
  });

  for (const persona of PERSONAS) {
    it(`the receipt page and its PDF for ${persona}`, async () => {
      const path = `/dashboard/payments/${wire_id}`;
      const page = await run(() =>
        receiptRoute.loader({
          request: people.request(persona, path),
          params: { paymentId: String(wire_id) },
          context: context(),
        } as never),
      );
      const pdf = await run(() =>
        receiptPdfRoute.loader({
          request: people.request(persona, `${path}/receipt.pdf`),
          params: { paymentId: String(wire_id) },
          context: context(),
        } as never),
      );
      if (persona === "member") {
        expect(page).toMatchObject({ kind: "ok" });
        expect(pdf).toMatchObject({ kind: "ok", status: 200 });
      } else if (persona === "other_member") {
        expect(page).toMatchObject({ kind: "refused", status: 404 });
        expect(pdf).toMatchObject({ kind: "refused", status: 404 });
        expect(pdf.body).not.toContain("Hans");
      } else {
        expectSentAway(page, persona, path);
        expectSentAway(pdf, persona, `${path}/receipt.pdf`);
      }
    });

    if (persona !== "member")
      it(`cancel from the receipt by ${persona} is refused and changes nothing`, async () => {
        const before = await snapshot();
        const outcome = await run(() =>
          receiptRoute.action({
            request: people.request(persona, `/dashboard/payments/${wire_id}`, { intent: "cancel" }),
            params: { paymentId: String(wire_id) },
            context: context(),
          } as never),
        );
        expect(outcome).toMatchObject({
          kind: "refused",
          status: persona === "anonymous" ? 401 : persona === "other_member" ? 404 : 403,
        });
        expect(await snapshot()).toEqual(before);
      });
  }

  it("an ACH payment, a made-up number and an unknown intent are refused and change nothing", async () => {
    const before = await snapshot();
    for (const id of [String(ach_id), "999999", "abc", "0"]) {
      const outcome = await run(() =>
        receiptRoute.action({
          request: people.request("member", `/dashboard/payments/${id}`, { intent: "cancel" }),
          params: { paymentId: id },
          context: context(),
        } as never),
      );
      expect(outcome, id).toMatchObject({ kind: "refused", status: 404 });
    }
    const odd = await run(() =>
      receiptRoute.action({
        request: people.request("member", `/dashboard/payments/${wire_id}`, { intent: "delete" }),
        params: { paymentId: String(wire_id) },
        context: context(),
      } as never),
    );
    expect(odd).toMatchObject({ kind: "refused", status: 400 });
    expect(await snapshot()).toEqual(before);
  });
});
