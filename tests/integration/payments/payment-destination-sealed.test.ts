import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, inArray, sql } from "drizzle-orm";
import { openDatabase, type Database, type Db } from "~/server/db/client.server";
import { externalPayments } from "~/server/db/schema";
import { setCurrencyRate } from "~/server/payments/rates.server";
import { sendUsBankTransfer } from "~/server/payments/to-other-banks.server";
import { stepUpTransfer } from "~/server/payments/transfers.server";
import { sendStepUpCode } from "~/server/payments/step-up.server";
import { destinationContext, openNumber, sealPlainDestinations } from "~/server/payments/payment-destination.server";
import { exportFile, exportPayments } from "~/server/rails/export.server";
import { loadQueues, memberPayments } from "~/server/rails/queues.server";
import { decryptField } from "~/server/security/crypto.server";
import { toUsBankSchema } from "~/domain/transfers";
import { onPostgres, openTestDatabase } from "../test-database";
import { expectLedgerVerifies } from "../ledger-fixtures";
import { key, lastTransferCode, newMember } from "../member-support";
import { queueAch, queueWire } from "../rails-support";
import { staff as newStaff } from "../../factories";
import { readNachaFile } from "../../unit/nacha-reader";
import { validatePain001, xpathValue } from "../../unit/xsd";

/**
 * The account numbers of payments to other banks at rest (docs/security.md, decision 0034): the
 * row holds them sealed with the last four beside them; only the file that sends the money (and
 * the comparisons that need them) opens them; rows from before are sealed once at start-up, by
 * however many processes start together.
 */
let database: Database & { url?: string };
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "test", ip: "198.51.100.7" };
const others: Database[] = [];

beforeAll(async () => {
  database = await openTestDatabase({ pool_max: 6 });
  db = database.db;
  await setCurrencyRate(db, { code: "EUR", usd_per_unit: "1.08375", updated_by: "test" });
  staff = await newStaff(db);
});
afterAll(async () => {
  for (const other of others) await other.close();
  await database?.close();
});

/** The row as stored, every column as text (what a copy of the database shows). */
async function rawRow(payment_id: number): Promise<string> {
  const result = await db.execute(sql`select p::text as row from external_payments p where id = ${payment_id}`);
  return String(result.rows[0]!.row);
}

/** Every place a number could leak to beside the row: audit, notifications, mail, ledger memos. */
async function textsHolding(value: string): Promise<string[]> {
  const found: string[] = [];
  for (const table of ["audit_log", "notifications", "outbox", "ledger_transactions", "sanctions_screenings"]) {
    const result = await db.execute(
      sql`select count(*)::int as n from ${sql.identifier(table)} t where t::text like ${`%${value}%`}`,
    );
    if (Number(result.rows[0]!.n) > 0) found.push(table);
  }
  return found;
}

/** Today's export lists, cleared: each test exports only its own payments. */
async function exportAll(kind: "ach" | "wire") {
  const result = await exportPayments(db, kind, staff, origin, { now: new Date(Date.now() + 31 * 60_000) });
  if (!result.ok) throw new Error(result.message);
  return (await exportFile(db, result.file.id))!.content;
}

