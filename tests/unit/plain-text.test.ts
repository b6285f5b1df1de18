import { describe, expect, it } from "vitest";
import { MULTILINE_TEXT_MESSAGE, PLAIN_TEXT_MESSAGE, hasControlCharacters, plainText } from "~/domain/plain-text";
import { CALENDAR_DATE_MESSAGE, calendarDate, isCalendarDate, parseCalendarDate } from "~/domain/calendar-date";

const messages = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.success ? [] : result.error!.issues.map((i) => i.message);

describe("plainText (every stored or searched text field)", () => {
  it("accepts ordinary text in any script and trims it", () => {
    expect(plainText().parse("  Zoë O'Brien-Łukasz, 12 Rue de l'Église  ")).toBe(
      "Zoë O'Brien-Łukasz, 12 Rue de l'Église",
    );
    expect(plainText().parse("山田 太郎 😀")).toBe("山田 太郎 😀");
  });

  it.each([
    ["NUL", "Al\u0000ex"],
    ["escape", "\u001b[31mred"],
    ["backspace", "abc\u0008"],
    ["delete", "abc\u007f"],
    ["C1 control", "abc\u0085"],
    ["tab", "a\tb"],
    ["line break", "a\nb"],
  ])("refuses a %s with a message for the field", (_name, text) => {
    expect(messages(plainText().safeParse(text))).toEqual([PLAIN_TEXT_MESSAGE]);
  });

  it("takes line breaks and tabs in a multi-line field, never NUL", () => {
    expect(plainText({ multiline: true }).parse("Line one\r\nLine two\n\tindented")).toBe(
      "Line one\r\nLine two\n\tindented",
    );
    expect(messages(plainText({ multiline: true }).safeParse("a\u0000b"))).toEqual([MULTILINE_TEXT_MESSAGE]);
  });

  it("reports only the control character, not also the rules chained after it", () => {
    const field = plainText({ missing: "Please enter your name" }).min(1, "Please enter your name").max(3, "Too long");
    expect(messages(field.safeParse("abcd\u0000"))).toEqual([PLAIN_TEXT_MESSAGE]);
    expect(messages(field.safeParse(""))).toEqual(["Please enter your name"]);
    expect(messages(field.safeParse(undefined))).toEqual(["Please enter your name"]);
    expect(messages(field.safeParse("abcd"))).toEqual(["Too long"]);
  });

  it("takes the field's own message", () => {
    expect(messages(plainText({ message: "Your name can only contain letters" }).safeParse("a\u0001"))).toEqual([
      "Your name can only contain letters",
    ]);
  });

  it("hasControlCharacters", () => {
    expect(hasControlCharacters("plain")).toBe(false);
    expect(hasControlCharacters("a\r\nb")).toBe(true);
    expect(hasControlCharacters("a\r\nb", { multiline: true })).toBe(false);
    expect(hasControlCharacters("a\rb\u0000", { multiline: true })).toBe(true);
  });
});

describe("calendarDate (strict YYYY-MM-DD)", () => {
  it.each(["2024-02-29", "2023-12-31", "0001-01-01", "9999-12-31", "2000-02-29"])("accepts %s", (text) => {
    expect(isCalendarDate(text)).toBe(true);
    expect(calendarDate().parse(text)).toBe(text);
  });

  it.each([
    "2024-02-31",
    "2023-02-29",
    "1900-02-29",
    "2024-04-31",
    "2024-13-01",
    "2024-00-10",
    "2024-01-00",
    "0000-01-01",
    "2024-1-5",
    "20240105",
    "2024-01-05T00:00",
    " ",
    "",
    "2024-01-0\u0000",
  ])("refuses %j", (text) => {
    expect(isCalendarDate(text)).toBe(false);
    expect(messages(calendarDate().safeParse(text))).toEqual([CALENDAR_DATE_MESSAGE]);
  });

  it("gives the parts of a real date", () => {
    expect(parseCalendarDate("0099-03-07")).toEqual({ year: 99, month: 3, day: 7 });
  });
});
