import { afterEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { acquireDataDirLock, DataDirLockedError } from "~/server/files/data-dir-lock.server";

const dirs: string[] = [];
function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-lock-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("DATA_DIR lock", () => {
  it("refuses a second holder while a live process holds it", async () => {
    const dir = tempDir();
    // A real other process holds the lock.
    const lockFile = path.join(dir, "mutual.lock");
    const holder = spawn(process.execPath, [
      "-e",
      `require("fs").writeFileSync(${JSON.stringify(lockFile)}, String(process.pid)); console.log("holding"); setTimeout(() => {}, 30000)`,
    ]);
    // Until the other process says it holds the lock (a fixed pause was too short on a loaded machine).
    await new Promise((resolve) => holder.stdout.once("data", resolve));
    try {
      expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
      expect(() => acquireDataDirLock(dir)).toThrow(/in use by another Mutual process/);
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("takes over a lock left by a process that died", async () => {
    const dir = tempDir();
    const dead = spawn(process.execPath, ["-e", "0"]);
    await new Promise((r) => dead.on("exit", r));
    fs.writeFileSync(path.join(dir, "mutual.lock"), String(dead.pid));
    const lock = acquireDataDirLock(dir);
    expect(fs.readFileSync(path.join(dir, "mutual.lock"), "utf8")).toBe(String(process.pid));
    lock.release();
    expect(fs.existsSync(path.join(dir, "mutual.lock"))).toBe(false);
  });

  it("a second server on the same DATA_DIR refuses to start with a clear message", async () => {
    const dir = tempDir();
    const first = acquireDataDirLock(dir); // this test process plays the running server
    try {
      const child = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
        env: {
          ...process.env,
          DATA_DIR: dir,
          PORT: "3499",
          NODE_ENV: "production",
          DATABASE_URL: "",
          MUTUAL_EMBEDDED_DATABASE: "1",
        },
        cwd: path.resolve(import.meta.dirname, "../../.."),
      });
      let output = "";
      child.stdout.on("data", (d) => (output += d));
      child.stderr.on("data", (d) => (output += d));
      const code = await new Promise<number | null>((r) => child.on("exit", r));
      expect(code).toBe(1);
      // One JSON log line, as every other line the server writes.
      const line = output.split("\n").find((l) => l.includes("is in use by another Mutual process"));
      expect(JSON.parse(line!)).toMatchObject({ level: 60, msg: expect.stringMatching(/^Mutual cannot start: /) });
    } finally {
      first.release();
    }
  });
});
