import { describe, expect, it } from "vitest";
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import {
  achInboundEntries,
  achNotificationsOfChange,
  auditLog,
  externalPayments,
  notifications,
} from "~/server/db/schema";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { historyPage } from "~/server/ledger/history.server";
import { exportFile, exportPayments, traceSequence } from "~/server/rails/export.server";
import { receiveAchFile } from "~/server/rails/inbound.server";
import { exportReturnFile, returnFile } from "~/server/rails/inbound-returns.server";
import {
  applyNotificationOfChange,
  markChangeHandled,
  waitingChanges,
  waitingChangesCount,
} from "~/server/rails/inbound-noc.server";
import { queueCounts } from "~/server/rails/queues.server";
import { institution } from "~/config/institution.server";
import { fileDatabase } from "../test-database";
import { currentCents, expectLedgerVerifies } from "../ledger-fixtures";
import { newMember } from "../member-support";
import { queueAch } from "../rails-support";
import { openNumber } from "~/server/payments/payment-destination.server";
import { staff as newStaff } from "../../factories";
import { readNachaFile } from "../../unit/nacha-reader";
import { buildInboundFile } from "../../unit/nacha-inbound-builder";

/**
 * ACH in beyond PPD and CCD (docs/product.md#ach-in): the WEB, TEL, converted-check (ARC, BOC,
 * POP, RCK) and CTX entries of a Federal Reserve file post as PPD and CCD entries do, or go back
 * with their R-code in a return file laid out for their class; notifications of change (COR)
 * move no money and wait for staff, who apply the correction to the member's transfers still
 * waiting or mark them handled. The ledger verifies after each test.
 */
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "test", ip: "198.51.100.7" };
const bytes = (text: string) => new TextEncoder().encode(text);
fileDatabase({ pool_max: 6, onOpen: async (database) => void (staff = await newStaff((db = database.db))) });
const current = (account_id: number) => currentCents(db, account_id);
const settlement = async () => current((await institutionAccount(db, "ach_settlement")).id);

const ourTrace = (payment_id: number) =>
  `${institution().routing_number.slice(0, 8)}${String(traceSequence(payment_id)).padStart(7, "0")}`;

