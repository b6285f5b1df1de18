import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { notifications } from "~/server/db/schema";
import { dashboard } from "~/server/accounts/overview.server";
import { memberHistoryCsv, memberHistoryPage, parseHistoryFilters } from "~/server/accounts/history.server";
import { memberAccounts } from "~/server/ledger/accounts.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { exportPayments, traceSequence } from "~/server/rails/export.server";
import { receiveAchFile } from "~/server/rails/inbound.server";
import { memberPayments } from "~/server/rails/queues.server";
import { institution } from "~/config/institution.server";
import { fileDatabase } from "../test-database";
import { newMember } from "../member-support";
import { queueAch } from "../rails-support";
import { staff as newStaff } from "../../factories";
import { buildInboundFile } from "../../unit/nacha-inbound-builder";

/**
 * A payment the other bank returned (docs/product.md#ach-in): once the return reversed it and the
 * member was told, every place that shows the payment says Returned and why, in the words of the
 * notification, not "Sent": the payments page's view-model, the history, the dashboard's recent
 * list and the CSV. A payment sent and not returned still reads Sent.
 */
let db: Db;
const origin = { request_id: "test", ip: "198.51.100.7" };
fileDatabase({ onOpen: (database) => void (db = database.db) });

describe("a returned payment to another bank", () => {
  it("reads Returned with the reason everywhere the member sees it; the other sent one stays Sent", async () => {
    const staff = await newStaff(db);
    const m = await newMember(db, { checking_cents: 100_000 });
    const returned = await queueAch(db, m.member, m.checking.id, { amount: "250.00", account_name: "Lee Park" });
    const kept = await queueAch(db, m.member, m.checking.id, { amount: "10.00", account_name: "Sam Rivera" });
    const sent = await exportPayments(db, "ach", staff, origin);
    if (!sent.ok) throw new Error(sent.message);

    const our_trace = `${institution().routing_number.slice(0, 8)}${String(traceSequence(returned.payment_id)).padStart(7, "0")}`;
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
          ],
        },
      ],
      { modifier: "R" },
    );
    const received = await receiveAchFile(db, {
      bytes: new TextEncoder().encode(text),
      file_name: "returns.ach",
      staff,
      origin,
    });
    expect(received).toMatchObject({ ok: true, applied: 1 });
    const [told] = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, m.member.id), eq(notifications.kind, "ach_returned")));
    const reason = "No account or unable to locate account";
    expect(told!.body).toContain(reason);

    const payments = await memberPayments(db, m.member.id);
    expect(payments.find((p) => p.id === returned.payment_id)).toMatchObject({
      status: "returned",
      return_reason: reason,
    });
    expect(payments.find((p) => p.id === kept.payment_id)).toMatchObject({ status: "sent", return_reason: null });

    const accounts = await memberAccounts(db, m.member.id);
    const { rows } = await memberHistoryPage(db, accounts, parseHistoryFilters(new URLSearchParams(), accounts));
    const filtered = (
      await memberHistoryPage(db, accounts, parseHistoryFilters(new URLSearchParams({ type: "debit" }), accounts))
    ).rows;
    const recent = (await dashboard(db, m.member)).recent;
    for (const list of [rows, filtered, recent]) {
      expect(list.find((r) => r.reference_number === returned.reference_number)).toMatchObject({
        status_label: "Returned",
        payment_status: "returned",
        return_reason: reason,
        badge: "failed",
        sent_effective_date: null,
      });
      expect(list.find((r) => r.reference_number === kept.reference_number)).toMatchObject({
        status_label: "Sent",
        payment_status: "sent",
        return_reason: null,
      });
    }
    const csv = await memberHistoryCsv(db, accounts, {});
    expect(csv.split("\r\n").find((l) => l.endsWith(returned.reference_number))).toContain(",Returned,");

    expect((await verifyLedger(db)).problems).toEqual([]);
  });
});
