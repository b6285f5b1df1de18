import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { z } from "zod";
import { formatCents } from "~/domain/money";
import { PLAIN_TEXT_MESSAGE } from "~/domain/plain-text";
import {
  AMOUNT_MIN,
  AMOUNT_STEP,
  TRANSFER_MESSAGES,
  betweenAccountsSchema,
  formErrorMessage,
  internationalSchema,
  toMemberSchema,
  toUsBankSchema,
} from "~/domain/transfers";
import { isValidInternationalAccountNumber, isValidUsAccountNumber } from "~/domain/external-account";
import { billPaySchema } from "~/domain/bill-pay";
import { MOBILE_DEPOSIT_MESSAGES, mobileDepositMaximumMessage, mobileDepositSchema } from "~/domain/mobile-deposit";

const KEY = "3f1c9a52-7d4e-4b8a-9c2f-0a1b2c3d4e5f";

/** The messages a schema gives for an input, in order; [] when it parses. */
function messages(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
}

const between = { from_account_id: "1", to_account_id: "2", amount: "25.00", reference: "Rent", idempotency_key: KEY };
const toMember = {
  from_account_id: "1",
  recipient_email: "bob@example.com",
  amount: "10",
  reference: "Dinner",
  idempotency_key: KEY,
};
const toUsBank = {
  from_account_id: "1",
  routing_number: "021000021",
  account_number: "123456789",
  account_name: "Bob Smith",
  amount: "100.50",
  reference: "Loan",
  idempotency_key: KEY,
};
const international = {
  from_account_id: "1",
  recipient_name: "Hans Müller",
  bank_name: "Deutsche Bank",
  bic: "DEUTDEFF",
  account_number: "0532013000",
  iban: "DE89 3704 0044 0532 0130 00",
  country: "DE",
  currency: "EUR",
  amount: "1,000.50",
  reference: "Invoice 42",
  idempotency_key: KEY,
};
const ALL_TRANSFERS = [
  ["Between Accounts", betweenAccountsSchema, between],
  ["To Another Member", toMemberSchema, toMember],
  ["To US Bank", toUsBankSchema, toUsBank],
  ["International", internationalSchema, international],
] as const;

describe("transfer messages", () => {
  it("are worded as the documented transfer messages", () => {
    expect(TRANSFER_MESSAGES).toMatchObject({
      missing: "Please fill in all fields",
      amount: "Please enter a valid amount",
      same_account: "Cannot transfer to the same account",
      recipient: "Please enter a valid recipient",
      routing_number: "Please enter a valid routing number",
      us_account_number: "Please enter a valid account number",
      bic: "Invalid SWIFT/BIC code",
      international_account_number: "Invalid account number",
      iban: "Invalid IBAN",
      failed: "Transfer failed. Please try again.",
    });
    expect([AMOUNT_MIN, AMOUNT_STEP]).toEqual(["0.01", "0.01"]);
  });
});

describe.each(ALL_TRANSFERS)("%s", (_name, schema, valid) => {
  it("accepts a complete form", () => {
    expect(messages(schema, valid)).toEqual([]);
  });
  it.each(Object.keys(valid).filter((field) => field !== "iban" && field !== "idempotency_key"))(
    "says 'Please fill in all fields' when %s is missing or blank",
    (field) => {
      for (const value of [undefined, "", "   "]) {
        expect(messages(schema, { ...valid, [field]: value })).toEqual(["Please fill in all fields"]);
      }
    },
  );
  it("refuses a missing or malformed idempotency key", () => {
    for (const value of [undefined, "", "not-a-uuid", "3f1c9a52-7d4e-4b8a-9c2f"]) {
      expect(messages(schema, { ...valid, idempotency_key: value })).toEqual(["Transfer failed. Please try again."]);
    }
  });
  it("lower-cases the idempotency key so one key in two cases is one key", () => {
    const result = schema.parse({ ...valid, idempotency_key: KEY.toUpperCase() });
    expect(result.idempotency_key).toBe(KEY);
  });
  it("refuses bad amounts with 'Please enter a valid amount'", () => {
    for (const amount of ["0", "0.00", "-5", "1.001", "abc", "1e3", "1.2.3", "NaN"]) {
      expect(messages(schema, { ...valid, amount }), amount).toEqual(["Please enter a valid amount"]);
    }
  });
  it("refuses a picked account that is not an account id", () => {
    for (const from_account_id of ["abc", "0", "-1", "1.5"])
      expect(messages(schema, { ...valid, from_account_id })).toEqual(["Please fill in all fields"]);
  });
  it("refuses text fields beyond 140 characters", () => {
    expect(messages(schema, { ...valid, reference: "x".repeat(141) })).toEqual(["Please use at most 140 characters"]);
  });
});

