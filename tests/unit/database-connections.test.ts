import { describe, expect, it } from "vitest";
import { DrizzleQueryError } from "drizzle-orm/errors";
import { parseEnv } from "~/config/env.server";
import { databaseUnavailable, describeDatabaseError, isDatabaseUnavailable } from "~/server/db/unavailable.server";

const withCode = (code: string, message = "x") => Object.assign(new Error(message), { code });

describe("an unreachable database is told apart from other failures", () => {
  it("reads through Drizzle's wrapper to the driver's error", () => {
    const killed = withCode("57P01", "terminating connection due to administrator command");
    const wrapped = new DrizzleQueryError("select 1 from users where email = $1", ["pat@example.com"], killed);
    expect(databaseUnavailable(wrapped)?.code).toBe("57P01");
  });
  it("counts connection exceptions, shutdowns, start-up, too many clients and socket failures", () => {
    for (const code of [
      "08006",
      "08001",
      "57P01",
      "57P02",
      "57P03",
      "53300",
      "25P03",
      "ECONNREFUSED",
      "ECONNRESET",
      "ETIMEDOUT",
    ]) {
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(true);
    }
  });
  it("counts node-postgres's own messages for a lost or hung connection", () => {
    for (const message of [
      "Connection terminated unexpectedly",
      "Connection terminated due to connection timeout",
      "timeout exceeded when trying to connect",
      "Query read timeout",
      "Client has encountered a connection error and is not queryable",
    ]) {
      expect(isDatabaseUnavailable(new Error(message)), message).toBe(true);
    }
  });
  it("finds a refused connection inside an AggregateError (one error per address)", () => {
    expect(
      isDatabaseUnavailable(new AggregateError([withCode("ECONNREFUSED"), withCode("ECONNREFUSED")], "connect failed")),
    ).toBe(true);
  });
  it("a statement timeout is an outage; a statement cancelled for another reason is not", () => {
    expect(isDatabaseUnavailable(withCode("57014", "canceling statement due to statement timeout"))).toBe(true);
    expect(isDatabaseUnavailable(withCode("57014", "canceling statement due to user request"))).toBe(false);
  });
  it("counts a write refused by a server that is read-only now (a failover), and the other module graph's own error", () => {
    expect(databaseUnavailable(withCode("25006", "cannot execute INSERT in a read-only transaction"))?.code).toBe(
      "25006",
    );
    // The server entry and the React Router build each bundle unavailable.server.ts: an error made
    // by one is not an instance of the other's class, and is still an outage.
    class DatabaseUnavailableError extends Error {
      readonly code = "no_server_in_role";
      override name = "DatabaseUnavailableError";
    }
    const foreign = new DrizzleQueryError("select 1", [], new DatabaseUnavailableError("The database is unavailable"));
    expect(databaseUnavailable(foreign)?.code).toBe("no_server_in_role");
  });
  it("counts the server's own files failing it, not a privilege the app lacks", () => {
    expect(databaseUnavailable(withCode("58030", "could not read block 0 in file"))?.code).toBe("58030");
    const unreachable = withCode("42501", 'could not open file "base/16384/16894_fsm": Permission denied');
    expect(databaseUnavailable(unreachable)?.code).toBe("42501");
    expect(databaseUnavailable(withCode("42501", "permission denied for table users"))).toBeNull();
  });
  it("a bug or bad data stays a bug (500)", () => {
    expect(isDatabaseUnavailable(withCode("23505", "duplicate key value violates unique constraint"))).toBe(false);
    expect(isDatabaseUnavailable(withCode("42P01", 'relation "x" does not exist'))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined"))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
    expect(isDatabaseUnavailable("Connection terminated")).toBe(false);
  });
  it("survives an error whose cause points back at itself", () => {
    const looped = new Error("loop") as Error & { cause?: unknown };
    looped.cause = looped;
    expect(isDatabaseUnavailable(looped)).toBe(false);
  });
  it("describes the failure for the log without the SQL or its parameters", () => {
    const wrapped = new DrizzleQueryError(
      "select * from users where email = $1",
      ["pat@example.com"],
      withCode("57P01", "terminating connection due to administrator command"),
    );
    expect(describeDatabaseError(wrapped)).toEqual({
      code: "57P01",
      message: "terminating connection due to administrator command",
    });
    const bare = new DrizzleQueryError(
      "update users set password = $1",
      ["secret-pass"],
      undefined as unknown as Error,
    );
    expect(JSON.stringify(describeDatabaseError(bare))).not.toMatch(/secret-pass|update users/);
  });
});

describe("PostgreSQL connection settings", () => {
  it("have working defaults", () => {
    const env = parseEnv({});
    expect(env.DATABASE_POOL_MAX).toBe(20);
    expect(env.DATABASE_CONNECT_TIMEOUT_MS).toBe(5_000);
    expect(env.DATABASE_STATEMENT_TIMEOUT_MS).toBe(15_000);
    expect(env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS).toBe(30_000);
    expect(env.DATABASE_TCP_KEEPALIVE_MS).toBe(10_000);
  });
  it("are read from the environment, 0 turning a timeout or keepalive off", () => {
    const env = parseEnv({
      DATABASE_POOL_MAX: "5",
      DATABASE_STATEMENT_TIMEOUT_MS: "0",
      DATABASE_TCP_KEEPALIVE_MS: "0",
    });
    expect(env.DATABASE_POOL_MAX).toBe(5);
    expect(env.DATABASE_STATEMENT_TIMEOUT_MS).toBe(0);
    expect(env.DATABASE_TCP_KEEPALIVE_MS).toBe(0);
  });
  it("a bad value stops start-up naming the variable", () => {
    expect(() => parseEnv({ DATABASE_POOL_MAX: "0" })).toThrow(/DATABASE_POOL_MAX/);
    expect(() => parseEnv({ DATABASE_POOL_MAX: "twenty" })).toThrow(/DATABASE_POOL_MAX/);
    expect(() => parseEnv({ DATABASE_CONNECT_TIMEOUT_MS: "5s" })).toThrow(/DATABASE_CONNECT_TIMEOUT_MS/);
    expect(() => parseEnv({ DATABASE_STATEMENT_TIMEOUT_MS: "-1" })).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS/);
    expect(() => parseEnv({ DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: "1.5" })).toThrow(
      /DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS/,
    );
    expect(() => parseEnv({ DATABASE_TCP_KEEPALIVE_MS: "on" })).toThrow(/DATABASE_TCP_KEEPALIVE_MS/);
  });
});
