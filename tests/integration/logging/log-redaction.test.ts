import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Writable } from "node:stream";
import { pino } from "pino";
import { sql } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { loggerOptions } from "~/server/logging/redact.server";
import { openTestDatabase } from "../test-database";

/**
 * Real failed queries, as the driver in use (PGlite, or PostgreSQL with TEST_DATABASE_URL)
 * reports them, logged the way the app logs them: the SQL text and the database's reason stay,
 * the values the query ran with (a step-up code, an email address, a date of birth) do not.
 */
let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
  await database.db.execute(
    sql`create table log_redaction_people (email text primary key, step_up_code text not null)`,
  );
});
afterAll(async () => {
  await database?.close();
});

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("the query was expected to fail");
}

function logged(error: unknown): string {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const logger = pino(loggerOptions("info"), stream);
  logger.error({ err: error }, "transfer failed");
  logger.error(error as Error);
  return lines.join("");
}

const EMAIL = "priya.shah@harborview.example";
const STEP_UP_CODE = "593071";

describe("a failed query in the log", () => {
  it("a unique violation keeps the constraint, not the email address or the code", async () => {
    const insert = () =>
      database.db.execute(
        sql`insert into log_redaction_people (email, step_up_code) values (${EMAIL}, ${STEP_UP_CODE})`,
      );
    await insert();
    const error = await failure(insert);
    // The driver's error really does carry them (so this test would see a leak).
    expect(String((error as Error).message)).toContain(STEP_UP_CODE);
    const log = logged(error);
    expect(log).toContain("log_redaction_people");
    expect(log).toContain("duplicate key value");
    expect(log).not.toContain(EMAIL);
    expect(log).not.toContain(STEP_UP_CODE);
  });

  it("an impossible date keeps the reason, not the value", async () => {
    const error = await failure(() =>
      database.db.execute(sql`select ${"1984-02-31"}::date as birth_date, ${STEP_UP_CODE} as code`),
    );
    const log = logged(error);
    expect(log).toMatch(/date\/time field value out of range|invalid input syntax/);
    expect(log).not.toContain("1984-02-31");
    expect(log).not.toContain(STEP_UP_CODE);
  });
});
