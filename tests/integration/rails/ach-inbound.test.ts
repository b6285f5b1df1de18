import { describe, expect, it } from "vitest";
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { achInboundEntries, achInboundFiles, auditLog, ledgerTransactions, notifications } from "~/server/db/schema";
import { institutionAccount, setAccountStatus } from "~/server/ledger/accounts.server";
import { historyPage } from "~/server/ledger/history.server";
import { exportPayments, traceSequence } from "~/server/rails/export.server";
import { receiveAchFile } from "~/server/rails/inbound.server";
import {
  exportReturnFile,
  markReturnHandled,
  returnedItems,
  returnedItemsCount,
  returnFile,
} from "~/server/rails/inbound-returns.server";
import {
  HELD_MESSAGES,
  heldEntries,
  heldEntriesCount,
  postHeldEntry,
  returnHeldEntry,
} from "~/server/rails/inbound-held.server";
import { queueCounts } from "~/server/rails/queues.server";
import { institution } from "~/config/institution.server";
import { fileDatabase } from "../test-database";
import { currentCents, expectLedgerVerifies } from "../ledger-fixtures";
import { newMember } from "../member-support";
import { queueAch } from "../rails-support";
import { staff as newStaff } from "../../factories";
import { readNachaFile } from "../../unit/nacha-reader";
import { buildInboundFile, FED_ROUTING } from "../../unit/nacha-inbound-builder";

/**
 * ACH in (docs/product.md#ach-in): an inbound NACHA file posts every entry it can, returns the
 * others with their R-code in a return file (read back by the tests' own NACHA reader), applies
 * returns of our own entries, and posts once however often it is uploaded. The ACH settlement
 * account moves by exactly the posted part of the file's totals; the ledger verifies after each
 * test.
 */
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "test", ip: "198.51.100.7" };
const bytes = (text: string) => new TextEncoder().encode(text);
fileDatabase({ pool_max: 6, onOpen: async (database) => void (staff = await newStaff((db = database.db))) });
const current = (account_id: number) => currentCents(db, account_id);
const settlement = async () => current((await institutionAccount(db, "ach_settlement")).id);

async function upload(text: string, file_name = "fed.ach", chunk_entries?: number) {
  return receiveAchFile(db, { bytes: bytes(text), file_name, staff, origin, chunk_entries });
}

