import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "csv-parse/sync";
import {
  checkRow,
  isFormulaCell,
  POSTING_CSV_HEADER,
  POSTING_CSV_MAX_BYTES,
  POSTING_ROWS_MAX,
  type DraftRow,
} from "~/domain/staff-postings";
import { postingsTemplateCsv, readPostingsCsv } from "~/server/postings/csv.server";

/**
 * The CSV rules of Add Transactions (docs/product.md#add-transactions): each bad input has a real
 * file in tests/fixtures/postings/ and is refused with its message.
 */
const FIXTURES = path.join(import.meta.dirname, "..", "fixtures", "postings");
const fixture = (name: string) => new Uint8Array(fs.readFileSync(path.join(FIXTURES, name)));
const CONTEXT = { today: "2024-06-30", now_time: "12:34:56" };

/** Reads a fixture and checks its rows, as the server does before posting anything. */
function check(name: string): { read: ReturnType<typeof readPostingsCsv>; rows: { line: number; errors: string[] }[] } {
  const read = readPostingsCsv(fixture(name));
  const rows = read.ok
    ? read.rows.map(({ line, raw }) => {
        const r = checkRow(raw, CONTEXT);
        return { line, errors: r.ok ? [] : r.errors };
      })
    : [];
  return { read, rows };
}

describe("reading a postings CSV", () => {
  it("reads real CSV: a byte-order mark, CRLF, quoted commas, doubled quotes, a line break inside quotes, blank lines", () => {
    const read = readPostingsCsv(fixture("valid-excel.csv"));
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.rows.map((r) => r.line)).toEqual([2, 4, 5, 8]);
    expect(read.rows[0]!.raw).toEqual({
      account: "Checking",
      type: "credit",
      amount: "125.50",
      description: "Payroll deposit, ACME Corp",
      category: "Income",
      date: "2024-02-29",
      time: "09:30",
      status: "Completed",
    });
    expect(read.rows[1]!.raw.description).toBe('Gift for "Sam"');
    expect(read.rows[2]!.raw.description).toBe("Coffee at the\r\ncorner shop");
    const checked = read.rows.map((r) => checkRow(r.raw, CONTEXT));
    expect(checked.every((c) => c.ok)).toBe(true);
    const coffee = checked[2]!;
    if (!coffee.ok) return;
    // Defaults: debit, today, now, Completed; a line break in the description becomes a space.
    expect(coffee.row).toEqual({
      account: { by: "type", type: "checking" },
      direction: "debit",
      amount_cents: 725,
      description: "Coffee at the corner shop",
      category: "Food",
      date: "2024-06-30",
      time: "12:34:56",
      status: "pending",
    });
    const largest = checked[3]!;
    expect(largest.ok && largest.row.amount_cents).toBe(100_000_000);
  });

  it("reads a file with LF line ends and no final line break", () => {
    const read = readPostingsCsv(fixture("valid-lf-no-final-newline.csv"));
    expect(read.ok && read.rows.length).toBe(1);
  });

  it("refuses a binary file renamed .csv", () => {
    const read = readPostingsCsv(fixture("binary-image.csv"));
    expect(read).toEqual({
      ok: false,
      message: "the file is not a text CSV file (save it from the spreadsheet as CSV UTF-8)",
    });
  });

  it("refuses a header in another order, naming the expected one", () => {
    const read = readPostingsCsv(fixture("header-other-order.csv"));
    expect(read.ok).toBe(false);
    expect(!read.ok && read.message).toBe(
      "line 1 must be the header Account Type,Transaction Type,Amount,Description,Category,Date,Time,Status in this order; the file has Transaction Type,Account Type,Amount,Description,Category,Date,Time,Status",
    );
  });

  it("refuses lines with the wrong number of columns, by line", () => {
    const read = readPostingsCsv(fixture("wrong-column-count.csv"));
    expect(!read.ok && read.message).toBe(
      "2 lines have errors: line 2: has 7 columns; every line needs 8; line 3: has 9 columns; every line needs 8",
    );
  });

  it("refuses a quote that is never closed", () => {
    const read = readPostingsCsv(fixture("quote-not-closed.csv"));
    expect(!read.ok && read.message).toMatch(/^a quoted field is never closed/);
  });

  it("refuses a file with only the header, and an empty file", () => {
    expect(readPostingsCsv(fixture("header-only.csv"))).toEqual({
      ok: false,
      message: "the file has no transactions below the header",
    });
    expect(readPostingsCsv(new Uint8Array())).toEqual({ ok: false, message: "the file is empty" });
  });

  it("refuses a file over the byte limit without parsing it, with the limit in the message", () => {
    const big = new Uint8Array(POSTING_CSV_MAX_BYTES + 1).fill(0x41);
    const read = readPostingsCsv(big);
    expect(!read.ok && read.message).toBe(
      "the file is 2.0 MB; the limit is 10,000 rows and 2 MB per file (split it into smaller files)",
    );
  });

  it("refuses more rows than the limit, with the limit in the message", () => {
    const line = "Checking,credit,1.00,Row,Deposit,2024-01-15,08:00,Completed";
    const text = [POSTING_CSV_HEADER.join(","), ...Array.from({ length: POSTING_ROWS_MAX + 1 }, () => line)].join("\n");
    const read = readPostingsCsv(new TextEncoder().encode(text));
    expect(!read.ok && read.message).toBe(
      "the file has more than 10,000 rows; the limit is 10,000 rows and 2 MB per file (split it into smaller files)",
    );
  });
});