describe("dollar amounts", () => {
  it("become integer cents", () => {
    expect(betweenAccountsSchema.parse({ ...between, amount: "0.01" }).amount_cents).toBe(1);
    expect(betweenAccountsSchema.parse({ ...between, amount: " $1,234.5 " }).amount_cents).toBe(123_450);
    expect(toUsBankSchema.parse(toUsBank).amount_cents).toBe(10_050);
  });
  it("round-trip every cent amount through its formatted text", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 ** 13 }), (amount_cents) => {
        expect(betweenAccountsSchema.parse({ ...between, amount: formatCents(amount_cents) }).amount_cents).toBe(
          amount_cents,
        );
      }),
    );
  });
  it("refuse every fraction of a cent", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 9 }), fc.integer({ min: 1, max: 9 }), (whole_cents, tenth) => {
        const text = `${Math.floor(whole_cents / 100)}.${String(whole_cents % 100).padStart(2, "0")}${tenth}`;
        expect(messages(betweenAccountsSchema, { ...between, amount: text })).toEqual(["Please enter a valid amount"]);
      }),
    );
  });
});

describe("Between Accounts", () => {
  it("parses to typed, trimmed output", () => {
    expect(betweenAccountsSchema.parse({ ...between, reference: "  Rent  " })).toEqual({
      from_account_id: 1,
      to_account_id: 2,
      amount_cents: 2_500,
      reference: "Rent",
      idempotency_key: KEY,
    });
  });
  it("refuses the same account on both sides, alongside any other problem", () => {
    expect(messages(betweenAccountsSchema, { ...between, to_account_id: "1" })).toEqual([
      "Cannot transfer to the same account",
    ]);
    expect(messages(betweenAccountsSchema, { ...between, to_account_id: "1", amount: "x" })).toEqual([
      "Please enter a valid amount",
      "Cannot transfer to the same account",
    ]);
  });
});

describe("To Another Member", () => {
  it("normalizes the email and refuses what is not one", () => {
    expect(toMemberSchema.parse({ ...toMember, recipient_email: "  Bob@Example.COM " }).recipient_email).toBe(
      "bob@example.com",
    );
    for (const recipient_email of ["bob", "bob@", "@example.com", "bob example.com"]) {
      expect(messages(toMemberSchema, { ...toMember, recipient_email }), recipient_email).toEqual([
        "Please enter a valid recipient",
      ]);
    }
  });
});

describe("To US Bank", () => {
  it("checks the routing number with the ABA checksum", () => {
    for (const routing_number of ["021000022", "02100002", "0210000211", "02100002a"]) {
      expect(messages(toUsBankSchema, { ...toUsBank, routing_number }), routing_number).toEqual([
        "Please enter a valid routing number",
      ]);
    }
  });
  it("takes 8 to 17 digit account numbers, spaces removed", () => {
    expect(toUsBankSchema.parse({ ...toUsBank, account_number: "1234 5678 9012" }).account_number).toBe("123456789012");
    for (const account_number of ["12345678", "12345678901234567"])
      expect(messages(toUsBankSchema, { ...toUsBank, account_number })).toEqual([]);
    for (const account_number of ["1234567", "123456789012345678", "1234-5678", "12345678A"]) {
      expect(messages(toUsBankSchema, { ...toUsBank, account_number }), account_number).toEqual([
        "Please enter a valid account number",
      ]);
    }
  });
  it("goes to a checking or a savings account, checking when the form does not say", () => {
    expect(toUsBankSchema.parse(toUsBank).account_type).toBe("checking");
    expect(toUsBankSchema.parse({ ...toUsBank, account_type: "savings" }).account_type).toBe("savings");
    for (const account_type of ["loan", "Savings", ""]) {
      expect(messages(toUsBankSchema, { ...toUsBank, account_type }), account_type).toEqual([
        "Please choose checking or savings",
      ]);
    }
  });
});

