import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  NOTICE_DAYS_AHEAD,
  SAMPLE_CODE_ALPHABET,
  SAMPLE_CODE_LENGTH,
  SAMPLE_CODE_MESSAGES,
  addCalendarDays,
  consentSchema,
  deliveryOf,
  normalizeSampleCode,
  noticeInTime,
  changeTakesEffectOn,
  NOTICE_RULES,
  sampleCodeFrom,
} from "~/domain/electronic-delivery";
import { InstitutionSchema } from "~/config/institution";
import { demoInstitution } from "~/config/demo-institution";

/** The rules of electronic delivery consent (docs/product.md#electronic-delivery). */
describe("the sample PDF's code", () => {
  it("is six characters of the unambiguous alphabet, from any random bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: SAMPLE_CODE_LENGTH, maxLength: 32 }), (bytes) => {
        const code = sampleCodeFrom(bytes);
        expect(code).toHaveLength(SAMPLE_CODE_LENGTH);
        for (const c of code) expect(SAMPLE_CODE_ALPHABET).toContain(c);
        // Whatever a member types around it (spaces, a dash, lower case), it reads back the same.
        const typed = ` ${code.slice(0, 3).toLowerCase()}-${code.slice(3)} `;
        expect(consentSchema.parse({ code: typed, agree: "yes" }).code).toBe(code);
      }),
    );
    expect(() => sampleCodeFrom(new Uint8Array(3))).toThrow();
  });

  it("leaves out letters and digits read as one another", () => {
    for (const c of "01258OILZSB") expect(SAMPLE_CODE_ALPHABET).not.toContain(c);
    expect(normalizeSampleCode("ab c-d")).toBe("ABCD");
  });

  it("says what is wrong, one message per field", () => {
    const problems = (form: Record<string, string>) =>
      consentSchema.safeParse(form).error?.issues.map((i) => i.message);
    expect(problems({ code: "", agree: "yes" })).toEqual([SAMPLE_CODE_MESSAGES.empty]);
    expect(problems({ code: "ABC", agree: "yes" })).toEqual([SAMPLE_CODE_MESSAGES.shape]);
    expect(problems({ code: "OOOOOO", agree: "yes" })).toEqual([SAMPLE_CODE_MESSAGES.shape]);
    expect(problems({ code: "ACDEFG" })).toEqual([SAMPLE_CODE_MESSAGES.agree]);
    expect(problems({ code: "ACDEFG", agree: "yes" })).toBeUndefined();
  });
});

describe("delivery", () => {
  it("is electronic only after consent", () => {
    expect(deliveryOf("consented")).toBe("electronic");
    expect(deliveryOf("withdrawn")).toBe("paper");
    expect(deliveryOf("declined")).toBe("paper");
    expect(deliveryOf(null)).toBe("paper");
  });
});

describe("change-in-terms notice periods", () => {
  it("are 21 days for Regulation E, 30 for Truth in Savings", () => {
    expect(NOTICE_DAYS_AHEAD.reg_e).toBe(21);
    expect(NOTICE_DAYS_AHEAD.truth_in_savings).toBe(30);
    expect(noticeInTime("reg_e", "2026-12-01", "2026-12-22")).toBe(true);
    expect(noticeInTime("reg_e", "2026-12-01", "2026-12-21")).toBe(false);
    expect(noticeInTime("truth_in_savings", "2026-12-01", "2026-12-31")).toBe(true);
    expect(noticeInTime("truth_in_savings", "2026-12-02", "2026-12-31")).toBe(false);
    expect(noticeInTime("privacy", "2026-12-01", "2026-12-01")).toBe(true);
  });

  it("count calendar days across months and leap years", () => {
    expect(addCalendarDays("2028-02-20", 21)).toBe("2028-03-12");
    expect(addCalendarDays("2026-12-15", 30)).toBe("2027-01-14");
  });
});

describe("the profile's disclosures", () => {
  it("default to six versioned documents and refuse a bad version or date", () => {
    const profile = InstitutionSchema.parse(demoInstitution);
    expect(Object.keys(profile.disclosures).sort()).toEqual(
      ["account_agreement", "esign", "funds_availability", "privacy", "reg_e", "truth_in_savings"].sort(),
    );
    expect(profile.electronic_delivery).toEqual({ withdrawal_fee_cents: 0, paper_copy_fee_cents: 0 });
    const bad = {
      ...demoInstitution,
      disclosures: {
        ...profile.disclosures,
        reg_e: { ...profile.disclosures.reg_e, version: "two words", effective_on: "soon" },
      },
    };
    const paths = InstitutionSchema.safeParse(bad).error?.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["disclosures.reg_e.version", "disclosures.reg_e.effective_on"]));
  });
});

describe("when a changed disclosure takes effect", () => {
  it("the profile's date, or the first day the rule's notice period allows when that is sooner", () => {
    expect(changeTakesEffectOn("reg_e", "2026-12-02", "2027-02-01")).toBe("2027-02-01");
    expect(changeTakesEffectOn("reg_e", "2026-12-02", "2026-12-10")).toBe("2026-12-23");
    expect(changeTakesEffectOn("truth_in_savings", "2026-12-02", "2026-12-02")).toBe("2027-01-01");
    expect(changeTakesEffectOn("funds_availability", "2026-12-02", "2026-12-02")).toBe("2027-01-01");
    expect(changeTakesEffectOn("privacy", "2026-12-02", "2026-12-02")).toBe("2026-12-02");
    expect(NOTICE_RULES.funds_availability).toBe("12 CFR 229.18(e)");
    expect(NOTICE_RULES.reg_e).toBe("12 CFR 1005.8(a)");
  });
});
