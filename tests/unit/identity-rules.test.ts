import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  ageInYears,
  applicationSchema,
  idDocumentProblem,
  maskDateOfBirth,
  maskIdNumber,
  SIGNUP_EMAIL_TAKEN,
} from "~/domain/membership-application";
import { isCommonPassword, passwordProblem } from "~/domain/password";
import { loginPathFor, safeRedirectTo } from "~/domain/redirect-to";
import { codeSchema, keepCodeDigits, maskEmail, resetPasswordSchema, signInSchema } from "~/domain/sign-in";
import { codeMatches, generateCode, hashCode } from "~/server/auth/codes.server";
import { DecryptionError, decryptField, encryptField, keyedHash, sameHash } from "~/server/security/crypto.server";
import { effectiveRole } from "~/server/auth/roles.server";
import { destinationAfterSignIn, homePathFor } from "~/server/auth/session.server";
import { applicationAnswers } from "../application-answers";

const TODAY = new Date("2026-11-22T12:00:00Z");

const VALID = applicationAnswers("Jamie.Rivera@Example.com", "Harbor lights at dusk 7", {
  marital_status: "married",
  emergency_phone: "+1 555 010 9876",
  id_type: "drivers_license",
  id_number: "NH-D1234567",
});

function messages(input: Record<string, string | undefined>): Record<string, string> {
  const result = applicationSchema(TODAY).safeParse(input);
  if (result.success) return {};
  const out: Record<string, string> = {};
  for (const issue of result.error.issues) out[String(issue.path[0])] ??= issue.message;
  return out;
}

