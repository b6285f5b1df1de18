import { describe, expect, it } from "vitest";
import {
  addBusinessDays,
  availabilityPolicyText,
  availabilitySchedule,
  MOBILE_DEPOSIT_IMAGE_MESSAGES,
  MOBILE_DEPOSIT_IMAGE_TYPES,
  mobileDepositSchema,
} from "~/domain/mobile-deposit";
import { uploadType } from "~/server/uploads/private-uploads.server";
import { brokenJpeg, checkJpeg, checkPng, htmlBytes, pdfBytes, pngBomb, svgBytes } from "../check-images";

/**
 * Mobile Deposit's rules (docs/product.md#mobile-deposit): the amount (above $0, at most
 * $10,000.00 per check with its message), the photo type by content (JPEG or PNG magic bytes,
 * never the name) and the funds-availability schedule.
 */
const KEY = "3f1c9a52-7d4e-4b8a-9c2f-0a1b2c3d4e5f";

function amountMessages(amount: string): string[] {
  const result = mobileDepositSchema().safeParse({ account_id: "7", amount, idempotency_key: KEY });
  return result.success ? [] : result.error.issues.map((i) => i.message);
}

describe("amount", () => {
  it("takes $0.01 to $10,000.00; $10,000.01 has the per-check message; zero, negative and three decimals are not amounts", () => {
    expect(amountMessages("0.01")).toEqual([]);
    expect(amountMessages("10000.00")).toEqual([]);
    expect(amountMessages("10000.01")).toEqual(["The maximum for one check is $10,000.00"]);
    for (const bad of ["0", "0.00", "-5", "1.005", "abc"])
      expect(amountMessages(bad)).toEqual(["Please enter a valid amount"]);
  });
});

/** The type the deposit's check finds in a photo's bytes (the store's uploadType with the deposit's types). */
const checkImageType = (bytes: Uint8Array) => uploadType(Buffer.from(bytes), MOBILE_DEPOSIT_IMAGE_TYPES);

describe("photo type by content", () => {
  it("JPEG and PNG by their first bytes, whatever the name", async () => {
    expect(await checkImageType(await checkJpeg())).toBe("image/jpeg");
    expect(await checkImageType(await checkPng())).toBe("image/png");
    expect(await checkImageType(pngBomb())).toBe("image/png"); // the decode refuses it, not the type check
    expect(await checkImageType(brokenJpeg())).toBe("image/jpeg");
  });
  it("a PDF, an HTML page, an empty file, a truncated signature and a GIF are not", async () => {
    expect(await checkImageType(pdfBytes())).toBeNull();
    expect(await checkImageType(htmlBytes())).toBeNull();
    expect(await checkImageType(new Uint8Array())).toBeNull();
    expect(await checkImageType(Uint8Array.from([0xff, 0xd8]))).toBeNull();
    expect(await checkImageType(Uint8Array.from([0x89, 0x50, 0x4e, 0x47]))).toBeNull();
    expect(await checkImageType(Buffer.from("GIF89a"))).toBeNull();
    expect(await checkImageType(svgBytes())).toBeNull();
  });
  it("names the side in each message", () => {
    expect(MOBILE_DEPOSIT_IMAGE_MESSAGES.wrong_type("back")).toBe(
      "The photo of the back of the check must be a JPEG or PNG image",
    );
    expect(MOBILE_DEPOSIT_IMAGE_MESSAGES.too_large("front")).toBe(
      "The photo of the front of the check is larger than 10 MB",
    );
  });
});

describe("funds availability", () => {
  const policy = { next_day_cents: 22_500, remaining_after_business_days: 2 };
  it("counts business days, skipping weekends and Federal Reserve holidays", () => {
    expect(addBusinessDays("2026-11-19", 1)).toBe("2026-11-20"); // Thursday -> Friday
    expect(addBusinessDays("2026-11-20", 1)).toBe("2026-11-23"); // Friday -> Monday
    expect(addBusinessDays("2026-11-20", 2)).toBe("2026-11-24");
    expect(addBusinessDays("2026-11-21", 1)).toBe("2026-11-23"); // Saturday -> Monday
    expect(addBusinessDays("2026-11-24", 2)).toBe("2026-11-27"); // Thanksgiving (Thursday 26) is not one
  });
  it("the first $225 the next business day, the rest two business days after approval", () => {
    expect(availabilitySchedule(100_000, "2026-11-20", policy)).toEqual({
      next_day_amount_cents: 22_500,
      next_day_available_on: "2026-11-23",
      later_amount_cents: 77_500,
      later_available_on: "2026-11-24",
    });
  });
  it("a deposit under the next-day amount is all available the next business day", () => {
    expect(availabilitySchedule(10_000, "2026-11-24", policy)).toMatchObject({
      next_day_amount_cents: 10_000,
      later_amount_cents: 0,
    });
  });
  it("says the policy in words", () => {
    expect(availabilityPolicyText(policy)).toBe(
      "Once approved, the first $225.00 is available the next business day and the rest 2 business days after approval.",
    );
    expect(availabilityPolicyText({ next_day_cents: 0, remaining_after_business_days: 1 })).toBe(
      "Once approved, the deposit is available 1 business day after approval.",
    );
  });
});
