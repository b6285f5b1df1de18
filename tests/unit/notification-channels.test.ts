import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  CHANNEL_DEFAULT_CHOSEN,
  channelChoices,
  choicesFromForm,
  NOTIFICATION_GROUP_LABELS,
  NOTIFICATION_GROUPS,
  NOTIFICATION_KIND_GROUPS,
  sendsBy,
} from "~/domain/notification-channels";
import { maskPhoneNumber, notificationText, parseE164, SMS_TEXT_MAX, verificationText } from "~/domain/sms";
import { NOTIFICATION_KINDS } from "~/server/db/schema/notifications";

describe("notification groups", () => {
  it("puts every kind in exactly one group, and every group has kinds and words", () => {
    expect(Object.keys(NOTIFICATION_KIND_GROUPS).sort()).toEqual([...NOTIFICATION_KINDS].sort());
    for (const group of NOTIFICATION_GROUPS) {
      expect(Object.values(NOTIFICATION_KIND_GROUPS)).toContain(group);
      expect(NOTIFICATION_GROUP_LABELS[group].label).not.toBe("");
    }
    expect(NOTIFICATION_KIND_GROUPS.sign_in_alert).toBe("security");
  });

  it("pushes everything and texts nothing until the member chooses", () => {
    expect(CHANNEL_DEFAULT_CHOSEN).toEqual({ push: true, sms: false });
    const push = channelChoices("push", [
      { group_key: "cards", chosen: false },
      { group_key: "nonsense", chosen: false },
    ]);
    expect(push).toMatchObject({ security: true, cards: false });
    expect(Object.keys(push)).toEqual([...NOTIFICATION_GROUPS]);
    const sms = channelChoices("sms", [{ group_key: "security", chosen: true }]);
    expect(sendsBy(sms, "sign_in_alert")).toBe(true);
    expect(sendsBy(sms, "transfer_received")).toBe(false);
  });

  it("reads a form's checkboxes: checked is chosen, missing is not", () => {
    const form = new URLSearchParams({ sms_security: "on", sms_cards: "true", push_payments: "on" });
    expect(choicesFromForm("sms", form)).toEqual({
      alerts: false,
      security: true,
      payments: false,
      deposits: false,
      cards: true,
      accounts: false,
      messages: false,
    });
  });
});

describe("mobile numbers (E.164)", () => {
  it("accepts international numbers typed with spaces, dots, dashes and brackets", () => {
    expect(parseE164("+1 (202) 555-0143")).toBe("+12025550143");
    expect(parseE164(" +44 20 7946 0958 ")).toBe("+442079460958");
    expect(parseE164("+33.1.23.45.67.89")).toBe("+33123456789");
  });

  it("refuses a number without + and country code, with a leading 0 country code, letters, or over 15 digits", () => {
    for (const bad of ["2025550143", "+0 202 555 0143", "+1 202 555 CALL", "+1234567890123456", "+1234567", "", "+"])
      expect(parseE164(bad)).toBeNull();
  });

  it("any number it accepts is + and 8 to 15 digits, the same digits as typed", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."0123456789 ().-+a"), maxLength: 30 }), (typed) => {
        const parsed = parseE164(typed);
        if (parsed === null) return;
        expect(parsed).toMatch(/^\+[1-9]\d{7,14}$/);
        expect(parsed.slice(1)).toBe(typed.replace(/\D/g, ""));
      }),
    );
  });

  it("shows only the last four digits", () => {
    expect(maskPhoneNumber("+12025550143")).toBe("•••• 0143");
  });
});

describe("what a text says", () => {
  it("a notification: who from, the bell's title and body, at most two SMS segments", () => {
    expect(notificationText("Mutual", "You received $25.00", "From Sam.")).toBe(
      "Mutual: You received $25.00. From Sam.",
    );
    const long = notificationText("Mutual", "Title", "x".repeat(1000));
    expect(long).toHaveLength(SMS_TEXT_MAX);
    expect(long.endsWith("…")).toBe(true);
  });

  it("a verification code: the code and its 10 minutes", () => {
    expect(verificationText("Mutual", "012345")).toMatch(/^Mutual: 012345 is your code .* expires in 10 minutes/);
  });
});
