import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { AppProcess, serverDatabase } from "../app-server";
import { demoInstitution } from "~/config/demo-institution";

/**
 * The compiled server (scripts/build-server.mjs) stopped while a request is in flight, as a
 * deployment or systemd stops it: the stop signal arrives twice (the service manager signals the
 * whole group, `npm start` passes it on too). The request must be answered in full, with
 * `Connection: close`; no new connection is accepted meanwhile; the database closes and the
 * process exits 0. On PostgreSQL when TEST_DATABASE_URL is set, else on an embedded database.
 */

const work = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-shutdown-"));
let server: AppProcess | undefined;
let closeDatabase: (() => Promise<void>) | undefined;
afterAll(async () => {
  await server?.stop("SIGKILL");
  await closeDatabase?.();
  fs.rmSync(work, { recursive: true, force: true });
});

it(
  "a stop signal (sent twice) lets the request in flight finish, refuses new connections, closes the database and exits 0",
  { timeout: 600_000 },
  async () => {
    // Production mode, as deployed (development mode runs Vite, whose own stop handler exits at once).
    // An institution without the demo: nothing to seed, so the start is quick.
    const institutionFile = path.join(work, "institution.json");
    fs.writeFileSync(institutionFile, JSON.stringify({ ...demoInstitution, demo: false }));
    const database = await serverDatabase(path.join(work, "data"));
    closeDatabase = database.close;
    const app = new AppProcess({ ...database.env, HOST: "127.0.0.1", INSTITUTION_CONFIG: institutionFile });
    server = app;
    const lines = server.lines;
    const untilLine = (pattern: RegExp) => app.waitForLine(pattern, String(pattern));

    await app.serving();
    const { port, base } = app;
    // The same post once in full first: the stop then waits on the body only.
    const body = new URLSearchParams({
      intent: "password",
      email: "nobody@example.com",
      password: "not-the-password-1",
    }).toString();
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
        response.once("end", () =>
          resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, text }),
        );
        response.once("error", reject);
      });
    });
    // "100 Continue" is the server saying it has the request (headers read, body awaited).
    const inFlight = new Promise<void>((resolve) => request.once("continue", resolve));
    request.flushHeaders();
    await inFlight;

    app.signal("SIGTERM");
    app.signal("SIGTERM");
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
      throw new Error(
        `the request in flight failed (${String(error)}; exit ${app.exit}):\n${lines.slice(-20).join("\n")}`,
      );
    });
    expect(status).toBeLessThan(500);
    expect(text.length).toBeGreaterThan(0);
    expect(connection).toBe("close");

    const exit = await app.exited;
    expect(exit, lines.slice(-20).join("\n")).toEqual({ code: 0, signal: null });
    expect(lines.some((line) => /"msg":"stopped"/.test(line))).toBe(true);
    expect(lines.some((line) => /shutdown limit reached/.test(line))).toBe(false);
  },
);
