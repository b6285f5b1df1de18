import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  ADVERTISED_SSNS,
  TIN_MESSAGES,
  checkTaxpayerId,
  formatTin,
  identityVerificationFromForm,
  IDENTITY_MESSAGES,
  isItinGroup,
  itinProblem,
  maskTin,
  ssnProblem,
  tinLastFour,
  usTinDigits,
  RevealTinSchema,
} from "~/domain/taxpayer-id";

/** The rules of docs/product.md#taxpayer-identification (31 CFR 1020.220), by example and by property. */
const digits = (n: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(""));
const pad = (value: number, width: number) => String(value).padStart(width, "0");

/** An SSN valid in form: area 001–899 but not 666, group 01–99, serial 0001–9999, not a published sample. */
const validSsn = fc
  .tuple(
    fc.integer({ min: 1, max: 899 }).filter((a) => a !== 666),
    fc.integer({ min: 1, max: 99 }),
    fc.integer({ min: 1, max: 9999 }),
  )
  .map(([a, g, s]) => `${pad(a, 3)}${pad(g, 2)}${pad(s, 4)}`)
  .filter((d) => !ADVERTISED_SSNS.includes(d));

const ITIN_GROUPS = Array.from({ length: 100 }, (_, g) => g).filter(isItinGroup);
const validItin = fc
  .tuple(fc.integer({ min: 0, max: 99 }), fc.constantFrom(...ITIN_GROUPS), fc.integer({ min: 1, max: 9999 }))
  .map(([a, g, s]) => `9${pad(a, 2)}${pad(g, 2)}${pad(s, 4)}`);

describe("SSN form", () => {
  it("accepts an SSN typed with or without dashes and spaces, and stores its 9 digits", () => {
    expect(checkTaxpayerId({ type: "ssn", number: "555-01-2468", country: "" })).toEqual({
      ok: true,
      value: { type: "ssn", number: "555012468", country: null },
    });
    expect(checkTaxpayerId({ type: "ssn", number: " 555 01 2468 ", country: undefined })).toMatchObject({ ok: true });
  });

  it("refuses the 000, 666 and 9xx areas, the 00 group, the 0000 serial and the published samples", () => {
    expect(ssnProblem("000123456")).toBe(TIN_MESSAGES.ssn_area);
    expect(ssnProblem("666123456")).toBe(TIN_MESSAGES.ssn_area);
    expect(ssnProblem("900123456")).toBe(TIN_MESSAGES.ssn_area_itin);
    expect(ssnProblem("999123456")).toBe(TIN_MESSAGES.ssn_area_itin);
    expect(ssnProblem("987654321")).toBe(TIN_MESSAGES.ssn_area_itin);
    expect(ssnProblem("123001234")).toBe(TIN_MESSAGES.group);
    expect(ssnProblem("123450000")).toBe(TIN_MESSAGES.serial);
    for (const sample of ["078-05-1120", "219-09-9999", "123-45-6789"])
      expect(checkTaxpayerId({ type: "ssn", number: sample, country: "" })).toEqual({
        ok: false,
        problems: [{ field: "number", message: TIN_MESSAGES.advertised }],
      });
    expect(ssnProblem("665123456")).toBeNull();
    expect(ssnProblem("667123456")).toBeNull();
    expect(ssnProblem("899990001")).toBeNull();
  });

  it("asks for 9 digits when there are not", () => {
    for (const typed of ["55501246", "5550124689", "555-01-246x", "555/01/2468"])
      expect(checkTaxpayerId({ type: "ssn", number: typed, country: "" })).toEqual({
        ok: false,
        problems: [{ field: "number", message: TIN_MESSAGES.us_format }],
      });
  });

  it("property: every SSN valid in form is accepted, and its dashed form reads back the same", () => {
    fc.assert(
      fc.property(validSsn, (d) => {
        const typed = formatTin("ssn", d);
        const checked = checkTaxpayerId({ type: "ssn", number: typed, country: "" });
        return checked.ok && checked.value.number === d && formatTin("ssn", checked.value.number) === typed;
      }),
    );
  });

  it("property: any 9 digits with a forbidden area, group or serial are refused", () => {
    const forbidden = fc.oneof(
      fc.tuple(fc.constantFrom("000", "666"), digits(6)).map(([a, r]) => a + r),
      fc.tuple(fc.integer({ min: 900, max: 999 }), digits(6)).map(([a, r]) => String(a) + r),
      fc.tuple(digits(3), digits(4)).map(([a, s]) => `${a}00${s}`),
      fc.tuple(digits(5)).map(([ag]) => `${ag}0000`),
    );
    fc.assert(fc.property(forbidden, (d) => ssnProblem(d) !== null));
  });
});

