import { describe, expect, it } from "vitest";
import { screeningReportDraft } from "~/domain/sanctions/report";

/** The report a confirmed sanctions match calls for (31 CFR 501.603 / 501.601), drafted for staff. */
const base = {
  party: "Dmitry Petrovskiy",
  listed_name: "PETROVSKY, Dmitri Sergeyevich",
  source_name: "Specially Designated Nationals (SDN) list",
  uid: "10002",
};

describe("the report drafted for a confirmed match", () => {
  it("a stopped payment is blocked property, due 10 business days on (weekends and holidays skipped)", () => {
    const draft = screeningReportDraft({
      ...base,
      confirmed_on: "2026-12-18",
      subject: {
        type: "payment",
        kind: "International",
        amount_cents: 125_000,
        fee_cents: 2_500,
        reference: "Invoice 7",
        from_account: "Checking •••• 1234",
        to: "Dmitry Petrovskiy, Bank of Somewhere",
      },
    });
    // Friday 18 December 2026: Christmas Day (Friday 25th) and the weekends are not business days.
    expect(draft).toMatchObject({ kind: "blocked_property", due_by: "2027-01-05" });
    expect(draft.rule).toContain("31 CFR 501.603");
    expect(draft.list_entry).toBe("Specially Designated Nationals (SDN) list, entry 10002");
    expect(draft.facts).toEqual([
      'International payment of $1,250.00 (fee $25.00) to Dmitry Petrovskiy, Bank of Somewhere, reference "Invoice 7", stopped: never sent.',
      "$1,275.00 stays held in Checking •••• 1234, which is frozen.",
    ]);
  });

  it("a member's frozen accounts are blocked property, with each balance and the total", () => {
    const draft = screeningReportDraft({
      ...base,
      confirmed_on: "2026-12-01",
      subject: {
        type: "member",
        accounts: [
          { label: "Checking •••• 1234", balance_cents: 5_000 },
          { label: "Savings •••• 5678", balance_cents: 120_000 },
        ],
      },
    });
    expect(draft.due_by).toBe("2026-12-15");
    expect(draft.facts).toEqual([
      "Checking •••• 1234 ($50.00), Savings •••• 5678 ($1,200.00) frozen: $1,250.00 in all.",
    ]);
  });

  it("a declined application blocked nothing: a record, no due date", () => {
    const draft = screeningReportDraft({
      ...base,
      confirmed_on: "2026-12-01",
      subject: { type: "application", applied_on: "2026-11-30" },
    });
    expect(draft).toMatchObject({ kind: "declined_application", due_by: null });
    expect(draft.facts[0]).toContain("no account was opened");
  });
});
