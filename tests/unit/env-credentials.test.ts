import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigurationError, parseEnv, withCredentials } from "~/config/env.server";

/**
 * The keys as systemd credentials (docs/operations.md#keys): each a file under
 * $CREDENTIALS_DIRECTORY, read when the variable itself is not set.
 */
const folder = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-credentials-"));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));
const session = "s".repeat(64);
const key = "a".repeat(64);
fs.writeFileSync(path.join(folder, "SESSION_SECRET"), `${session}\n`);
fs.writeFileSync(path.join(folder, "DATA_ENCRYPTION_KEY"), key);
fs.writeFileSync(path.join(folder, "DATABASE_URL"), "postgresql://mutual:p%26w@db.internal:5432/mutual\n");
const production = { NODE_ENV: "production", DATA_DIR: folder };

describe("systemd credentials", () => {
  it("give a production start on PostgreSQL its keys and database without an environment file's lines", () => {
    const env = parseEnv(withCredentials({ ...production, CREDENTIALS_DIRECTORY: folder }));
    expect(env.SESSION_SECRET).toBe(session);
    expect(env.DATA_ENCRYPTION_KEY).toBe(key);
    expect(env.DATABASE_URL).toBe("postgresql://mutual:p%26w@db.internal:5432/mutual");
  });

  it("yield to a variable set in the environment", () => {
    const merged = withCredentials({ ...production, CREDENTIALS_DIRECTORY: folder, SESSION_SECRET: "b".repeat(64) });
    expect(merged.SESSION_SECRET).toBe("b".repeat(64));
    expect(merged.DATA_ENCRYPTION_KEY).toBe(key);
  });

  it("are not looked for without CREDENTIALS_DIRECTORY, so a production start without the keys still refuses", () => {
    expect(withCredentials(production)).toEqual(production);
    expect(() => parseEnv({ ...production, DATABASE_URL: "postgresql://mutual@db.internal/mutual" })).toThrow(
      ConfigurationError,
    );
  });

  it("stop start-up naming a credential that cannot be read", () => {
    const unreadable = fs.mkdtempSync(path.join(folder, "unreadable-"));
    fs.mkdirSync(path.join(unreadable, "SMTP_URL"));
    expect(() => withCredentials({ CREDENTIALS_DIRECTORY: unreadable })).toThrow(
      /SMTP_URL: the credential .* cannot be read/,
    );
  });
});
