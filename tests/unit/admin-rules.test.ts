import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  CHECKLIST_ITEM_IDS,
  CreateMemberSchema,
  ReviewDecisionSchema,
  checklistComplete,
  checklistFromForm,
  messageTone,
} from "~/domain/application-review";
import { csvField } from "~/server/files/csv.server";
import { isLuhnValid, luhnCheckDigit, randomCardNumber } from "~/server/cards/cards.server";

describe("review checklist", () => {
  it("has the ten checklist items and reads ticked boxes from a form", () => {
    expect(CHECKLIST_ITEM_IDS).toEqual([
      "email",
      "date_of_birth",
      "nationality",
      "address_complete",
      "marital_status",
      "phone",
      "emergency_contact",
      "id_present",
      "id_clear",
      "id_valid",
    ]);
    const form = new Map<string, string>([
      ["check_email", "on"],
      ["check_id_valid", "on"],
    ]);
    const checklist = checklistFromForm((name) => form.get(name));
    expect(checklist.email).toBe(true);
    expect(checklist.id_valid).toBe(true);
    expect(checklist.phone).toBe(false);
    expect(checklistComplete(checklist)).toBe(false);
    expect(checklistComplete(checklistFromForm(() => "on"))).toBe(true);
    // Anything but a ticked box counts as not ticked.
    expect(checklistComplete(checklistFromForm(() => "yes"))).toBe(false);
  });

  it("needs a reason to reject and a description to request information", () => {
    expect(ReviewDecisionSchema.safeParse({ decision: "approve" }).success).toBe(true);
    const reject = ReviewDecisionSchema.safeParse({ decision: "reject", reason: "   " });
    expect(reject.success).toBe(false);
    expect(reject.error?.issues[0]?.message).toBe("Please give the reason for the rejection");
    const info = ReviewDecisionSchema.safeParse({ decision: "request_info" });
    expect(info.error?.issues[0]?.message).toBe("Please describe the information you need");
    expect(ReviewDecisionSchema.safeParse({ decision: "delete" }).success).toBe(false);
    expect(ReviewDecisionSchema.safeParse({ decision: "reject", reason: "x".repeat(2001) }).success).toBe(false);
  });
});

describe("create member form", () => {
  const valid = {
    email: "New.Member@Example.com",
    password: "Temporary harbor pass 9",
    first_name: "Robin",
    last_name: "Lake",
    phone: "(555) 010-7777",
    street: "1 Dock Road",
    city: "Portsmouth",
    state: "NH",
    postal_code: "03801",
  };

  it("accepts a member with role user by default and lower-cases the email", () => {
    const parsed = CreateMemberSchema.parse(valid);
    expect(parsed).toMatchObject({ email: "new.member@example.com", role: "user", joint_account: false });
  });

  it("refuses a short password, a bad ZIP, an unknown role and an incomplete joint owner", () => {
    const errors = (input: Record<string, string>) =>
      CreateMemberSchema.safeParse(input).error?.issues.map((i) => `${String(i.path[0])}: ${i.message}`) ?? [];
    expect(errors({ ...valid, password: "short" })).toContain(
      "password: Password should be at least 12 characters long.",
    );
    expect(errors({ ...valid, postal_code: "3801" })).toContain("postal_code: Please enter a 5-digit ZIP code");
    expect(errors({ ...valid, role: "pending" }).some((e) => e.startsWith("role"))).toBe(true);
    expect(errors({ ...valid, joint_account: "on" })).toEqual(
      expect.arrayContaining([
        "joint_name: Please enter the joint owner's name",
        "joint_email: Please enter the joint owner's email address",
        "joint_phone: Please enter the joint owner's phone number",
      ]),
    );
    expect(
      errors({
        ...valid,
        joint_account: "on",
        joint_name: "Sam Lake",
        joint_email: "sam@example.com",
        joint_phone: "(555) 010-1111",
      }),
    ).toEqual([]);
  });
});

describe("status message colours", () => {
  it("is red when the message says Error or Failed, green otherwise", () => {
    expect(messageTone("Failed to create user: email taken")).toBe("error");
    expect(messageTone("Error reversing transaction")).toBe("error");
    expect(messageTone("User created.")).toBe("success");
  });
});

describe("CSV export fields", () => {
  it("quotes commas, quotes and line breaks, and neutralises spreadsheet formulas", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField('a "quoted", text')).toBe('"a ""quoted"", text"');
    expect(csvField("two\nlines")).toBe('"two\nlines"');
    expect(csvField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvField("+1")).toBe("'+1");
    expect(csvField(null)).toBe("");
    expect(csvField(new Date("2026-11-22T05:00:00Z"))).toBe("2026-11-22T05:00:00.000Z");
    expect(csvField({ checklist: { id_valid: true } })).toBe('"{""checklist"":{""id_valid"":true}}"');
  });
});

describe("debit card numbers", () => {
  it("follow the Luhn check (known numbers) and every generated number passes it", () => {
    expect(isLuhnValid("4111111111111111")).toBe(true);
    expect(isLuhnValid("4111111111111112")).toBe(false);
    expect(luhnCheckDigit("7992739871")).toBe("3");
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 10, maxLength: 10 }), (digits) => {
        let i = 0;
        const number = randomCardNumber(() => digits[i++ % digits.length]!);
        return number.length === 16 && number.startsWith("400000") && isLuhnValid(number);
      }),
    );
  });
});
