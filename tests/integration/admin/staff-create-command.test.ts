import "../admin-support";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { openDatabase, type Database, type Db } from "~/server/db/client.server";
import { auditLog, memberProfiles, staffRoleGrants, users } from "~/server/db/schema";
import { completePasswordReset } from "~/server/auth/password.server";
import { openTestDatabase, onPostgres } from "../test-database";
import { uniqueIp } from "../admin-support";

/**
 * `npm run staff:create` (docs/operations.md#first-admin), run for real: its own process through
 * scripts/build-server.mjs, as `npm run` runs it, on a database of its own (an embedded one in a
 * new DATA_DIR, or a new database on the PostgreSQL server with TEST_DATABASE_URL). On a fresh
 * installation it creates the first admin and prints a one-time set-up link that works; once an
 * admin exists it files a request for another admin to approve; bad input and a taken address are
 * refused with exit 1 and change nothing.
 */
const repository = path.resolve(import.meta.dirname, "../../..");
const folder = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-staff-create-"));
const dataDir = path.join(folder, "data");
let postgres: (Database & { url?: string }) | undefined;

beforeAll(async () => {
  if (onPostgres) postgres = await openTestDatabase();
});
afterAll(async () => {
  await postgres?.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

function runCommand(args: string[]): Promise<{ code: number | null; output: string }> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    PUBLIC_URL: "https://bank.example.test",
  };
  if (postgres?.url) env.DATABASE_URL = postgres.url;
  else delete env.DATABASE_URL;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["scripts/build-server.mjs", "--run", "staff-create", ...args], {
      cwd: repository,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("exit", (code) => resolve({ code, output }));
  });
}

/** Reads the command's database (the embedded one is opened only between runs: one process at a time). */
async function inDatabase<T>(work: (db: Db) => Promise<T>): Promise<T> {
  if (postgres) return work(postgres.db);
  const database = await openDatabase({ kind: "pglite", dataDir: path.resolve(dataDir) });
  try {
    return await work(database.db);
  } finally {
    await database.close();
  }
}

async function snapshot() {
  return inDatabase(async (db) => ({
    users: await db.select({ email: users.email, role: users.role }).from(users).orderBy(users.email),
    grants: await db
      .select({ id: staffRoleGrants.id, status: staffRoleGrants.status })
      .from(staffRoleGrants)
      .orderBy(staffRoleGrants.id),
    audits: (await db.select({ id: auditLog.id }).from(auditLog)).length,
  }));
}

describe("npm run staff:create", () => {
  let link = "";

  it("on a fresh installation creates the first admin, audited as the server command, and prints a one-time set-up link", async () => {
    const result = await runCommand([
      "--email",
      "Founding.Admin@Example.org",
      "--first-name",
      "Ada",
      "--last-name",
      "Founder",
    ]);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain("Created the admin account founding.admin@example.org");
    link = /https:\/\/bank\.example\.test\/reset-password\?token=[A-Za-z0-9_-]+/.exec(result.output)?.[0] ?? "";
    expect(link, result.output).not.toBe("");
    await inDatabase(async (db) => {
      const [user] = await db
        .select({ id: users.id, role: users.role, name: users.name })
        .from(users)
        .where(eq(users.email, "founding.admin@example.org"));
      expect(user).toMatchObject({ role: "admin", name: "Ada Founder" });
      const [profile] = await db
        .select({ source: memberProfiles.source, status: memberProfiles.status })
        .from(memberProfiles)
        .where(eq(memberProfiles.user_id, user!.id));
      expect(profile).toEqual({ source: "staff", status: "approved" });
      const [audit] = await db.select().from(auditLog).where(eq(auditLog.action, "staff.create.server_command"));
      expect(audit).toMatchObject({
        actor_id: null,
        actor_email: "server command: npm run staff:create",
        subject_id: user!.id,
      });
      // The link is not kept anywhere staff could read it.
      expect(JSON.stringify(audit)).not.toContain(new URL(link).searchParams.get("token")!);
    });
  });

  it("the printed link sets the new admin's own password, once", async () => {
    const token = new URL(link).searchParams.get("token")!;
    const reset = await inDatabase(async (db) => {
      const meta = { ip: uniqueIp(), user_agent: "test", cookie: "" };
      const first = await completePasswordReset(db, meta, { token, password: "Founding harbor lantern 42" });
      const second = await completePasswordReset(db, meta, { token, password: "Another harbor lantern 43" });
      return [first.ok || first.code, second.ok || second.code];
    });
    expect(reset).toEqual([true, "invalid_link"]);
  });

  it("once an admin exists, files a request under dual control instead of creating anyone", async () => {
    const result = await runCommand([
      "--email",
      "second@example.org",
      "--first-name",
      "Bo",
      "--last-name",
      "Second",
      "--role",
      "reviewer",
    ]);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/request #\d+ waits in the back office/);
    await inDatabase(async (db) => {
      expect(await db.select().from(users).where(eq(users.email, "second@example.org"))).toEqual([]);
      const [grant] = await db.select().from(staffRoleGrants).where(eq(staffRoleGrants.email, "second@example.org"));
      expect(grant).toMatchObject({
        kind: "create",
        role: "reviewer",
        status: "pending",
        requested_by: null,
        requested_by_email: "server command: npm run staff:create",
      });
      const [audit] = await db.select().from(auditLog).where(eq(auditLog.action, "staff_grant.request"));
      expect(audit).toMatchObject({ actor_id: null, actor_email: "server command: npm run staff:create" });
    });
  });

  it("refuses bad input, an address in use and a second request, with exit 1, and changes nothing", async () => {
    const before = await snapshot();
    for (const [args, message] of [
      [["--email", "not-an-address", "--first-name", "Bo", "--last-name", "Bad"], "The email address is not valid."],
      [
        ["--email", "x@example.org", "--first-name", "Bo", "--last-name", "Bad", "--role", "owner"],
        "The role is admin or reviewer.",
      ],
      [
        ["--email", "founding.admin@example.org", "--first-name", "Ada", "--last-name", "Again"],
        "Refused: an account with the email founding.admin@example.org already exists.",
      ],
      [
        ["--email", "second@example.org", "--first-name", "Bo", "--last-name", "Again"],
        "Refused: a staff role request for second@example.org is already waiting for approval.",
      ],
    ] as const) {
      const result = await runCommand([...args]);
      expect(result.code, result.output).toBe(1);
      expect(result.output).toContain(message);
    }
    expect(await snapshot()).toEqual(before);
  });
});
