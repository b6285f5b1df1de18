import { expect } from "vitest";
import { readInboundNachaFile, type InboundFile, type ReadInboundResult } from "~/domain/nacha/reader";
import { OUR_ROUTING } from "./nacha-inbound-builder";

/** The app's reader of inbound NACHA files, as the entry-class tests call it: files for our routing number. */
const EXPECT = { routing_number: OUR_ROUTING };
export const read = (text: string) => readInboundNachaFile(new TextEncoder().encode(text), EXPECT);

/** The file read, or the test fails with the reader's message. */
export function accepted(text: string): InboundFile {
  const result = read(text);
  if (!result.ok) throw new Error(result.message);
  return result.file;
}

/** The file refused at `line` for a rule matching `rule`. */
export function expectRefused(result: ReadInboundResult, line: number, rule: RegExp) {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect({ line: result.line, rule: result.rule }).toEqual({ line, rule: expect.stringMatching(rule) });
}
