import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  REFUSAL_MESSAGES,
  ledgerRefusal,
  refusalMessage,
  type LedgerRefusal,
  type RefusalCode,
} from "~/domain/refusals";
import {
  AMOUNT_CENTS_MAX,
  ENTRIES_PER_TRANSACTION_MAX,
  applyChanges,
  businessDate,
  checkAccountOpen,
  checkEntries,
  checkReversible,
  monthOf,
  nextTransferCount,
  planNewTransaction,
  planRelease,
  planSettle,
  reversedEntries,
  spendableCents,
  toCents,
  transferEntries,
  type AccountState,
  type EntryInput,
} from "~/domain/ledger-rules";

function account(id: number, overrides: Partial<AccountState> = {}): AccountState {
  return {
    id,
    owner: "member",
    type: "checking",
    status: "active",
    posted_cents: 0,
    held_cents: 0,
    overdraft_limit_cents: 0,
    transfer_count: 0,
    transfer_count_month: null,
    ...overrides,
  };
}

function accounts(...list: AccountState[]): Map<number, AccountState> {
  return new Map(list.map((a) => [a.id, a]));
}

/** The refusal a rule answered with (a value, `ok: false`); fails when the rule let it through. */
function refusal(run: () => { ok: boolean } | null): LedgerRefusal {
  const answer = run();
  if (answer === null || answer.ok) throw new Error("expected a refusal");
  return answer as LedgerRefusal;
}

/** The changes of a plan the test expects to pass. */
function changesOf(answer: ReturnType<typeof planNewTransaction>) {
  if (!answer.ok) throw new Error(`expected the plan to pass, but it was refused: ${answer.code}`);
  return answer.changes;
}

const LIMIT = 6;
const plan = (
  request: {
    kind?: Parameters<typeof planNewTransaction>[0]["kind"];
    status?: "posted" | "pending";
    entries: EntryInput[];
    effective_date?: string;
  },
  map: Map<number, AccountState>,
) =>
  planNewTransaction(
    {
      kind: request.kind ?? "transfer",
      status: request.status ?? "posted",
      entries: request.entries,
      effective_date: request.effective_date ?? "2030-01-15",
    },
    map,
    LIMIT,
  );

