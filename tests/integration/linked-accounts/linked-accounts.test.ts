import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { auditLog, linkedAccounts, notifications, paymentExportFiles } from "~/server/db/schema";
import { getBalances, institutionAccount } from "~/server/ledger/accounts.server";
import { exportPayments } from "~/server/rails/export.server";
import {
  confirmLinkedAccount,
  linkAccount,
  listLinkedAccounts,
  removeLinkedAccount,
  usableLinkedAccount,
  verifiedLinkedAccounts,
} from "~/server/linked-accounts/linked-accounts.server";
import { linkAccountSchema } from "~/domain/linked-accounts";
import { openTestDatabase } from "../test-database";
import { expectLedgerVerifies } from "../ledger-fixtures";
import { newMember } from "../member-support";
import { queueAch } from "../rails-support";
import { staff as newStaff } from "../../factories";
import { readNachaFile } from "../../unit/nacha-reader";

/**
 * Linked accounts (docs/product.md#linked-accounts): the account number sealed, the micro-deposits
 * in the next ACH file (read by the tests' independent reader) with the debit taking them back
 * and both legs in the books, three tries to confirm, only the member's own links, nothing deleted.
 */
let database: Database;
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "test", ip: "198.51.100.7" };

beforeAll(async () => {
  database = await openTestDatabase({ pool_max: 4 });
  db = database.db;
  staff = await newStaff(db);
});
afterAll(async () => {
  await database?.close();
});

const FORM = {
  routing_number: "121000248",
  account_number: "4000123456789",
  account_type: "savings",
  nickname: "Home",
};

async function link(member: { id: string; email: string }, over: Partial<typeof FORM> = {}) {
  return linkAccount(db, member, linkAccountSchema.parse({ ...FORM, ...over }), origin);
}

async function row(id: number) {
  const [r] = await db.select().from(linkedAccounts).where(eq(linkedAccounts.id, id));
  return r!;
}

async function balance(type: "adjustments" | "ach_settlement"): Promise<number> {
  const [a] = await getBalances(db, [(await institutionAccount(db, type)).id]);
  return a!.current_cents;
}

async function exportAch() {
  const result = await exportPayments(db, "ach", staff, origin);
  if (!result.ok) throw new Error(result.message);
  const [file] = await db.select().from(paymentExportFiles).where(eq(paymentExportFiles.id, result.file.id));
  return { result, file: file!, read: readNachaFile(file!.content) };
}

describe("linking an account and its micro-deposits", () => {
  it("seals the account number, lists it masked, and waits for the next file before a confirmation counts", async () => {
    const { member } = await newMember(db, { checking_cents: 100_000 });
    const linked = await link(member);
    expect(linked).toMatchObject({ status: "pending", masked: "••6789", deposits_sent: false, tries_left: 3 });
    const stored = await row(linked.id);
    expect(stored.account_number_enc).not.toContain("4000123456789");
    expect(JSON.stringify(await listLinkedAccounts(db, member.id))).not.toContain("4000123456789");
    const early = await confirmLinkedAccount(db, member, linked.id, [1, 2], origin);
    expect(early).toMatchObject({ ok: false, code: "not_pending" });
    expect((await row(linked.id)).attempts).toBe(0);
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(eq(auditLog.subject_id, String(linked.id)));
    expect(JSON.stringify(audit)).not.toContain("4000123456789");
  });

  it("sends the two deposits and the debit taking them back in the next ACH file, beside payments, both legs in the books", async () => {
    const a = await newMember(db, { checking_cents: 500_000, first_name: "Ada" });
    const linked = await link(a.member);
    await queueAch(db, a.member, a.checking.id, { amount: "25.00" });
    const adjustments = await balance("adjustments");
    const settlement = await balance("ach_settlement");
    const { file, read } = await exportAch();
    const stored = await row(linked.id);
    expect(stored.micro_file_id).toBe(Number(file.id));
    const verify = read.batches.find((b) => b.entry_description === "ACCTVERIFY")!;
    expect(verify).toMatchObject({ sec_code: "WEB", service_class_code: "200" });
    const mine = verify.entries.filter((e) => e.individual_id === `LA${String(linked.id).padStart(8, "0")}`);
    expect(mine.map((e) => [e.transaction_code, e.amount_cents, e.account_number, e.rdfi])).toEqual([
      ["32", stored.micro_first_cents, "4000123456789", "12100024"],
      ["32", stored.micro_second_cents, "4000123456789", "12100024"],
      ["37", stored.micro_first_cents + stored.micro_second_cents, "4000123456789", "12100024"],
    ]);
    expect(read.batches.find((b) => b.sec_code === "PPD")!.entries).toHaveLength(1);
    expect(Number(file.payment_count)).toBe(1);
    // The credits and the debit net to nothing; the books show both legs.
    expect(await balance("adjustments")).toBe(adjustments);
    expect(await balance("ach_settlement")).toBe(settlement + 25_00);
    const [told] = await db.select().from(notifications).where(eq(notifications.member_id, a.member.id));
    expect(told).toBeDefined();
    expect((await listLinkedAccounts(db, a.member.id))[0]).toMatchObject({ deposits_sent: true });
    await expectLedgerVerifies(db);
  });

  it("makes a file of micro-deposits alone, and the next export finds nothing", async () => {
    const { member } = await newMember(db, { checking_cents: 1_000 });
    const linked = await link(member, { account_type: "checking" });
    const { file, read } = await exportAch();
    expect(Number(file.payment_count)).toBe(0);
    expect(Number(file.total_cents)).toBe(0);
    expect(read.batches.map((b) => b.entry_description)).toEqual(["ACCTVERIFY"]);
    expect(read.batches[0]!.entries.map((e) => e.transaction_code)).toEqual(["22", "22", "27"]);
    expect((await row(linked.id)).micro_file_id).toBe(Number(file.id));
    const again = await exportPayments(db, "ach", staff, origin);
    expect(again).toMatchObject({ ok: false, code: "nothing_pending" });
    await expectLedgerVerifies(db);
  });
});