describe("International", () => {
  it("normalizes codes, account number and IBAN, and reads the amount in the currency's minor units", () => {
    expect(
      internationalSchema.parse({
        ...international,
        bic: " deut de ff ",
        country: "de",
        currency: "eur",
        account_number: "ab12 3456 78",
      }),
    ).toMatchObject({
      bic: "DEUTDEFF",
      country: "DE",
      currency: "EUR",
      account_number: "AB12345678",
      iban: "DE89370400440532013000",
      amount_minor_units: 100_050,
    });
    expect(internationalSchema.parse({ ...international, currency: "JPY", amount: "150000" }).amount_minor_units).toBe(
      150_000,
    );
    expect(internationalSchema.parse({ ...international, currency: "BHD", amount: "12.345" }).amount_minor_units).toBe(
      12_345,
    );
  });
  it("refuses decimals the currency does not have", () => {
    expect(messages(internationalSchema, { ...international, currency: "JPY", amount: "1000.5" })).toEqual([
      "Please enter a valid amount",
    ]);
    expect(messages(internationalSchema, { ...international, currency: "EUR", amount: "10.005" })).toEqual([
      "Please enter a valid amount",
    ]);
  });
  it("treats the IBAN as optional, and checks it only when given", () => {
    expect(internationalSchema.parse({ ...international, iban: undefined }).iban).toBeUndefined();
    expect(internationalSchema.parse({ ...international, iban: "  " }).iban).toBeUndefined();
    for (const iban of ["DE89370400440532013001", "DE8937040044053201300", "XX89370400440532013000"]) {
      expect(messages(internationalSchema, { ...international, iban }), iban).toEqual(["Invalid IBAN"]);
    }
  });
  it("says 'Invalid SWIFT/BIC code' for a malformed BIC", () => {
    for (const bic of ["DEUTDE", "DEUTDEFF5", "DEUTZZFF", "1EUTDEFF"])
      expect(messages(internationalSchema, { ...international, bic }), bic).toEqual(["Invalid SWIFT/BIC code"]);
  });
  it("says 'Invalid account number' outside 8 to 34 letters and digits", () => {
    expect(messages(internationalSchema, { ...international, account_number: "A".repeat(34) })).toEqual([]);
    for (const account_number of ["1234567", "A".repeat(35), "1234-5678", "12345678/9"]) {
      expect(messages(internationalSchema, { ...international, account_number }), account_number).toEqual([
        "Invalid account number",
      ]);
    }
  });
  it("refuses a country or currency that is not in the pickers", () => {
    expect(messages(internationalSchema, { ...international, country: "ZZ" })).toEqual([
      "Please choose a country from the list",
    ]);
    expect(messages(internationalSchema, { ...international, currency: "XAU" })).toEqual([
      "Please choose a currency from the list",
    ]);
  });
});

/** The field each message belongs to, as the form shows them. */
function fieldMessages(schema: z.ZodType, input: unknown): Record<string, string[]> {
  const result = schema.safeParse(input);
  const out: Record<string, string[]> = {};
  if (!result.success) for (const issue of result.error.issues) (out[issue.path.join(".")] ??= []).push(issue.message);
  return out;
}

