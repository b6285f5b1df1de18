import { describe, expect, it } from "vitest";
import { csvDocument, csvField } from "~/server/files/csv.server";

describe("the one CSV writer (history and audit exports)", () => {
  it("quotes only what needs it, unless asked to quote always", () => {
    expect(csvField("Groceries")).toBe("Groceries");
    expect(csvField("Groceries", { quote: "always" })).toBe('"Groceries"');
    expect(csvField('say "hi", then', { quote: "always" })).toBe('"say ""hi"", then"');
  });

  it("makes text a spreadsheet would run as a formula inert, however it is quoted", () => {
    for (const start of ["=", "+", "-", "@", "\t", "\r"]) {
      expect(csvField(`${start}HYPERLINK(1)`).replace(/^"/, "")).toMatch(/^'/);
      expect(csvField(`${start}HYPERLINK(1)`, { quote: "always" })).toMatch(/^"'/);
    }
    expect(csvField("Bonus =cmd", { quote: "always" })).toBe('"Bonus =cmd"');
  });

  it("writes a header and lines with CRLF, the last line ended too", () => {
    expect(
      csvDocument(
        ["a", "b"],
        [
          ["1", csvField("x,y")],
          ["2", ""],
        ],
      ),
    ).toBe('a,b\r\n1,"x,y"\r\n2,\r\n');
    expect(csvDocument(["a"], [])).toBe("a\r\n");
  });
});
