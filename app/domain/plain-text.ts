import { z } from "zod";

/**
 * Text a person types that we store or search with: names, addresses, references, notes, review
 * reasons, search and filter words. Control characters (NUL, escape, backspace and the like) are
 * refused with a message next to the field: PostgreSQL cannot store NUL in text at all (the
 * query fails), and the others only hide or garble what staff and members read later. Line
 * breaks and tabs are accepted only in fields that take several lines (`multiline`).
 *
 * Every form schema that stores or searches text builds its text fields with `plainText()`, so
 * the rule is the same everywhere; the contact form's messages are its own.
 */
export const PLAIN_TEXT_MESSAGE = "Please use only letters, numbers, spaces and punctuation";
export const MULTILINE_TEXT_MESSAGE = "Please use only letters, numbers, spaces, punctuation and line breaks";

// \p{Cc}: U+0000-U+001F, U+007F and U+0080-U+009F.
const CONTROL_CHARACTER = /\p{Cc}/u;
const LINE_BREAKS_AND_TABS = /\r\n|[\r\n\t]/g;

/** True when `text` holds a control character (line breaks and tabs are allowed when `multiline`). */
export function hasControlCharacters(text: string, options: { multiline?: boolean } = {}): boolean {
  return CONTROL_CHARACTER.test(options.multiline ? text.replace(LINE_BREAKS_AND_TABS, " ") : text);
}

export interface PlainTextOptions {
  /** The message when the value is absent or not text (a form field that was not posted). */
  missing?: string;
  /** Line breaks and tabs are allowed (a message, a note). */
  multiline?: boolean;
  /** The message for a control character; defaults to PLAIN_TEXT_MESSAGE / MULTILINE_TEXT_MESSAGE. */
  message?: string;
}

/**
 * A trimmed string without control characters. Chain the field's own rules after it
 * (`plainText({ missing }).min(1, missing).max(100, ...)`): a control character is reported
 * alone (the check aborts), so the person sees the one message that helps.
 */
export function plainText(options: PlainTextOptions = {}) {
  const message = options.message ?? (options.multiline ? MULTILINE_TEXT_MESSAGE : PLAIN_TEXT_MESSAGE);
  return z
    .string(options.missing === undefined ? undefined : { error: options.missing })
    .trim()
    .refine((text) => !hasControlCharacters(text, { multiline: options.multiline }), { message, abort: true });
}

/** A sentence's end: a full stop, question or exclamation mark, maybe inside closing quotes or brackets. */
const SENTENCE_END = /[.!?]["'”’)\]]*$/u;

/**
 * Text someone typed (a reviewer's reason), ended as a sentence so that the message it goes into
 * reads on: "The check is not signed on the back" becomes "... on the back." before the next
 * sentence. Text that already ends a sentence is kept as it is; whitespace is trimmed.
 */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  return trimmed === "" || SENTENCE_END.test(trimmed) ? trimmed : `${trimmed}.`;
}