describe("what the bank file can carry, refused next to the field (docs/product.md#to-us-bank)", () => {
  it("To US Bank: a name or reference with letters a NACHA file cannot carry", () => {
    // 山田太郎 was accepted and held, then blanked at export, which failed for everyone's payments.
    expect(fieldMessages(toUsBankSchema, { ...toUsBank, account_name: "山田太郎" })).toEqual({
      account_name: ['Please write the name in Latin letters: a US bank transfer cannot carry "山", "田", "太", "郎"'],
    });
    expect(fieldMessages(toUsBankSchema, { ...toUsBank, account_name: "Taro 山田" })).toEqual({
      account_name: ['Please write the name in Latin letters: a US bank transfer cannot carry "山", "田"'],
    });
    expect(fieldMessages(toUsBankSchema, { ...toUsBank, reference: "家賃 12月 rent" })).toEqual({
      reference: ['Please write the reference in Latin letters: a US bank transfer cannot carry "家", "賃", "月"'],
    });
    expect(fieldMessages(toUsBankSchema, { ...toUsBank, account_name: "김민준 이서연 박지호" })).toEqual({
      account_name: [
        'Please write the name in Latin letters: a US bank transfer cannot carry "김", "민", "준", "이", "서", …',
      ],
    });
    expect(fieldMessages(toUsBankSchema, { ...toUsBank, account_name: "--- !!" })).toEqual({
      account_name: ["Please enter a name with at least one letter or digit"],
    });
    // Accented, other Latin, Greek, Cyrillic and Arabic names are romanized in the file: accepted.
    for (const account_name of [
      "Søren Łukasz Weiß-Æbelø",
      "Ђорђе Петровић",
      "Ελένη",
      "محمد",
      "Nguyễn Văn Ánh",
      "Zoë O'Brien & Sons",
    ]) {
      expect(
        messages(toUsBankSchema, { ...toUsBank, account_name, reference: `Gift for ${account_name}` }),
        account_name,
      ).toEqual([]);
    }
  });

  it("International: a name, bank name or reference with characters XML cannot hold", () => {
    expect(fieldMessages(internationalSchema, { ...international, recipient_name: "\uFFFF\uFFFE" })).toEqual({
      recipient_name: [
        "This holds characters an international wire cannot carry (U+FFFF, U+FFFE), perhaps invisible ones: please type it again",
      ],
    });
    expect(fieldMessages(internationalSchema, { ...international, bank_name: "Bank\uFFFE" })).toEqual({
      bank_name: [
        "This holds characters an international wire cannot carry (U+FFFE), perhaps invisible ones: please type it again",
      ],
    });
    expect(fieldMessages(internationalSchema, { ...international, reference: "Invoice \uD800" })).toEqual({
      reference: [
        "This holds characters an international wire cannot carry (U+D800), perhaps invisible ones: please type it again",
      ],
    });
    // Any script XML holds goes in a wire as it is.
    expect(
      messages(internationalSchema, {
        ...international,
        recipient_name: "山田太郎",
        bank_name: "三菱UFJ銀行",
        reference: "家賃 😀",
      }),
    ).toEqual([]);
  });
});

