import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compiled, repository } from "../app-server";
import { onPostgres, openTestDatabase } from "../test-database";

/**
 * The maintenance commands as an operator runs them in production (docs/operations.md). Sourcing
 * the environment file with `sh` cuts a DATABASE_URL holding `&` (the shell runs it as a command
 * in the background): DATABASE_URL ended up unset, `migrate` printed "Migrations applied (pglite)"
 * and exited 0 on a new, empty embedded database, and `ledger:verify` then said "Ledger OK". Now
 * they refuse; and scripts/with-env.mjs, which the guide uses, reads the file as systemd does.
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-script-env-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const secrets = {
  SESSION_SECRET: crypto.randomBytes(32).toString("hex"),
  DATA_ENCRYPTION_KEY: crypto.randomBytes(32).toString("hex"),
};

function run(command: string[], environment: Record<string, string>) {
  const result = spawnSync(command[0]!, command.slice(1), {
    cwd: repository,
    env: { PATH: process.env.PATH ?? "", ...environment },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** Each command with arguments it accepts, so that only the database decides. */
const commands: Record<string, string[]> = {
  migrate: [],
  "ledger-verify": [],
  "rotate-data-key": [],
  "staff-create": ["--email", "ops@bank.example.org", "--first-name", "Ada", "--last-name", "Byron"],
  "staff-passkeys-remove": ["--email", "ops@bank.example.org"],
  "sanctions-load": ["--published", "2026-01-02", path.join(repository, "package.json")],
  backup: [path.join(work, "backups")],
  restore: [path.join(repository, "package.json"), "--keys", path.join(repository, "package.json")],
};

describe("maintenance commands in production", () => {
  it("refuse the embedded database unless MUTUAL_EMBEDDED_DATABASE=1 says it is meant, and open nothing", () => {
    // The server made DATA_DIR/pgdata on a start without its environment file: a later command
    // without DATABASE_URL must not report on that database either.
    const data_dir = path.join(work, "made-by-mistake");
    fs.mkdirSync(path.join(data_dir, "pgdata"), { recursive: true });
    for (const [script, args] of Object.entries(commands)) {
      const result = run([process.execPath, compiled(script), ...args], {
        NODE_ENV: "production",
        DATA_DIR: data_dir,
        ...secrets,
      });
      expect(result.output, script).toContain("DATABASE_URL: not set, and NODE_ENV=production");
      expect(result.output, script).toContain("MUTUAL_EMBEDDED_DATABASE=1");
      expect(result.output, script).not.toMatch(/Migrations applied|Ledger OK|Backup written|Restored|Created|Loaded/);
      expect(result.status, script).toBe(2);
    }
    expect(fs.readdirSync(path.join(data_dir, "pgdata"))).toEqual([]);
  });

  it("refuse to create an empty embedded database when DATABASE_URL is missing, and create nothing", () => {
    const data_dir = path.join(work, "no-database");
    for (const script of ["migrate", "ledger-verify"]) {
      const result = run([process.execPath, compiled(script)], {
        NODE_ENV: "production",
        MUTUAL_EMBEDDED_DATABASE: "1",
        DATA_DIR: data_dir,
        ...secrets,
      });
      expect(result.output).toContain("DATABASE_URL is not set and there is no embedded database");
      expect(result.output).not.toMatch(/Migrations applied|Ledger OK/);
      expect(result.status, script).toBe(2);
    }
    expect(fs.existsSync(path.join(data_dir, "pgdata"))).toBe(false);
  });

  it.runIf(onPostgres)(
    "an environment file with & in DATABASE_URL: sh loses it (now refused), scripts/with-env.mjs reads it",
    async () => {
      const database = await openTestDatabase();
      try {
        const url = new URL(database.url!);
        url.searchParams.set("application_name", "mutual-migrate");
        url.searchParams.set("connect_timeout", "10");
        expect(url.toString()).toContain("&");
        const file = path.join(work, "mutual.env");
        fs.writeFileSync(
          file,
          `# as deploy/systemd/mutual.env.example\nDATABASE_URL=${url}\nSESSION_SECRET=${secrets.SESSION_SECRET}\nDATA_ENCRYPTION_KEY=${secrets.DATA_ENCRYPTION_KEY}\nDATA_DIR=${path.join(work, "data")}\n`,
        );
        const sourced = run(
          ["sh", "-c", `set -a; . ${file}; set +a; exec "${process.execPath}" "${compiled("migrate")}"`],
          { NODE_ENV: "production" },
        );
        expect(sourced.output).toContain("DATABASE_URL: not set");
        expect(sourced.status).toBe(2);
        const read = run(
          [
            process.execPath,
            "scripts/with-env.mjs",
            file,
            "NODE_ENV=production",
            process.execPath,
            compiled("migrate"),
          ],
          {},
        );
        expect(read.output).toContain("Migrations applied (postgres).");
        expect(read.status).toBe(0);
      } finally {
        await database.close();
      }
    },
  );
});