describe("ITIN form", () => {
  it("takes 9xx with the IRS's middle-digit ranges 50–65, 70–88, 90–92, 94–99", () => {
    expect(ITIN_GROUPS).toEqual([
      ...Array.from({ length: 16 }, (_, i) => 50 + i),
      ...Array.from({ length: 19 }, (_, i) => 70 + i),
      90,
      91,
      92,
      94,
      95,
      96,
      97,
      98,
      99,
    ]);
    expect(itinProblem("912701234")).toBeNull();
    expect(itinProblem("912931234")).toBe(TIN_MESSAGES.itin_group);
    expect(itinProblem("912661234")).toBe(TIN_MESSAGES.itin_group);
    expect(itinProblem("912491234")).toBe(TIN_MESSAGES.itin_group);
    expect(itinProblem("912890000")).toBe(TIN_MESSAGES.itin_group);
    expect(itinProblem("912700000")).toBe(TIN_MESSAGES.serial);
    expect(itinProblem("555012468")).toBe(TIN_MESSAGES.itin_area);
  });

  it("property: every ITIN valid in form is accepted as an ITIN and refused as an SSN", () => {
    fc.assert(
      fc.property(validItin, (d) => {
        const checked = checkTaxpayerId({ type: "itin", number: d, country: "" });
        return checked.ok && checked.value.number === d && ssnProblem(d) === TIN_MESSAGES.ssn_area_itin;
      }),
    );
  });

  it("property: an SSN valid in form is never an ITIN", () => {
    fc.assert(fc.property(validSsn, (d) => itinProblem(d) === TIN_MESSAGES.itin_area));
  });
});

describe("a non-US person's government ID", () => {
  it("needs the number and the issuing country, each message next to its field", () => {
    expect(checkTaxpayerId({ type: "foreign", number: "x1", country: "" })).toEqual({
      ok: false,
      problems: [
        { field: "number", message: TIN_MESSAGES.foreign_format },
        { field: "country", message: TIN_MESSAGES.country_missing },
      ],
    });
    expect(checkTaxpayerId({ type: "foreign", number: "AB 123456", country: "ZZ" })).toEqual({
      ok: false,
      problems: [{ field: "country", message: TIN_MESSAGES.country_missing }],
    });
    expect(checkTaxpayerId({ type: "foreign", number: "ab-123 456", country: "de" })).toEqual({
      ok: true,
      value: { type: "foreign", number: "AB123456", country: "DE" },
    });
  });

  it("asks for the kind first, and for the number", () => {
    expect(checkTaxpayerId({ type: "", number: "", country: "" })).toEqual({
      ok: false,
      problems: [
        { field: "type", message: TIN_MESSAGES.type_missing },
        { field: "number", message: TIN_MESSAGES.missing },
      ],
    });
    expect(checkTaxpayerId({ type: "ein", number: "555012468", country: "" })).toMatchObject({ ok: false });
    expect(checkTaxpayerId({ type: "ssn", number: undefined, country: "" })).toEqual({
      ok: false,
      problems: [{ field: "number", message: TIN_MESSAGES.missing }],
    });
  });
});

describe("masking", () => {
  it("shows at most the last four characters", () => {
    expect(maskTin("ssn", tinLastFour("555012468"))).toBe("•••-••-2468");
    expect(maskTin("itin", tinLastFour("912701234"))).toBe("•••-••-1234");
    expect(maskTin("foreign", tinLastFour("AB123456"))).toBe("••••3456");
  });

  it("property: the mask of any valid number holds no other digit of it", () => {
    fc.assert(
      fc.property(fc.oneof(validSsn, validItin), (d) => {
        const shown = maskTin("ssn", tinLastFour(d));
        return shown.replace(/\D/g, "") === d.slice(5) && usTinDigits(shown) === null;
      }),
    );
  });
});

describe("identity verification of a review", () => {
  const form = (values: Record<string, string>) => (name: string) => values[name] ?? null;

  it("needs the method and an answer about discrepancies", () => {
    expect(identityVerificationFromForm(form({}))).toEqual({
      ok: false,
      problems: [
        { field: "identity_method", message: IDENTITY_MESSAGES.method_missing },
        { field: "discrepancy", message: IDENTITY_MESSAGES.discrepancy_missing },
      ],
    });
    expect(identityVerificationFromForm(form({ identity_method: "documentary", discrepancy: "none" }))).toEqual({
      ok: true,
      value: { method: "documentary", discrepancy: null },
    });
  });

  it("needs a description of a resolved discrepancy", () => {
    expect(identityVerificationFromForm(form({ identity_method: "non_documentary", discrepancy: "resolved" }))).toEqual(
      { ok: false, problems: [{ field: "discrepancy_note", message: IDENTITY_MESSAGES.discrepancy_note_missing }] },
    );
    expect(
      identityVerificationFromForm(
        form({ identity_method: "non_documentary", discrepancy: "resolved", discrepancy_note: " Maiden name on ID " }),
      ),
    ).toEqual({ ok: true, value: { method: "non_documentary", discrepancy: "Maiden name on ID" } });
    expect(
      identityVerificationFromForm(
        form({ identity_method: "documentary", discrepancy: "resolved", discrepancy_note: "a\u0000b" }),
      ),
    ).toMatchObject({ ok: false });
  });

  it("a reveal needs a reason of at least 10 characters", () => {
    expect(RevealTinSchema.safeParse({ party: "member", reason: "why" }).success).toBe(false);
    expect(RevealTinSchema.safeParse({ party: "other", reason: "Form 1099 correction" }).success).toBe(false);
    expect(RevealTinSchema.parse({ party: "joint", reason: " Form 1099 correction " })).toEqual({
      party: "joint",
      reason: "Form 1099 correction",
    });
  });
});
