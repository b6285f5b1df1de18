import "../identity-support";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, desc, eq } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { auditLog, disputeAttachments, disputeCases, disputeEvents, ledgerAccounts, outbox } from "~/server/db/schema";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import {
  enterReportForMember,
  memberCase,
  memberForStaffReport,
  readCaseAttachment,
  reportDispute,
  staffCase,
} from "~/server/disputes/disputes.server";
import { CHARGEBACK_MESSAGES, markForChargeback, resolveDispute } from "~/server/disputes/staff-steps.server";
import { DISPUTE_ATTACHMENT_MAX_BYTES, DISPUTE_ATTACHMENT_MESSAGES, STAFF_REPORT_MESSAGES } from "~/domain/disputes";
import { openTestDatabase } from "../test-database";
import { fundedMember, staff as newStaff } from "../../factories";
import { asFile, checkPng, htmlBytes, pdfBytes } from "../../check-images";

/**
 * What issue 30 added to Regulation E error resolution (docs/product.md#disputes): files sent with a
 * report (PDF, JPEG or PNG up to 10 MB, checked by content, stored encrypted, read back by the
 * member and by staff, each staff view audited); a report staff enter for a member who told us by
 * phone, in person or by mail (clocks from the day the member told us, audited as the staff
 * member's); and a card purchase marked for a chargeback (the network step stays manual).
 */
let database: Database;
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "dispute-additions", ip: "198.51.100.31" };
const at = (date: string) => new Date(`${date}T15:00:00Z`);
const folder = () => path.join(process.env.DATA_DIR!, "uploads", "dispute-attachments");
const files = () => (fs.existsSync(folder()) ? fs.readdirSync(folder()).length : 0);

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  staff = await newStaff(db);
});
afterAll(async () => {
  if (db) expect((await verifyLedger(db)).problems).toEqual([]);
  await database?.close();
});

type Member = Awaited<ReturnType<typeof fundedMember>>;

async function member(): Promise<Member> {
  const m = await fundedMember(db, { checking_cents: 100_000 });
  await db
    .update(ledgerAccounts)
    .set({ opened_at: new Date("2026-01-05T15:00:00Z") })
    .where(eq(ledgerAccounts.member_id, m.member.id));
  return m;
}

async function purchase(m: Member, cents: number, date: string, kind: "card_payment" | "ach_out" = "card_payment") {
  const other = await institutionAccount(db, kind === "card_payment" ? "card_settlement" : "ach_settlement");
  const answer = await postTransfer(db, {
    idempotency_key: crypto.randomUUID(),
    initiator: `member:${m.member.id}`,
    kind,
    created_by: m.member.id,
    memo: kind === "card_payment" ? "HARBOR HARDWARE" : "ACH to Power Co",
    effective_date: date,
    entries: [
      { account_id: m.checking.id, amount_cents: -cents },
      { account_id: other.id, amount_cents: cents },
    ],
  });
  if (!answer.ok) throw new Error(answer.code);
  return answer.transaction.id;
}

const report = (transaction_id: number) => ({
  transaction_id,
  kind: "not_mine" as const,
  details: "I never shopped at Harbor Hardware.",
  idempotency_key: crypto.randomUUID(),
});

