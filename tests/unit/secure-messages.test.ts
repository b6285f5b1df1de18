import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  conversationNumber,
  MESSAGE_BODY_MAX_CHARS,
  MESSAGE_SUBJECT_MAX_CHARS,
  NewConversationSchema,
  ReplySchema,
} from "~/domain/secure-messages";

/** The secure-message forms' rules (docs/product.md#messages-secure-messages). */
const messages = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.error?.issues.map((i) => i.message) ?? [];

describe("a new message", () => {
  it("needs a subject and a text, each within its limit", () => {
    expect(messages(NewConversationSchema.safeParse({ subject: "", body: "Hi" }))).toContain("Write a subject.");
    expect(messages(NewConversationSchema.safeParse({ subject: "Hi", body: "  " }))).toContain("Write your message.");
    expect(
      messages(NewConversationSchema.safeParse({ subject: "x".repeat(MESSAGE_SUBJECT_MAX_CHARS + 1), body: "Hi" })),
    ).toContain(`Please keep the subject to ${MESSAGE_SUBJECT_MAX_CHARS} characters.`);
    expect(messages(ReplySchema.safeParse({ body: "x".repeat(MESSAGE_BODY_MAX_CHARS + 1) }))).toContain(
      "Please keep it to 5,000 characters.",
    );
  });

  it("keeps line breaks in the text, refuses control characters, trims", () => {
    expect(ReplySchema.parse({ body: "  Line one\nLine two  " }).body).toBe("Line one\nLine two");
    expect(messages(ReplySchema.safeParse({ body: "bad\u0000text" }))).toContain(
      "Please use only letters, numbers, spaces, punctuation and line breaks.",
    );
    expect(messages(NewConversationSchema.safeParse({ subject: "two\nlines", body: "ok" })).length).toBeGreaterThan(0);
  });

  it("a transaction is optional, and a positive whole number when given", () => {
    expect(NewConversationSchema.parse({ subject: "Hi", body: "Hello" }).transaction_id).toBeUndefined();
    expect(NewConversationSchema.parse({ subject: "Hi", body: "Hello", transaction_id: "42" }).transaction_id).toBe(42);
    expect(NewConversationSchema.safeParse({ subject: "Hi", body: "Hello", transaction_id: "0" }).success).toBe(false);
  });
});

describe("conversation numbers", () => {
  it("are M- and six digits at least, one per id", () => {
    expect(conversationNumber(42)).toBe("M-000042");
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), (id) => {
        const number = conversationNumber(id);
        expect(number).toMatch(/^M-\d{6,}$/);
        expect(Number(number.slice(2))).toBe(id);
      }),
    );
  });
});