describe("ACH in", () => {
  it("posts credits and debits, returns R03, R02, R16 and R01, notes prenotes; settlement moves by the posted totals; the return file carries the rest", async () => {
    const a = await newMember(db, { checking_cents: 10_000 });
    const frozen = await newMember(db, { checking_cents: 5_000 });
    await setAccountStatus(db, frozen.checking.id, "frozen");
    const closed = await newMember(db, {});
    expect((await setAccountStatus(db, closed.savings.id, "closed")).ok).toBe(true);
    const settlement_before = await settlement();

    const text = buildInboundFile([
      {
        company_name: "Acme Payroll",
        company_id: "1987654321",
        description: "PAYROLL",
        service_class: "220",
        entries: [
          { code: "22", account_number: a.checking.account_number, amount_cents: 250_000, name: "Pat Member" },
          {
            code: "32",
            account_number: a.savings.account_number,
            amount_cents: 12_345,
            name: "Pat Member",
            info: "NOVEMBER",
          },
          { code: "22", account_number: "9999999999", amount_cents: 5_000, name: "Nobody Here" },
          { code: "32", account_number: closed.savings.account_number, amount_cents: 1_000, name: "Closed Account" },
          { code: "22", account_number: frozen.checking.account_number, amount_cents: 2_000, name: "Frozen Account" },
        ],
      },
      {
        company_name: "City Power",
        company_id: "9555444333",
        sec: "CCD",
        description: "UTILITY",
        odfi: "02600959",
        service_class: "225",
        entries: [
          { code: "27", account_number: a.checking.account_number, amount_cents: 8_842, name: "Pat Member" },
          { code: "27", account_number: a.checking.account_number, amount_cents: 99_999_900, name: "Pat Member" },
        ],
      },
      {
        company_name: "Gym Co",
        odfi: "12100024",
        entries: [{ code: "23", account_number: a.checking.account_number, amount_cents: 0 }],
      },
    ]);
    const result = await upload(text, "fed-1124.ach", 3);
    expect(result).toMatchObject({
      ok: true,
      entry_count: 8,
      posted: 3,
      returned: 4,
      noted: 1,
      applied: 0,
      unmatched: 0,
      credit_total_cents: 270_345,
      debit_total_cents: 100_008_742,
    });
    if (!result.ok) throw new Error(result.message);

    // The member's money, and what they see: the company from the batch header.
    expect(await current(a.checking.id)).toBe(10_000 + 250_000 - 8_842);
    expect(await current(a.savings.id)).toBe(12_345);
    expect(await current(frozen.checking.id)).toBe(5_000);
    const history = await historyPage(db, a.checking.id, { limit: 10 });
    expect(history.rows.filter((r) => r.kind === "ach_in").map((r) => [r.amount_cents, r.memo])).toEqual([
      [-8_842, "City Power Utility"],
      [250_000, "Acme Payroll Payroll"],
    ]);

    // Each entry's fate, with its R-code.
    const entries = await db
      .select()
      .from(achInboundEntries)
      .where(eq(achInboundEntries.file_id, result.file_id))
      .orderBy(achInboundEntries.line);
    expect(
      entries.map((e) => [
        e.account_number === a.checking.account_number ? "a" : e.account_number,
        e.kind,
        e.status,
        e.return_code,
      ]),
    ).toEqual([
      ["a", "credit", "posted", null],
      [a.savings.account_number, "credit", "posted", null],
      ["9999999999", "credit", "returned", "R03"],
      [closed.savings.account_number, "credit", "returned", "R02"],
      [frozen.checking.account_number, "credit", "returned", "R16"],
      ["a", "debit", "posted", null],
      ["a", "debit", "returned", "R01"],
      ["a", "prenote", "noted", null],
    ]);

    // Settlement: the file's totals less what went back.
    const returned_credits = 5_000 + 1_000 + 2_000;
    const returned_debits = 99_999_900;
    expect((await settlement()) - settlement_before).toBe(
      -(result.credit_total_cents - returned_credits) + (result.debit_total_cents - returned_debits),
    );

    // Told and audited.
    const told = await db
      .select()
      .from(notifications)
      .where(inArray(notifications.member_id, [a.member.id, frozen.member.id, closed.member.id]));
    expect(
      told
        .filter((n) => n.member_id === a.member.id && n.kind === "ach_received")
        .map((n) => n.title)
        .sort(),
    ).toEqual([
      "City Power withdrew $88.42",
      "Deposit of $123.45 from Acme Payroll",
      "Deposit of $2,500.00 from Acme Payroll",
    ]);
    expect(told.find((n) => n.member_id === a.member.id && n.kind === "ach_returned")?.body).toContain(
      "Insufficient funds",
    );
    expect(told.find((n) => n.member_id === frozen.member.id && n.kind === "ach_returned")?.body).toContain(
      "Account frozen",
    );
    expect(told.find((n) => n.member_id === closed.member.id && n.kind === "ach_returned")?.body).toContain(
      "Account closed",
    );
    const audits = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.subject_type, "ach_inbound_file"), eq(auditLog.subject_id, String(result.file_id))));
    expect(audits.map((x) => x.action).sort()).toEqual(["ach_inbound.posted", "ach_inbound.received"]);
    await expectLedgerVerifies(db);

    // Returned items wait in the queue, then go out as one return file.
    expect(await returnedItemsCount(db)).toBe(4);
    expect((await returnedItems(db)).map((r) => [r.return_code, r.reason])).toEqual([
      ["R03", "No account or unable to locate account"],
      ["R02", "Account closed"],
      ["R16", "Account frozen"],
      ["R01", "Insufficient funds"],
    ]);
    const exported = await exportReturnFile(db, staff, origin);
    if (!exported.ok) throw new Error(exported.message);
    const stored = await returnFile(db, exported.file.id);
    const read = readNachaFile(stored!.content, { returns: true });
    expect(read.header.immediate_origin).toBe(institution().routing_number);
    expect(read.header.immediate_destination).toBe(FED_ROUTING);
    // The credit union by its short name, whole (the full name was cut mid-word: "HARBORVIEW COMMUNITY CR").
    expect(read.header.origin_name).toBe("HARBORVIEW CU");
    // The operator the profile names for that routing number.
    expect(read.header.destination_name).toBe(institution().ach.destination_name);
    const returned = read.batches.flatMap((b) =>
      b.entries.map((e) => [
        b.company_name,
        e.transaction_code,
        e.account_number,
        e.amount_cents,
        e.addenda[0]!.text.slice(0, 3),
        e.addenda[0]!.text.slice(3, 18),
      ]),
    );
    const trace = (line: number) => entries.find((e) => e.line === line)!.trace_number;
    expect(returned).toEqual([
      ["ACME PAYROLL", "21", "9999999999", 5_000, "R03", entries[2]!.trace_number],
      ["ACME PAYROLL", "31", closed.savings.account_number, 1_000, "R02", entries[3]!.trace_number],
      ["ACME PAYROLL", "21", frozen.checking.account_number, 2_000, "R16", entries[4]!.trace_number],
      ["CITY POWER", "26", a.checking.account_number, 99_999_900, "R01", trace(entries[6]!.line)],
    ]);
    // What posted plus what went back is the inbound file's totals.
    expect(read.control.credit_cents).toBe(returned_credits);
    expect(read.control.debit_cents).toBe(returned_debits);
    expect(await returnedItemsCount(db)).toBe(0);
    expect(await exportReturnFile(db, staff, origin)).toEqual({
      ok: false,
      reason: "nothing_waiting",
      message: "There are no returned items waiting for a return file.",
    });
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "ach_return_file.export"), eq(auditLog.subject_id, String(exported.file.id))));
    expect(audit).toMatchObject({ actor_id: staff.id });
    // The day's ACH payment file made after the return file takes the next file id modifier:
    // both go to the same operator from the same origin.
    expect(read.header.file_id_modifier).toBe("A");
    const payer = await newMember(db, { checking_cents: 10_000 });
    await queueAch(db, payer.member, payer.checking.id, {
      amount: "10.00",
      account_name: "Lee Park",
      routing_number: "021000021",
      account_number: "123456789",
    });
    const sent = await exportPayments(db, "ach", staff, origin);
    if (!sent.ok) throw new Error(sent.message);
    expect(sent.file.file_name).toMatch(/^ach-\d{4}-\d{2}-\d{2}-B-/);
    await expectLedgerVerifies(db);
  });

  it("the same file uploaded twice posts once, also when both uploads run at once", async () => {
    const m = await newMember(db, {});
    const text = buildInboundFile(
      [
        {
          company_name: "Twice Inc",
          entries: [{ code: "22", account_number: m.checking.account_number, amount_cents: 7_000 }],
        },
      ],
      { modifier: "C" },
    );
    const first = await upload(text);
    expect(first).toMatchObject({ ok: true, posted: 1 });
    const second = await upload(text, "renamed.ach");
    expect(second).toEqual({
      ok: false,
      reason: "duplicate",
      message: expect.stringMatching(
        /^This file was already posted \(fed\.ach, uploaded \d{4}-\d{2}-\d{2}\); nothing was posted again\.$/,
      ),
    });
    expect(await current(m.checking.id)).toBe(7_000);

    const n = await newMember(db, {});
    const other = buildInboundFile(
      [
        {
          company_name: "At Once Inc",
          entries: [
            { code: "22", account_number: n.checking.account_number, amount_cents: 3_000 },
            { code: "32", account_number: n.savings.account_number, amount_cents: 4_000 },
          ],
        },
      ],
      { modifier: "D" },
    );
    const both = await Promise.all([upload(other, "one.ach", 1), upload(other, "two.ach", 1)]);
    expect(both.filter((r) => r.ok).length).toBeGreaterThanOrEqual(1);
    expect(await current(n.checking.id)).toBe(3_000);
    expect(await current(n.savings.id)).toBe(4_000);
    const stored = await db
      .select({ id: achInboundFiles.id })
      .from(achInboundFiles)
      .where(inArray(achInboundFiles.file_name, ["one.ach", "two.ach"]));
    expect(stored).toHaveLength(1);
    await expectLedgerVerifies(db);
  });

  it("a return of our own ACH entry (addenda 99) reverses the sent payment and tells the member why; an unknown one waits for staff", async () => {
    const m = await newMember(db, { checking_cents: 100_000 });
    const queued = await queueAch(db, m.member, m.checking.id, {
      amount: "250.00",
      account_name: "Lee Park",
      routing_number: "021000021",
      account_number: "123456789",
    });
    const sent = await exportPayments(db, "ach", staff, origin);
    if (!sent.ok) throw new Error(sent.message);
    expect(await current(m.checking.id)).toBe(75_000);
    const settlement_before = await settlement();
    const our_trace = `${institution().routing_number.slice(0, 8)}${String(traceSequence(queued.payment_id)).padStart(7, "0")}`;

    const text = buildInboundFile(
      [
        {
          company_name: "Harborview CU",
          company_id: institution().routing_number,
          description: "TRANSFER",
          odfi: "02100002",
          entries: [
            {
              code: "21",
              account_number: "123456789",
              amount_cents: 25_000,
              name: "Lee Park",
              return_of: { reason: "R03", original_trace: our_trace },
            },
            {
              code: "21",
              account_number: "555",
              amount_cents: 100,
              name: "Who",
              return_of: { reason: "R02", original_trace: `${institution().routing_number.slice(0, 8)}9999998` },
            },
          ],
        },
      ],
      { modifier: "E" },
    );
    const result = await upload(text);
    expect(result).toMatchObject({ ok: true, applied: 1, unmatched: 1, posted: 0, returned: 0 });
    expect(await current(m.checking.id)).toBe(100_000);
    expect((await settlement()) - settlement_before).toBe(-25_000);
    const [entry] = await db
      .select()
      .from(achInboundEntries)
      .where(and(eq(achInboundEntries.payment_id, queued.payment_id), eq(achInboundEntries.status, "applied")));
    const [reversal] = await db
      .select()
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.id, entry!.transaction_id!));
    expect(reversal).toMatchObject({
      kind: "reversal",
      memo: "Returned by the other bank: No account or unable to locate account (R03)",
    });
    const [told] = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "ach_returned")));
    expect(told).toMatchObject({
      title: "Your transfer of $250.00 to Lee Park was returned",
      body: "The other bank sent it back: No account or unable to locate account (R03). The money is back in your account.",
    });
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(
        and(eq(auditLog.action, "ach_inbound.return_applied"), eq(auditLog.subject_id, String(queued.payment_id))),
      );
    expect(audit).toMatchObject({ actor_id: staff.id, member_id: m.member.id });
    const waiting = await returnedItems(db);
    expect(waiting.map((r) => [r.status, r.return_code, r.amount_cents])).toEqual([["unmatched", "R02", 100]]);

    // Staff mark it handled, with what they did: it leaves the queue, audited.
    const id = waiting[0]!.id;
    expect(await markReturnHandled(db, id, "  ", staff, origin)).toEqual({
      ok: false,
      kind: "bad_input",
      field: "note",
      message: "Please say what was done about this return.",
    });
    expect(await markReturnHandled(db, id, "Asked the other bank; not ours", staff, origin)).toEqual({ ok: true });
    expect(await markReturnHandled(db, id, "again", staff, origin)).toEqual({
      ok: false,
      kind: "conflict",
      message: "This returned item was already handled.",
    });
    expect(await returnedItemsCount(db)).toBe(0);
    const [handled] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "ach_inbound.return_handled"), eq(auditLog.subject_id, String(id))));
    expect(handled).toMatchObject({
      actor_id: staff.id,
      after: { status: "noted", note: "Asked the other bank; not ours" },
    });
    await expectLedgerVerifies(db);
  });

  it("a refused file stores and posts nothing, and says the line and the rule", async () => {
    const m = await newMember(db, {});
    const text = buildInboundFile(
      [
        {
          company_name: "Bad Hash",
          entries: [{ code: "22", account_number: m.checking.account_number, amount_cents: 1_000 }],
        },
      ],
      { modifier: "F" },
    );
    const lines = text.split("\n");
    lines[3] = `${lines[3]!.slice(0, 10)}0000000001${lines[3]!.slice(20)}`;
    const files_before = (await db.select({ id: achInboundFiles.id }).from(achInboundFiles)).length;
    const result = await upload(lines.join("\n"));
    expect(result).toEqual({
      ok: false,
      reason: "invalid",
      message:
        "The file was refused, nothing was posted: line 4: entry hash is 0000000001, the entries' receiving DFIs sum to 0050123456.",
    });
    expect(await upload("")).toEqual({
      ok: false,
      reason: "invalid",
      message: "The file was refused, nothing was posted: the file is empty.",
    });
    expect((await db.select({ id: achInboundFiles.id }).from(achInboundFiles)).length).toBe(files_before);
    expect(await current(m.checking.id)).toBe(0);
    await expectLedgerVerifies(db);
  });
});