describe("checking each row", () => {
  const cases: [string, RegExp][] = [
    ["formula-hyperlink.csv", /^Description starts with = \+ - or @ \(a spreadsheet formula\), which is not accepted$/],
    ["formula-plus.csv", /^Description starts with = \+ - or @/],
    ["formula-minus.csv", /^Description starts with = \+ - or @/],
    ["formula-at.csv", /^Description starts with = \+ - or @/],
    ["formula-in-category.csv", /^Category starts with = \+ - or @/],
    [
      "unknown-category.csv",
      /^Category "Gambling" is not one of Transfer, Bill Pay, Deposit, Withdrawal, Income, Shopping, Food, Transportation, Entertainment, Other$/,
    ],
    [
      "unknown-account-type.csv",
      /^Account Type "Brokerage" is not Checking, Savings, Credit Card or a 10-digit account number$/,
    ],
    ["impossible-date.csv", /^Date "2024-02-31" is not a real date \(YYYY-MM-DD\)$/],
    ["amount-negative.csv", /^Amount must be greater than zero \(choose debit or credit for the direction\)$/],
    ["amount-zero.csv", /^Amount must be greater than zero$/],
    ["amount-three-decimals.csv", /^Amount may have at most two decimals$/],
    ["amount-huge.csv", /^Amount must be at most \$1,000,000.00 per row$/],
  ];
  for (const [name, message] of cases) {
    it(`${name}: refused on line 2`, () => {
      const { read, rows } = check(name);
      expect(read.ok).toBe(true);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.line).toBe(2);
      expect(rows[0]!.errors).toHaveLength(1);
      expect(rows[0]!.errors[0]).toMatch(message);
    });
  }

  it("a wrong type, time and status are each named", () => {
    const { rows } = check("bad-type-and-status.csv");
    expect(rows[0]!.errors).toEqual([
      'Transaction Type "transfer" must be debit or credit',
      'Time "25:00" must be HH:MM or HH:MM:SS (24-hour)',
      'Status "Done" must be Completed or Pending',
    ]);
  });

  const row = (over: Partial<DraftRow>): DraftRow => ({
    account: "Checking",
    type: "",
    amount: "1.00",
    description: "x",
    category: "Other",
    date: "",
    time: "",
    status: "",
    ...over,
  });

  it("a date after today is refused; a leap day is a real date", () => {
    expect(checkRow(row({ date: "2024-07-01" }), CONTEXT)).toEqual({
      ok: false,
      errors: ["Date 2024-07-01 is in the future"],
    });
    expect(checkRow(row({ date: "2024-02-29" }), CONTEXT).ok).toBe(true);
    expect(checkRow(row({ date: "2023-02-29" }), CONTEXT).ok).toBe(false);
  });

  it("an account is a type or a 10-digit number not starting with 0", () => {
    const number = checkRow(row({ account: "123 456 7890" }), CONTEXT);
    expect(number.ok && number.row.account).toEqual({ by: "number", account_number: "1234567890" });
    expect(checkRow(row({ account: "0123456789" }), CONTEXT).ok).toBe(false);
    const card = checkRow(row({ account: "credit card" }), CONTEXT);
    expect(card.ok && card.row.account).toEqual({ by: "type", type: "credit_card" });
  });

  it("amounts: whole cents, no signs, no exponent", () => {
    for (const bad of ["+5", "1e3", "1,000", "$5", "5.", ".5.5", " "])
      expect(checkRow(row({ amount: bad }), CONTEXT).ok, bad).toBe(false);
    for (const [good, cents] of [
      ["5", 500],
      ["0.01", 1],
      ["12.3", 1230],
      [".50", 50],
    ] as const) {
      const result = checkRow(row({ amount: good }), CONTEXT);
      expect(result.ok && result.row.amount_cents, good).toBe(cents);
    }
  });

  it("a number with a sign is not a formula; text starting with = + - @ is", () => {
    expect(isFormulaCell("-5")).toBe(false);
    expect(isFormulaCell("+5.25")).toBe(false);
    expect(isFormulaCell("-")).toBe(true);
    expect(isFormulaCell("@x")).toBe(true);
    expect(isFormulaCell("\t=1")).toBe(true);
  });

  it("control characters are refused", () => {
    expect(checkRow(row({ description: "a\u0000b" }), CONTEXT)).toEqual({
      ok: false,
      errors: ["Description holds a control character"],
    });
  });
});

describe("the template", () => {
  it("is the header and one example row that the reader accepts", () => {
    const csv = postingsTemplateCsv("2024-06-30");
    const records = parse(csv) as string[][];
    expect(records[0]).toEqual([...POSTING_CSV_HEADER]);
    expect(records).toHaveLength(2);
    const read = readPostingsCsv(new TextEncoder().encode(csv));
    expect(read.ok).toBe(true);
    if (read.ok) expect(checkRow(read.rows[0]!.raw, CONTEXT).ok).toBe(true);
  });
});
