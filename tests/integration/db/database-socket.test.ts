import crypto from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { parseEnv } from "~/config/env.server";
import { migrateDatabase, openDatabase } from "~/server/db/client.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { key, newMember } from "../member-support";

/**
 * PostgreSQL on the same machine is reached over its Unix socket, which docs/operations.md
 * ("Scaling") recommends: `DATABASE_URL=postgresql://mutual@/mutual?host=/var/run/postgresql`.
 * The configuration must take that URL and the app's database must open, migrate and post over
 * it. CI sets TEST_DATABASE_SOCKET_URL to its server's socket (`.ci/run`).
 */
const socketUrl = process.env.TEST_DATABASE_SOCKET_URL;

describe.skipIf(!socketUrl)("PostgreSQL over its Unix socket", () => {
  it("the configuration takes a socket URL, and the database opens, migrates and posts over the socket", async () => {
    const name = `mutual_test_socket_${crypto.randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: socketUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    // The database's name in place of the server's (`postgresql://user@/name?host=...`; WHATWG's
    // URL refuses a user with no host, so not `new URL`).
    const url = socketUrl!.replace(/@\/[^?]*/, `@/${name}`);
    expect(parseEnv({ DATABASE_URL: url }).DATABASE_URL).toBe(url);

    const database = await openDatabase({ kind: "postgres", url });
    try {
      await migrateDatabase(database);
      // No server address: the connection is the socket, not TCP.
      const [where] = (
        await database.db.execute(sql`select inet_server_addr()::text as address, current_database() as name`)
      ).rows as { address: string | null; name: string }[];
      expect(where).toEqual({ address: null, name });

      const member = await newMember(database.db, { checking_cents: 10_000 });
      const posted = await postTransfer(database.db, {
        kind: "transfer",
        initiator: `member:${member.member.id}`,
        idempotency_key: key(),
        created_by: member.member.id,
        entries: [
          { account_id: member.checking.id, amount_cents: -2_500 },
          { account_id: member.savings.id, amount_cents: 2_500 },
        ],
      });
      expect(posted.ok).toBe(true);
      expect((await verifyLedger(database.db)).ok).toBe(true);
    } finally {
      await database.close();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});
