import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  ALERT_MESSAGES,
  addAlertSchema,
  alertMet,
  alertsMet,
  describeAlert,
  editAlertSchema,
  type PostingFacts,
  type WatchedAlert,
} from "~/domain/alerts";

/** The alert rules (docs/product.md#alerts): which postings meet which alert, and the form. */

const ACCOUNT = 7;
const OTHER = 9;

function alert(kind: WatchedAlert["kind"], amount_cents: number | null = null): WatchedAlert {
  return { id: 1, member_id: "m", account_id: ACCOUNT, kind, amount_cents };
}

function posting(
  moved: number,
  options: Partial<Pick<PostingFacts, "event" | "kind" | "status">> & { before?: number; after?: number } = {},
): PostingFacts {
  const before = options.before ?? 1_000_00;
  return {
    event: options.event ?? "new",
    kind: options.kind ?? "transfer",
    status: options.status ?? "posted",
    entries: [
      { account_id: ACCOUNT, amount_cents: moved },
      { account_id: OTHER, amount_cents: -moved },
    ],
    available_before: new Map([[ACCOUNT, before]]),
    available_after: new Map([[ACCOUNT, options.after ?? before + moved]]),
  };
}

describe("balance below", () => {
  it("is met exactly when the available balance goes from at or above the amount to below it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_00 }),
        fc.integer({ min: -10_000_00, max: 10_000_00 }),
        fc.integer({ min: -10_000_00, max: 10_000_00 }),
        (threshold, before, after) => {
          const met = alertMet(alert("balance_below", threshold), posting(after - before, { before, after }));
          expect(met).toBe(before >= threshold && after < threshold);
        },
      ),
    );
  });
});

describe("transaction above", () => {
  it("is met by a new transaction moving more than the amount either way, not by a settle or a reversal", () => {
    const a = alert("transaction_above", 100_00);
    expect(alertMet(a, posting(-100_00))).toBe(false);
    expect(alertMet(a, posting(-100_01))).toBe(true);
    expect(alertMet(a, posting(100_01))).toBe(true);
    expect(alertMet(a, posting(-500_00, { event: "settled" }))).toBe(false);
    expect(alertMet(a, posting(500_00, { event: "reversal" }))).toBe(false);
  });
});

describe("deposit, payments", () => {
  it("deposit posted: a credit from outside, posted or a held one settled; not a hold, a transfer or a debit", () => {
    const a = alert("deposit_posted");
    expect(alertMet(a, posting(10_00, { kind: "ach_in" }))).toBe(true);
    expect(alertMet(a, posting(10_00, { kind: "deposit" }))).toBe(true);
    expect(alertMet(a, posting(10_00, { kind: "mobile_deposit", status: "pending" }))).toBe(false);
    expect(alertMet(a, posting(10_00, { kind: "mobile_deposit", event: "settled" }))).toBe(true);
    expect(alertMet(a, posting(10_00, { kind: "transfer" }))).toBe(false);
    expect(alertMet(a, posting(-10_00, { kind: "ach_in" }))).toBe(false);
  });

  it("payment sent: a new payment taking money, held or posted; payment returned: its reversal", () => {
    const sent = alert("payment_sent");
    const returned = alert("payment_returned");
    for (const kind of ["ach_out", "wire_out", "bill_payment", "member_transfer"] as const) {
      expect(alertMet(sent, posting(-10_00, { kind, status: "pending" }))).toBe(true);
      expect(alertMet(returned, posting(10_00, { kind, event: "reversal" }))).toBe(true);
    }
    expect(alertMet(sent, posting(-10_00, { kind: "card_payment" }))).toBe(false);
    expect(alertMet(sent, posting(-10_00, { kind: "ach_out", event: "settled" }))).toBe(false);
    expect(alertMet(sent, posting(10_00, { kind: "member_transfer" }))).toBe(false); // received, not sent
    expect(alertMet(returned, posting(-10_00, { kind: "ach_out", event: "reversal" }))).toBe(false);
  });

  it("an alert on another account, or a card decline alert, is never met by a posting", () => {
    expect(alertMet({ ...alert("transaction_above", 1), account_id: 99 }, posting(-10_00))).toBe(false);
    expect(alertMet(alert("card_declined"), posting(-10_00, { kind: "card_payment" }))).toBe(false);
  });

  it("alertsMet answers each met alert once with the amount moved and the balance after", () => {
    const met = alertsMet(
      [alert("transaction_above", 1_00), alert("deposit_posted")],
      posting(-5_00, { after: 95_00 }),
    );
    expect(met).toEqual([{ alert: alert("transaction_above", 1_00), amount_cents: -5_00, available_cents: 95_00 }]);
  });
});

describe("the alerts form", () => {
  it("takes dollars and stores integer cents for the threshold kinds", () => {
    expect(addAlertSchema.parse({ account_id: "12", kind: "balance_below", amount: "$1,250.5" })).toEqual({
      account_id: 12,
      kind: "balance_below",
      amount_cents: 1_250_50,
    });
    expect(addAlertSchema.parse({ account_id: "12", kind: "deposit_posted", amount: "abc" })).toEqual({
      account_id: 12,
      kind: "deposit_posted",
      amount_cents: null,
    });
  });

  it("says what is wrong next to the field", () => {
    const messages = (input: Record<string, string>) => {
      const parsed = addAlertSchema.safeParse(input);
      return parsed.success ? {} : Object.fromEntries(parsed.error.issues.map((i) => [i.path.join("."), i.message]));
    };
    expect(messages({ account_id: "", kind: "balance_below", amount: "10" })).toEqual({
      account_id: ALERT_MESSAGES.account,
    });
    expect(messages({ account_id: "3", kind: "nonsense", amount: "10" })).toEqual({ kind: ALERT_MESSAGES.kind });
    expect(messages({ account_id: "3", kind: "balance_below", amount: "" })).toEqual({
      amount: ALERT_MESSAGES.amount_missing,
    });
    expect(messages({ account_id: "3", kind: "transaction_above", amount: "1.234" })).toEqual({
      amount: ALERT_MESSAGES.amount_invalid,
    });
    expect(messages({ account_id: "3", kind: "transaction_above", amount: "0" })).toEqual({
      amount: ALERT_MESSAGES.amount_invalid,
    });
    expect(messages({ account_id: "3", kind: "transaction_above", amount: "1000000000" })).toEqual({
      amount: ALERT_MESSAGES.amount_too_large,
    });
    expect(editAlertSchema.safeParse({ alert_id: "4", amount: "-5" }).success).toBe(false);
  });

  it("names an alert as the list shows it", () => {
    expect(describeAlert({ kind: "balance_below", amount_cents: 100_00 })).toBe("Balance below $100.00");
    expect(describeAlert({ kind: "payment_returned", amount_cents: null })).toBe("Payment returned");
  });
});