describe("refusal messages", () => {
  it("every code has its member-readable message (the documented wording where there is one)", () => {
    const expected: Record<RefusalCode, string> = {
      invalid_amount: "Please enter a valid amount",
      insufficient_funds: "Insufficient funds",
      same_account: "Cannot transfer to the same account",
      account_not_found: "Account not found",
      account_frozen: "Transactions on this account are blocked for security reasons.",
      account_closed: "This account is closed.",
      transfer_limit: "You have reached the limit of 6 transfers out of savings this month.",
      too_few_entries: "A transaction needs at least two entries.",
      too_many_entries: "A transaction has at most 50 entries.",
      unbalanced: "The entries of a transaction must sum to zero.",
      transaction_not_found: "Transaction not found",
      not_pending: "This transaction is no longer pending.",
      not_posted: "Only a posted transaction can be reversed.",
      already_reversed: "This transaction has already been reversed.",
      reversal_not_reversible: "A reversal cannot itself be reversed.",
      loan_disbursement_not_reversible: "A loan's disbursement cannot be reversed here: the loan is booked.",
      loan_servicing_not_reversible:
        "A loan's interest, payment or fee cannot be reversed here: the loan's balance follows from it. Correct it on the loan's page (Loans, in the back office).",
      batch_empty: "An import batch needs at least one transaction.",
      batch_too_large: "An import batch holds at most 10000 transactions.",
      balance_not_zero: "An account can be closed only with a zero balance and nothing pending.",
      overdraft_in_use: "The overdraft limit cannot be set below what the account already uses.",
      // The transfer service's, in the same table.
      not_your_account: "Please choose one of your accounts",
      own_account: "Cannot transfer to your own account",
      recipient_not_found: "Recipient not found",
      recipient_unavailable: "This recipient cannot receive transfers right now",
      linked_account_unavailable: "Please choose one of your verified linked accounts",
      rate_limited: "Too many lookups. Please wait a few minutes and try again.",
      codes_rate_limited: "Too many codes requested. Please wait a few minutes and try again.",
      denied: "All transactions temporarily suspended",
      over_transfer_max: "The most you can send in one of your transfers to other banks is $25,000.00",
      over_daily_limit:
        "This transfer would pass your daily limit of $10,000.00 for transfers to other members ($1,000.00 left today)",
      no_rate: "Transfers in this currency are not available right now",
      otp_missing: "Please enter OTP",
      otp_invalid: "Invalid OTP",
      otp_locked:
        "Too many wrong codes. For your security, transfers and card services that need a code are locked for 15 minutes. We have emailed you.",
      // A card purchase's.
      card_not_found: "Card not found",
      card_locked: "The card is locked",
      card_blocked: "The card was reported lost or stolen and no longer works",
      card_expired: "The card has expired",
      over_card_daily_limit: "The purchase would pass the card's daily limit of $1,000.00 ($250.00 left today)",
      key_reused:
        "Your earlier transfer from this form went through (reference MU00000042) with a different amount or recipient, so this one was not sent. Check your recent transactions, then send it again if you still need to.",
    };
    expect(Object.keys(REFUSAL_MESSAGES).sort()).toEqual(Object.keys(expected).sort());
    const details: Partial<Record<RefusalCode, Record<string, string | number>>> = {
      over_transfer_max: { what: "transfers to other banks", max: "$25,000.00" },
      over_daily_limit: { max: "$10,000.00", what: "transfers to other members", left: "$1,000.00" },
      key_reused: { reference: "MU00000042" },
      over_card_daily_limit: { max: "$1,000.00", left: "$250.00" },
      otp_locked: { wait: "15 minutes" },
    };
    const limits: Partial<Record<RefusalCode, number>> = {
      transfer_limit: 6,
      too_many_entries: 50,
      batch_too_large: 10000,
    };
    for (const code of Object.keys(expected) as RefusalCode[]) {
      if (details[code]) {
        expect(refusalMessage(code, details[code])).toBe(expected[code]);
        continue;
      }
      // A refusal is a value: the code, its message from the one table, and what it is about.
      const refused = ledgerRefusal(code, { limit: limits[code], subject_id: 7 });
      expect(refused.message).toBe(expected[code]);
      expect(refused).toMatchObject({ ok: false, code, subject_id: 7 });
    }
    expect(ledgerRefusal("transfer_limit", { limit: 3 }).message).toBe(
      "You have reached the limit of 3 transfers out of savings this month.",
    );
  });
});

