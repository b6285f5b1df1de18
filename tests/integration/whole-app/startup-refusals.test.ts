import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compiled, repository } from "../app-server";
import { demoInstitution } from "~/config/demo-institution";

/**
 * The compiled server, started as systemd starts it, with one setting wrong at a time: it exits 1
 * before opening any database, and says why in one JSON line like every other line it writes (it
 * printed several plain lines, which journald keeps as separate entries). Each of these used to
 * start, or to fail without naming the variable.
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-refusals-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const keys = { SESSION_SECRET: "s".repeat(64), DATA_ENCRYPTION_KEY: "a".repeat(64) };
const live = { SMTP_URL: "smtp://127.0.0.1:1", PUBLIC_URL: "https://bank.example.org", MUTUAL_EMBEDDED_DATABASE: "1" };

function profileFile(name: string, profile: object): string {
  const file = path.join(work, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(profile));
  return file;
}

/** Starts the server on a fresh DATA_DIR with only `settings`; resolves with its exit and output. */
function start(settings: Record<string, string>) {
  const data_dir = path.join(work, `data-${Math.random().toString(36).slice(2)}`);
  const child = spawn(process.execPath, [compiled("server")], {
    cwd: repository,
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", PORT: "0", DATA_DIR: data_dir, ...keys, ...settings },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  return new Promise<{ code: number | null; lines: string[]; data_dir: string }>((resolve) =>
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, lines: output.split("\n").filter(Boolean), data_dir });
    }),
  );
}

/** The one line the refusal is, parsed; fails unless the whole output is that one JSON line. */
async function refusal(settings: Record<string, string>): Promise<{ msg: string; problems: string[]; raw: string }> {
  const { code, lines, data_dir } = await start(settings);
  expect(lines, lines.join("\n")).toHaveLength(1);
  const line = JSON.parse(lines[0]!) as { level: number; msg: string; problems: string[] };
  expect(line.level).toBe(60);
  expect(line.msg).toMatch(/^Mutual cannot start: /);
  expect(code).toBe(1);
  // Refused before anything was opened or created.
  expect(fs.existsSync(data_dir)).toBe(false);
  return { ...line, raw: lines[0]! };
}

describe("the server refuses to start, in one JSON line", { timeout: 300_000 }, () => {
  it("without DATABASE_URL in production, unless the embedded database is chosen (MUTUAL_EMBEDDED_DATABASE=1)", async () => {
    const { msg } = await refusal({});
    expect(msg).toContain("DATABASE_URL: not set, and NODE_ENV=production");
    expect(msg).toContain("MUTUAL_EMBEDDED_DATABASE=1");
  });

  it("on a TRUST_PROXY other than 1 or 0 (it was taken as off)", async () => {
    const { msg } = await refusal({ MUTUAL_EMBEDDED_DATABASE: "1", TRUST_PROXY: "yes" });
    expect(msg).toContain("TRUST_PROXY: must be 1");
  });

  it("on a DATABASE_URL whose password is not percent-encoded, naming the variable and never the password", async () => {
    const { msg, raw } = await refusal({ DATABASE_URL: "postgresql://mutual:Se/cr3t#pw@db.internal:5432/mutual" });
    expect(msg).toMatch(/DATABASE_URL: .*percent-encode/);
    expect(raw).not.toContain("Se/cr3t");
    expect(raw).not.toContain("Se%2Fcr3t");
  });

  it('on a profile that says "demo": false but keeps the demo\'s routing number, name and addresses', async () => {
    const { msg } = await refusal({
      ...live,
      INSTITUTION_CONFIG: profileFile("copied-demo", { ...demoInstitution, demo: false }),
    });
    expect(msg).toContain("routing_number: still the demo's (501234566)");
    expect(msg).toContain("support_email: at the demo's domain");
  });

  it("on the institution's own profile without SMTP_URL and an https PUBLIC_URL, even on the embedded database", async () => {
    const own = profileFile("own", {
      ...demoInstitution,
      demo: false,
      name: "Lakeside Teachers Credit Union",
      short_name: "Lakeside TCU",
      routing_number: "011000015",
      support_email: "help@lakesidetcu.org",
      testimonials: [],
      intuit_bank_id: undefined,
      ach: { ...demoInstitution.ach, company_identification: "1234567890" },
    });
    const { msg } = await refusal({
      MUTUAL_EMBEDDED_DATABASE: "1",
      INSTITUTION_CONFIG: own,
      PUBLIC_URL: "http://bank.example.org",
    });
    expect(msg).toContain("SMTP_URL: required in production");
    expect(msg).toContain("PUBLIC_URL: required in production, starting with https://");
    expect(msg).toContain("MUTUAL_TEST_INSTALL=1");
  });
});
