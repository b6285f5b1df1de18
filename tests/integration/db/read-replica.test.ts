import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { AppProcess, Browser, appEnvironment, outboxInbox } from "../app-server";
import { onPostgres } from "../test-database";
import { ThrowawayPostgres } from "../throwaway-postgres";
import { openDatabase, type Database } from "~/server/db/client.server";
import { DEMO_SIGNINS } from "~/server/auth/demo-signins.server";

/**
 * Read replicas with read-your-writes (app/server/db/read-replica.server.ts), for real: a
 * PostgreSQL primary of the test's own, a streaming standby of it that applies each change only
 * 2 s after the primary (recovery_min_apply_delay: a replica that is behind, on purpose), and the
 * app server as production runs it with DATABASE_READ_URL naming the standby. A member moves
 * money and opens their history at once: the standby does not have the transfer yet, and the
 * page shows it anyway (read from the primary); once the standby has it, the same page is read
 * from the standby. /metrics counts where each read went. PostgreSQL only.
 */

const APPLY_DELAY_MS = 2_000;
const METRICS_TOKEN = "read-replica-test-metrics-token-0123456789";

let primary: ThrowawayPostgres | undefined;
let standby: ThrowawayPostgres | undefined;
let app: AppProcess | undefined;
const databases: Database[] = [];
let dataDir: string | undefined;
afterAll(async () => {
  for (const database of databases) await database.close();
  await app?.stop();
  await standby?.destroy();
  await primary?.destroy();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The replica-routed reads /metrics has counted, by target. */
async function readsByTarget(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^mutual_database_reads_total\{target="([a-z_]+)"\} (\d+)/gm))
    counts[match[1]!] = Number(match[2]);
  return counts;
}

/** Waits until the standby has replayed everything the primary has written so far. */
async function untilCaughtUp(primaryDb: Database, standbyDb: Database): Promise<void> {
  const position = await primaryDb.db.execute<{ lsn: string }>(sql`select pg_current_wal_lsn()::text as lsn`);
  const target = position.rows[0]!.lsn;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const replayed = await standbyDb.db.execute<{ reached: boolean }>(
      sql`select pg_last_wal_replay_lsn() >= ${target}::pg_lsn as reached`,
    );
    if (replayed.rows[0]?.reached) return;
    if (Date.now() > deadline) throw new Error("the standby did not catch up within 30 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whether the ledger transaction the member was shown as `reference` (MU and its id) exists on `database`. */
async function holds(database: Database, reference: string): Promise<boolean> {
  const found = await database.db.execute<{ n: number }>(
    sql`select count(*)::int as n from ledger_transactions where id = ${Number(reference.slice(2))}`,
  );
  return found.rows[0]!.n === 1;
}

describe("read replicas: a member always sees their own last write", () => {
  // Skipped, with its reason in its name, when the suite runs on PGlite.
  const test = onPostgres ? it : it.skip;
  test(
    onPostgres
      ? "history read from a standby 2 s behind: right after a transfer the page comes from the primary and shows it; once the standby has it, from the standby"
      : "read replicas (PostgreSQL only: skipped on PGlite)",
    async () => {
      primary = await ThrowawayPostgres.create();
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-read-replica-"));
      // The standby first, from the new primary: the app then migrates and seeds the primary,
      // and all of it reaches the standby by streaming, 2 s late.
      standby = await ThrowawayPostgres.standbyOf(primary, { recovery_min_apply_delay: `${APPLY_DELAY_MS}ms` });
      app = new AppProcess(
        appEnvironment(primary.url(), dataDir, {
          DATABASE_READ_URL: standby.url(),
          DATABASE_READ_WAIT_MS: "250",
          METRICS_TOKEN,
        }),
      );
      await app.serving();
      const primaryDb = await openDatabase({ kind: "postgres", url: primary.url(), pool_max: 2 });
      const standbyDb = await openDatabase({ kind: "postgres", url: standby.url(), pool_max: 2 });
      databases.push(primaryDb, standbyDb);

      const member = DEMO_SIGNINS.find((person) => person.kind === "member")!;
      const browser = new Browser(app.base);
      await browser.signIn(member.email, member.password, outboxInbox(primaryDb.db));
      expect(browser.jar.get("mutual_read_after")).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);

      // Once the standby has the sign-in, the history page is read there.
      await untilCaughtUp(primaryDb, standbyDb);
      const before = await readsByTarget(app.base);
      const first = await browser.request("/dashboard/transactions");
      expect(first.status).toBe(200);
      const afterFirst = await readsByTarget(app.base);
      expect(afterFirst.replica ?? 0).toBeGreaterThan(before.replica ?? 0);

      // A transfer, then the history at once.
      const memo = `Replica check ${crypto.randomUUID().slice(0, 8)}`;
      const [accounts] = await primaryDb.db
        .execute<{ checking: number; savings: number }>(
          sql`
        select max(a.id) filter (where a.type = 'checking') as checking, max(a.id) filter (where a.type = 'savings') as savings
        from ledger_accounts a join users u on u.id = a.member_id
        where u.email = ${member.email} and a.status = 'active'`,
        )
        .then((r) => r.rows);
      const transfer = await browser.request("/dashboard.data", {
        intent: "internal",
        from_account_id: String(accounts!.checking),
        to_account_id: String(accounts!.savings),
        amount: "1.23",
        reference: memo,
        idempotency_key: crypto.randomUUID(),
      });
      const reference = /"(MU\d{8,})"/.exec(transfer.body)?.[1];
      expect(transfer.status, transfer.body.slice(0, 300)).toBe(200);
      expect(reference).toBeDefined();
      // The standby does not have it yet: a page read there now would not show it.
      expect(await holds(standbyDb, reference!)).toBe(false);
      const right_after = await browser.request("/dashboard/transactions");
      expect(right_after.status).toBe(200);
      expect(right_after.body).toContain(memo);
      const afterWrite = await readsByTarget(app.base);
      expect(afterWrite.primary_replica_behind ?? 0).toBeGreaterThan(afterFirst.primary_replica_behind ?? 0);
      expect(afterWrite.replica ?? 0).toBe(afterFirst.replica ?? 0);

      // Once the standby has replayed the transfer, the same page comes from the standby.
      await untilCaughtUp(primaryDb, standbyDb);
      expect(await holds(standbyDb, reference!)).toBe(true);
      const later = await browser.request("/dashboard/transactions");
      expect(later.body).toContain(memo);
      const afterCatchUp = await readsByTarget(app.base);
      expect(afterCatchUp.replica ?? 0).toBeGreaterThan(afterWrite.replica ?? 0);
    },
    120_000,
  );
});