describe("membership application rules", () => {
  it("accepts a complete application, lower-cases the email and drops the confirmation", () => {
    const result = applicationSchema(TODAY).parse(VALID);
    expect(result.email).toBe("jamie.rivera@example.com");
    expect(result.alt_email).toBeUndefined();
    expect(result.joint_account).toBe(false);
    expect(result.joint_name).toBeNull();
    expect("confirm_password" in result && result.confirm_password).toBeFalsy();
  });

  it("requires every field except the alternative email, each with its own message", () => {
    const empty = Object.fromEntries(Object.keys(VALID).map((k) => [k, ""]));
    expect(messages(empty)).toEqual({
      email: "Please enter a valid email address",
      password: "Password should be at least 12 characters long.",
      first_name: "Please enter your first name",
      last_name: "Please enter your last name",
      date_of_birth: "Please enter your date of birth",
      nationality: "Please enter your nationality",
      marital_status: "Please select your marital status",
      street: "Please enter your street address",
      city: "Please enter your city",
      state: "Please enter your state or region",
      postal_code: "Please enter your postal code",
      country: "Please enter your country",
      phone: "Please enter your phone number",
      emergency_name: "Please enter your emergency contact's name",
      emergency_relationship: "Please enter your emergency contact's relationship to you",
      emergency_phone: "Please enter your emergency contact's phone number",
      id_type: "Please select an ID type",
      id_number: "Please enter your ID number",
      tin_type: "Please choose the kind of taxpayer number",
      tin: "Please enter the number",
    });
    // Missing fields (no JavaScript, a hand-made post) get the same messages.
    expect(messages({})).toMatchObject({
      email: "Please enter a valid email address",
      marital_status: "Please select your marital status",
    });
  });

  it("shows the exact documented messages for email and passwords, together with the others", () => {
    expect(messages({ ...VALID, email: "not-an-email" }).email).toBe("Please enter a valid email address");
    expect(messages({ ...VALID, alt_email: "also bad" }).alt_email).toBe("Please enter a valid email address");
    expect(messages({ ...VALID, confirm_password: "Harbor lights at dusk 8" }).confirm_password).toBe(
      "Passwords do not match",
    );
    expect(messages({ ...VALID, password: "Short pass1", confirm_password: "Short pass1" }).password).toBe(
      "Password should be at least 12 characters long.",
    );
    // Cross-field rules still run when another field is invalid, so every message shows at once.
    expect(messages({ ...VALID, marital_status: "", confirm_password: "different!!!!!" })).toMatchObject({
      marital_status: "Please select your marital status",
      confirm_password: "Passwords do not match",
    });
  });

  it("accepts 12 characters, refuses 11, refuses common passwords", () => {
    expect(messages({ ...VALID, password: "abcdefgh1!x", confirm_password: "abcdefgh1!x" }).password).toBe(
      "Password should be at least 12 characters long.",
    );
    expect(messages({ ...VALID, password: "Tq8#vLm2@pZx", confirm_password: "Tq8#vLm2@pZx" })).toEqual({});
    for (const common of [
      "password1234",
      "Password2024!",
      "123456789012",
      "qwertyuiop123",
      "aaaaaaaaaaaa",
      "abcabcabcabc",
      "iloveyou1234",
      "welcomewelcome",
    ]) {
      expect(isCommonPassword(common), common).toBe(true);
      expect(passwordProblem(common), common).toBe(
        "This password is too common. Please choose one that is harder to guess.",
      );
    }
    for (const fine of ["Harbor lights at dusk 7", "correct-staple-orbit-91", "Member-Demo-Pass-1"])
      expect(isCommonPassword(fine), fine).toBe(false);
    expect(passwordProblem("x".repeat(129))).toBe("Password should be at most 128 characters long.");
  });

  it("requires applicants to be at least 18 today", () => {
    expect(ageInYears("2008-11-22", TODAY)).toBe(18);
    expect(ageInYears("2008-11-23", TODAY)).toBe(17);
    expect(messages({ ...VALID, date_of_birth: "2008-11-22" })).toEqual({});
    expect(messages({ ...VALID, date_of_birth: "2008-11-23" }).date_of_birth).toBe(
      "You must be at least 18 years old to apply",
    );
    expect(messages({ ...VALID, date_of_birth: "1990-02-30" }).date_of_birth).toBe(
      "Please enter a valid date of birth",
    );
    expect(messages({ ...VALID, date_of_birth: "17/04/1988" }).date_of_birth).toBe(
      "Please enter a valid date of birth",
    );
    expect(messages({ ...VALID, date_of_birth: "1890-01-01" }).date_of_birth).toBe(
      "Please enter a valid date of birth",
    );
    expect(messages({ ...VALID, date_of_birth: "2030-01-01" }).date_of_birth).toBe(
      "Please enter a valid date of birth",
    );
  });

  it("requires the joint owner's name, email and phone only when Joint account is ticked", () => {
    expect(messages({ ...VALID, joint_name: "", joint_email: "", joint_phone: "" })).toEqual({});
    expect(messages({ ...VALID, joint_account: "on" })).toEqual({
      joint_name: "Please enter the joint owner's name",
      joint_email: "Please enter a valid email address",
      joint_phone: "Please enter the joint owner's phone number",
      joint_tin_type: "Please choose the kind of taxpayer number",
      joint_tin: "Please enter the number",
    });
    expect(
      messages({
        ...VALID,
        joint_account: "on",
        joint_name: "Lee",
        joint_email: "jamie.rivera@example.com",
        joint_phone: "555 010 2222",
      }).joint_email,
    ).toBe("The joint owner needs their own email address");
    const parsed = applicationSchema(TODAY).parse({
      ...VALID,
      joint_account: "on",
      joint_name: "Lee Rivera",
      joint_email: "Lee@Example.com",
      joint_phone: "555 010 2222",
      joint_tin_type: "foreign",
      joint_tin: "c 1234-5678",
      joint_tin_country: "ca",
    });
    expect(parsed).toMatchObject({
      joint_account: true,
      joint_name: "Lee Rivera",
      joint_email: "lee@example.com",
      taxpayer_id: { type: "ssn", number: "555012468", country: null },
      joint_taxpayer_id: { type: "foreign", number: "C12345678", country: "CA" },
    });
  });

  it("checks marital status, ID type and phone formats", () => {
    expect(messages({ ...VALID, marital_status: "complicated" }).marital_status).toBe(
      "Please select your marital status",
    );
    expect(messages({ ...VALID, id_type: "library_card" }).id_type).toBe("Please select an ID type");
    expect(messages({ ...VALID, phone: "call me" }).phone).toBe("Please enter a valid phone number");
    expect(messages({ ...VALID, id_number: "<script>" }).id_number).toBe(
      "Please enter a valid ID number (letters, digits, spaces and dashes)",
    );
    expect(messages({ ...VALID, first_name: "x".repeat(101) }).first_name).toBe("Please use at most 100 characters");
  });

  it("checks the document before sending: present, at most 10 MB, an image or PDF", () => {
    expect(idDocumentProblem(null)).toBe("Please upload an image or PDF of your ID document");
    expect(idDocumentProblem({ size: 0, type: "", name: "" })).toBe(
      "Please upload an image or PDF of your ID document",
    );
    expect(idDocumentProblem({ size: 10 * 1024 * 1024 + 1, type: "image/png", name: "a.png" })).toBe(
      "The document must be 10 MB or smaller",
    );
    expect(idDocumentProblem({ size: 100, type: "text/plain", name: "a.txt" })).toBe(
      "The document must be a JPEG, PNG or WebP image, or a PDF",
    );
    expect(idDocumentProblem({ size: 100, type: "application/pdf", name: "scan.pdf" })).toBeNull();
  });

  it("masks personal numbers", () => {
    expect(maskIdNumber("NH-D1234567")).toBe("••••••4567");
    expect(maskIdNumber("1234")).toBe("••••1234");
    expect(maskDateOfBirth("1988-04-17")).toBe("••/••/1988");
    expect(maskEmail("jamie.rivera@example.com")).toBe("j••••••@example.com");
    expect(SIGNUP_EMAIL_TAKEN).toBe("An account with this email already exists.");
  });
});

