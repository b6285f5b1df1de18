import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { linkedAccounts, moneyInPulls, notifications, outbox, paymentExportFiles } from "~/server/db/schema";
import { getBalances, institutionAccount, setAccountStatus } from "~/server/ledger/accounts.server";
import { exportPayments } from "~/server/rails/export.server";
import { receiveAchFile } from "~/server/rails/inbound.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import {
  confirmLinkedAccount,
  linkAccount,
  removeLinkedAccount,
} from "~/server/linked-accounts/linked-accounts.server";
import { memberPulls, moneyInPage, releaseAvailablePulls, requestPull } from "~/server/linked-accounts/money-in.server";
import { linkAccountSchema } from "~/domain/linked-accounts";
import { moneyInSchema } from "~/domain/money-in";
import { addBusinessDays } from "~/domain/payment-dates";
import { institution } from "~/config/institution.server";
import { openTestDatabase } from "../test-database";
import { expectLedgerVerifies } from "../ledger-fixtures";
import { newMember } from "../member-support";
import { staff as newStaff } from "../../factories";
import { readNachaFile } from "../../unit/nacha-reader";
import { buildInboundFile } from "../../unit/nacha-inbound-builder";

/**
 * Move money in (docs/product.md#move-money-in): a pull from a verified link is a WEB debit in the
 * next ACH file (read back by the tests' independent reader), credited when the file goes out and
 * held for the profile's days, within the day's and month's limits; a return reverses it and tells
 * the member, R10 and the like fail the link; a returned micro-deposit fails the link and is booked.
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

type Member = Awaited<ReturnType<typeof newMember>>;

async function exportAch() {
  const result = await exportPayments(db, "ach", staff, origin);
  if (!result.ok) throw new Error(result.message);
  const [file] = await db.select().from(paymentExportFiles).where(eq(paymentExportFiles.id, result.file.id));
  return { result, file: file!, read: readNachaFile(file!.content) };
}

/** A member with a verified link (its micro-deposits exported and confirmed). */
async function verifiedMember(options: { checking_cents?: number } = {}) {
  const m = await newMember(db, { checking_cents: options.checking_cents ?? 10_000 });
  const linked = await linkAccount(
    db,
    m.member,
    linkAccountSchema.parse({
      routing_number: "121000248",
      account_number: "4000123456789",
      account_type: "checking",
      nickname: "Home",
    }),
    origin,
  );
  await exportAch();
  const [row] = await db.select().from(linkedAccounts).where(eq(linkedAccounts.id, linked.id));
  const confirmed = await confirmLinkedAccount(
    db,
    m.member,
    linked.id,
    [row!.micro_first_cents, row!.micro_second_cents],
    origin,
  );
  expect(confirmed.ok).toBe(true);
  return { ...m, link_id: linked.id };
}

function form(m: Member & { link_id: number }, amount: string, over: Record<string, string> = {}) {
  return moneyInSchema.parse({
    linked_account_id: String(m.link_id),
    to_account_id: String(m.checking.id),
    amount,
    agree: "yes",
    idempotency_key: crypto.randomUUID(),
    ...over,
  });
}

async function available(account_id: number) {
  const [a] = await getBalances(db, [account_id]);
  return { current: a!.current_cents, available: a!.available_cents };
}

async function pullRow(id: number) {
  const [row] = await db.select().from(moneyInPulls).where(eq(moneyInPulls.id, id));
  return row!;
}

let files_built = 0;

/** An inbound file returning our entry (the other bank's answer), as the Federal Reserve sends it. */
function returnFile(entries: { code: string; amount_cents: number; id: string; reason: string; trace: string }[]) {
  return buildInboundFile(
    [
      {
        company_name: "Harborview CU",
        company_id: institution().routing_number,
        description: "TRANSFER",
        odfi: "02100002",
        entries: entries.map((e) => ({
          code: e.code,
          account_number: "4000123456789",
          amount_cents: e.amount_cents,
          name: "Pat Member",
          id: e.id,
          return_of: { reason: e.reason, original_trace: e.trace },
        })),
      },
    ],
    // Each file its own modifier: the same return sent again is another file, not the same one twice.
    { modifier: String.fromCharCode(65 + (files_built++ % 26)) },
  );
}

