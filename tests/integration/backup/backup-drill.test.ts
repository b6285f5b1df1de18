import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AppProcess, Browser, compiled, demoInbox, repository } from "../app-server";
import { inArray } from "drizzle-orm";
import { openDatabase, type Database } from "~/server/db/client.server";
import { ledgerTransactions } from "~/server/db/schema";
import { verifyLedger } from "~/server/ledger/verify.server";
import { unpackArchive } from "~/server/backup/archive.server";
import { DEMO_SIGNINS } from "~/server/auth/demo-signins.server";

/**
 * The restore drill (docs/operations.md#backups-and-restore): a real server on the embedded
 * database, members moving money over HTTP, `npm run backup` while they do, `npm run restore`
 * into a new folder, a server started on it, and then: the ledger verifies, and every transfer
 * acknowledged before the backup began is in the restored copy under the reference the member
 * was given. The keys travel apart from the backup (the restore is given secrets.json).
 */

const WORKERS = 4;
const ACKS_BEFORE_BACKUP = 20;
const ACKS_DURING_BACKUP_MIN = 1;
const TRANSFER_CENTS = 1;

const temporary = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-drill-"));
const apps: AppProcess[] = [];
let restoredDatabase: Database | undefined;
afterAll(async () => {
  await restoredDatabase?.close();
  for (const app of apps) await app.stop();
  fs.rmSync(temporary, { recursive: true, force: true });
});

/** A server on an embedded database (its keys made beside it, in DATA_DIR/secrets.json), stopped after the test. */
function start(env: Record<string, string>): AppProcess {
  const app = new AppProcess(env);
  apps.push(app);
  return app;
}

/** `npm run <script>` as an operator runs it: its own process, its exit code and output. */
function runScript(
  script: "backup" | "restore",
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // The compiled script (build/bin), as `npm run backup` and `npm run restore` run it.
    const child = spawn(process.execPath, ["--enable-source-maps", compiled(script), ...args], {
      cwd: repository,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("exit", (code) => resolve({ code, output }));
  });
}

interface Member {
  email: string;
  cookie: string;
  checking_id: string;
  savings_id: string;
}

/** Signs in over HTTP (the code from the demo inbox), then reads the accounts off the dashboard. */
async function signIn(base: string, email: string, password: string): Promise<Member> {
  const browser = new Browser(base);
  await browser.signIn(email, password, demoInbox(base));
  const page = (await browser.request("/dashboard")).body;
  const account = (label: string) => new RegExp(`<option value="(\\d+)"[^>]*>${label}`).exec(page)?.[1];
  const checking_id = account("Checking");
  const savings_id = account("Savings");
  if (!checking_id || !savings_id) throw new Error(`no accounts found on ${email}'s dashboard`);
  return { email, cookie: browser.cookie(), checking_id, savings_id };
}

/** Members moving money between their own accounts, each key sent until it is acknowledged. */
class Load {
  readonly acknowledged = new Map<string, string>();
  readonly failures: string[] = [];
  private stopping = false;
  private workers: Promise<void>[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly base: string,
    private readonly members: Member[],
  ) {}

  start(): void {
    this.workers = Array.from({ length: WORKERS }, (_, i) => this.worker(this.members[i % this.members.length]!));
  }

  until(count: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.acknowledged.size >= count) resolve();
        else if (this.failures.length > 0)
          reject(new Error(`transfers failed: ${this.failures.slice(0, 3).join(" | ")}`));
        else return;
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.workers);
  }

  private async worker(member: Member): Promise<void> {
    while (!this.stopping && this.failures.length === 0) {
      const idempotency_key = crypto.randomUUID();
      const response = await fetch(`${this.base}/dashboard.data`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: member.cookie, origin: this.base, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          intent: "internal",
          from_account_id: member.checking_id,
          to_account_id: member.savings_id,
          amount: (TRANSFER_CENTS / 100).toFixed(2),
          reference: "backup drill",
          idempotency_key,
        }).toString(),
      });
      const body = await response.text();
      const reference = /"(MU\d{8,})"/.exec(body)?.[1];
      if (response.status === 200 && reference && body.includes('"done"'))
        this.acknowledged.set(idempotency_key, reference);
      else this.failures.push(`${response.status} ${body.slice(0, 200)}`);
      for (const check of [...this.waiters]) check();
    }
  }
}

