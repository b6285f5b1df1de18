import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { asc, eq } from "drizzle-orm";
import { AppProcess, appEnvironment, signIn } from "../app-server";
import { onPostgres, openTestDatabase } from "../test-database";
import type { Database } from "~/server/db/client.server";
import { sessions, users } from "~/server/db/schema";
import { DEMO_SIGNINS } from "~/server/auth/demo-signins.server";

/**
 * "Ending works in every process at once" (issue 32, docs/product.md#sessions-and-devices): a
 * member signed in on two devices ends the other device's session from Account Settings on one
 * app process, and that session is refused on its next request by both processes, while the one
 * that ended it carries on in both. Sessions live only in the database (no cookie cache:
 * active-sessions.server.ts). PostgreSQL only: several processes cannot share one embedded database.
 */
let database: (Database & { url?: string }) | undefined;
const apps: AppProcess[] = [];
let dataDir: string | undefined;
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await database?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The status of a signed-in page asked of one process; a session that is gone is sent to /login. The body is read
 * whole: a cancelled one left the connection busy and held the process's graceful stop to its 10 s limit. */
async function dashboard(base: string, cookie: string) {
  const response = await fetch(`${base}/dashboard`, { headers: { cookie }, redirect: "manual" });
  await response.text();
  return { status: response.status, location: response.headers.get("location") ?? "" };
}

describe("ending a session with two app processes", () => {
  it.skipIf(!onPostgres)(
    "a session ended on one process is refused by both at once",
    async () => {
      database = await openTestDatabase({ pool_max: 2 });
      const db = database.db;
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-sessions-apps-"));
      const environment = appEnvironment(database.url!, dataDir, { DATABASE_POOL_MAX: "4" });
      apps.push(new AppProcess(environment), new AppProcess(environment));
      await Promise.all(apps.map((app) => app.serving()));
      const [one, two] = apps as [AppProcess, AppProcess];

      // The same member signed in twice on process one: a laptop (kept) and a phone (to be ended).
      const person = DEMO_SIGNINS.find((p) => p.kind === "member")!;
      const phone = await signIn(one.base, db, person.email, person.password);
      const laptop = await signIn(one.base, db, person.email, person.password);
      for (const app of apps)
        for (const cookie of [phone, laptop]) expect((await dashboard(app.base, cookie)).status).toBe(200);
      const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, person.email));
      const mine = await db
        .select({ id: sessions.id })
        .from(sessions)
        .where(eq(sessions.userId, user!.id))
        .orderBy(asc(sessions.createdAt));
      expect(mine).toHaveLength(2);
      const phone_session = mine[0]!.id;

      // The laptop ends the phone's session through process two, as Account Settings posts it.
      const ended = await fetch(`${two.base}/settings/account`, {
        method: "POST",
        redirect: "manual",
        headers: {
          cookie: laptop,
          origin: two.base,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ intent: "session-end", session_id: phone_session }).toString(),
      });
      expect(ended.status).toBe(200);
      expect(await ended.text()).toContain("Session ended. That device is signed out.");

      // The phone is signed out on both processes at once; the laptop carries on on both.
      for (const app of apps) {
        const refused = await dashboard(app.base, phone);
        expect([302, 303]).toContain(refused.status);
        expect(refused.location).toMatch(/^\/login/);
        expect((await dashboard(app.base, laptop)).status).toBe(200);
      }
      expect(await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, user!.id))).toHaveLength(1);

      await Promise.all(apps.map((app) => app.stop("SIGTERM")));
      expect(apps.map((app) => app.exit)).toEqual(["0", "0"]);
    },
    240_000,
  );
});