describe("text fields refuse control characters, next to the field", () => {
  // A NUL cannot be stored in PostgreSQL text (the transfer failed with an error in the log);
  // escapes and other control characters garble what the recipient and staff read.
  const bad = ["Rent\u0000", "\u001b[31mRent", "Re\u0008nt", "Rent\nmore", "Rent\u009b"];
  it("in every transfer form's text fields and in Bill Pay's", () => {
    const cases: Array<[z.ZodType, Record<string, string>, string]> = [
      [betweenAccountsSchema, between, "reference"],
      [toMemberSchema, toMember, "reference"],
      [toUsBankSchema, toUsBank, "account_name"],
      [toUsBankSchema, toUsBank, "reference"],
      [internationalSchema, international, "recipient_name"],
      [internationalSchema, international, "bank_name"],
      [internationalSchema, international, "reference"],
    ];
    for (const [schema, form, field] of cases) {
      for (const text of bad) {
        const result = schema.safeParse({ ...form, [field]: text });
        expect(result.success, `${field} ${JSON.stringify(text)}`).toBe(false);
        if (!result.success)
          expect(result.error.issues.map((i) => [i.path.join("."), i.message])).toEqual([[field, PLAIN_TEXT_MESSAGE]]);
      }
    }
    expect(messages(internationalSchema, { ...international, iban: "DE89\u0000" })).toEqual([PLAIN_TEXT_MESSAGE]);
    const bill = {
      payee: "pick:0",
      payee_account_number: "ACCT-1234 56",
      from_account_id: "7",
      amount: "82.10",
      payment_date: "2026-03-02",
      idempotency_key: KEY,
    };
    expect(messages(billPaySchema("2026-02-27"), { ...bill, memo: "City\u0000Power" })).toEqual([PLAIN_TEXT_MESSAGE]);
    expect(messages(toMemberSchema, { ...toMember, reference: "  Dinner, café & tip: 20% ✓  " })).toEqual([]);
  });
});

describe("formErrorMessage", () => {
  it("puts 'Please fill in all fields' first, as the forms show one message", () => {
    const result = betweenAccountsSchema.safeParse({ ...between, amount: "x", reference: "" });
    expect(result.success).toBe(false);
    if (!result.success) expect(formErrorMessage(result.error)).toBe("Please fill in all fields");
    const amountOnly = betweenAccountsSchema.safeParse({ ...between, amount: "x" });
    if (!amountOnly.success) expect(formErrorMessage(amountOnly.error)).toBe("Please enter a valid amount");
  });
});

describe("external account numbers", () => {
  it("US: 8 to 17 digits; international: 8 to 34 letters and digits; white space ignored", () => {
    expect(isValidUsAccountNumber("1234 5678")).toBe(true);
    expect(isValidUsAccountNumber("1234567")).toBe(false);
    expect(isValidInternationalAccountNumber(" ab 12 cd 34 ")).toBe(true);
    expect(isValidInternationalAccountNumber("ab12cd3")).toBe(false);
    fc.assert(
      fc.property(fc.stringMatching(/^\d{8,17}$/), (digits) => {
        expect(isValidUsAccountNumber(digits)).toBe(true);
        expect(isValidInternationalAccountNumber(digits)).toBe(true);
      }),
    );
  });
});

// Bill Pay's form and recurrence rules: tests/unit/bill-pay.test.ts.

describe("Mobile Deposit", () => {
  const valid = { account_id: "3", amount: "250.00", idempotency_key: KEY };

  it("takes up to $10,000.00 per check by default, with the documented message above it", () => {
    const schema = mobileDepositSchema();
    expect(schema.parse(valid)).toEqual({ account_id: 3, amount_cents: 25_000, idempotency_key: KEY });
    expect(messages(schema, { ...valid, amount: "10,000.00" })).toEqual([]);
    expect(messages(schema, { ...valid, amount: "10000.01" })).toEqual(["The maximum for one check is $10,000.00"]);
  });
  it("takes its maximum from configuration", () => {
    const schema = mobileDepositSchema(500_000);
    expect(messages(schema, { ...valid, amount: "5000.01" })).toEqual(["The maximum for one check is $5,000.00"]);
    expect(mobileDepositMaximumMessage(2_500_000)).toBe("The maximum for one check is $25,000.00");
    expect(() => mobileDepositSchema(0)).toThrow(RangeError);
    expect(() => mobileDepositSchema(10.5)).toThrow(RangeError);
  });
  it("needs an amount above zero and every field", () => {
    const schema = mobileDepositSchema();
    expect(messages(schema, { ...valid, amount: "0" })).toEqual([MOBILE_DEPOSIT_MESSAGES.amount]);
    expect(messages(schema, { ...valid, account_id: "" })).toEqual(["Please fill in all fields"]);
    expect(messages(schema, { ...valid, amount: "" })).toEqual(["Please fill in all fields"]);
  });
});
