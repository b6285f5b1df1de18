/**
 * Child process of ledger-crash.test.ts: transfers money among the given accounts as fast as it
 * can, from 8 concurrent workers, and writes "ACK <key> <transaction id>" on stdout after each
 * transfer the ledger acknowledged (committed). The test kills it with SIGKILL mid-load and then
 * checks that every acknowledged transfer is in the database and the ledger still verifies.
 */
import { openDatabase } from "~/server/db/client.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { transferEntries } from "~/domain/ledger-rules";

const WORKERS = 8;
const url = process.env.LEDGER_CRASH_DATABASE_URL;
const account_ids = JSON.parse(process.env.LEDGER_CRASH_ACCOUNTS ?? "[]") as number[];
const prefix = process.env.LEDGER_CRASH_PREFIX;
if (!url || account_ids.length < 2 || !prefix)
  throw new Error("LEDGER_CRASH_DATABASE_URL, LEDGER_CRASH_ACCOUNTS and LEDGER_CRASH_PREFIX are required");

const database = await openDatabase({ kind: "postgres", url, pool_max: WORKERS });
let sequence = 0;

async function worker(): Promise<never> {
  for (;;) {
    const key = `${prefix}-${sequence++}`;
    const from = account_ids[Math.floor(Math.random() * account_ids.length)]!;
    let to = from;
    while (to === from) to = account_ids[Math.floor(Math.random() * account_ids.length)]!;
    const result = await postTransfer(database.db, {
      idempotency_key: key,
      initiator: "system:crash-test",
      created_by: "system:crash-test",
      kind: "member_transfer",
      entries: transferEntries(from, to, 1 + Math.floor(Math.random() * 5_000)),
    });
    // Written only after COMMIT returned; stdout to a pipe is synchronous on Linux. A refusal
    // (not enough money) wrote nothing and is not acknowledged.
    if (result.ok) process.stdout.write(`ACK ${key} ${result.transaction.id}\n`);
  }
}

process.stdout.write("READY\n");
await Promise.all(Array.from({ length: WORKERS }, () => worker()));
