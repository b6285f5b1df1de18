import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseEnvironmentFile } from "../../scripts/env-file.mjs";

/**
 * scripts/with-env.mjs runs a maintenance command with the service's environment file read as
 * systemd's EnvironmentFile= reads it. The guide sourced the file with `sh` (`set -a; .
 * mutual.env`), which ran a DATABASE_URL's `&` as a command and lost the variable; Node's
 * --env-file cuts a value at ` #`. The expected values are systemd's (src/basic/env-file.c).
 */
describe("an environment file read as systemd reads it", () => {
  const file = [
    "# /etc/mutual/mutual.env",
    "; a comment too",
    "",
    "DATABASE_URL=postgresql://mutual:p%40ss@db.internal:5432/mutual?sslmode=require&application_name=mutual",
    "METRICS_TOKEN=abc#def ; ghi",
    "SPACED =  value with inner spaces   ",
    "DOLLAR=$HOME/not-expanded `not run`",
    'DOUBLE="a \\"quoted\\" \\$word and \\n kept"',
    "SINGLE='single $HOME \\n'",
    "JOINED=first\\",
    "second",
    "export LOOKS_LIKE_SHELL=1",
    "NO_EQUALS_SIGN",
    "EMPTY=",
    "LAST=no line end",
  ].join("\n");

  it("keeps & # ; $ and backquotes as they are, and runs nothing", () => {
    const { values } = parseEnvironmentFile(file);
    expect(values.DATABASE_URL).toBe(
      "postgresql://mutual:p%40ss@db.internal:5432/mutual?sslmode=require&application_name=mutual",
    );
    expect(values.METRICS_TOKEN).toBe("abc#def ; ghi");
    expect(values.DOLLAR).toBe("$HOME/not-expanded `not run`");
  });

  it("trims around the name and the unquoted value, unquotes, joins an escaped line end", () => {
    const { values } = parseEnvironmentFile(file);
    expect(values.SPACED).toBe("value with inner spaces");
    expect(values.DOUBLE).toBe('a "quoted" $word and \\n kept');
    expect(values.SINGLE).toBe("single $HOME \\n");
    expect(values.JOINED).toBe("firstsecond");
    expect(values.EMPTY).toBe("");
    expect(values.LAST).toBe("no line end");
  });

  it("skips a line that is not NAME=value, naming the line but never the value", () => {
    const { values, skipped } = parseEnvironmentFile(file);
    expect(Object.keys(values)).not.toContain("NO_EQUALS_SIGN");
    expect(skipped).toEqual([{ line: 12, name: "export LOOKS_LIKE_SHELL" }]);
  });
});

describe("scripts/with-env.mjs", () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-with-env-"));
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
  const wrapper = path.resolve(import.meta.dirname, "../../scripts/with-env.mjs");
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [wrapper, ...args], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", ...env },
      timeout: 30_000,
    });
  const printEnvironment = [
    process.execPath,
    "-e",
    "const { DATABASE_URL, NODE_ENV, LEFTOVER } = process.env; console.log(JSON.stringify({ DATABASE_URL, NODE_ENV, LEFTOVER }))",
  ];

  it("gives the command the file's values on a clean environment, then the NAME=value words", () => {
    const env_file = path.join(work, "mutual.env");
    fs.writeFileSync(env_file, "DATABASE_URL=postgresql://m@h/db?a=1&b=2\nNODE_ENV=development\n");
    const result = run([env_file, "NODE_ENV=production", ...printEnvironment], { LEFTOVER: "from my shell" });
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({ DATABASE_URL: "postgresql://m@h/db?a=1&b=2", NODE_ENV: "production" });
    expect(result.status).toBe(0);
  });

  it("passes the command's exit code on", () => {
    const env_file = path.join(work, "exit.env");
    fs.writeFileSync(env_file, "A=1\n");
    expect(run([env_file, process.execPath, "-e", "process.exit(2)"]).status).toBe(2);
  });

  it("runs nothing when the file cannot be read, and says so (exit 125)", () => {
    const marker = path.join(work, "ran");
    const result = run([
      path.join(work, "missing.env"),
      process.execPath,
      "-e",
      `require("fs").writeFileSync(${JSON.stringify(marker)}, "")`,
    ]);
    expect(result.stderr).toContain("cannot read");
    expect(result.stderr).toContain("nothing was run");
    expect(result.status).toBe(125);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("warns about an ignored line by number and name, without its value", () => {
    const env_file = path.join(work, "shell.env");
    fs.writeFileSync(env_file, "export SESSION_SECRET=0123456789abcdef0123456789abcdef\n");
    const result = run([env_file, process.execPath, "-e", ""]);
    expect(result.stderr).toContain(':1: ignoring "export SESSION_SECRET"');
    expect(result.stderr).not.toContain("0123456789abcdef");
    expect(result.status).toBe(0);
  });
});