describe("the backup and restore drill", () => {
  it("backs up a running server under load, restores into a new folder, starts on it: the ledger verifies and every transfer acknowledged before the backup is there", async () => {
    const dataDir = path.join(temporary, "data");
    const restoredDir = path.join(temporary, "restored");
    const backupFile = path.join(temporary, "backups", "drill.tar.gz");

    const app = start({ DATA_DIR: dataDir });
    await app.serving();
    const members: Member[] = [];
    for (const person of DEMO_SIGNINS.filter((p) => p.kind === "member"))
      members.push(await signIn(app.base, person.email, person.password));

    const load = new Load(app.base, members);
    load.start();
    await load.until(ACKS_BEFORE_BACKUP);
    // Everything the members were told before the backup began must come back.
    const acknowledgedBefore = new Map(load.acknowledged);
    const backup = await runScript("backup", [backupFile], { DATA_DIR: dataDir });
    const acknowledgedDuring = load.acknowledged.size - acknowledgedBefore.size;
    await load.until(load.acknowledged.size + ACKS_DURING_BACKUP_MIN);
    await load.stop();
    expect(load.failures).toEqual([]);
    expect(backup.output).toContain("from the running server");
    expect(backup.code).toBe(0);
    await app.stop();

    // The backup file is the owner's only and holds the data, not the keys.
    expect(fs.statSync(backupFile).mode & 0o777).toBe(0o600);
    const names = unpackArchive(fs.readFileSync(backupFile)).map((f) => f.name);
    expect(names).toContain("pgdata.tar");
    expect(names.some((name) => name.includes("secrets"))).toBe(false);
    expect(backup.output).toContain(path.join(dataDir, "secrets.json"));

    // A restore refuses a folder that is not empty, and one without the keys.
    const refusedNoKeys = await runScript("restore", [backupFile], {
      DATA_DIR: restoredDir,
      SESSION_SECRET: "",
      DATA_ENCRYPTION_KEY: "",
    });
    expect(refusedNoKeys.code).toBe(2);
    const refusedNotEmpty = await runScript("restore", [backupFile, "--keys", path.join(dataDir, "secrets.json")], {
      DATA_DIR: dataDir,
    });
    expect(refusedNotEmpty.code).toBe(1);
    expect(refusedNotEmpty.output).toContain("is not empty");

    const restore = await runScript("restore", [backupFile, "--keys", path.join(dataDir, "secrets.json")], {
      DATA_DIR: restoredDir,
    });
    expect(restore.output).toContain("Restored the backup");
    expect(restore.code).toBe(0);

    // The server starts on the restored folder, and a member signs in and sees her accounts.
    const restoredApp = start({ DATA_DIR: restoredDir });
    await restoredApp.serving();
    const priya = DEMO_SIGNINS.find((p) => p.email.startsWith("priya"))!;
    const signedIn = await signIn(restoredApp.base, priya.email, priya.password);
    expect(signedIn.checking_id).toBe(members.find((m) => m.email === priya.email)!.checking_id);
    await restoredApp.stop();

    restoredDatabase = await openDatabase({ kind: "pglite", dataDir: restoredDir });
    const report = await verifyLedger(restoredDatabase.db);
    expect(report.problems).toEqual([]);
    const stored = await restoredDatabase.db
      .select({ id: ledgerTransactions.id, key: ledgerTransactions.idempotency_key })
      .from(ledgerTransactions)
      .where(inArray(ledgerTransactions.idempotency_key, [...acknowledgedBefore.keys()]));
    const storedReferences = new Map(stored.map((s) => [s.key, `MU${String(s.id).padStart(8, "0")}`]));
    const missing = [...acknowledgedBefore].filter(([key, reference]) => storedReferences.get(key) !== reference);
    expect(missing).toEqual([]);

    const size_mb = (fs.statSync(backupFile).size / 1024 / 1024).toFixed(1);
    console.info(
      `backup drill: ${acknowledgedBefore.size} transfers acknowledged before the backup, ${acknowledgedDuring} while it ran, ${load.acknowledged.size} in all; ` +
        `backup ${size_mb} MB (${/in (\d+) ms/.exec(backup.output)?.[1]} ms); restore ${/in (\d+) ms/.exec(restore.output)?.[1]} ms; ` +
        `restored ledger: ${report.counts.transactions} transactions, verified`,
    );
  }, 300_000);
});
