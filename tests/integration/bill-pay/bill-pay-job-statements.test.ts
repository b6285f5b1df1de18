import type { Actor } from "~/domain/actor";
import "../member-support";
import { describe, expect, it } from "vitest";
import type { Database } from "~/server/db/client.server";
import { addPayee } from "~/server/bill-pay/payees.server";
import { payDueBillPayments } from "~/server/bill-pay/due-payments.server";
import { scheduleBillPayment } from "~/server/bill-pay/bill-pay.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { businessDayOnOrAfter } from "~/domain/payment-dates";
import { billPaySchema } from "~/domain/bill-pay";
import { addDays } from "~/domain/schedule";
import { fileDatabase, onPostgres, statementsOf } from "../test-database";
import { key, newMember } from "../member-support";

/**
 * The bill-payments job reads each payment's payee with the payment it locks (one statement),
 * not with a statement of its own per payment. Counted on node-postgres, where each round trip
 * is one call of the client's `query` (as tests/integration/payments/transfer-statements.test.ts does).
 */
let db: Database["db"];
const ORIGIN = { request_id: "bill-pay-job-0001", ip: "203.0.113.7" };
const today = businessDate(institution().time_zone);
const first_day = businessDayOnOrAfter(addDays(today, 1));

fileDatabase({ onOpen: (database) => void (db = database.db) });

describe.skipIf(!onPostgres)("the bill-payments job's statements (PostgreSQL)", () => {
  it("reads no payee on its own: each comes with its payment", async () => {
    const m = await newMember(db, { checking_cents: 100_000 });
    const who: Actor = { id: m.member.id, email: m.member.email };
    for (const [name, amount] of [
      ["City Power", "10.00"],
      ["Water Works", "20.00"],
      ["Phone Co", "30.00"],
    ] as const) {
      const payee = await addPayee(db, who, { name, account_number: `ACCT-${amount}`, address: "1 Main St" }, ORIGIN);
      if (!payee.ok) throw new Error(payee.message);
      const form = billPaySchema(today).parse({
        payee: `payee:${payee.payee.id}`,
        from_account_id: String(m.checking.id),
        amount,
        payment_date: first_day,
        payee_account_number: "",
        memo: "",
        idempotency_key: key(),
      });
      const done = await scheduleBillPayment(db, who, form, ORIGIN);
      if (!done.ok) throw new Error(done.message);
    }
    const { result, statements } = await statementsOf(() => payDueBillPayments(db, new Date(`${first_day}T17:00:00Z`)));
    expect(result).toMatchObject({ paid: 3, failed: 0 });
    const payeeReads = statements.filter((s) => /from "bill_payees"/i.test(s) && !/join "bill_payees"/i.test(s));
    expect(payeeReads).toEqual([]);
    expect(statements.filter((s) => /join "bill_payees"/i.test(s))).toHaveLength(3);
  });
});