describe("payments to other banks keep their account numbers sealed", () => {
  it("To US Bank: the row holds no clear number, the screens show the last four, and the NACHA file carries it whole", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const number = "48151623429";
    const queued = await queueAch(db, a.member, a.checking.id, { amount: "12.34", account_number: number });
    const raw = await rawRow(queued.payment_id);
    expect(raw).not.toContain(number);
    expect(raw).not.toContain(number.slice(0, 7));
    const [row] = await db.select().from(externalPayments).where(eq(externalPayments.id, queued.payment_id));
    expect(row!.details).not.toHaveProperty("account_number");
    expect(row!.details).toMatchObject({
      account_last4: "3429",
      routing_number: "021000021",
      account_name: "Lee Park",
    });
    // Bound to the member: under another member's context it does not open.
    expect(() =>
      decryptField(row!.details.account_number_enc!, destinationContext("account_number", "someone-else")),
    ).toThrow();
    expect(openNumber(row!, "account_number")).toBe(number);

    const queue = await loadQueues(db);
    expect(queue.ach.find((p) => p.id === queued.payment_id)!.payee_bank).toContain("••3429");
    expect(JSON.stringify(queue)).not.toContain(number);
    const mine = await memberPayments(db, a.member.id);
    expect(mine[0]!.payee).toBe("Lee Park, checking ••3429");
    expect(await textsHolding(number)).toEqual([]);

    const read = readNachaFile(await exportAll("ach"));
    const entry = read.batches.flatMap((b) => b.entries).find((e) => e.individual_id === queued.reference_number);
    expect(entry).toMatchObject({ account_number: number, amount_cents: 1234 });
    // Sending it changed nothing about the row's sealing; the audit of the export names no number.
    expect(await rawRow(queued.payment_id)).not.toContain(number);
    expect(await textsHolding(number)).toEqual([]);
    await expectLedgerVerifies(db);
  });

  it("International: the account number and IBAN are sealed, the receipt shows the IBAN's last four, pain.001 carries both and validates", async () => {
    const a = await newMember(db, { checking_cents: 500_000 });
    const with_iban = await queueWire(db, a.member, a.checking.id, {
      amount: "100.00",
      iban: "DE89370400440532013000",
      account_number: "0532013000",
    });
    const without = await queueWire(db, a.member, a.checking.id, {
      amount: "50.00",
      iban: "",
      account_number: "777666555444",
    });
    for (const id of [with_iban.payment_id, without.payment_id]) {
      const raw = await rawRow(id);
      expect(raw).not.toContain("DE89370400440532013000");
      expect(raw).not.toContain("0532013000");
      expect(raw).not.toContain("777666555444");
    }
    const rows = await db
      .select()
      .from(externalPayments)
      .where(inArray(externalPayments.id, [with_iban.payment_id, without.payment_id]))
      .orderBy(externalPayments.id);
    expect(rows[0]!.details).toMatchObject({ iban_last4: "3000", account_last4: "3000", bic: "COBADEFFXXX" });
    expect(rows[1]!.details).not.toHaveProperty("iban_enc");
    expect(rows[1]!.details).toMatchObject({ account_last4: "5444" });
    expect(openNumber(rows[1]!, "iban")).toBe("");
    const queue = await loadQueues(db);
    expect(queue.wire.find((p) => p.id === with_iban.payment_id)!.payee_bank).toContain("account ••3000");
    expect(queue.wire.find((p) => p.id === without.payment_id)!.payee_bank).toContain("account ••5444");
    expect(await textsHolding("DE89370400440532013000")).toEqual([]);
    expect(await textsHolding("777666555444")).toEqual([]);

    const xml = await exportAll("wire");
    expect(validatePain001(xml)).toMatchObject({ valid: true });
    expect(xpathValue(xml, "CdtTrfTxInf/CdtrAcct/Id/IBAN", 1)).toBe("DE89370400440532013000");
    expect(xpathValue(xml, "CdtTrfTxInf/CdtrAcct/Id/Othr/Id")).toBe("777666555444");
    await expectLedgerVerifies(db);
  });

  it("the same form again is answered with the first payment; another account number under its key is refused", async () => {
    const a = await newMember(db, { checking_cents: 100_000 });
    const form = toUsBankSchema.parse({
      from_account_id: String(a.checking.id),
      routing_number: "021000021",
      account_number: "31415926535",
      account_name: "Lee Park",
      amount: "5.00",
      reference: "Rent",
      idempotency_key: key(),
    });
    await sendStepUpCode(db, a.member, "summary", stepUpTransfer({ kind: "ach", form }));
    const first = await sendUsBankTransfer(db, a.member, form, await lastTransferCode(db, a.member.email));
    expect(first).toMatchObject({ ok: true });
    expect(await sendUsBankTransfer(db, a.member, form, "")).toMatchObject({ ok: true, replayed: true });
    const other = await sendUsBankTransfer(db, a.member, { ...form, account_number: "31415926536" }, "");
    expect(other).toMatchObject({ ok: false });
    const rows = await db.select().from(externalPayments).where(eq(externalPayments.member_id, a.member.id));
    expect(rows).toHaveLength(1);
  });
});

