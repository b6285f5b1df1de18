import { describe, expect, it } from "vitest";
import {
  MOBILE_DEPOSIT_IMAGE_MESSAGES,
  MOBILE_DEPOSIT_IMAGE_TYPES,
  mobileDepositSchema,
} from "~/domain/mobile-deposit";
import { uploadType } from "~/server/uploads/private-uploads.server";
import { brokenJpeg, checkJpeg, checkPng, htmlBytes, pdfBytes, pngBomb, svgBytes } from "../check-images";

/**
 * Mobile Deposit's rules (docs/product.md#mobile-deposit): the amount (above $0, at most
 * $10,000.00 per check with its message), the photo type by content (JPEG or PNG magic bytes,
 * never the name) (the funds-availability schedule is
 * Regulation CC's: funds-availability.test.ts).
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