async function receive(text: string) {
  return receiveAchFile(db, {
    bytes: new TextEncoder().encode(text),
    file_name: `returns-${crypto.randomUUID()}.ach`,
    staff,
    origin,
  });
}

describe("moving money in", () => {
  it("asks: a pending credit, the authorization's words kept; the next file carries a WEB debit; credited and held until the hold days pass", async () => {
    const m = await verifiedMember();
    const before = await available(m.checking.id);
    const asked = await requestPull(db, m.member, form(m, "250.00"), origin);
    expect(asked).toMatchObject({ ok: true, amount_cents: 25_000, replayed: false });
    if (!asked.ok) throw new Error("refused");
    const pull = await pullRow(asked.pull_id);
    expect(pull.status).toBe("pending");
    expect(pull.authorization_text).toContain("$250.00");
    expect(pull.authorization_text).toContain("checking ••6789");
    expect(pull.authorization_text).toContain(m.member.name);
    expect(pull.authorization_text).not.toContain("4000123456789");
    // Money on its way in is not available (a pending credit).
    expect(await available(m.checking.id)).toEqual(before);

    const { file, read, result } = await exportAch();
    expect(result.file.pulls).toBe(1);
    const batch = read.batches.find((b) => b.entry_description === "TRANSFER" && b.sec_code === "WEB")!;
    expect(batch).toBeDefined();
    const entry = batch.entries.find((e) => e.individual_id === `MI${String(pull.id).padStart(8, "0")}`)!;
    expect(entry).toMatchObject({ transaction_code: "27", amount_cents: 25_000, account_number: "4000123456789" });
    const sent = await pullRow(pull.id);
    expect(sent).toMatchObject({ status: "sent", export_file_id: Number(file.id), trace_number: entry.trace_number });
    const hold_days = institution().limits.money_in.hold_business_days;
    expect(sent.available_on).toBe(addBusinessDays(sent.effective_date!, hold_days));
    // Credited, but held.
    expect(await available(m.checking.id)).toEqual({ current: before.current + 25_000, available: before.available });
    expect((await memberPulls(db, m.member.id))[0]).toMatchObject({ status: "sent", available: false });

    // The day before: still held; on the day: available, the member told.
    const day_before = new Date(`${addBusinessDays(sent.effective_date!, hold_days - 1)}T18:00:00Z`);
    await releaseAvailablePulls(db, day_before);
    expect((await pullRow(pull.id)).available_at).toBeNull();
    await releaseAvailablePulls(db, new Date(`${sent.available_on}T18:00:00Z`));
    expect((await pullRow(pull.id)).available_at).not.toBeNull();
    expect(await available(m.checking.id)).toEqual({
      current: before.current + 25_000,
      available: before.available + 25_000,
    });
    await expectLedgerVerifies(db);
  });

  it("a repeat of the form's key asks once", async () => {
    const m = await verifiedMember();
    const f = form(m, "10.00");
    const first = await requestPull(db, m.member, f, origin);
    const again = await requestPull(db, m.member, f, origin);
    expect(again).toMatchObject({ ok: true, replayed: true });
    expect(first.ok && again.ok && first.pull_id === again.pull_id).toBe(true);
    expect(await db.select().from(moneyInPulls).where(eq(moneyInPulls.member_id, m.member.id))).toHaveLength(1);
  });

  it("refuses over the day's limit beside the amount with what is left, and changes nothing", async () => {
    const m = await verifiedMember();
    const limits = institution().limits.money_in;
    const first = await requestPull(db, m.member, form(m, (limits.daily_max_cents / 100 - 100).toFixed(2)), origin);
    expect(first.ok).toBe(true);
    const over = await requestPull(db, m.member, form(m, "100.01"), origin);
    expect(over).toMatchObject({ ok: false, field: "amount", message: expect.stringContaining("$100.00 more today") });
    expect(await db.select().from(moneyInPulls).where(eq(moneyInPulls.member_id, m.member.id))).toHaveLength(1);
    expect((await moneyInPage(db, m.member.id)).remaining_cents).toBe(10_000);
    expect(await requestPull(db, m.member, form(m, "100.00"), origin)).toMatchObject({ ok: true });
  });

  it("refuses an unverified, removed or another member's link, and a frozen account", async () => {
    const m = await verifiedMember();
    const other = await verifiedMember();
    const theirs = await requestPull(
      db,
      m.member,
      form(m, "5.00", { linked_account_id: String(other.link_id) }),
      origin,
    );
    expect(theirs).toMatchObject({ ok: false, field: "linked_account_id" });
    const not_mine = await requestPull(
      db,
      m.member,
      form(m, "5.00", { to_account_id: String(other.checking.id) }),
      origin,
    );
    expect(not_mine).toMatchObject({ ok: false, field: "to_account_id" });
    expect(await setAccountStatus(db, m.checking.id, "frozen")).toMatchObject({ ok: true });
    expect(await requestPull(db, m.member, form(m, "5.00"), origin)).toMatchObject({
      ok: false,
      field: "to_account_id",
    });
    expect(await setAccountStatus(db, m.checking.id, "active")).toMatchObject({ ok: true });
    const pending = await linkAccount(
      db,
      m.member,
      linkAccountSchema.parse({
        routing_number: "121000248",
        account_number: "5000123456789",
        account_type: "checking",
        nickname: "New",
      }),
      origin,
    );
    expect(
      await requestPull(db, m.member, form(m, "5.00", { linked_account_id: String(pending.id) }), origin),
    ).toMatchObject({ ok: false, field: "linked_account_id" });
    expect(await removeLinkedAccount(db, m.member, m.link_id, origin)).toEqual({ ok: true });
    expect(await requestPull(db, m.member, form(m, "5.00"), origin)).toMatchObject({
      ok: false,
      field: "linked_account_id",
    });
    expect(await db.select().from(moneyInPulls).where(eq(moneyInPulls.member_id, m.member.id))).toHaveLength(0);
    await expectLedgerVerifies(db);
  });

  it("two pulls at once are counted against the day's limit one after the other", async () => {
    const m = await verifiedMember();
    const half = (institution().limits.money_in.daily_max_cents / 2 / 100 + 1).toFixed(2);
    const answers = await Promise.all([
      requestPull(db, m.member, form(m, half), origin),
      requestPull(db, m.member, form(m, half), origin),
    ]);
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
    expect(answers.filter((a) => !a.ok)).toMatchObject([{ field: "amount" }]);
  });

  it("a pull to a frozen account waits out of the file until the account is open again", async () => {
    const m = await verifiedMember();
    const asked = await requestPull(db, m.member, form(m, "60.00"), origin);
    if (!asked.ok) throw new Error("refused");
    expect(await setAccountStatus(db, m.checking.id, "frozen")).toMatchObject({ ok: true });
    const other = await verifiedMember();
    await requestPull(db, other.member, form(other, "1.00"), origin);
    const { read } = await exportAch();
    const ids = read.batches.flatMap((b) => b.entries).map((e) => e.individual_id);
    expect(ids).not.toContain(`MI${String(asked.pull_id).padStart(8, "0")}`);
    expect(await pullRow(asked.pull_id)).toMatchObject({ status: "pending" });
    expect(await setAccountStatus(db, m.checking.id, "active")).toMatchObject({ ok: true });
    await exportAch();
    expect(await pullRow(asked.pull_id)).toMatchObject({ status: "sent" });
    await expectLedgerVerifies(db);
  });

  it("removing the link cancels a pull not yet sent: the pending credit released, nothing in the file", async () => {
    const m = await verifiedMember();
    const before = await available(m.checking.id);
    const asked = await requestPull(db, m.member, form(m, "40.00"), origin);
    if (!asked.ok) throw new Error("refused");
    expect(await removeLinkedAccount(db, m.member, m.link_id, origin)).toEqual({ ok: true });
    expect(await pullRow(asked.pull_id)).toMatchObject({ status: "cancelled" });
    expect(await available(m.checking.id)).toEqual(before);
    await expectLedgerVerifies(db);
  });
});

