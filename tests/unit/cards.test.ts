import { describe, expect, it } from "vitest";
import {
  CARD_MESSAGES,
  cardPurchaseSchema,
  changePinSchema,
  decideCardPurchase,
  isWeakPin,
  pinProblem,
  reportLostSchema,
  setLimitSchema,
  viewDetailsSchema,
  type CardForPurchase,
} from "~/domain/cards";

/** The card rules of docs/product.md#cards, without a database: PINs, the forms, one purchase's decision. */

describe("PIN rules", () => {
  it("refuses one digit repeated and four digits in a row up or down (wrapping past 9)", () => {
    for (const pin of [
      "0000",
      "1111",
      "9999",
      "1234",
      "2345",
      "6789",
      "7890",
      "8901",
      "9012",
      "0123",
      "4321",
      "9876",
      "0987",
      "3210",
      "1098",
    ])
      expect(isWeakPin(pin), pin).toBe(true);
    for (const pin of ["2580", "1357", "1212", "1233", "1243", "0246", "9753", "1122", "5831"])
      expect(isWeakPin(pin), pin).toBe(false);
  });

  it("says why a PIN cannot be used: not 4 digits, weak, or the two do not match", () => {
    expect(pinProblem("", "")).toBe(CARD_MESSAGES.pin_format);
    expect(pinProblem("123", "123")).toBe(CARD_MESSAGES.pin_format);
    expect(pinProblem("12345", "12345")).toBe(CARD_MESSAGES.pin_format);
    expect(pinProblem("12a4", "12a4")).toBe(CARD_MESSAGES.pin_format);
    expect(pinProblem("１２３４", "１２３４")).toBe(CARD_MESSAGES.pin_format);
    expect(pinProblem("1234", "1234")).toBe(CARD_MESSAGES.pin_weak);
    expect(pinProblem("2580", "2581")).toBe(CARD_MESSAGES.pin_mismatch);
    expect(pinProblem("2580", "2580")).toBeNull();
  });

  it("the Change PIN form puts each message next to its field", () => {
    const parse = (pin_code: string, pin_code_confirm: string, otp = "123456") =>
      changePinSchema.safeParse({ card_id: "7", otp, pin_code, pin_code_confirm });
    const issue = (result: ReturnType<typeof parse>) =>
      result.success
        ? null
        : { path: result.error.issues[0]!.path.join("."), message: result.error.issues[0]!.message };
    expect(issue(parse("1234", "1234"))).toEqual({ path: "pin_code", message: CARD_MESSAGES.pin_weak });
    expect(issue(parse("2580", "0852"))).toEqual({ path: "pin_code_confirm", message: CARD_MESSAGES.pin_mismatch });
    expect(issue(parse("2580", "2580", ""))).toEqual({ path: "otp", message: CARD_MESSAGES.code_missing });
    expect(parse("2580", "2580").success).toBe(true);
  });
});

describe("card codes: digits only, at most 6", () => {
  const otp = (value: string) => viewDetailsSchema.safeParse({ card_id: "1", otp: value });
  it("accepts 1 to 6 digits and refuses anything else with its message", () => {
    expect(otp("123456").success).toBe(true);
    expect(otp(" 123456 ").success).toBe(true);
    for (const bad of ["1234567", "12 34", "12a456", "-12345", "12.345"]) {
      const result = otp(bad);
      expect(result.success, bad).toBe(false);
      if (!result.success) expect(result.error.issues[0]!.message).toBe(CARD_MESSAGES.code_format);
    }
    const missing = otp("");
    expect(!missing.success && missing.error.issues[0]!.message).toBe(CARD_MESSAGES.code_missing);
  });
});

describe("Set Transaction Limits: $10.00 to $5,000.00", () => {
  const limit = (value: string) => setLimitSchema.safeParse({ card_id: "3", daily_limit: value });
  it("reads dollars into cents and refuses out-of-bounds or fractional-cent amounts", () => {
    expect(limit("10").data?.daily_limit).toBe(1_000);
    expect(limit("$5,000.00").data?.daily_limit).toBe(500_000);
    expect(limit("250.5").data?.daily_limit).toBe(25_050);
    for (const bad of ["9.99", "5000.01", "0", "", "abc", "1.234", "-20"]) {
      const result = limit(bad);
      expect(result.success, bad).toBe(false);
      if (!result.success) expect(result.error.issues[0]!.message).toBe(CARD_MESSAGES.limit);
    }
  });

  it("Report lost needs the reason and the confirmation; a purchase needs a known category and an amount", () => {
    expect(reportLostSchema.safeParse({ card_id: "1", reason: "lost", confirm: "on" }).success).toBe(true);
    expect(reportLostSchema.safeParse({ card_id: "1", reason: "misplaced", confirm: "on" }).success).toBe(false);
    expect(reportLostSchema.safeParse({ card_id: "1", reason: "stolen" }).success).toBe(false);
    const purchase = (amount: string, category = "Dining") =>
      cardPurchaseSchema.safeParse({
        card_id: "1",
        merchant: "Cafe",
        amount,
        category,
        request_key: "5b0c7b8e-8f4a-4c1e-9d0a-2c3f4e5a6b7c",
      });
    expect(purchase("12.50").data?.amount).toBe(1_250);
    expect(purchase("0").success).toBe(false);
    expect(purchase("25000.01").success).toBe(false);
    expect(purchase("1", "Casino").success).toBe(false);
  });
});

describe("decideCardPurchase", () => {
  const card: CardForPurchase = { status: "active", expiry_month: 11, expiry_year: 2030, daily_limit_cents: 10_000 };
  const decide = (
    over: Partial<{
      card: Partial<CardForPurchase>;
      amount_cents: number;
      spent_today_cents: number;
      today: string;
    }> = {},
  ) =>
    decideCardPurchase({
      card: { ...card, ...over.card },
      amount_cents: over.amount_cents ?? 1_000,
      spent_today_cents: over.spent_today_cents ?? 0,
      today: over.today ?? "2026-11-24",
    });

  it("authorizes an active card's purchase within the day's limit, up to the limit exactly", () => {
    expect(decide()).toEqual({ ok: true });
    expect(decide({ amount_cents: 4_000, spent_today_cents: 6_000 })).toEqual({ ok: true });
  });

  it("refuses a locked or blocked card whatever the amount, blocked named first", () => {
    expect(decide({ card: { status: "locked" } })).toEqual({
      ok: false,
      code: "card_locked",
      message: "The card is locked",
    });
    expect(decide({ card: { status: "blocked" } })).toEqual({
      ok: false,
      code: "card_blocked",
      message: "The card was reported lost or stolen and no longer works",
    });
  });

  it("refuses one cent over the daily limit, naming the limit and what is left", () => {
    expect(decide({ amount_cents: 4_001, spent_today_cents: 6_000 })).toEqual({
      ok: false,
      code: "over_card_daily_limit",
      message: "The purchase would pass the card's daily limit of $100.00 ($40.00 left today)",
    });
    expect(decide({ amount_cents: 10_001 })).toMatchObject({ code: "over_card_daily_limit" });
  });

  it("works to the end of the expiry month, not after", () => {
    expect(decide({ today: "2030-11-30" })).toEqual({ ok: true });
    expect(decide({ today: "2030-12-01" })).toMatchObject({ ok: false, code: "card_expired" });
  });

  it("refuses an amount that is not a positive whole number of cents", () => {
    for (const amount_cents of [0, -1, 1.5, Number.NaN, 2_500_001])
      expect(decide({ amount_cents }), String(amount_cents)).toMatchObject({ ok: false, code: "invalid_amount" });
  });
});
