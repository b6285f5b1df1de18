import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { afterAll, expect, it } from "vitest";
import pg from "pg";
import { demoInstitution } from "~/config/demo-institution";

/**
 * The compiled server (scripts/build-server.mjs) stopped while a request is in flight, as a
 * deployment or systemd stops it: the stop signal arrives twice (the service manager signals the
 * whole group, `npm start` passes it on too). The request must be answered in full, with
 * `Connection: close`; no new connection is accepted meanwhile; the database closes and the
 * process exits 0. On PostgreSQL when TEST_DATABASE_URL is set, else on an embedded database.
 */

const repository = path.resolve(import.meta.dirname, "../..");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-shutdown-"));
// The test's own build, inside the repository where the bundle finds node_modules (ignored like
// the browser tests' builds), kept between runs: rebuilt only when sources changed.
const buildDir = path.join(repository, "build-e2e-shutdown");
let child: ChildProcess | undefined;
let dropDatabase: (() => Promise<void>) | undefined;
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await dropDatabase?.();
  fs.rmSync(work, { recursive: true, force: true });
});

async function databaseEnv(): Promise<Record<string, string>> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return { DATA_DIR: path.join(work, "data") };
  const name = `mutual_test_${crypto.randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  dropDatabase = async () => {
    const cleanup = new pg.Client({ connectionString: serverUrl });
    await cleanup.connect();
    await cleanup.query(`drop database if exists ${name} with (force)`);
    await cleanup.end();
  };
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { DATABASE_URL: url.toString(), SESSION_SECRET: crypto.randomBytes(32).toString("hex"), DATA_ENCRYPTION_KEY: crypto.randomBytes(32).toString("hex") };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

it("a stop signal (sent twice) lets the request in flight finish, refuses new connections, closes the database and exits 0", { timeout: 600_000 }, async () => {
  // Production mode, as deployed (development mode runs Vite, whose own stop handler exits at once):
  // the React Router build and the bundles, each rebuilt only when its sources changed.
  const build = spawnSync(process.execPath, ["scripts/build-server.mjs"], {
    cwd: repository,
    env: { ...process.env, MUTUAL_BUILD_DIR: buildDir },
    encoding: "utf8",
  });
  expect(build.status, build.stderr).toBe(0);

  // An institution without the demo: nothing to seed, so the start is quick.
  const institutionFile = path.join(work, "institution.json");
  fs.writeFileSync(institutionFile, JSON.stringify({ ...demoInstitution, demo: false }));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, [path.join(buildDir, "bin/server.js")], {
    cwd: repository,
    env: { ...process.env, ...(await databaseEnv()), NODE_ENV: "production", MUTUAL_BUILD_DIR: buildDir, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "info", INSTITUTION_CONFIG: institutionFile },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = server;
  const lines: string[] = [];
  const watchers = new Set<() => void>();
  for (const stream of [server.stdout!, server.stderr!]) {
    readline.createInterface({ input: stream }).on("line", (line) => {
      lines.push(line);
      for (const watcher of watchers) watcher();
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => server.once("exit", (code, signal) => resolve({ code, signal })));
  const untilLine = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (lines.some((line) => pattern.test(line))) {
          watchers.delete(check);
          resolve();
        }
      };
      watchers.add(check);
      check();
      void exited.then(() => reject(new Error(`server exited while waiting for ${pattern}:\n${lines.slice(-30).join("\n")}`)));
    });

  await untilLine(/Mutual is serving/);
  // The same post once in full first: the stop then waits on the body only.
  const body = new URLSearchParams({ intent: "password", email: "nobody@example.com", password: "not-the-password-1" }).toString();
  const headers = { origin: base, "content-type": "application/x-www-form-urlencoded" };
  const warm = await fetch(`${base}/login`, { method: "POST", headers, body, redirect: "manual" });
  expect(warm.status).toBeLessThan(500);
  await warm.text();

  // A sign-in post whose body is still being sent when the stop comes.
  const request = http.request(`${base}/login`, {
    method: "POST",
    headers: { ...headers, expect: "100-continue", "content-length": String(Buffer.byteLength(body)) },
  });
  const answer = new Promise<{ status: number; connection: string | undefined; text: string }>((resolve, reject) => {
    request.once("error", reject);
    request.once("response", (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.once("end", () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, text }));
      response.once("error", reject);
    });
  });
  // "100 Continue" is the server saying it has the request (headers read, body awaited).
  const inFlight = new Promise<void>((resolve) => request.once("continue", resolve));
  request.flushHeaders();
  await inFlight;

  server.kill("SIGTERM");
  server.kill("SIGTERM");
  await untilLine(/shutting down/);

  // No new connection while the last requests finish.
  const refused = await new Promise<string>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
  });
  expect(refused).toBe("ECONNREFUSED");

  request.end(body);
  const { status, connection, text } = await answer.catch((error: unknown) => {
    throw new Error(`the request in flight failed (${String(error)}; exit ${server.exitCode ?? server.signalCode}):\n${lines.slice(-20).join("\n")}`);
  });
  expect(status).toBeLessThan(500);
  expect(text.length).toBeGreaterThan(0);
  expect(connection).toBe("close");

  const exit = await exited;
  expect(exit, lines.slice(-20).join("\n")).toEqual({ code: 0, signal: null });
  expect(lines.some((line) => /"msg":"stopped"/.test(line))).toBe(true);
  expect(lines.some((line) => /shutdown limit reached/.test(line))).toBe(false);
});
