import { describe, expect, it } from "vitest";
import { shownItem, type LedgerItem } from "~/domain/member-transactions";
import { formatBusinessDate } from "~/domain/calendar-date";
import { asSentence } from "~/domain/plain-text";

/**
 * How a member reads a line of their history (docs/product.md#transaction-history), decided in one
 * place for the dashboard, the history page and its CSV: the status's words and whether a time
 * stands beside the date.
 */
const ZONE = "America/New_York";
/** 11:31 PM in New York on Nov 28, 2026 (04:31 UTC on Nov 29). */
const LATE_EVENING = new Date("2026-11-29T04:31:00Z");

function item(facts: Partial<LedgerItem>): LedgerItem {
  return {
    kind: "transfer",
    status: "posted",
    amount_cents: -1_000,
    effective_date: "2026-11-28",
    created_at: LATE_EVENING,
    payment_status: null,
    bill_payment_status: null,
    ...facts,
  };
}

const words = (facts: Partial<LedgerItem>) => {
  const shown = shownItem(item(facts), ZONE);
  return `${shown.label} ${shown.badge}`;
};

describe("the status a member reads", () => {
  it("a bill payment: Scheduled while held, Completed once paid, and as Bill Pay says once its hold is released", () => {
    expect(words({ kind: "bill_payment", status: "pending" })).toBe("Scheduled pending");
    expect(words({ kind: "bill_payment", status: "posted" })).toBe("Completed posted");
    expect(words({ kind: "bill_payment", status: "failed", bill_payment_status: "cancelled" })).toBe(
      "Cancelled reversed",
    );
    expect(words({ kind: "bill_payment", status: "failed", bill_payment_status: "failed" })).toBe("Failed failed");
    // No payment points at the released hold any more: an edit replaced it.
    expect(words({ kind: "bill_payment", status: "failed", bill_payment_status: null })).toBe("Changed reversed");
    // Staff corrected a paid one: the ledger's word.
    expect(words({ kind: "bill_payment", status: "reversed" })).toBe("Reversed reversed");
  });

  it("a card purchase given back is Released; a mobile deposit and its holds have their own words", () => {
    expect(words({ kind: "card_payment", status: "failed" })).toBe("Released reversed");
    expect(words({ kind: "card_payment", status: "pending" })).toBe("Pending pending");
    expect(words({ kind: "mobile_deposit", status: "pending", amount_cents: 5_000 })).toBe("Pending review pending");
    expect(words({ kind: "mobile_deposit", status: "failed", amount_cents: 5_000 })).toBe("Rejected failed");
    expect(words({ kind: "mobile_deposit", status: "posted", amount_cents: 5_000 })).toBe("Completed posted");
    expect(words({ kind: "mobile_deposit", status: "pending", amount_cents: -5_000 })).toBe("On hold pending");
    expect(words({ kind: "mobile_deposit", status: "failed", amount_cents: -5_000 })).toBe("Released reversed");
  });

  it("a share-secured loan's hold on the pledged savings is Held for your loan, then Released", () => {
    expect(words({ kind: "share_pledge", status: "pending", amount_cents: -5_000 })).toBe("Held for your loan pending");
    expect(words({ kind: "share_pledge", status: "failed", amount_cents: -5_000 })).toBe("Released reversed");
  });

  it("a payment to another bank reads where the payment stands, whatever its hold's status", () => {
    expect(words({ kind: "ach_out", status: "posted", payment_status: "sent" })).toBe("Sent posted");
    expect(words({ kind: "ach_out", status: "failed", payment_status: "cancelled" })).toBe("Cancelled reversed");
    expect(words({ kind: "ach_out", status: "posted", payment_status: "returned" })).toBe("Returned failed");
  });

  it("anything else reads the ledger's status in words", () => {
    expect(words({ status: "posted" })).toBe("Completed posted");
    expect(words({ status: "pending" })).toBe("Pending pending");
    expect(words({ status: "failed" })).toBe("Failed failed");
    expect(words({ status: "reversed" })).toBe("Reversed reversed");
  });
});

describe("the date and time a member reads", () => {
  it("a time stands beside the date only when the item was written on that day, in the institution's time zone", () => {
    // Written at 11:31 PM New York time on Nov 28: that is its day there (Nov 29 in UTC).
    expect(shownItem(item({ effective_date: "2026-11-28" }), ZONE)).toMatchObject({
      date: "2026-11-28",
      time: LATE_EVENING,
    });
    expect(shownItem(item({ effective_date: "2026-11-28" }), "UTC")).toMatchObject({ date: "2026-11-28", time: null });
  });

  it("a bill payment scheduled on Nov 28 for Jan 15 reads Jan 15 alone, scheduled, paid or cancelled", () => {
    for (const status of ["pending", "posted", "failed"] as const) {
      expect(
        shownItem(
          item({ kind: "bill_payment", status, effective_date: "2027-01-15", bill_payment_status: "cancelled" }),
          ZONE,
        ),
      ).toMatchObject({ date: "2027-01-15", time: null });
    }
  });

  it("a posting dated an earlier day (back-dated) shows its date alone", () => {
    expect(shownItem(item({ effective_date: "2026-11-27" }), ZONE).time).toBeNull();
  });
});

describe("words in the member's messages", () => {
  it("a business date as the pages write it, whatever the server's time zone", () => {
    expect(formatBusinessDate("2026-11-30")).toBe("Nov 30, 2026");
    expect(formatBusinessDate("2027-01-01")).toBe("Jan 1, 2027");
    expect(formatBusinessDate("2026-12-31")).toBe("Dec 31, 2026");
  });

  it("a reason typed by staff ends as a sentence, once", () => {
    expect(asSentence("The check is not signed on the back")).toBe("The check is not signed on the back.");
    expect(asSentence(" Unreadable. ")).toBe("Unreadable.");
    expect(asSentence("Wrong payee!")).toBe("Wrong payee!");
    expect(asSentence("Is this yours?")).toBe("Is this yours?");
    expect(asSentence('Marked "void."')).toBe('Marked "void."');
    expect(asSentence("See the memo (front)")).toBe("See the memo (front).");
    expect(asSentence("Photo too dark (see rules.)")).toBe("Photo too dark (see rules.)");
    expect(asSentence("")).toBe("");
  });
});