describe("sign-in forms", () => {
  it("needs a valid email and a password; remembers the choice", () => {
    expect(signInSchema.parse({ email: "A@B.example", password: "x", remember: "on" })).toMatchObject({
      email: "a@b.example",
      remember: true,
    });
    expect(signInSchema.safeParse({ email: "nope", password: "x" }).error?.issues[0]?.message).toBe(
      "Please enter a valid email address",
    );
    expect(signInSchema.safeParse({ email: "a@b.example", password: "" }).error?.issues[0]?.message).toBe(
      "Please enter your password",
    );
  });

  it("takes exactly six digits for a code; the field keeps digits only, at most six", () => {
    expect(codeSchema.safeParse({ code: "123456" }).success).toBe(true);
    for (const bad of ["12345", "1234567", "12345a", "", " 12 345"])
      expect(codeSchema.safeParse({ code: bad }).success, bad).toBe(false);
    expect(keepCodeDigits("ab12 34-5678")).toBe("123456");
    expect(keepCodeDigits("")).toBe("");
  });

  it("applies the password rules to a reset", () => {
    const result = resetPasswordSchema.safeParse({
      token: "t0ken-value",
      password: "short",
      confirm_password: "other",
    });
    expect(result.error?.issues.map((i) => i.message)).toEqual([
      "Password should be at least 12 characters long.",
      "Passwords do not match",
    ]);
  });
});

describe("one-time codes", () => {
  const secret = "unit-test-secret-unit-test-secret-0123";
  it("are 6 digits from the whole range", () => {
    const codes = Array.from({ length: 2000 }, generateCode);
    for (const code of codes) expect(code).toMatch(/^\d{6}$/);
    expect(new Set(codes).size).toBeGreaterThan(1900);
    expect(codes.some((c) => c.startsWith("0"))).toBe(true);
  });

  it("are stored as keyed hashes bound to purpose and member", () => {
    const hash = hashCode("staff-sign-in", "user-1", "123456", secret);
    expect(hash).not.toContain("123456");
    expect(codeMatches(hash, "staff-sign-in", "user-1", "123456", secret)).toBe(true);
    expect(codeMatches(hash, "staff-sign-in", "user-1", "123457", secret)).toBe(false);
    expect(codeMatches(hash, "staff-sign-in", "user-2", "123456", secret)).toBe(false);
    expect(codeMatches(hash, "email-sign-in", "user-1", "123456", secret)).toBe(false);
    expect(codeMatches(hash, "staff-sign-in", "user-1", "123456", `${secret}x`)).toBe(false);
    expect(codeMatches(hash, "staff-sign-in", "user-1", "12345", secret)).toBe(false);
  });

  it("compare in constant time only hashes of equal length", () => {
    const a = keyedHash("p", "v", secret);
    expect(sameHash(a, a)).toBe(true);
    expect(sameHash(a, `${a}x`)).toBe(false);
  });
});

