import "../admin-support";
import "../member-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import type { Database } from "~/server/db/client.server";
import { memberProfiles, memberSettings } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { requestInfoContext } from "~/context";
import { listNotifications, notify } from "~/server/notifications/notifications.server";
import { updateNotificationSettings } from "~/server/settings/settings.server";
import * as accountRoute from "~/routes/settings/account";
import * as profileRoute from "~/routes/settings/profile";
import * as loginRoute from "~/routes/auth/login";
import * as notificationsRoute from "~/routes/member/notifications";
import * as dashboardRoute from "~/routes/member/dashboard";
import * as adminIndexRoute from "~/routes/admin/index";
import * as resetTransfersRoute from "~/routes/admin/reset-transfers";
import { openTestDatabase } from "../test-database";
import { person, signedIn } from "../admin-support";
import { newMember } from "../member-support";

/**
 * Every action that does more than one thing acts only on an intent it knows: an unknown or
 * missing `intent` is answered with 400 and changes nothing. (Account Settings read any unknown
 * intent as "save the notification switches" and turned every notification off.)
 */
let database: Database;
let member_id = "";
let memberCookie = "";
let staffCookie = "";
let memberEmail = "";

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const created = await newMember(database.db);
  member_id = created.member.id;
  memberEmail = created.member.email;
  memberCookie = await signedIn(database.db, member_id);
  staffCookie = await signedIn(database.db, (await person(database.db, "admin")).id);
  await updateNotificationSettings(database.db, member_id, {
    login_alerts: true,
  });
});
afterAll(async () => {
  await database?.close();
});

function context() {
  const provider = new RouterContextProvider();
  provider.set(requestInfoContext, { request_id: "intents-0001", ip: "203.0.113.62", nonce: "" });
  return provider;
}

function post(cookie: string | null, path: string, form: Record<string, string>): Request {
  const headers = new Headers({ origin: "http://localhost:3000", "content-type": "application/x-www-form-urlencoded" });
  if (cookie) headers.set("cookie", cookie);
  return new Request(`http://localhost:3000${path}`, { method: "POST", headers, body: new URLSearchParams(form) });
}

/** The status React Router would answer with (a thrown error that is not a Response is a 500). */
async function status(fn: () => Promise<unknown>): Promise<number> {
  let value: unknown;
  try {
    value = await fn();
  } catch (thrown) {
    if (!(thrown instanceof Response) && !(thrown && typeof thrown === "object" && "init" in thrown)) return 500;
    value = thrown;
  }
  if (value instanceof Response) return value.status;
  return (value as { init?: { status?: number } } | null)?.init?.status ?? 200;
}

const args = (r: Request) => ({ request: r, params: {}, context: context() }) as never;
const settingsOf = async () =>
  (await database.db.select().from(memberSettings).where(eq(memberSettings.user_id, member_id)))[0];

describe("an unknown or missing intent is refused with 400 and changes nothing", () => {
  it.each([["notifications-please"], ["NOTIFICATIONS"], [""], [null]])(
    "Account Settings, intent %j: every notification stays on",
    async (intent) => {
      const before = await settingsOf();
      const form: Record<string, string> = intent === null ? {} : { intent };
      expect(await status(() => accountRoute.action(args(post(memberCookie, "/settings/account", form))))).toBe(400);
      expect(await settingsOf()).toEqual(before);
      expect(before).toMatchObject({
        email_notifications: true,
        login_alerts: true,
      });
    },
  );

  it("Account Settings still saves the switches when the form says so", async () => {
    expect(
      await status(() =>
        accountRoute.action(
          args(
            post(memberCookie, "/settings/account", {
              intent: "notifications",
              // Email, SMS and push notifications are not offered: a forged switch changes nothing.
              email_notifications: "",
              sms_notifications: "on",
              push_notifications: "",
              login_alerts: "",
            }),
          ),
        ),
      ),
    ).toBe(200);
    expect(await settingsOf()).toMatchObject({
      email_notifications: true,
      sms_notifications: false,
      push_notifications: true,
      login_alerts: false,
    });
  });

  it.each([["rename"], [null]])("Profile Settings, intent %j: the profile is not changed", async (intent) => {
    const [before] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, member_id));
    const form: Record<string, string> = {
      first_name: "Changed",
      last_name: "ByIntent",
      phone: "",
      street: "",
      city: "",
      state: "",
      postal_code: "",
      country: "",
      ...(intent === null ? {} : { intent }),
    };
    expect(await status(() => profileRoute.action(args(post(memberCookie, "/settings/profile", form))))).toBe(400);
    const [after] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, member_id));
    expect(after).toEqual(before);
  });

  it.each([["sign-in"], [null]])("sign-in, intent %j: no password is checked, no challenge starts", async (intent) => {
    const form: Record<string, string> = {
      email: memberEmail,
      password: "whatever it is",
      ...(intent === null ? {} : { intent }),
    };
    let answer: unknown;
    try {
      answer = await loginRoute.action(args(post(null, "/login", form)));
    } catch (thrown) {
      answer = thrown;
    }
    expect((answer as { init?: { status?: number } }).init?.status).toBe(400);
  });

  it.each([["read-some"], [null]])("notifications, intent %j: nothing is marked read", async (intent) => {
    await notify(database.db, {
      member_id,
      kind: "sign_in_alert",
      title: "New sign-in",
      body: "A new sign-in to your account.",
    });
    const [newest] = await listNotifications(database.db, member_id, { limit: 1 });
    const form: Record<string, string> = { id: String(newest!.id), ...(intent === null ? {} : { intent }) };
    expect(
      await status(() => notificationsRoute.action(args(post(memberCookie, "/dashboard/notifications", form)))),
    ).toBe(400);
    expect((await listNotifications(database.db, member_id, { limit: 1 }))[0]!.read).toBe(false);
    expect(
      await status(() =>
        notificationsRoute.action(
          args(post(memberCookie, "/dashboard/notifications", { intent: "read", id: String(newest!.id) })),
        ),
      ),
    ).toBe(200);
    expect((await listNotifications(database.db, member_id, { limit: 1 }))[0]!.read).toBe(true);
  });

  it.each([["member-answer-lost"], ["internal-now"], [null]])(
    "the dashboard's transfer forms, intent %j: 400 and no money moves",
    async (intent) => {
      const form: Record<string, string> = {
        from_account_id: "1",
        to_account_id: "2",
        amount: "1.00",
        reference: "Intent check",
        idempotency_key: "5b0c6d8e-8f1a-4c55-9a7e-2f3b4c5d6e7f",
        ...(intent === null ? {} : { intent }),
      };
      const entriesBefore = await database.db.execute(sql`select count(*)::int as n from ledger_entries`);
      expect(await status(() => dashboardRoute.action(args(post(memberCookie, "/dashboard", form))))).toBe(400);
      const entriesAfter = await database.db.execute(sql`select count(*)::int as n from ledger_entries`);
      expect(entriesAfter.rows).toEqual(entriesBefore.rows);
    },
  );

  it("the back office and Reset Transfer Counts refuse a missing intent", async () => {
    expect(await status(() => adminIndexRoute.action(args(post(staffCookie, "/admin?index", {}))))).toBe(400);
    expect(await status(() => resetTransfersRoute.action(args(post(staffCookie, "/staff/reset-transfers", {}))))).toBe(
      400,
    );
  });
});
