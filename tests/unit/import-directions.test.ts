import fs from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * The import directions of docs/architecture.md#dependency-directions are ESLint rules
 * (eslint.config.js). This lints small fixture files as if they stood in app/routes (route
 * modules and their view-models), app/components and app/domain, so a rule that stopped firing
 * (a renamed folder, a pattern that no longer matches) fails here instead of letting the
 * layering rot quietly.
 */
const root = path.resolve(import.meta.dirname, "../..");
const fixtures = path.join(root, "tests/fixtures/import-directions");

let eslint: ESLint;
// Loading the configuration (typescript-eslint's parser and rules) is the slow part: done once
// here, with room for a busy machine, so each test only lints a few lines.
beforeAll(async () => {
  eslint = new ESLint({ cwd: root });
  await eslint.lintText("export {};\n", { filePath: path.join(root, "app/routes/warm-up.ts") });
}, 60_000);

/** The restricted-import (and, in routes, restricted-syntax) messages ESLint gives `fixture` placed at `as` (a path in app/). */
async function refusals(fixture: string, as: string): Promise<Array<{ line: number; message: string }>> {
  const text = fs.readFileSync(path.join(fixtures, fixture), "utf8");
  const [result] = await eslint.lintText(text, { filePath: path.join(root, as) });
  return result!.messages
    .filter(
      (m) =>
        m.ruleId === "no-restricted-imports" ||
        m.ruleId === "@typescript-eslint/no-restricted-imports" ||
        m.ruleId === "no-restricted-syntax",
    )
    .map((m) => ({ line: m.line, message: m.message }));
}

describe("import directions", () => {
  it("a route may not import the database or the ledger", async () => {
    const found = await refusals("route-imports-db.ts", "app/routes/member/fixture.tsx");
    expect(found).toEqual([
      { line: 3, message: expect.stringContaining("never the database") },
      { line: 4, message: expect.stringContaining("never the ledger") },
    ]);
  });

  it("a route calling a service, the domain and a server type is clean", async () => {
    expect(await refusals("route-clean.ts", "app/routes/member/fixture.tsx")).toEqual([]);
  });

  it("a route may not hold the database handle, from a helper or getAuth", async () => {
    const found = await refusals("route-holds-db-handle.ts", "app/routes/admin/fixture.tsx");
    expect(found).toEqual([
      { line: 3, message: expect.stringContaining("never hold the database handle") },
      { line: 9, message: expect.stringContaining("never hold the database handle") },
      { line: 11, message: expect.stringContaining("never hold the database handle") },
    ]);
  });

  it("a view-model beside its route may open the database, and nothing more", async () => {
    expect(await refusals("view-model.ts", "app/routes/admin/fixture.server.ts")).toEqual([]);
    const found = await refusals("view-model-sql.ts", "app/routes/admin/fixture.server.ts");
    expect(found).toEqual([
      { line: 3, message: expect.stringContaining("the SQL lives there") },
      { line: 4, message: expect.stringContaining("the SQL lives there") },
      { line: 5, message: expect.stringContaining("never the ledger") },
    ]);
    // The same view-model code in a route module itself is refused: only a view-model opens the database.
    expect(await refusals("view-model.ts", "app/routes/admin/fixture.tsx")).toEqual([
      { line: 3, message: expect.stringContaining("never the database") },
    ]);
  });

  it("a component takes only types from app/server", async () => {
    const found = await refusals("component-imports-server.ts", "app/components/member/fixture.tsx");
    expect(found).toEqual([{ line: 4, message: expect.stringContaining("for types only") }]);
  });

  it("the domain imports nothing with I/O", async () => {
    const found = await refusals("domain-imports-io.ts", "app/domain/fixture.ts");
    expect(found.map((f) => f.line)).toEqual([2, 3, 4]);
    for (const f of found) expect(f.message).toContain("app/domain is pure");
  });

  it("the same files elsewhere are not refused (the rules are per folder)", async () => {
    expect(await refusals("route-imports-db.ts", "app/server/accounts/fixture.server.ts")).toEqual([]);
  });
});
