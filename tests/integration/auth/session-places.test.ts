import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cityDatabase } from "./city-database-fixture";

// A city database configured before env() is first read (this file runs isolated: vitest.config.ts).
const folder = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-city-"));
process.env.CITY_DATABASE_FILE = path.join(folder, "city.mmdb");
fs.writeFileSync(
  process.env.CITY_DATABASE_FILE,
  cityDatabase([
    {
      network: "198.51.100.0/24",
      city: "Portsmouth",
      subdivision_code: "NH",
      subdivision: "New Hampshire",
      country_code: "US",
      country: "United States",
    },
    { network: "203.0.113.0/25", city: "Toronto", country_code: "CA", country: "Canada" },
  ]),
);

const { Browser, lastCodeTo, outcome } = await import("../identity-support");
const { startSignIn, verifySignInCode } = await import("~/server/auth/sign-in.server");
const { sessionUserFromCookie } = await import("~/server/auth/session.server");
const { listActiveSessions } = await import("~/server/auth/active-sessions.server");
const { approximatePlace } = await import("~/server/auth/places.server");
const { person } = await import("../../factories");
const { fileDatabase } = await import("../test-database");

const database = fileDatabase();
const PASSWORD = "Harbour lights at 9";

async function signIn(email: string, ip: string) {
  const b = new Browser(ip, "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0");
  const started = await startSignIn(database.db, b.meta(), { email, password: PASSWORD });
  if (!started.ok || started.status !== "challenge")
    throw new Error(`sign-in did not ask for a code: ${outcome(started)}`);
  b.apply(started.set_cookies);
  const done = await verifySignInCode(database.db, b.meta(), { code: await lastCodeTo(database.db, email) });
  if (!done.ok) throw new Error(`sign-in failed: ${outcome(done)}`);
  b.apply(done.set_cookies);
  return (await sessionUserFromCookie(database.db, b.cookieHeader()))!;
}

describe("the approximate place of a session", () => {
  it("comes from the configured city database, read on this machine", () => {
    expect(approximatePlace("198.51.100.77")).toBe("Portsmouth, New Hampshire, United States");
    expect(approximatePlace("203.0.113.5")).toBe("Toronto, Canada");
    // Not in the database, private, or not an address: no place, none guessed.
    expect(approximatePlace("203.0.113.200")).toBeNull();
    expect(approximatePlace("10.0.0.8")).toBeNull();
    expect(approximatePlace("not an address")).toBeNull();
    expect(approximatePlace(null)).toBeNull();
  });

  it("is listed with each session, from the address it signed in from", async () => {
    const me = await person(database.db, "user", { email: "places@example.com", password: PASSWORD });
    const here = await signIn(me.email, "198.51.100.20");
    await signIn(me.email, "10.1.2.3");
    const list = await listActiveSessions(database.db, me.id, here.session_id);
    expect(list.map((s) => [s.current, s.place])).toEqual([
      [true, "Portsmouth, New Hampshire, United States"],
      [false, null],
    ]);
  });
});
