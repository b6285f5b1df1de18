import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { AppProcess, serverDatabase } from "../app-server";
import { demoInstitution } from "~/config/demo-institution";

/**
 * The compiled server's port: PORT=0 takes any free port and the serving line names it (how the
 * tests start processes side by side); a port another program holds stops the server at once.
 * On PostgreSQL when TEST_DATABASE_URL is set, else on an embedded database.
 */

const work = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-port-"));
const apps: AppProcess[] = [];
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop("SIGKILL")));
  for (const close of closers) await close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** A server on a data folder (and database) of its own; an institution without the demo starts quickly. */
async function start(name: string, port?: number): Promise<AppProcess> {
  const institutionFile = path.join(work, "institution.json");
  fs.writeFileSync(institutionFile, JSON.stringify({ ...demoInstitution, demo: false }));
  const database = await serverDatabase(path.join(work, name));
  closers.push(database.close);
  const app = new AppProcess({ ...database.env, HOST: "127.0.0.1", INSTITUTION_CONFIG: institutionFile }, port);
  apps.push(app);
  return app;
}

it("on PORT=0 the server listens on a free port and its serving line names it", async () => {
  const app = await start("any-port");
  await app.serving();
  expect(app.port).toBeGreaterThan(0);
  const health = await fetch(`${app.base}/healthz`);
  expect(health.status).toBe(200);
  expect(await health.text()).toBe("ok");
  // The public files are served by name (an hour in caches); another name with an extension is a page's 404.
  const favicon = await fetch(`${app.base}/favicon.svg`);
  expect(favicon.status).toBe(200);
  expect(favicon.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
  expect(favicon.headers.get("cache-control")).toBe("public, max-age=3600");
  expect((await fetch(`${app.base}/favicon-old.svg`)).status).toBe(404);
});

it("a port another program holds stops the server (exit 1, 'cannot serve on PORT'); it never says it is serving", async () => {
  // Another program on the port, as when a port looked up as free is taken before the server listens.
  const holder = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  try {
    const app = await start("taken-port", (holder.address() as net.AddressInfo).port);
    // Whichever comes first: the exit, or the claim to serve (it used to say "Mutual is serving"
    // and run on, jobs and all, while the other program answered its requests).
    await Promise.race([app.exited, app.serving().catch(() => undefined)]);
    expect(app.lines.filter((line) => line.includes("Mutual is serving"))).toEqual([]);
    await app.exited;
    expect(app.exit).toBe("1");
    expect(app.lines.some((line) => line.includes('"cannot serve on PORT"') && line.includes("EADDRINUSE"))).toBe(true);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});