describe("entries", () => {
  const a = 1;
  const b = 2;
  it("accept two or more whole, non-zero amounts, one per account, summing to zero", () => {
    expect(
      checkEntries([
        { account_id: a, amount_cents: -1 },
        { account_id: b, amount_cents: 1 },
      ]),
    ).toBeNull();
    expect(
      checkEntries([
        { account_id: a, amount_cents: -3 },
        { account_id: b, amount_cents: 1 },
        { account_id: 3, amount_cents: 2 },
      ]),
    ).toBeNull();
  });
  it("refuse each malformed shape with its code", () => {
    const cases: Array<[EntryInput[], RefusalCode]> = [
      [[], "too_few_entries"],
      [[{ account_id: a, amount_cents: 0 }], "too_few_entries"],
      [
        [
          { account_id: a, amount_cents: 0 },
          { account_id: b, amount_cents: 0 },
        ],
        "invalid_amount",
      ],
      [
        [
          { account_id: a, amount_cents: -0.5 },
          { account_id: b, amount_cents: 0.5 },
        ],
        "invalid_amount",
      ],
      [
        [
          { account_id: a, amount_cents: Number.NaN },
          { account_id: b, amount_cents: 1 },
        ],
        "invalid_amount",
      ],
      [
        [
          { account_id: a, amount_cents: -(AMOUNT_CENTS_MAX + 1) },
          { account_id: b, amount_cents: AMOUNT_CENTS_MAX + 1 },
        ],
        "invalid_amount",
      ],
      [
        [
          { account_id: a, amount_cents: -1 },
          { account_id: a, amount_cents: 1 },
        ],
        "same_account",
      ],
      [
        [
          { account_id: a, amount_cents: -2 },
          { account_id: b, amount_cents: 1 },
        ],
        "unbalanced",
      ],
      [
        Array.from({ length: ENTRIES_PER_TRANSACTION_MAX + 1 }, (_, i) => ({
          account_id: i + 1,
          amount_cents: i === 0 ? -ENTRIES_PER_TRANSACTION_MAX : 1,
        })),
        "too_many_entries",
      ],
    ];
    for (const [entries, code] of cases) expect(refusal(() => checkEntries(entries)).code).toBe(code);
    expect(() =>
      checkEntries([
        { account_id: 0, amount_cents: -1 },
        { account_id: b, amount_cents: 1 },
      ]),
    ).toThrow(/assertion/);
  });
  it("a transfer is a positive amount between two different accounts", () => {
    expect(transferEntries(1, 2, 5)).toEqual([
      { account_id: 1, amount_cents: -5 },
      { account_id: 2, amount_cents: 5 },
    ]);
    // Building one of a bad amount or to the same account is the caller's bug (member input is
    // refused before); the same entries written by hand are refused when posted.
    for (const bad of [0, -1, 1.5, Number.POSITIVE_INFINITY, AMOUNT_CENTS_MAX + 1])
      expect(() => transferEntries(1, 2, bad)).toThrow(/assertion/);
    expect(() => transferEntries(1, 1, 5)).toThrow(/assertion/);
    for (const bad of [0, 1.5, Number.POSITIVE_INFINITY, AMOUNT_CENTS_MAX + 1])
      expect(
        refusal(() =>
          checkEntries([
            { account_id: 1, amount_cents: -bad },
            { account_id: 2, amount_cents: bad },
          ]),
        ).code,
      ).toBe("invalid_amount");
    expect(
      refusal(() =>
        checkEntries([
          { account_id: 1, amount_cents: -5 },
          { account_id: 1, amount_cents: 5 },
        ]),
      ).code,
    ).toBe("same_account");
  });
  it("random balanced entries always pass, and any change of one amount unbalances them", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 100 }),
        (credits, nudge) => {
          const entries: EntryInput[] = credits.map((c, i) => ({ account_id: i + 2, amount_cents: c }));
          entries.push({ account_id: 1, amount_cents: -credits.reduce((s, c) => s + c, 0) });
          expect(checkEntries(entries)).toBeNull();
          entries[0] = { ...entries[0]!, amount_cents: entries[0]!.amount_cents + nudge };
          expect(refusal(() => checkEntries(entries)).code).toBe("unbalanced");
        },
      ),
    );
  });
});