describe("attachments", () => {
  it("a PDF and a PNG go with the report, stored encrypted; the member and staff read them back; another member cannot", async () => {
    const m = await member();
    const tx = await purchase(m, 4_250, "2026-11-30");
    const png = await checkPng(7);
    const before = files();
    const answer = await reportDispute(db, m.member, report(tx), origin, at("2026-12-02"), {
      attachments: {
        attachment_1: asFile(pdfBytes(), "receipt.pdf", "application/pdf"),
        attachment_2: asFile(png, "screenshot.png", "image/png"),
      },
    });
    if (!answer.ok) throw new Error(answer.message);
    const stored = await db
      .select()
      .from(disputeAttachments)
      .where(eq(disputeAttachments.case_id, answer.case_id))
      .orderBy(disputeAttachments.id);
    expect(stored.map((a) => a.mime)).toEqual(["application/pdf", "image/png"]);
    expect(files()).toBe(before + 2);
    // On disk: not the PDF (encrypted at rest), under a random name that is not the member's.
    const onDisk = fs.readFileSync(path.join(folder(), stored[0]!.file));
    expect(onDisk.includes(Buffer.from("%PDF-"))).toBe(false);
    expect(stored[0]!.file).not.toContain("receipt");
    const mine = await readCaseAttachment(db, {
      case_id: answer.case_id,
      attachment_id: stored[0]!.id,
      member_id: m.member.id,
    });
    expect(mine).toMatchObject({ mime: "application/pdf" });
    expect(mine!.bytes.equals(pdfBytes())).toBe(true);
    // The picture is the image written again (no metadata), still a PNG.
    const picture = await readCaseAttachment(db, {
      case_id: answer.case_id,
      attachment_id: stored[1]!.id,
      member_id: m.member.id,
    });
    expect(picture!.bytes.subarray(1, 4).toString()).toBe("PNG");
    const other = await member();
    expect(
      await readCaseAttachment(db, {
        case_id: answer.case_id,
        attachment_id: stored[0]!.id,
        member_id: other.member.id,
      }),
    ).toBeNull();
    // A file of another case under this case's number is not found either.
    expect(
      await readCaseAttachment(db, { case_id: answer.case_id + 1000, attachment_id: stored[0]!.id, staff, origin }),
    ).toBeNull();
    // Staff read it, audited first.
    const auditsBefore = Number((await db.select({ n: count() }).from(auditLog))[0]!.n);
    expect(
      await readCaseAttachment(db, { case_id: answer.case_id, attachment_id: stored[0]!.id, staff, origin }),
    ).toMatchObject({ mime: "application/pdf" });
    const [view] = await db.select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(view).toMatchObject({ action: "dispute.attachment_view", actor_id: staff.id, member_id: m.member.id });
    expect(Number((await db.select({ n: count() }).from(auditLog))[0]!.n)).toBe(auditsBefore + 1);
    // The case lists them for the member and for staff.
    expect((await memberCase(db, m.member.id, answer.case_id))!.attachments).toEqual([
      { id: stored[0]!.id, label: expect.stringMatching(/^Attachment 1 \(PDF, \d+ KB\)$/) },
      { id: stored[1]!.id, label: expect.stringMatching(/^Attachment 2 \(PNG, \d+ KB\)$/) },
    ]);
    expect((await staffCase(db, answer.case_id))!.attachments).toHaveLength(2);
  });

  it("a web page renamed .pdf, a file over 10 MB: refused by their field, no case and no file kept", async () => {
    const m = await member();
    const tx = await purchase(m, 1_999, "2026-11-30");
    const before = { files: files(), cases: Number((await db.select({ n: count() }).from(disputeCases))[0]!.n) };
    const html = await reportDispute(db, m.member, report(tx), origin, at("2026-12-02"), {
      attachments: {
        attachment_1: asFile(pdfBytes(), "ok.pdf", "application/pdf"),
        attachment_2: asFile(htmlBytes(), "receipt.pdf", "application/pdf"),
      },
    });
    expect(html).toMatchObject({
      ok: false,
      kind: "bad_input",
      field: "attachment_2",
      message: DISPUTE_ATTACHMENT_MESSAGES.wrong_type,
    });
    const big = await reportDispute(db, m.member, report(tx), origin, at("2026-12-02"), {
      attachments: {
        attachment_1: asFile(Buffer.alloc(DISPUTE_ATTACHMENT_MAX_BYTES + 1, 0x25), "big.pdf", "application/pdf"),
      },
    });
    expect(big).toMatchObject({ ok: false, field: "attachment_1", message: DISPUTE_ATTACHMENT_MESSAGES.too_large });
    expect({ files: files(), cases: Number((await db.select({ n: count() }).from(disputeCases))[0]!.n) }).toEqual(
      before,
    );
  });
});