describe("ACH in: the entry classes of a Federal Reserve file", () => {
  it("posts WEB, TEL, ARC, BOC, RCK and CTX entries with a meaningful description, returns a POP debit beyond the balance (R01) and a CTX credit to no account (R03) in a return file laid out for their class", async () => {
    const m = await newMember(db, { checking_cents: 50_000 });
    const biz = await newMember(db, {});
    const settlement_before = await settlement();
    const text = buildInboundFile(
      [
        {
          company_name: "Streamly",
          sec: "WEB",
          description: "ONLINE PMT",
          service_class: "225",
          entries: [{ code: "27", account_number: m.checking.account_number, amount_cents: 1_599, discretionary: "R" }],
        },
        {
          company_name: "Gas Co",
          sec: "TEL",
          description: "PHONE PMT",
          service_class: "225",
          entries: [{ code: "27", account_number: m.checking.account_number, amount_cents: 7_000, discretionary: "S" }],
        },
        {
          company_name: "City Water",
          sec: "ARC",
          description: "WATER BILL",
          service_class: "225",
          entries: [{ code: "27", account_number: m.checking.account_number, amount_cents: 4_210, id: "1042" }],
        },
        {
          company_name: "Hardware Mart",
          sec: "BOC",
          description: "CHECK PMT",
          service_class: "225",
          entries: [{ code: "27", account_number: m.checking.account_number, amount_cents: 2_000, id: "1043" }],
        },
        {
          company_name: "Collect Inc",
          sec: "RCK",
          description: "REDEPCHECK",
          service_class: "225",
          entries: [{ code: "27", account_number: m.checking.account_number, amount_cents: 12_500, id: "1044" }],
        },
        {
          company_name: "Corner Grocer",
          sec: "POP",
          description: "PURCHASE",
          service_class: "225",
          entries: [
            { code: "27", account_number: m.checking.account_number, amount_cents: 90_000, id: "1045     PORTME" },
          ],
        },
        {
          company_name: "Big Buyer",
          sec: "CTX",
          description: "INVOICES",
          service_class: "220",
          entries: [
            {
              code: "32",
              account_number: biz.savings.account_number,
              amount_cents: 990_000,
              name: "Lee Park Studio",
              info: "ISA*00*",
              more_info: ["GS*RA*", "ST*820*0001~"],
            },
            { code: "22", account_number: "9999999999", amount_cents: 5_000, name: "Nobody Inc", info: "RMR*IV*1" },
          ],
        },
      ],
      { modifier: "K" },
    );
    const result = await receiveAchFile(db, { bytes: bytes(text), file_name: "fed-classes.ach", staff, origin });
    expect(result).toMatchObject({ ok: true, entry_count: 8, posted: 6, returned: 2, noted: 0, changes: 0 });
    if (!result.ok) throw new Error(result.message);

    expect(await current(m.checking.id)).toBe(50_000 - 1_599 - 7_000 - 4_210 - 2_000 - 12_500);
    expect(await current(biz.savings.id)).toBe(990_000);
    expect((await settlement()) - settlement_before).toBe(1_599 + 7_000 + 4_210 + 2_000 + 12_500 - 990_000);
    // The member sees who took it and, for a converted check, the check's number.
    const history = await historyPage(db, m.checking.id, { limit: 10 });
    expect(history.rows.filter((r) => r.kind === "ach_in").map((r) => [r.amount_cents, r.memo])).toEqual([
      [-12_500, "Collect INC Redepcheck check 1044"],
      [-2_000, "Hardware Mart Check PMT check 1043"],
      [-4_210, "City Water Water Bill check 1042"],
      [-7_000, "GAS CO Phone PMT"],
      [-1_599, "Streamly Online PMT"],
    ]);
    const entries = await db
      .select()
      .from(achInboundEntries)
      .where(eq(achInboundEntries.file_id, result.file_id))
      .orderBy(achInboundEntries.line);
    expect(entries.map((e) => [e.sec_code, e.kind, e.status, e.return_code])).toEqual([
      ["WEB", "debit", "posted", null],
      ["TEL", "debit", "posted", null],
      ["ARC", "debit", "posted", null],
      ["BOC", "debit", "posted", null],
      ["RCK", "debit", "posted", null],
      ["POP", "debit", "returned", "R01"],
      ["CTX", "credit", "posted", null],
      ["CTX", "credit", "returned", "R03"],
    ]);
    const [ctx] = entries.filter((e) => e.sec_code === "CTX");
    expect([ctx!.individual_name, ctx!.payment_information]).toEqual([
      "LEE PARK STUDIO",
      "ISA*00* GS*RA* ST*820*0001~",
    ]);
    const told = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "ach_returned")));
    expect(told.map((n) => n.title)).toEqual(["An ACH debit of $900.00 from Corner Grocer was returned"]);

    // The return file: read back by the tests' own reader, POP's columns and CTX's count as NACHA lays them out.
    const exported = await exportReturnFile(db, staff, origin);
    if (!exported.ok) throw new Error(exported.message);
    const content = (await returnFile(db, exported.file.id))!.content;
    const read = readNachaFile(content, { returns: true });
    expect(
      read.batches.map((b) => [
        b.sec_code,
        b.entries.map((e) => [e.transaction_code, e.amount_cents, e.addenda[0]!.text.slice(0, 3)]),
      ]),
    ).toEqual([
      ["POP", [["26", 90_000, "R01"]]],
      ["CTX", [["21", 5_000, "R03"]]],
    ]);
    const records = content.split("\n");
    const pop = records.find((r) => r.startsWith("626"))!;
    expect(pop.slice(39, 54)).toBe("1045     PORTME");
    const ctx_return = records.find((r) => r.startsWith("621"))!;
    expect(ctx_return.slice(54, 74)).toBe("0001NOBODY INC      ");
    await expectLedgerVerifies(db);
  });
});