describe("posting and holding", () => {
  it("a posting changes current balances; a hold changes only the held debits", () => {
    const map = accounts(account(1, { posted_cents: 1_000 }), account(2));
    const entries = transferEntries(1, 2, 400);
    expect(changesOf(plan({ entries }, map))).toEqual([
      { account_id: 1, posted_delta_cents: -400, held_delta_cents: 0 },
      { account_id: 2, posted_delta_cents: 400, held_delta_cents: 0 },
    ]);
    // A pending credit changes nothing: money on its way in is not available.
    expect(changesOf(plan({ entries, status: "pending" }, map))).toEqual([
      { account_id: 1, posted_delta_cents: 0, held_delta_cents: 400 },
    ]);
  });

  it("refuses a member debit beyond current - held + overdraft: Insufficient funds", () => {
    const entries = transferEntries(1, 2, 1_000);
    expect(plan({ entries }, accounts(account(1, { posted_cents: 1_000 }), account(2))).ok).toBe(true);
    const short = refusal(() => plan({ entries }, accounts(account(1, { posted_cents: 999 }), account(2))));
    expect(short).toMatchObject({ code: "insufficient_funds", message: "Insufficient funds", subject_id: 1 });
    expect(
      refusal(() => plan({ entries }, accounts(account(1, { posted_cents: 1_500, held_cents: 501 }), account(2)))).code,
    ).toBe("insufficient_funds");
    expect(
      refusal(() => plan({ entries, status: "pending" }, accounts(account(1, { posted_cents: 999 }), account(2)))).code,
    ).toBe("insufficient_funds");
    expect(
      plan({ entries }, accounts(account(1, { posted_cents: 600, overdraft_limit_cents: 400 }), account(2))).ok,
    ).toBe(true);
    expect(
      refusal(() =>
        plan({ entries }, accounts(account(1, { posted_cents: 600, overdraft_limit_cents: 399 }), account(2))),
      ).code,
    ).toBe("insufficient_funds");
  });

  it("credits a frozen account the dividend it earned, and nothing else; a closed one nothing", () => {
    const dividends = account(2, { owner: "institution", type: "dividends_paid" });
    const dividend = (status: AccountState["status"]) =>
      plan(
        { entries: transferEntries(2, 1, 717), kind: "interest" },
        accounts(account(1, { status, type: "savings" }), dividends),
      );
    expect(changesOf(dividend("frozen"))).toEqual([
      { account_id: 2, posted_delta_cents: -717, held_delta_cents: 0 },
      { account_id: 1, posted_delta_cents: 717, held_delta_cents: 0 },
    ]);
    expect(refusal(() => dividend("closed")).code).toBe("account_closed");
    // Taking interest back out, or any other credit, is still blocked.
    const clawback = refusal(() =>
      plan(
        { entries: transferEntries(1, 2, 5), kind: "interest" },
        accounts(account(1, { status: "frozen", posted_cents: 5 }), dividends),
      ),
    );
    expect(clawback).toMatchObject({ code: "account_frozen", subject_id: 1 });
    for (const kind of ["deposit", "adjustment", "ach_in", "transfer"] as const) {
      expect(
        refusal(() =>
          plan({ entries: transferEntries(2, 1, 5), kind }, accounts(account(1, { status: "frozen" }), dividends)),
        ).code,
      ).toBe("account_frozen");
    }
  });

  it("lets institution accounts go below zero", () => {
    const map = accounts(account(1, { owner: "institution", type: "cash" }), account(2));
    expect(changesOf(plan({ entries: transferEntries(1, 2, 10_000), kind: "deposit" }, map))).toHaveLength(2);
  });

  it("refuses frozen and closed accounts on either side, before looking at the money", () => {
    for (const [status, code] of [
      ["frozen", "account_frozen"],
      ["closed", "account_closed"],
    ] as const) {
      const debit = refusal(() =>
        plan({ entries: transferEntries(1, 2, 5_000) }, accounts(account(1, { status }), account(2))),
      );
      expect(debit).toMatchObject({ code, subject_id: 1 });
      const credit = refusal(() =>
        plan({ entries: transferEntries(2, 1, 5) }, accounts(account(1, { status }), account(2, { posted_cents: 5 }))),
      );
      expect(credit).toMatchObject({ code, subject_id: 1 });
    }
    expect(checkAccountOpen(account(1))).toBeNull();
    expect(
      refusal(() => plan({ entries: transferEntries(1, 3, 5) }, accounts(account(1, { posted_cents: 5 }), account(2))))
        .code,
    ).toBe("account_not_found");
  });
});