describe("a report staff enter for the member", () => {
  it("opens the case with clocks from the day the member phoned, tells the member, and is audited as the staff member's", async () => {
    const m = await member();
    const tx = await purchase(m, 6_000, "2026-11-25", "ach_out");
    const found = await memberForStaffReport(db, ` ${m.member.email.toUpperCase()} `);
    expect(found!.member.id).toBe(m.member.id);
    expect(found!.transactions.map((t) => t.transaction_id)).toContain(tx);
    const answer = await enterReportForMember(
      db,
      staff,
      { ...report(tx), member_id: m.member.id, reported_via: "phone", received_on: "2026-11-30" },
      origin,
      at("2026-12-02"),
    );
    if (!answer.ok) throw new Error(answer.message);
    const [row] = await db.select().from(disputeCases).where(eq(disputeCases.id, answer.case_id));
    // 10 business days from Monday Nov 30 (the day the member told us), not from the entry on Dec 2.
    expect(row).toMatchObject({
      member_id: m.member.id,
      received_on: "2026-11-30",
      investigate_by: "2026-12-14",
      complete_by: "2027-01-14",
      reported_via: "phone",
      entered_by: staff.id,
      entered_by_email: staff.email,
    });
    const [event] = await db.select().from(disputeEvents).where(eq(disputeEvents.case_id, answer.case_id));
    expect(event).toMatchObject({ kind: "reported", actor_id: staff.id, internal: false });
    expect(event!.text).toContain("The member told us by phone on Nov 30, 2026; entered by staff.");
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.subject_type, "dispute_case"), eq(auditLog.subject_id, String(answer.case_id))));
    expect(audit).toMatchObject({ action: "dispute.report_entered", actor_id: staff.id, member_id: m.member.id });
    expect(audit!.after).toMatchObject({ reported_via: "phone", received_on: "2026-11-30" });
    const [email] = await db.select().from(outbox).where(eq(outbox.user_id, m.member.id)).orderBy(desc(outbox.id));
    expect(email!.subject).toContain("We received your report");
    expect(email!.text_body).toContain("on Nov 30, 2026");
    expect((await memberCase(db, m.member.id, answer.case_id))!.reported_via).toBe("phone");
  });

  it("refuses a day after today or before the transaction, and a person who is not a member", async () => {
    const m = await member();
    const tx = await purchase(m, 700, "2026-11-25", "ach_out");
    const enter = (received_on: string, member_id = m.member.id) =>
      enterReportForMember(
        db,
        staff,
        { ...report(tx), member_id, reported_via: "in_person", received_on },
        origin,
        at("2026-12-02"),
      );
    expect(await enter("2026-12-03")).toMatchObject({
      ok: false,
      field: "received_on",
      message: STAFF_REPORT_MESSAGES.future,
    });
    expect(await enter("2026-11-24")).toMatchObject({
      ok: false,
      field: "received_on",
      message: "The member cannot have told us before the transaction's date (Nov 25, 2026).",
    });
    expect(await enter("2026-11-30", staff.id)).toMatchObject({ ok: false, kind: "not_found" });
    expect(
      await db.select({ id: disputeCases.id }).from(disputeCases).where(eq(disputeCases.transaction_id, tx)),
    ).toEqual([]);
  });
});

describe("chargeback", () => {
  it("a card purchase's case is marked once, in its history and the audit log; not an ACH case, not a resolved one", async () => {
    const m = await member();
    const card = await reportDispute(
      db,
      m.member,
      report(await purchase(m, 3_300, "2026-11-30")),
      origin,
      at("2026-12-02"),
    );
    const ach = await reportDispute(
      db,
      m.member,
      report(await purchase(m, 3_400, "2026-11-30", "ach_out")),
      origin,
      at("2026-12-02"),
    );
    if (!card.ok || !ach.ok) throw new Error("not reported");
    const step = { staff, origin, case_id: card.case_id, now: at("2026-12-03") };
    expect(await markForChargeback(db, step)).toEqual({ ok: true, message: CHARGEBACK_MESSAGES.done });
    expect(await markForChargeback(db, step)).toMatchObject({ ok: false, message: CHARGEBACK_MESSAGES.already });
    const [row] = await db.select().from(disputeCases).where(eq(disputeCases.id, card.case_id));
    expect(row).toMatchObject({ chargeback_marked_by: staff.email });
    expect(row!.chargeback_marked_at).toEqual(at("2026-12-03"));
    const events = await db.select().from(disputeEvents).where(eq(disputeEvents.case_id, card.case_id));
    expect(events.find((e) => e.kind === "chargeback_marked")).toMatchObject({ internal: true, actor_id: staff.id });
    const [audit] = await db.select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(audit).toMatchObject({ action: "dispute.chargeback_marked", subject_id: String(card.case_id) });
    // The member does not see staff's marking.
    expect((await memberCase(db, m.member.id, card.case_id))!.events.map((e) => e.kind)).not.toContain(
      "chargeback_marked",
    );
    expect(await markForChargeback(db, { ...step, case_id: ach.case_id })).toMatchObject({
      ok: false,
      kind: "conflict",
      message: CHARGEBACK_MESSAGES.not_card,
    });
    const resolved = await reportDispute(
      db,
      m.member,
      report(await purchase(m, 3_500, "2026-11-30")),
      origin,
      at("2026-12-02"),
    );
    if (!resolved.ok) throw new Error(resolved.message);
    await resolveDispute(db, {
      staff,
      origin,
      case_id: resolved.case_id,
      outcome: "no_error",
      explanation: "The merchant showed your signed receipt.",
      now: at("2026-12-03"),
    });
    expect(await markForChargeback(db, { ...step, case_id: resolved.case_id })).toMatchObject({
      ok: false,
      message: CHARGEBACK_MESSAGES.resolved,
    });
  });
});
