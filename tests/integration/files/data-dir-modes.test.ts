import { afterEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrateDatabase, openDatabase } from "~/server/db/client.server";
import { loadSecrets } from "~/server/config/secrets.server";
import { storePrivateUpload } from "~/server/uploads/private-uploads.server";

/**
 * DATA_DIR holds the embedded database, the generated secrets and uploaded ID documents: only
 * the account the server runs as may read or change it (folders 0700, files 0600).
 */
const dirs: string[] = [];
function tempParent() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-modes-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const mode = (p: string) => (fs.lstatSync(p).mode & 0o777).toString(8).padStart(3, "0");

/** Every path under `root` (itself included) whose mode lets anyone but the owner in. */
function looseModes(root: string): string[] {
  const loose: string[] = [];
  const walk = (p: string) => {
    const stat = fs.lstatSync(p);
    const expected = stat.isDirectory() ? "700" : "600";
    if (!stat.isSymbolicLink() && mode(p) !== expected) loose.push(`${path.relative(root, p) || "."} ${mode(p)}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(p)) walk(path.join(p, name));
  };
  walk(root);
  return loose;
}

function filesUnder(root: string): number {
  let count = 0;
  const walk = (p: string) => {
    if (fs.lstatSync(p).isDirectory()) for (const name of fs.readdirSync(p)) walk(path.join(p, name));
    else count++;
  };
  walk(root);
  return count;
}

describe("DATA_DIR permissions", () => {
  it("a new embedded database is created readable by its owner only", async () => {
    const dataDir = path.join(tempParent(), "data");
    // As the server does: the keys before the database (appDatabase).
    loadSecrets({ dataDirAbsolute: dataDir });
    const database = await openDatabase({ kind: "pglite", dataDir });
    try {
      await migrateDatabase(database);
      expect(fs.existsSync(path.join(dataDir, "secrets.json"))).toBe(true);
      expect(filesUnder(path.join(dataDir, "pgdata"))).toBeGreaterThan(100);
      expect(looseModes(dataDir)).toEqual([]);
    } finally {
      await database.close();
    }
    // Reopened (PostgreSQL writes new files as it runs): still the owner's only.
    const again = await openDatabase({ kind: "pglite", dataDir });
    await again.close();
    expect(looseModes(dataDir)).toEqual([]);
  });

  it("an existing folder with open permissions is tightened at start-up", async () => {
    const dataDir = path.join(tempParent(), "data");
    const first = await openDatabase({ kind: "pglite", dataDir });
    await first.close();
    // As an older version left it: the folder 0755, the database files 0666.
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(path.join(dataDir, "pgdata"), 0o755);
    fs.chmodSync(path.join(dataDir, "pgdata", "PG_VERSION"), 0o666);
    fs.mkdirSync(path.join(dataDir, "uploads", "id-documents"), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(dataDir, "uploads", "id-documents", `${"a".repeat(32)}.pdf`), "%PDF-", { mode: 0o644 });
    fs.chmodSync(path.join(dataDir, "uploads"), 0o755);
    fs.chmodSync(path.join(dataDir, "uploads", "id-documents"), 0o755);
    expect(looseModes(dataDir).length).toBeGreaterThan(0);

    const database = await openDatabase({ kind: "pglite", dataDir });
    await database.close();
    expect(looseModes(dataDir)).toEqual([]);
  });

  it("refuses to make new keys for a database whose keys file is missing (they could not read it)", () => {
    const dataDir = path.join(tempParent(), "data");
    fs.mkdirSync(path.join(dataDir, "pgdata"), { recursive: true });
    expect(() => loadSecrets({ dataDirAbsolute: dataDir })).toThrow(/holds a database but no secrets\.json/);
    expect(fs.existsSync(path.join(dataDir, "secrets.json"))).toBe(false);
  });

  it("the generated secrets' folder is the owner's only, even without the embedded database", () => {
    const dataDir = path.join(tempParent(), "data");
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    loadSecrets({ dataDirAbsolute: dataDir });
    expect(looseModes(dataDir)).toEqual([]);
  });

  it("an uploaded ID document and its folders are the owner's only, DATA_DIR included", async () => {
    const dataDir = path.join(tempParent(), "data");
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    // env() is read on first use; nothing in this file has read it yet.
    process.env.DATA_DIR = dataDir;
    const pdf = new File([Buffer.from("%PDF-1.4\n%%EOF\n")], "id.pdf", { type: "application/pdf" });
    const messages = { missing: "missing", too_large: "too large", wrong_type: "wrong type", unreadable: "unreadable" };
    const stored = await storePrivateUpload("id-documents", pdf, {
      allowed: ["application/pdf"],
      max_bytes: 1024,
      messages,
    });
    expect(fs.existsSync(path.join(dataDir, "uploads", "id-documents", stored.file))).toBe(true);
    expect(looseModes(dataDir)).toEqual([]);
  });
});