describe("ACH in: duplicate entries and what the member reads (docs/product.md#ach-in)", () => {
  const payroll = (checking: string, savings: string, amount_cents = 250_000) => [
    {
      company_name: "Acme Corp",
      company_id: "1987654321",
      description: "PAYROLL",
      service_class: "220",
      entries: [
        { code: "22", account_number: checking, amount_cents, name: "Pat Member" },
        { code: "32", account_number: savings, amount_cents: 10_000, name: "Pat Member", info: "NOVEMBER BONUS" },
      ],
    },
  ];

  it("a payroll credit reads as Income from the company, with what the company wrote as its reference", async () => {
    const m = await newMember(db, {});
    const result = await upload(
      buildInboundFile(payroll(m.checking.account_number, m.savings.account_number), { modifier: "M" }),
      "payroll.ach",
    );
    expect(result).toMatchObject({ ok: true, posted: 2 });
    const [checking] = (await historyPage(db, m.checking.id, { limit: 5 })).rows.filter((r) => r.kind === "ach_in");
    const [savings] = (await historyPage(db, m.savings.id, { limit: 5 })).rows.filter((r) => r.kind === "ach_in");
    // Was: category none (shown as "Other"), reference the trace number, "ACME CORP PAYROLL".
    expect(checking).toMatchObject({ memo: "Acme Corp Payroll", category: "Income", reference: null });
    expect(savings).toMatchObject({ memo: "Acme Corp Payroll", category: "Income", reference: "NOVEMBER BONUS" });
    await expectLedgerVerifies(db);
  });

  it("a re-sent file (same entries under a new file header) holds them as possible duplicates; staff post one and return the other as R24", async () => {
    const m = await newMember(db, { checking_cents: 1_000 });
    const entries = payroll(m.checking.account_number, m.savings.account_number);
    const first = await upload(buildInboundFile(entries, { modifier: "C" }), "payroll-c.ach");
    expect(first).toMatchObject({ ok: true, posted: 2, held: 0 });
    const balance = { checking: await current(m.checking.id), savings: await current(m.savings.id) };
    const held_before = await heldEntriesCount(db);
    const settlement_before = await settlement();

    // The same entries (trace numbers, amounts, effective date, accounts) under a new header: new bytes, so the
    // file-level check let it post again. Now nothing moves: both are held for staff.
    const again = await upload(buildInboundFile(entries, { modifier: "D", created: "261125" }), "payroll-d.ach");
    expect(again).toMatchObject({ ok: true, entry_count: 2, posted: 0, returned: 0, held: 2 });
    if (!again.ok || !first.ok) throw new Error("upload refused");
    expect(await current(m.checking.id)).toBe(balance.checking);
    expect(await current(m.savings.id)).toBe(balance.savings);
    expect(await settlement()).toBe(settlement_before);
    expect(await heldEntriesCount(db)).toBe(held_before + 2);
    expect((await queueCounts(db)).sections.duplicates).toBe(held_before + 2);
    const originals = await db
      .select()
      .from(achInboundEntries)
      .where(eq(achInboundEntries.file_id, first.file_id))
      .orderBy(achInboundEntries.line);
    const held = await db
      .select()
      .from(achInboundEntries)
      .where(eq(achInboundEntries.file_id, again.file_id))
      .orderBy(achInboundEntries.line);
    expect(held.map((e) => [e.status, e.duplicate_of_entry_id, e.resolved_at])).toEqual(
      originals.map((o) => ["held", o.id, null]),
    );
    const rows = (await heldEntries(db)).filter((r) => held.some((e) => Number(e.id) === r.id));
    expect(rows.map((r) => [r.amount_cents, r.file_name, r.earlier?.file_name, r.earlier?.status])).toEqual([
      [250_000, "payroll-d.ach", "payroll-c.ach", "posted"],
      [10_000, "payroll-d.ach", "payroll-c.ach", "posted"],
    ]);

    // Post: the company really paid twice. The credit posts as the upload would have posted it.
    expect(await postHeldEntry(db, Number(held[0]!.id), staff, origin)).toEqual({
      ok: true,
      message: "The credit of $2,500.00 was posted.",
    });
    expect(await current(m.checking.id)).toBe(balance.checking + 250_000);
    expect(await postHeldEntry(db, Number(held[0]!.id), staff, origin)).toEqual({
      ok: false,
      kind: "conflict",
      message: HELD_MESSAGES.decided,
    });
    // Return: a duplicate, back as R24 in the next return file; nothing had moved.
    expect(await returnHeldEntry(db, Number(held[1]!.id), staff, origin)).toEqual({
      ok: true,
      message: "The credit of $100.00 was marked as a duplicate (R24); it waits in Returned items for the return file.",
    });
    expect(await returnHeldEntry(db, Number(held[1]!.id), staff, origin)).toEqual({
      ok: false,
      kind: "conflict",
      message: HELD_MESSAGES.decided,
    });
    expect(await returnHeldEntry(db, 999_999_999, staff, origin)).toEqual({
      ok: false,
      kind: "not_found",
      message: HELD_MESSAGES.not_found,
    });
    expect(await current(m.savings.id)).toBe(balance.savings);
    expect(await heldEntriesCount(db)).toBe(held_before);
    const decided = await db
      .select()
      .from(achInboundEntries)
      .where(eq(achInboundEntries.file_id, again.file_id))
      .orderBy(achInboundEntries.line);
    expect(decided.map((e) => [e.status, e.return_code])).toEqual([
      ["posted", null],
      ["returned", "R24"],
    ]);
    const audits = await db
      .select()
      .from(auditLog)
      .where(
        inArray(
          auditLog.subject_id,
          held.map((e) => String(e.id)),
        ),
      );
    expect(audits.map((a) => a.action).sort()).toEqual([
      "ach_inbound.duplicate_posted",
      "ach_inbound.duplicate_returned",
    ]);

    const exported = await exportReturnFile(db, staff, origin);
    if (!exported.ok) throw new Error(exported.message);
    const read = readNachaFile((await returnFile(db, exported.file.id))!.content, { returns: true });
    const r24 = read.batches.flatMap((b) => b.entries).filter((e) => e.addenda[0]!.text.startsWith("R24"));
    expect(
      r24.map((e) => [e.transaction_code, e.account_number, e.amount_cents, e.addenda[0]!.text.slice(3, 18)]),
    ).toEqual([["31", m.savings.account_number, 10_000, held[1]!.trace_number]]);
    await expectLedgerVerifies(db);
  });

  it("outside the window of five business days, or with another amount, the same trace number posts", async () => {
    const m = await newMember(db, {});
    const entries = payroll(m.checking.account_number, m.savings.account_number, 1_000);
    expect(await upload(buildInboundFile(entries, { modifier: "E" }), "payroll-e.ach")).toMatchObject({
      ok: true,
      posted: 2,
    });
    // Another amount under the same trace numbers: not a duplicate.
    expect(
      await upload(
        buildInboundFile(payroll(m.checking.account_number, m.savings.account_number, 1_001), { modifier: "F" }),
        "payroll-f.ach",
      ),
    ).toMatchObject({ ok: true, posted: 1, held: 1 });
    // The same entries received eight business days after the first: outside the window, they post.
    const later = new Date(Date.now() + 12 * 86_400_000);
    const result = await receiveAchFile(db, {
      bytes: bytes(buildInboundFile(entries, { modifier: "G" })),
      file_name: "payroll-g.ach",
      staff,
      origin,
      now: later,
    });
    expect(result).toMatchObject({ ok: true, posted: 2, held: 0 });
    await expectLedgerVerifies(db);
  });
});