describe("confirming the amounts", () => {
  async function sentLink() {
    const { member } = await newMember(db, { checking_cents: 1_000 });
    const linked = await link(member);
    await exportAch();
    const stored = await row(linked.id);
    return { member, id: linked.id, amounts: [stored.micro_first_cents, stored.micro_second_cents] as const };
  }
  const wrong = (amounts: readonly [number, number]) =>
    [amounts[0] === 1 ? 2 : 1, amounts[1] === 1 ? 2 : 1] as [number, number];

  it("verifies on the right amounts in either order; only then can it be used", async () => {
    const { member, id, amounts } = await sentLink();
    expect(await usableLinkedAccount(db, member.id, id)).toBeNull();
    const answer = await confirmLinkedAccount(db, member, id, [amounts[1], amounts[0]], origin);
    expect(answer).toMatchObject({ ok: true, status: "verified" });
    expect(await usableLinkedAccount(db, member.id, id)).toMatchObject({ account_number: "4000123456789" });
    expect((await verifiedLinkedAccounts(db, member.id)).map((a) => a.id)).toEqual([id]);
    // Confirmed once: another try is refused and changes nothing.
    expect(await confirmLinkedAccount(db, member, id, amounts, origin)).toMatchObject({ code: "not_pending" });
    expect((await row(id)).attempts).toBe(1);
  });

  it("counts wrong amounts and fails the link on the third; it can never be used", async () => {
    const { member, id, amounts } = await sentLink();
    const first = await confirmLinkedAccount(db, member, id, wrong(amounts), origin);
    expect(first).toMatchObject({ ok: false, code: "wrong", message: expect.stringContaining("2 tries left") });
    const second = await confirmLinkedAccount(db, member, id, wrong(amounts), origin);
    expect(second).toMatchObject({ ok: false, code: "wrong", message: expect.stringContaining("1 try left") });
    const third = await confirmLinkedAccount(db, member, id, wrong(amounts), origin);
    expect(third).toMatchObject({ ok: false, code: "failed" });
    expect(await row(id)).toMatchObject({ status: "failed", attempts: 3 });
    // The right amounts after that: still failed.
    expect(await confirmLinkedAccount(db, member, id, amounts, origin)).toMatchObject({ code: "not_pending" });
    expect(await row(id)).toMatchObject({ status: "failed", attempts: 3 });
    expect(await usableLinkedAccount(db, member.id, id)).toBeNull();
  });

  it("two tries at once count as two", async () => {
    const { member, id, amounts } = await sentLink();
    await Promise.all([
      confirmLinkedAccount(db, member, id, wrong(amounts), origin),
      confirmLinkedAccount(db, member, id, wrong(amounts), origin),
    ]);
    expect((await row(id)).attempts).toBe(2);
  });
});

describe("only the member's own links", () => {
  it("another member can neither confirm, remove nor use a link, and nothing changes", async () => {
    const owner = await newMember(db, { checking_cents: 1_000 });
    const other = await newMember(db, { checking_cents: 1_000 });
    const linked = await link(owner.member);
    await exportAch();
    const before = await row(linked.id);
    const amounts = [before.micro_first_cents, before.micro_second_cents] as const;
    expect(await confirmLinkedAccount(db, other.member, linked.id, amounts, origin)).toMatchObject({
      ok: false,
      kind: "not_found",
    });
    expect(await removeLinkedAccount(db, other.member, linked.id, origin)).toMatchObject({
      ok: false,
      kind: "not_found",
    });
    expect(await usableLinkedAccount(db, other.member.id, linked.id)).toBeNull();
    expect(await listLinkedAccounts(db, other.member.id)).toEqual([]);
    expect(await row(linked.id)).toEqual(before);
  });

  it("a removed link is kept, no longer listed, and cannot be confirmed or used", async () => {
    const { member } = await newMember(db, { checking_cents: 1_000 });
    const linked = await link(member);
    await exportAch();
    const stored = await row(linked.id);
    await confirmLinkedAccount(db, member, linked.id, [stored.micro_first_cents, stored.micro_second_cents], origin);
    expect(await removeLinkedAccount(db, member, linked.id, origin)).toEqual({ ok: true });
    expect(await row(linked.id)).toMatchObject({ status: "removed" });
    expect(await listLinkedAccounts(db, member.id)).toEqual([]);
    expect(await usableLinkedAccount(db, member.id, linked.id)).toBeNull();
    expect(await removeLinkedAccount(db, member, linked.id, origin)).toMatchObject({ kind: "not_found" });
  });
});
