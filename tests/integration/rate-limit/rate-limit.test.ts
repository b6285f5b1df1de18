import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import {
  RATE_LIMIT_KEY_MAX_CHARS,
  boundedRateLimitKey,
  clientAddressKey,
  hitRateLimit,
  pruneRateLimitCounters,
} from "~/server/rate-limit/rate-limit.server";
import { requestMeta } from "~/server/auth/request-meta.server";
import type { Database } from "~/server/db/client.server";
import { openTestDatabase } from "../test-database";

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

const TEN_MINUTES_MS = 10 * 60 * 1000;
/** A moment 2 minutes into a ten-minute window (windows are aligned to the epoch). */
const start = new Date(Math.floor(Date.UTC(2026, 10, 22, 12, 0, 0) / TEN_MINUTES_MS) * TEN_MINUTES_MS + 2 * 60 * 1000);
const at = (offset_ms: number) => new Date(start.getTime() + offset_ms);

async function hits(key: string, count: number, now: Date) {
  const results = [];
  for (let i = 0; i < count; i++)
    results.push(await hitRateLimit({ key, limit: 5, window_ms: TEN_MINUTES_MS }, { now, database: database.db }));
  return results;
}

describe("hitRateLimit (fixed window, in the database)", () => {
  it("allows five hits and refuses the sixth within the window", async () => {
    const results = await hits("test:five", 6, start);
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, true, false]);
    expect(results.map((r) => r.hits)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    // Two minutes into a ten-minute window: eight minutes to wait.
    expect(results[5]!.retry_after_s).toBe(8 * 60);
    expect(results[0]!.retry_after_s).toBe(0);
  });

  it("keeps refusing until the window ends, then starts again", async () => {
    await hits("test:reset", 5, start);
    const later = await hitRateLimit(
      { key: "test:reset", limit: 5, window_ms: TEN_MINUTES_MS },
      { now: at(7 * 60 * 1000 + 59_000), database: database.db },
    );
    expect(later).toMatchObject({ allowed: false, retry_after_s: 1 });
    const next = await hits("test:reset", 5, at(8 * 60 * 1000));
    expect(next.map((r) => r.allowed)).toEqual([true, true, true, true, true]);
    expect(next[0]!.window_start.getTime()).toBe(start.getTime() - 2 * 60 * 1000 + TEN_MINUTES_MS);
  });

  it("counts each key separately", async () => {
    await hits("test:ip:203.0.113.1", 5, start);
    const other = await hits("test:ip:203.0.113.2", 1, start);
    expect(other[0]).toMatchObject({ allowed: true, hits: 1 });
    const again = await hits("test:ip:203.0.113.1", 1, start);
    expect(again[0]!.allowed).toBe(false);
  });

  it("counts every hit when many arrive at once (atomic upsert)", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        hitRateLimit({ key: "test:burst", limit: 5, window_ms: TEN_MINUTES_MS }, { now: start, database: database.db }),
      ),
    );
    expect(results.map((r) => r.hits).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
  });

  it("keeps one row per key and window", async () => {
    await hits("test:rows", 3, start);
    await hits("test:rows", 2, at(TEN_MINUTES_MS));
    const rows = await database.db.execute<{ hits: number }>(
      sql`select hits from rate_limit_counters where key = 'test:rows' order by window_start`,
    );
    expect(rows.rows.map((r) => Number(r.hits))).toEqual([3, 2]);
  });

  it("prunes windows that started before a given time", async () => {
    await hits("test:prune", 1, at(-3 * TEN_MINUTES_MS));
    await hits("test:prune", 1, start);
    const removed = await pruneRateLimitCounters(at(-TEN_MINUTES_MS), { database: database.db });
    expect(removed).toBeGreaterThanOrEqual(1);
    const rows = await database.db.execute(sql`select 1 from rate_limit_counters where key = 'test:prune'`);
    expect(rows.rows).toHaveLength(1);
  });

  it("refuses a rule that makes no sense", async () => {
    const use = (rule: { key: string; limit: number; window_ms: number }) =>
      hitRateLimit(rule, { now: start, database: database.db });
    await expect(use({ key: "", limit: 5, window_ms: TEN_MINUTES_MS })).rejects.toThrow(RangeError);
    await expect(use({ key: "test:bad", limit: 0, window_ms: TEN_MINUTES_MS })).rejects.toThrow(RangeError);
    await expect(use({ key: "test:bad", limit: 5, window_ms: 10 })).rejects.toThrow(RangeError);
  });
});

describe("keys from what a client says are bounded (an X-Forwarded-For of any length)", () => {
  it("counts a key longer than 200 characters under a bounded key, apart from other long keys", async () => {
    const long_a = `test:ip:${"a".repeat(300)}`;
    const long_b = `test:ip:${"a".repeat(299)}b`;
    const a = await hits(long_a, 6, start);
    expect(a.map((r) => r.allowed)).toEqual([true, true, true, true, true, false]);
    const b = await hits(long_b, 1, start);
    expect(b[0]).toMatchObject({ allowed: true, hits: 1 });
    const stored = await database.db.execute<{ key: string }>(
      sql`select key from rate_limit_counters where key like 'test:ip:aaaa%'`,
    );
    expect(stored.rows).toHaveLength(2);
    for (const row of stored.rows) expect(row.key.length).toBeLessThanOrEqual(RATE_LIMIT_KEY_MAX_CHARS);
    expect(boundedRateLimitKey("test:short")).toBe("test:short");
  });

  it("a client address is a valid IP address or a short marker", () => {
    expect(clientAddressKey("203.0.113.9")).toBe("203.0.113.9");
    expect(clientAddressKey("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(clientAddressKey("2001:DB8::1")).toBe("2001:db8::1");
    expect(clientAddressKey("")).toBe("unknown");
    const junk = clientAddressKey("x".repeat(5000));
    expect(junk).toMatch(/^invalid:[0-9a-f]{32}$/);
    expect(clientAddressKey("x".repeat(4999) + "y")).not.toBe(junk);
    expect(clientAddressKey("203.0.113.9<script>")).toMatch(/^invalid:/);
    expect(requestMeta(new Request("http://localhost/"), "z".repeat(400)).ip).toMatch(/^invalid:[0-9a-f]{32}$/);
  });
});
