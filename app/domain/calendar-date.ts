import { z } from "zod";

/**
 * A calendar date typed or put in an address as YYYY-MM-DD (a date filter, a date of birth).
 * Strict: the day must exist (2024-02-29 yes, 2023-02-29 and 2024-02-31 no; JavaScript's Date
 * would quietly roll those over to March and PostgreSQL refuses them with an error), and the
 * year is 0001 to 9999 (PostgreSQL has no year 0).
 */
export const CALENDAR_DATE_MESSAGE = "Please enter a real date (YYYY-MM-DD)";

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The date's parts, or null when `text` is not a real YYYY-MM-DD date. */
export function parseCalendarDate(text: string): { year: number; month: number; day: number } | null {
  const match = SHAPE.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return null;
  // Date.UTC treats years 0-99 as 1900-1999; setUTCFullYear does not.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return { year, month, day };
}

export function isCalendarDate(text: string): boolean {
  return parseCalendarDate(text) !== null;
}

/** A required YYYY-MM-DD date (trimmed). Chain further rules (a range, an age) after it. */
export function calendarDate(message: string = CALENDAR_DATE_MESSAGE) {
  return z.string({ error: message }).trim().refine(isCalendarDate, { message, abort: true });
}

/** One formatter for the module: building an Intl formatter costs far more than using one. */
const DATE_WORDS = new Intl.DateTimeFormat("en-US", {
  month: "short",
  day: "numeric",
  year: "numeric",
  timeZone: "UTC",
});

/**
 * A business date (YYYY-MM-DD) as members read it on the pages and in their messages:
 * "Nov 30, 2026". The date is the institution's calendar day already, so it is written as it
 * is, whatever the reader's or the server's time zone.
 */
export function formatBusinessDate(iso_date: string): string {
  return DATE_WORDS.format(new Date(`${iso_date}T12:00:00Z`));
}