describe("personal data encryption (AES-256-GCM)", () => {
  const key = crypto.randomBytes(32);
  it("round-trips and never stores the plaintext", () => {
    const stored = encryptField("1988-04-17", "member_profiles.date_of_birth:u1", key);
    expect(stored).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(stored).not.toContain("1988");
    expect(decryptField(stored, "member_profiles.date_of_birth:u1", key)).toBe("1988-04-17");
    // A fresh IV every time: the same value encrypts differently.
    expect(encryptField("1988-04-17", "member_profiles.date_of_birth:u1", key)).not.toBe(stored);
  });

  it("detects any change, another row or column, and the wrong key", () => {
    const stored = encryptField("P1234567890", "member_profiles.id_number:u1", key);
    const parts = stored.split(".");
    const flip = (text: string) => (text[0] === "A" ? "B" : "A") + text.slice(1);
    for (const index of [1, 2, 3]) {
      const tampered = parts.map((p, i) => (i === index ? flip(p) : p)).join(".");
      expect(() => decryptField(tampered, "member_profiles.id_number:u1", key)).toThrow(DecryptionError);
    }
    expect(() => decryptField(stored, "member_profiles.id_number:u2", key)).toThrow(DecryptionError);
    expect(() => decryptField(stored, "member_profiles.date_of_birth:u1", key)).toThrow(DecryptionError);
    expect(() => decryptField(stored, "member_profiles.id_number:u1", crypto.randomBytes(32))).toThrow(DecryptionError);
    expect(() => decryptField("plain text", "x", key)).toThrow(DecryptionError);
    expect(() => encryptField("x", "y", crypto.randomBytes(16))).toThrow();
  });
});

describe("where to go after signing in", () => {
  it("accepts only same-site paths as redirectTo", () => {
    expect(safeRedirectTo("/dashboard/transactions?page=2#top")).toBe("/dashboard/transactions?page=2#top");
    expect(safeRedirectTo("/admin")).toBe("/admin");
    for (const bad of [
      "https://evil.example/",
      "//evil.example",
      "/\\evil.example",
      "\\\\evil.example",
      "javascript:alert(1)",
      "/dash board",
      "/\tevil",
      "",
      "dashboard",
      "/login",
      "/login?redirectTo=/x",
      "/logout",
      "/signup",
      "/reset-password?token=x",
      `/${"a".repeat(3000)}`,
      null,
      42,
    ]) {
      expect(safeRedirectTo(bad), String(bad)).toBeNull();
    }
    // Encoded characters stay a path on this site.
    expect(safeRedirectTo("/%2F%2Fevil.example")).toBe("/%2F%2Fevil.example");
    expect(safeRedirectTo("/%0a/evil")).toBe("/%0a/evil");
    expect(loginPathFor("/dashboard?tab=cards")).toBe("/login?redirectTo=%2Fdashboard%3Ftab%3Dcards");
    expect(loginPathFor("//evil.example")).toBe("/login");
  });

  it("sends staff to /admin, members to /dashboard or their target, applicants to their status", () => {
    expect(effectiveRole(null)).toBe("user");
    expect(effectiveRole("superuser")).toBe("user");
    expect(effectiveRole("admin")).toBe("admin");
    expect(homePathFor({ role: "pending", application_status: "rejected" })).toBe("/not-approved");
    expect(homePathFor({ role: "pending", application_status: "pending" })).toBe("/pending-approval");
    expect(destinationAfterSignIn({ role: "admin", application_status: null }, "/admin/audit")).toBe("/admin/audit");
    expect(destinationAfterSignIn({ role: "admin", application_status: null }, "/dashboard")).toBe("/admin");
    expect(destinationAfterSignIn({ role: "user", application_status: null }, "/dashboard/transactions")).toBe(
      "/dashboard/transactions",
    );
    expect(destinationAfterSignIn({ role: "user", application_status: null }, "/admin")).toBe("/dashboard");
    expect(destinationAfterSignIn({ role: "user", application_status: null }, "https://evil.example")).toBe(
      "/dashboard",
    );
    expect(destinationAfterSignIn({ role: "pending", application_status: "pending" }, "/dashboard")).toBe(
      "/pending-approval",
    );
  });
});