describe("ACH in: notifications of change", () => {
  it("records each COR against the payment it names and moves no money; staff apply a correction to the member's waiting transfers (audited, member told) or mark it handled with a note; an unmatched one waits too", async () => {
    const m = await newMember(db, { checking_cents: 100_000 });
    const first = await queueAch(db, m.member, m.checking.id, {
      amount: "100.00",
      account_name: "Lee Park",
      routing_number: "021000021",
      account_number: "123456789",
    });
    const other = await queueAch(db, m.member, m.checking.id, {
      amount: "20.00",
      account_name: "Sam Lee",
      routing_number: "021000021",
      account_number: "55500001",
    });
    const sent = await exportPayments(db, "ach", staff, origin);
    if (!sent.ok) throw new Error(sent.message);
    // Two more transfers queued after: one to the same destination, one elsewhere.
    const waiting_same = await queueAch(db, m.member, m.checking.id, {
      amount: "30.00",
      account_name: "Lee Park",
      routing_number: "021000021",
      account_number: "123456789",
    });
    const waiting_other = await queueAch(db, m.member, m.checking.id, {
      amount: "40.00",
      account_name: "Kim Ray",
      routing_number: "021000021",
      account_number: "77700001",
    });
    const waiting_sam = await queueAch(db, m.member, m.checking.id, {
      amount: "25.00",
      account_name: "Sam Lee",
      routing_number: "021000021",
      account_number: "55500001",
    });
    const balance_before = await current(m.checking.id);
    const settlement_before = await settlement();
    const changes_before = await waitingChangesCount(db);

    const text = buildInboundFile(
      [
        {
          company_name: "Harborview CU",
          company_id: institution().routing_number,
          sec: "COR",
          description: "TRANSFER",
          odfi: "02100002",
          service_class: "220",
          entries: [
            {
              code: "21",
              account_number: "123456789",
              amount_cents: 0,
              name: "Lee Park",
              change_of: {
                code: "C03",
                original_trace: ourTrace(first.payment_id),
                corrected: "011000015   987654321",
              },
            },
            {
              code: "21",
              account_number: "5550001",
              amount_cents: 0,
              name: "Sam Lee",
              change_of: { code: "C05", original_trace: ourTrace(other.payment_id), corrected: "32" },
            },
            {
              code: "21",
              account_number: "42",
              amount_cents: 0,
              name: "Who",
              change_of: {
                code: "C01",
                original_trace: `${institution().routing_number.slice(0, 8)}9999997`,
                corrected: "4242",
              },
            },
          ],
        },
      ],
      { modifier: "L" },
    );
    const result = await receiveAchFile(db, { bytes: bytes(text), file_name: "fed-noc.ach", staff, origin });
    expect(result).toMatchObject({
      ok: true,
      entry_count: 3,
      posted: 0,
      returned: 0,
      noted: 0,
      changes: 3,
      credit_total_cents: 0,
      debit_total_cents: 0,
    });
    if (!result.ok) throw new Error(result.message);
    // A NOC changes no money.
    expect(await current(m.checking.id)).toBe(balance_before);
    expect(await settlement()).toBe(settlement_before);
    expect(
      (await db.select().from(achInboundEntries).where(eq(achInboundEntries.file_id, result.file_id))).map((e) => [
        e.kind,
        e.status,
      ]),
    ).toEqual([
      ["noc", "noted"],
      ["noc", "noted"],
      ["noc", "noted"],
    ]);

    // The queue section: member, payee, what changed; its count is the page's.
    expect(await waitingChangesCount(db)).toBe(changes_before + 3);
    expect((await queueCounts(db)).sections.changes).toBe(changes_before + 3);
    const rows = (await waitingChanges(db)).slice(-3);
    expect(rows.map((r) => [r.change_code, r.matched, r.applicable, r.member_email, r.payee, r.changes])).toEqual([
      [
        "C03",
        true,
        true,
        m.member.email,
        "Lee Park, JPMorgan Chase Bank routing 021000021, checking account ••6789",
        ["Routing number 021000021 to 011000015", "Account number ••6789 to ••4321"],
      ],
      [
        "C05",
        true,
        true,
        m.member.email,
        "Sam Lee, JPMorgan Chase Bank routing 021000021, checking account ••0001",
        ["Account type checking to savings"],
      ],
      ["C01", false, false, null, null, ["Account number 4242"]],
    ]);
    const [c03, c05, unmatched] = rows;

    // Apply: the waiting transfer to that destination takes the corrected data; the sent one keeps what was sent.
    expect(await applyNotificationOfChange(db, c03!.id, staff, origin)).toEqual({
      ok: true,
      message:
        "The correction was applied: Routing number 021000021 to 011000015; Account number ••6789 to ••4321. 1 waiting transfer corrected.",
    });
    const payments = await db
      .select()
      .from(externalPayments)
      .where(inArray(externalPayments.id, [first.payment_id, waiting_same.payment_id, waiting_other.payment_id]));
    // The account numbers are sealed in the details (payment-destination.server.ts): read opened.
    const details = (id: number): Record<string, string> => {
      const p = payments.find((p) => Number(p.id) === id)!;
      return { ...p.details, account_number: openNumber(p, "account_number") };
    };
    expect([details(first.payment_id).routing_number, details(first.payment_id).account_number]).toEqual([
      "021000021",
      "123456789",
    ]);
    expect([
      details(waiting_same.payment_id).routing_number,
      details(waiting_same.payment_id).account_number,
      details(waiting_same.payment_id).account_name,
    ]).toEqual(["011000015", "987654321", "Lee Park"]);
    expect(details(waiting_other.payment_id).account_number).toBe("77700001");
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "ach_noc.applied"), eq(auditLog.subject_id, String(c03!.id))));
    expect(audit).toMatchObject({
      actor_id: staff.id,
      member_id: m.member.id,
      after: {
        status: "applied",
        destination: { routing_number: "011000015", account_number: "••4321", account_name: "Lee Park" },
        corrected_payment_ids: [waiting_same.payment_id],
      },
    });
    const [told] = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "account_correction")));
    expect(told).toMatchObject({
      title: "Lee Park's bank updated its details",
      body: expect.stringContaining("Your transfer still waiting to go there now uses the new details."),
    });
    expect(await applyNotificationOfChange(db, c03!.id, staff, origin)).toEqual({
      ok: false,
      kind: "conflict",
      message: "This notification of change was already handled.",
    });

    // An account type change: the waiting transfer to Sam Lee goes to savings (transaction code 32) in the next file.
    expect(await applyNotificationOfChange(db, c05!.id, staff, origin)).toEqual({
      ok: true,
      message: "The correction was applied: Account type checking to savings. 1 waiting transfer corrected.",
    });
    const [sam] = await db.select().from(externalPayments).where(eq(externalPayments.id, waiting_sam.payment_id));
    expect(sam!.details).toMatchObject({ account_last4: "0001", account_type: "savings" });
    expect(openNumber(sam!, "account_number")).toBe("55500001");
    const next = await exportPayments(db, "ach", staff, origin);
    if (!next.ok) throw new Error(next.message);
    const entries = readNachaFile((await exportFile(db, next.file.id))!.content).batches.flatMap((b) => b.entries);
    expect(entries.find((e) => e.account_number === "55500001")).toMatchObject({
      transaction_code: "32",
      amount_cents: 2_500,
    });
    expect(entries.find((e) => e.account_number === "77700001")).toMatchObject({ transaction_code: "22" });
    // An unmatched one cannot be applied: staff note what they did.
    expect(await applyNotificationOfChange(db, unmatched!.id, staff, origin)).toMatchObject({
      ok: false,
      kind: "conflict",
      message: expect.stringContaining("names no payment we sent"),
    });
    expect(await markChangeHandled(db, unmatched!.id, "   ", staff, origin)).toEqual({
      ok: false,
      kind: "bad_input",
      field: "note",
      message: "Please say what was done about this notification of change.",
    });
    expect(await markChangeHandled(db, unmatched!.id, "x".repeat(501), staff, origin)).toMatchObject({
      ok: false,
      kind: "bad_input",
      field: "note",
    });
    expect(await markChangeHandled(db, 0, "note", staff, origin)).toMatchObject({ ok: false, kind: "not_found" });
    expect(await markChangeHandled(db, unmatched!.id, "Not ours: told the Fed", staff, origin)).toEqual({
      ok: true,
      message: "The notification of change was marked as handled.",
    });
    expect(await markChangeHandled(db, c05!.id, "Member confirmed savings", staff, origin)).toEqual({
      ok: false,
      kind: "conflict",
      message: "This notification of change was already handled.",
    });
    expect(await waitingChangesCount(db)).toBe(changes_before);
    const stored = await db
      .select()
      .from(achNotificationsOfChange)
      .where(inArray(achNotificationsOfChange.id, [c03!.id, c05!.id, unmatched!.id]))
      .orderBy(achNotificationsOfChange.id);
    expect(stored.map((n) => [n.status, n.resolved_by])).toEqual([
      ["applied", staff.id],
      ["applied", staff.id],
      ["handled", staff.id],
    ]);
    const [handled] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "ach_noc.handled"), eq(auditLog.subject_id, String(unmatched!.id))));
    expect(handled).toMatchObject({ actor_id: staff.id, after: { status: "handled", note: "Not ours: told the Fed" } });

    // The same file again: nothing recorded twice.
    expect(await receiveAchFile(db, { bytes: bytes(text), file_name: "again.ach", staff, origin })).toMatchObject({
      ok: false,
      reason: "duplicate",
    });
    expect(await waitingChangesCount(db)).toBe(changes_before);
    await expectLedgerVerifies(db);
  });
});