describe("savings transfer count", () => {
  const savings = (overrides: Partial<AccountState> = {}) =>
    account(1, { type: "savings", posted_cents: 1_000_000, ...overrides });
  it("counts member transfers out of savings, up to the limit, naming it", () => {
    const changes = changesOf(
      plan(
        { entries: transferEntries(1, 2, 100) },
        accounts(savings({ transfer_count: 5, transfer_count_month: "2030-01" }), account(2)),
      ),
    );
    expect(changes[0]!.transfer_count).toEqual({ count: 6, month: "2030-01" });
    const at_limit = refusal(() =>
      plan(
        { entries: transferEntries(1, 2, 100) },
        accounts(savings({ transfer_count: 6, transfer_count_month: "2030-01" }), account(2)),
      ),
    );
    expect(at_limit).toMatchObject({
      code: "transfer_limit",
      message: "You have reached the limit of 6 transfers out of savings this month.",
    });
    // Holds count too (ACH, bill pay): the transfer is made when it is asked for.
    expect(
      refusal(() =>
        plan(
          { entries: transferEntries(1, 2, 100), kind: "ach_out", status: "pending" },
          accounts(savings({ transfer_count: 6, transfer_count_month: "2030-01" }), account(2)),
        ),
      ).code,
    ).toBe("transfer_limit");
  });
  it("does not count money in, checking, or the institution's postings", () => {
    const full = { transfer_count: 6, transfer_count_month: "2030-01" };
    expect(
      changesOf(
        plan({ entries: transferEntries(2, 1, 100) }, accounts(savings(full), account(2, { posted_cents: 100 }))),
      )[0]!.transfer_count,
    ).toBeUndefined();
    expect(
      changesOf(
        plan({ entries: transferEntries(1, 2, 100) }, accounts(account(1, { posted_cents: 100, ...full }), account(2))),
      )[0]!.transfer_count,
    ).toBeUndefined();
    for (const kind of ["fee", "adjustment", "withdrawal", "interest"] as const) {
      expect(
        changesOf(plan({ entries: transferEntries(1, 2, 100), kind }, accounts(savings(full), account(2))))[0]!
          .transfer_count,
      ).toBeUndefined();
    }
  });
  it("starts again each calendar month; a back-dated transfer counts in the latest month", () => {
    expect(
      nextTransferCount(savings({ transfer_count: 6, transfer_count_month: "2030-01" }), "2030-02-01", LIMIT),
    ).toEqual({ ok: true, count: 1, month: "2030-02" });
    expect(
      nextTransferCount(savings({ transfer_count: 2, transfer_count_month: "2030-02" }), "2030-01-31", LIMIT),
    ).toEqual({ ok: true, count: 3, month: "2030-02" });
    expect(nextTransferCount(savings(), "2030-01-31", LIMIT)).toEqual({ ok: true, count: 1, month: "2030-01" });
    expect(refusal(() => nextTransferCount(savings(), "2030-01-31", 0)).message).toBe(
      "You have reached the limit of 0 transfers out of savings this month.",
    );
    expect(monthOf("2030-12-31")).toBe("2030-12");
  });
  it("checks the limit before the money", () => {
    const poor = savings({ posted_cents: 0, transfer_count: 6, transfer_count_month: "2030-01" });
    expect(refusal(() => plan({ entries: transferEntries(1, 2, 100) }, accounts(poor, account(2)))).code).toBe(
      "transfer_limit",
    );
  });
});

