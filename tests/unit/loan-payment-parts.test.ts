import { describe, expect, it } from "vitest";
import { paymentParts } from "~/domain/loans/servicing";
import { lineActivityDetail } from "~/domain/loans/line-of-credit";

// One sentence for where a payment went, read the same on the loan and line pages, the staff
// pages and the member's notice (issue 34: one concept in one place).
describe("where a payment went", () => {
  it("names the parts in the order a payment is applied: fees, interest, principal", () => {
    expect(paymentParts({ fees_cents: 100, interest_cents: 250, principal_cents: 4650 })).toBe(
      "$1.00 fees, $2.50 interest, $46.50 principal",
    );
  });

  it("reads a line's draw by where it went and a payment by where it came from and its parts", () => {
    const parts = { account_name: "Checking", fees_cents: 0, interest_cents: 120, principal_cents: 880 };
    expect(lineActivityDetail({ kind: "draw", ...parts })).toBe("to Checking");
    expect(lineActivityDetail({ kind: "payment", ...parts })).toBe(
      "from Checking: $0.00 fees, $1.20 interest, $8.80 principal",
    );
    expect(lineActivityDetail({ kind: "autopay", ...parts })).toBe(
      "from Checking: $0.00 fees, $1.20 interest, $8.80 principal",
    );
  });
});
