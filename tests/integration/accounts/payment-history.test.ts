import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Db } from "~/server/db/client.server";
import { dashboard } from "~/server/accounts/overview.server";
import {
  memberHistoryCsv,
  memberHistoryPage,
  parseHistoryFilters,
  type MemberTransaction,
} from "~/server/accounts/history.server";
import { memberAccounts } from "~/server/ledger/accounts.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { setCurrencyRate } from "~/server/payments/rates.server";
import { exportPayments } from "~/server/rails/export.server";
import { cancelPayment } from "~/server/rails/cancel.server";
import { openTestDatabase } from "../test-database";
import { newMember } from "../member-support";
import { queueAch, queueWire } from "../rails-support";
import { staff as newStaff } from "../../factories";

/**
 * A payment to another bank in the member's history (docs/product.md#payment-queues): the
 * payment's own state is what the member reads, not the ledger's word for its hold. An exported
 * transfer is Sent, with its file's effective date (the ledger calls the settled hold posted);
 * a cancelled one is Cancelled (the ledger calls the released hold failed); one still waiting is
 * Pending. The same in the history page, the dashboard's recent list and the CSV export.
 */
let database: Database;
let db: Db;
const origin = { request_id: "test", ip: "198.51.100.7" };

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  await setCurrencyRate(db, { code: "EUR", usd_per_unit: "1.08375", updated_by: "test" });
});
afterAll(async () => {
  await database?.close();
});

function byReference(rows: readonly MemberTransaction[], reference_number: string): MemberTransaction {
  const row = rows.find((r) => r.reference_number === reference_number);
  if (!row) throw new Error(`no row ${reference_number}`);
  return row;
}

describe("payments to other banks in the member's history", () => {
  it("shows an exported ACH transfer or wire as Sent with the file's effective date, a cancelled one as Cancelled, a waiting one as Pending", async () => {
    const staff = await newStaff(db);
    const m = await newMember(db, { checking_cents: 900_000 });
    const sent_ach = await queueAch(db, m.member, m.checking.id, { amount: "120.00", reference: "Rent" });
    const sent_wire = await queueWire(db, m.member, m.checking.id, { amount: "50.00" });
    const cancelled = await queueAch(db, m.member, m.checking.id, { amount: "33.00", reference: "Changed my mind" });
    const waiting = await queueAch(db, m.member, m.checking.id, { amount: "7.00" });

    const cancel = await cancelPayment(
      db,
      cancelled.payment_id,
      { kind: "member", id: m.member.id, email: m.member.email },
      origin,
    );
    expect(cancel.ok).toBe(true);
    const ach = await exportPayments(db, "ach", staff, origin, { max_payments: 1 });
    // Past the wire's 30-minute cancellation window (docs/product.md#remittance-transfers).
    const wire = await exportPayments(db, "wire", staff, origin, { now: new Date(Date.now() + 31 * 60_000) });
    if (!ach.ok || !wire.ok) throw new Error("export failed");

    const accounts = await memberAccounts(db, m.member.id);
    const { rows } = await memberHistoryPage(db, accounts, parseHistoryFilters(new URLSearchParams(), accounts));
    const recent = (await dashboard(db, m.member)).recent;
    // The filtered path reads the page with its own statement.
    const filtered = (
      await memberHistoryPage(db, accounts, parseHistoryFilters(new URLSearchParams({ type: "debit" }), accounts))
    ).rows;
    for (const list of [rows, recent, filtered]) {
      expect(byReference(list, sent_ach.reference_number)).toMatchObject({
        status_label: "Sent",
        payment_status: "sent",
        sent_effective_date: ach.file.effective_date,
        badge: "posted",
      });
      expect(byReference(list, sent_wire.reference_number)).toMatchObject({
        status_label: "Sent",
        payment_status: "sent",
        sent_effective_date: wire.file.effective_date,
        badge: "posted",
      });
      expect(byReference(list, cancelled.reference_number)).toMatchObject({
        status_label: "Cancelled",
        payment_status: "cancelled",
        sent_effective_date: null,
        badge: "reversed",
      });
      expect(byReference(list, waiting.reference_number)).toMatchObject({
        status_label: "Pending",
        payment_status: "pending",
        sent_effective_date: null,
        badge: "pending",
      });
    }
    // Other rows keep the ledger's labels.
    const others = rows.filter((r) => r.payment_status === null);
    expect(others.length).toBeGreaterThan(0);
    expect(others.every((r) => r.status_label === "Completed" && r.badge === "posted")).toBe(true);

    const csv = await memberHistoryCsv(db, accounts, {});
    const line = (reference_number: string) => csv.split("\r\n").find((l) => l.endsWith(reference_number)) ?? "";
    expect(line(sent_ach.reference_number)).toContain(",Sent,");
    expect(line(cancelled.reference_number)).toContain(",Cancelled,");

    const report = await verifyLedger(db);
    expect(report.problems).toEqual([]);
  });
});