describe("a pull the other bank returns", () => {
  async function sentPull(amount = "300.00") {
    const m = await verifiedMember({ checking_cents: 10_000 });
    const asked = await requestPull(db, m.member, form(m, amount), origin);
    if (!asked.ok) throw new Error("refused");
    await exportAch();
    return { m, pull: await pullRow(asked.pull_id) };
  }

  it("R01: the credit is reversed (its hold released), the member told by bell and email; the link stays verified", async () => {
    const { m, pull } = await sentPull();
    const before = await available(m.checking.id);
    const received = await receive(
      returnFile([
        {
          code: "26",
          amount_cents: pull.amount_cents,
          id: `MI${String(pull.id).padStart(8, "0")}`,
          reason: "R01",
          trace: pull.trace_number!,
        },
      ]),
    );
    expect(received).toMatchObject({ ok: true, applied: 1, unmatched: 0 });
    expect(await pullRow(pull.id)).toMatchObject({ status: "returned", return_code: "R01" });
    expect(await available(m.checking.id)).toEqual({
      current: before.current - pull.amount_cents,
      available: before.available,
    });
    const [told] = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "ach_returned")));
    expect(told!.body).toContain("R01");
    const mail = await db
      .select()
      .from(outbox)
      .where(and(eq(outbox.user_id, m.member.id), eq(outbox.kind, "money_in")));
    expect(mail).toHaveLength(1);
    const [link] = await db.select().from(linkedAccounts).where(eq(linkedAccounts.id, m.link_id));
    expect(link!.status).toBe("verified");
    expect((await memberPulls(db, m.member.id))[0]).toMatchObject({ status: "returned", return_code: "R01" });
    await expectLedgerVerifies(db);
  });

  it("R10 after the money became available: the credit is reversed, the link fails and its waiting pulls are cancelled", async () => {
    const { m, pull } = await sentPull("20.00");
    await releaseAvailablePulls(db, new Date(`${pull.available_on}T18:00:00Z`));
    const waiting = await requestPull(db, m.member, form(m, "15.00"), origin);
    if (!waiting.ok) throw new Error("refused");
    const before = await available(m.checking.id);
    const received = await receive(
      returnFile([
        {
          code: "26",
          amount_cents: pull.amount_cents,
          id: `MI${String(pull.id).padStart(8, "0")}`,
          reason: "R10",
          trace: pull.trace_number!,
        },
      ]),
    );
    expect(received).toMatchObject({ ok: true, applied: 1 });
    expect(await pullRow(pull.id)).toMatchObject({ status: "returned", return_code: "R10" });
    expect(await available(m.checking.id)).toEqual({
      current: before.current - 2_000,
      available: before.available - 2_000,
    });
    const [link] = await db.select().from(linkedAccounts).where(eq(linkedAccounts.id, m.link_id));
    expect(link).toMatchObject({ status: "failed", return_code: "R10" });
    expect(await pullRow(waiting.pull_id)).toMatchObject({ status: "cancelled" });
    // The same return again moves nothing.
    const again = await receive(
      returnFile([
        {
          code: "26",
          amount_cents: pull.amount_cents,
          id: `MI${String(pull.id).padStart(8, "0")}`,
          reason: "R10",
          trace: pull.trace_number!,
        },
      ]),
    );
    expect(again).toMatchObject({ ok: true, applied: 0, unmatched: 1 });
    await expectLedgerVerifies(db);
  });

  it("a return after the money was spent is left for staff: the account never goes below its limit", async () => {
    const { m, pull } = await sentPull("50.00");
    await releaseAvailablePulls(db, new Date(`${pull.available_on}T18:00:00Z`));
    // Everything spent: the whole available balance moved out.
    const spend = await available(m.checking.id);
    const settlement = await institutionAccount(db, "ach_settlement");
    const out = await postTransfer(db, {
      idempotency_key: `spend-${crypto.randomUUID()}`,
      initiator: "staff:test",
      kind: "adjustment",
      created_by: "staff:test",
      entries: [
        { account_id: m.checking.id, amount_cents: -spend.available },
        { account_id: settlement.id, amount_cents: spend.available },
      ],
    });
    expect(out.ok).toBe(true);
    const received = await receive(
      returnFile([
        {
          code: "26",
          amount_cents: pull.amount_cents,
          id: `MI${String(pull.id).padStart(8, "0")}`,
          reason: "R01",
          trace: pull.trace_number!,
        },
      ]),
    );
    expect(received).toMatchObject({ ok: true, applied: 0, unmatched: 1 });
    expect(await pullRow(pull.id)).toMatchObject({ status: "sent" });
    expect((await available(m.checking.id)).available).toBe(0);
    await expectLedgerVerifies(db);
  });

  it("a return naming a pull with another amount or trace is left for staff, nothing moves", async () => {
    const { m, pull } = await sentPull("30.00");
    const before = await available(m.checking.id);
    const received = await receive(
      returnFile([
        {
          code: "26",
          amount_cents: pull.amount_cents + 1,
          id: `MI${String(pull.id).padStart(8, "0")}`,
          reason: "R01",
          trace: pull.trace_number!,
        },
      ]),
    );
    expect(received).toMatchObject({ ok: true, applied: 0, unmatched: 1 });
    expect(await pullRow(pull.id)).toMatchObject({ status: "sent" });
    expect(await available(m.checking.id)).toEqual(before);
  });
});