describe("settling, releasing, reversing", () => {
  const hold = transferEntries(1, 2, 300);
  it("settling moves held debits to current and credits the other side", () => {
    expect(planSettle(hold, accounts(account(1, { posted_cents: 1_000, held_cents: 300 }), account(2)))).toEqual({
      ok: true,
      changes: [
        { account_id: 1, posted_delta_cents: -300, held_delta_cents: -300 },
        { account_id: 2, posted_delta_cents: 300, held_delta_cents: 0 },
      ],
    });
    expect(refusal(() => planSettle(hold, accounts(account(1, { status: "frozen" }), account(2)))).code).toBe(
      "account_frozen",
    );
    expect(refusal(() => planSettle(hold, accounts(account(1), account(2, { status: "closed" })))).code).toBe(
      "account_closed",
    );
  });
  it("settles a card purchase authorized before a freeze, and no other hold of a frozen account; nothing of a closed one", () => {
    const frozen = () => accounts(account(1, { status: "frozen", posted_cents: 1_000, held_cents: 300 }), account(2));
    expect(planSettle(hold, frozen(), "card_payment")).toMatchObject({ ok: true });
    for (const kind of ["bill_payment", "ach_out", "withdrawal", "import"] as const) {
      expect(refusal(() => planSettle(hold, frozen(), kind)).code, kind).toBe("account_frozen");
    }
    expect(
      refusal(() =>
        planSettle(
          hold,
          accounts(account(1, { status: "closed", posted_cents: 1_000, held_cents: 300 }), account(2)),
          "card_payment",
        ),
      ).code,
    ).toBe("account_closed");
    // A new card purchase on a frozen account is still refused: only the settlement of one held before.
    expect(
      checkAccountOpen(account(1, { status: "frozen" }), { kind: "card_payment", amount_cents: -300 }),
    ).toMatchObject({ code: "account_frozen" });
  });
  it("releasing gives held debits back and needs no open account", () => {
    expect(planRelease(hold)).toEqual([{ account_id: 1, posted_delta_cents: 0, held_delta_cents: -300 }]);
  });
  it("only a posted, not yet reversed, non-reversal transaction can be reversed", () => {
    expect(checkReversible({ kind: "transfer", status: "posted" })).toBeNull();
    expect(refusal(() => checkReversible({ kind: "transfer", status: "reversed" })).code).toBe("already_reversed");
    expect(refusal(() => checkReversible({ kind: "transfer", status: "pending" })).code).toBe("not_posted");
    expect(refusal(() => checkReversible({ kind: "transfer", status: "failed" })).code).toBe("not_posted");
    expect(refusal(() => checkReversible({ kind: "reversal", status: "posted" })).code).toBe("reversal_not_reversible");
    expect(refusal(() => checkReversible({ kind: "loan_disbursement", status: "posted" })).code).toBe(
      "loan_disbursement_not_reversible",
    );
    for (const kind of ["loan_interest", "loan_payment", "loan_fee"])
      expect(refusal(() => checkReversible({ kind, status: "posted" })).code).toBe("loan_servicing_not_reversible");
    expect(reversedEntries(hold)).toEqual([
      { account_id: 1, amount_cents: 300 },
      { account_id: 2, amount_cents: -300 },
    ]);
  });
  it("a reversal obeys the same rules as any posting (no member account below zero)", () => {
    const map = accounts(account(1, { posted_cents: 700 }), account(2, { posted_cents: 100 }));
    expect(refusal(() => plan({ entries: reversedEntries(hold), kind: "reversal" }, map)).code).toBe(
      "insufficient_funds",
    );
  });
});

describe("numbers", () => {
  it("normalizes database integers from either driver and refuses anything inexact", () => {
    expect(toCents("123")).toBe(123);
    expect(toCents("-5")).toBe(-5);
    expect(toCents(7n)).toBe(7);
    expect(toCents(8)).toBe(8);
    for (const bad of ["1.5", "", "9007199254740993", 2n ** 60n, 0.5, null, undefined, "1e3"])
      expect(() => toCents(bad)).toThrow(/assertion/);
  });
  it("applying changes asserts the invariant before anything is written", () => {
    const map = accounts(account(1, { posted_cents: 100 }));
    applyChanges(map, [{ account_id: 1, posted_delta_cents: -100, held_delta_cents: 0 }]);
    expect(spendableCents(map.get(1)!)).toBe(0);
    expect(() => applyChanges(map, [{ account_id: 1, posted_delta_cents: -1, held_delta_cents: 0 }])).toThrow(
      /below its limit/,
    );
    expect(() => applyChanges(map, [{ account_id: 9, posted_delta_cents: 1, held_delta_cents: 0 }])).toThrow(
      /unlocked/,
    );
  });
});

describe("business date", () => {
  it("is the date in the institution's time zone, not in UTC", () => {
    // 9 pm in New York on October 31 is already November 1 in UTC.
    const evening = new Date("2026-11-01T01:00:00Z");
    expect(businessDate("America/New_York", evening)).toBe("2026-10-31");
    expect(businessDate("UTC", evening)).toBe("2026-11-01");
    expect(businessDate("America/Los_Angeles", new Date("2026-03-01T07:59:00Z"))).toBe("2026-02-28");
    expect(businessDate("Pacific/Honolulu", new Date("2026-12-31T12:00:00Z"))).toBe("2026-12-31");
  });
  it("puts a savings transfer made on the evening of the last day in that month", () => {
    const day = businessDate("America/New_York", new Date("2026-11-01T03:30:00Z"));
    expect(monthOf(day)).toBe("2026-10");
  });
});
