import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * CHANGELOG.md is the operator's list of what a release brings (docs/contributing.md#releases): it
 * must name the newest migration (so an upgrade's migrations are never a surprise) and its newest
 * release must be package.json's version.
 */
const root = path.resolve(import.meta.dirname, "../..");
const changelog = fs.readFileSync(path.join(root, "CHANGELOG.md"), "utf8");

describe("CHANGELOG.md", () => {
  it("names the newest migration", () => {
    const journal = JSON.parse(
      fs.readFileSync(path.join(root, "app/server/db/migrations/meta/_journal.json"), "utf8"),
    ) as { entries: { tag: string }[] };
    const newest = journal.entries.at(-1)!.tag;
    expect(changelog.includes(`\`${newest}\``), `CHANGELOG.md should name ${newest} under Upgrading`).toBe(true);
  });

  it("its newest release is package.json's version, with a date", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
    const releases = [...changelog.matchAll(/^## (\d+\.\d+\.\d+) — (\d{4}-\d{2}-\d{2})$/gm)];
    expect(releases.length).toBeGreaterThan(0);
    expect(releases[0]![1]).toBe(pkg.version);
  });
});