describe("rows written before the numbers were sealed", () => {
  /** Payments as an earlier version stored them: the numbers plain in the details. */
  async function plainPayments(count: number): Promise<Array<{ id: number; ach: boolean; number: string }>> {
    const out: Array<{ id: number; ach: boolean; number: string }> = [];
    for (let i = 0; i < count; i++) {
      // A member each: the emailed codes are limited per member and hour.
      const a = await newMember(db, { checking_cents: 100_000 });
      const ach = i % 2 === 0;
      const number = `9${String(i).padStart(3, "0")}2718281`;
      const queued = ach
        ? await queueAch(db, a.member, a.checking.id, { amount: "1.00", account_number: number })
        : await queueWire(db, a.member, a.checking.id, { amount: "1.00", account_number: number });
      const [row] = await db.select().from(externalPayments).where(eq(externalPayments.id, queued.payment_id));
      const { account_number_enc: _a, account_last4: _b, iban_enc: _c, iban_last4: _d, ...rest } = row!.details;
      const plain = ach
        ? { ...rest, account_number: number }
        : { ...rest, account_number: number, iban: "DE89370400440532013000" };
      await db.update(externalPayments).set({ details: plain }).where(eq(externalPayments.id, queued.payment_id));
      out.push({ id: queued.payment_id, ach, number });
    }
    return out;
  }

  it("are read as they are until sealed: the queue's mask and the file's number", async () => {
    const [old] = await plainPayments(1);
    expect((await loadQueues(db)).ach.find((p) => p.id === old!.id)!.payee_bank).toContain(
      `••${old!.number.slice(-4)}`,
    );
    const [row] = await db.select().from(externalPayments).where(eq(externalPayments.id, old!.id));
    expect(openNumber(row!, "account_number")).toBe(old!.number);
    expect(await sealPlainDestinations(db)).toBe(1);
  });

  it("are sealed once by two processes starting together, and a later start seals nothing", async () => {
    const old = await plainPayments(7);
    // A second process: a pool of its own on the same database (PostgreSQL); the embedded
    // database serves one process, so there the two runs share it.
    const other = onPostgres ? await openDatabase({ kind: "postgres", url: database.url!, pool_max: 2 }) : null;
    if (other) others.push(other);
    const runs = await Promise.all([
      sealPlainDestinations(db, { batch: 2 }),
      sealPlainDestinations(other ? other.db : db, { batch: 2 }),
    ]);
    expect(runs[0] + runs[1]).toBe(old.length);
    for (const p of old) {
      const raw = await rawRow(p.id);
      expect(raw).not.toContain(p.number);
      expect(raw).not.toContain("DE89370400440532013000");
      const [row] = await db.select().from(externalPayments).where(eq(externalPayments.id, p.id));
      expect(row!.details).not.toHaveProperty("account_number");
      expect(row!.details).not.toHaveProperty("iban");
      expect(openNumber(row!, "account_number")).toBe(p.number);
      expect(row!.details.account_last4).toBe(p.number.slice(-4));
      if (!p.ach) expect(openNumber(row!, "iban")).toBe("DE89370400440532013000");
    }
    expect(await sealPlainDestinations(db)).toBe(0);
    // They still go out whole.
    const read = readNachaFile(await exportAll("ach"));
    const numbers = read.batches.flatMap((b) => b.entries).map((e) => e.account_number);
    for (const p of old.filter((p) => p.ach)) expect(numbers).toContain(p.number);
    const xml = await exportAll("wire");
    expect(validatePain001(xml)).toMatchObject({ valid: true });
    await expectLedgerVerifies(db);
  });
});
