import { describe, expect, it } from "vitest";
import { badPathSegment, PATH_SEGMENT_MAX_CHARS } from "~/server/security/request-guards.server";

/**
 * The request guard's test of a path segment (docs/decisions/0003-request-guards.md): what no
 * route's id or page name can be is a 404 before any route runs; everything else passes as before.
 */
describe("badPathSegment", () => {
  it("refuses a control character once decoded: NUL, a line break, DEL, a C1 control", () => {
    for (const segment of ["a%00b", "%00", "a%0Ab", "a%0db", "%7F", "%C2%85", "a\u0000b"])
      expect(badPathSegment(segment), segment).toBe(true);
  });

  it("refuses an escape that does not decode: not hex, cut off, overlong or invalid UTF-8", () => {
    for (const segment of ["%ZZ", "%", "a%2", "%E0%A4%A", "%C0%AF", "%ED%A0%80", "%FF"])
      expect(badPathSegment(segment), segment).toBe(true);
  });

  it(`refuses a segment longer than ${PATH_SEGMENT_MAX_CHARS} characters decoded, and takes one of exactly that`, () => {
    expect(badPathSegment("x".repeat(PATH_SEGMENT_MAX_CHARS + 1))).toBe(true);
    expect(badPathSegment("x".repeat(PATH_SEGMENT_MAX_CHARS))).toBe(false);
    // Counted decoded: 128 escaped letters are 384 characters in the address, and fine.
    expect(badPathSegment("%41".repeat(PATH_SEGMENT_MAX_CHARS))).toBe(false);
  });

  it("takes what routes serve: ids, page names, escaped letters and spaces, an empty segment, .data", () => {
    for (const segment of [
      "",
      "admin",
      "Yk3vQ9xZ_a-1",
      "123456789012345",
      "2026-10",
      "premier-checking",
      "%70remier",
      "a%20b",
      "transactions.data",
      "caf%C3%A9",
    ]) {
      expect(badPathSegment(segment), segment).toBe(false);
    }
  });
});