describe("a returned micro-deposit", () => {
  it("fails the pending link, tells the member, and books the cents back so the books balance", async () => {
    const m = await newMember(db, { checking_cents: 1_000 });
    const linked = await linkAccount(
      db,
      m.member,
      linkAccountSchema.parse({
        routing_number: "121000248",
        account_number: "4000123456789",
        account_type: "checking",
        nickname: "Old bank",
      }),
      origin,
    );
    const { read } = await exportAch();
    const id = `LA${String(linked.id).padStart(8, "0")}`;
    const mine = read.batches.flatMap((b) => b.entries).filter((e) => e.individual_id === id);
    expect(mine).toHaveLength(3);
    const adjustments = await institutionAccount(db, "adjustments");
    const [adj_before] = await getBalances(db, [adjustments.id]);
    // The other bank returns all three: the account is closed.
    const received = await receive(
      returnFile(
        mine.map((e) => ({
          code: e.transaction_code === "27" ? "26" : "21",
          amount_cents: e.amount_cents,
          id,
          reason: "R02",
          trace: e.trace_number,
        })),
      ),
    );
    expect(received).toMatchObject({ ok: true, applied: 3, unmatched: 0 });
    const [link] = await db.select().from(linkedAccounts).where(eq(linkedAccounts.id, linked.id));
    expect(link).toMatchObject({ status: "failed", return_code: "R02" });
    const told = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "ach_returned")));
    expect(told).toHaveLength(1);
    expect(told[0]!.title).toContain("could not be verified");
    // Two credits back, the debit not taken: Adjustments ends where it was before the micro-deposits' legs net.
    const [adj_after] = await getBalances(db, [adjustments.id]);
    expect(adj_after!.current_cents).toBe(adj_before!.current_cents);
    expect(
      await confirmLinkedAccount(db, m.member, linked.id, [link!.micro_first_cents, link!.micro_second_cents], origin),
    ).toMatchObject({ ok: false });
    await expectLedgerVerifies(db);
  });
});
