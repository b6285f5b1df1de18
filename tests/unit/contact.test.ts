import { describe, expect, it } from "vitest";
import { CONTACT_SUBJECTS, ContactMessageSchema, subjectFromQuery, telephoneHref } from "~/domain/contact";

const valid = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  phone: "",
  subject: "general",
  message: "Could you tell me more about your savings accounts?",
  preferred_contact: "email",
};

/** The first message per field, as the form shows them. */
function errorsFor(input: Record<string, unknown>): Record<string, string> {
  const result = ContactMessageSchema.safeParse(input);
  if (result.success) return {};
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) errors[String(issue.path[0])] ??= issue.message;
  return errors;
}

describe("ContactMessageSchema", () => {
  it("accepts a complete message and trims what was typed", () => {
    const result = ContactMessageSchema.parse({
      ...valid,
      name: "  Ada Lovelace ",
      email: " ada@example.com ",
      phone: " (555) 010-4400 ",
    });
    expect(result).toEqual({ ...valid, phone: "(555) 010-4400" });
  });

  it("treats an empty phone as no phone, and email as the default way to reply", () => {
    const { preferred_contact: _omitted, ...rest } = valid;
    const result = ContactMessageSchema.parse(rest);
    expect(result.phone).toBeUndefined();
    expect(result.preferred_contact).toBe("email");
  });

  it("names every missing required field with its own message", () => {
    expect(errorsFor({})).toEqual({
      name: "Enter your name.",
      email: "Enter your email address.",
      subject: "Choose a subject.",
      message: "Enter your message.",
    });
  });

  it("treats blank (whitespace-only) text as missing", () => {
    expect(errorsFor({ ...valid, name: "   ", email: " ", message: "\n\t " })).toEqual({
      name: "Enter your name.",
      email: "Enter your email address.",
      message: "Enter your message.",
    });
  });

  it("refuses an email address that is not one", () => {
    for (const email of ["ada", "ada@", "@example.com", "ada@example", "ada example@example.com", "ada@@example.com"]) {
      expect(errorsFor({ ...valid, email }), email).toEqual({
        email: "Enter a valid email address, like name@example.com.",
      });
    }
  });

  it("bounds the name at 100 characters", () => {
    expect(errorsFor({ ...valid, name: "a".repeat(100) })).toEqual({});
    expect(errorsFor({ ...valid, name: "a".repeat(101) })).toEqual({
      name: "Your name must be 100 characters or fewer.",
    });
  });

  it("bounds the email at 254 characters", () => {
    const local = "a".repeat(64);
    const domain = `${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(60)}.com`;
    expect(`${local}@${domain}`.length).toBeGreaterThan(254);
    expect(errorsFor({ ...valid, email: `${local}@${domain}` })).toEqual({
      email: "Your email address must be 254 characters or fewer.",
    });
  });

  it("bounds the message at 5,000 characters", () => {
    expect(errorsFor({ ...valid, message: "m".repeat(5000) })).toEqual({});
    expect(errorsFor({ ...valid, message: "m".repeat(5001) })).toEqual({
      message: "Your message must be 5,000 characters or fewer.",
    });
  });

  it("keeps line breaks in a message but refuses other control characters", () => {
    expect(errorsFor({ ...valid, message: "Line one\r\nLine two\n\tindented" })).toEqual({});
    expect(errorsFor({ ...valid, message: "bell\u0007" })).toEqual({
      message: "Your message contains characters we cannot accept.",
    });
  });

  it("refuses control characters and line breaks in a name", () => {
    expect(errorsFor({ ...valid, name: "Ada\nLovelace" })).toEqual({
      name: "Your name can only contain letters, spaces and punctuation.",
    });
    expect(errorsFor({ ...valid, name: "Ada\u0000" })).toEqual({
      name: "Your name can only contain letters, spaces and punctuation.",
    });
  });

  it("accepts names in any script", () => {
    expect(errorsFor({ ...valid, name: "Zoë O'Brien-Nguyễn 李" })).toEqual({});
  });

  it("accepts ordinary phone numbers and refuses anything else", () => {
    for (const phone of [
      "(555) 010-4400",
      "555.010.4400",
      "+1 555 010 4400",
      "555-010-4400 x123",
      "+44 20 7946 0958",
    ]) {
      expect(errorsFor({ ...valid, phone }), phone).toEqual({});
    }
    const message = "Enter a valid phone number, like (555) 010-4400, or leave it empty.";
    for (const phone of ["call me", "12345", "1234567890123456", "555-010-4400; drop table"]) {
      expect(errorsFor({ ...valid, phone }), phone).toEqual({ phone: message });
    }
    expect(errorsFor({ ...valid, phone: "5".repeat(31) })).toEqual({
      phone: "Your phone number must be 30 characters or fewer.",
    });
  });

  it("accepts exactly the four subjects, with their form values", () => {
    expect(CONTACT_SUBJECTS.map((s) => [s.value, s.label])).toEqual([
      ["general", "General Inquiry"],
      ["account", "Account Support"],
      ["loan", "Loans"],
      ["technical", "Technical Support"],
    ]);
    for (const { value } of CONTACT_SUBJECTS) expect(errorsFor({ ...valid, subject: value })).toEqual({});
    for (const subject of ["", "Loans", "other", "GENERAL"])
      expect(errorsFor({ ...valid, subject }), subject).toEqual({ subject: "Choose a subject." });
  });

  it("accepts email or phone as the way to reply, nothing else", () => {
    expect(errorsFor({ ...valid, preferred_contact: "phone", phone: "(555) 010-4400" })).toEqual({});
    expect(errorsFor({ ...valid, preferred_contact: "fax" })).toEqual({ preferred_contact: "Choose email or phone." });
  });

  it("asks for a phone number when the reply should be by phone, even alongside other errors", () => {
    const message = "Enter a phone number so we can call you, or choose email.";
    expect(errorsFor({ ...valid, preferred_contact: "phone", phone: "" })).toEqual({ phone: message });
    expect(errorsFor({ preferred_contact: "phone" })).toMatchObject({ name: "Enter your name.", phone: message });
  });

  it("refuses values that are not text (a crafted post)", () => {
    expect(errorsFor({ ...valid, name: 42, message: ["a"] })).toEqual({
      name: "Enter your name.",
      message: "Enter your message.",
    });
  });

  it("drops fields it does not know (the honeypot, anything injected)", () => {
    const result = ContactMessageSchema.parse({ ...valid, website: "spam", status: "answered", source_ip: "1.2.3.4" });
    expect(Object.keys(result).sort()).toEqual(["email", "message", "name", "phone", "preferred_contact", "subject"]);
  });
});

describe("subjectFromQuery", () => {
  it("takes one of our subjects and ignores anything else", () => {
    expect(subjectFromQuery("general")).toBe("general");
    expect(subjectFromQuery("loan")).toBe("loan");
    expect(subjectFromQuery("Loans")).toBeUndefined();
    expect(subjectFromQuery("\uFFFD\uFFFD")).toBeUndefined();
    expect(subjectFromQuery(null)).toBeUndefined();
  });
});

describe("telephoneHref", () => {
  it("dials a ten-digit US number with +1 and keeps other numbers international", () => {
    expect(telephoneHref("(555) 010-4400")).toBe("tel:+15550104400");
    expect(telephoneHref("+44 20 7946 0958")).toBe("tel:+442079460958");
  });
});
