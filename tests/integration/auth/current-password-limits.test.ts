import "../identity-support";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { and, eq } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import type { Database } from "~/server/db/client.server";
import { auditLog, memberProfiles, outbox, users } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { requestInfoContext } from "~/context";
import { authFor } from "~/server/auth/auth.server";
import { startSignIn, verifySignInCode } from "~/server/auth/sign-in.server";
import { currentPasswordLockedMessage } from "~/server/auth/current-password.server";
import { changeOwnPassword, disableTotp, startTotpEnrollment } from "~/server/settings/settings.server";
import * as accountRoute from "~/routes/settings/account";
import { openTestDatabase } from "../test-database";
import { fieldErrors } from "../../form-reply";
import { Browser, lastCodeTo, outcome } from "../identity-support";

/**
 * The current password, asked again of a signed-in person (Account Settings: password change,
 * authenticator app on and off; a temporary password replaced). Whoever holds a session must not
 * be able to guess it without end: a wrong one counts as a wrong password for the account's
 * lockout (5 in 15 minutes lock it), checks are capped per person, every wrong one is audited,
 * and the member is emailed after the third and at the lock.
 */
let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
});
afterAll(async () => {
  await database?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

const PASSWORD = "Current passphrase 31";
let counter = 0;

async function signedInMember() {
  counter += 1;
  const email = `current${counter}@example.com`;
  const { user } = await authFor(database.db).api.signUpEmail({
    body: { email, password: PASSWORD, name: "Riley Shore" },
  });
  await database.db.update(users).set({ role: "user", twoFactorEnabled: true }).where(eq(users.id, user.id));
  await database.db
    .insert(memberProfiles)
    .values({ user_id: user.id, first_name: "Riley", last_name: "Shore", status: "approved" });
  const browser = new Browser(`198.18.${counter % 250}.9`);
  const step = await startSignIn(database.db, browser.meta(), { email, password: PASSWORD });
  if (!step.ok || step.status !== "challenge") throw new Error(outcome(step));
  browser.apply(step.set_cookies);
  const signed = await verifySignInCode(database.db, browser.meta(), { code: await lastCodeTo(database.db, email) });
  if (!signed.ok) throw new Error(outcome(signed));
  browser.apply(signed.set_cookies);
  return { me: { id: user.id, email }, browser };
}

const NEW_PASSWORD = "A brand new passphrase 7";

async function wrongRows(user_id: string) {
  return database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, "auth.current_password.wrong"), eq(auditLog.member_id, user_id)));
}

async function mailTo(email: string) {
  return database.db.select().from(outbox).where(eq(outbox.to_email, email)).orderBy(outbox.id);
}

describe("guessing the current password from a signed-in session", () => {
  it("is stopped: after 5 wrong guesses even the right password is refused, sign-in is locked, and the member is told", async () => {
    const { me, browser } = await signedInMember();
    const results: string[] = [];
    for (let i = 0; i < 20; i++) {
      results.push(
        outcome(
          await changeOwnPassword(database.db, browser.meta(), me, {
            current_password: `Guess number ${i} here`,
            new_password: NEW_PASSWORD,
          }),
        ),
      );
    }
    expect(results.slice(0, 4)).toEqual(["wrong_password", "wrong_password", "wrong_password", "wrong_password"]);
    expect(new Set(results.slice(4))).toEqual(new Set(["locked"]));
    const right = await changeOwnPassword(database.db, browser.meta(), me, {
      current_password: PASSWORD,
      new_password: NEW_PASSWORD,
    });
    expect(right).toEqual({
      ok: false,
      kind: "too_many",
      code: "locked",
      field: "current_password",
      message: expect.stringMatching(/^Too many wrong passwords/),
      retry_after_s: expect.any(Number),
    });
    expect(!right.ok && right.retry_after_s).toBeGreaterThan(14 * 60);

    // Every wrong one is in the audit log; refused checks too.
    const wrong = await wrongRows(me.id);
    expect(wrong).toHaveLength(5);
    expect(wrong.map((r) => r.after)).toContainEqual({
      purpose: "password_change",
      recent_wrong_passwords: 5,
      locked: true,
    });
    const refused = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "auth.current_password.refused"), eq(auditLog.member_id, me.id)));
    expect(refused).toHaveLength(16);
    // No password in the audit rows.
    expect(JSON.stringify([...wrong, ...refused])).not.toContain("Guess number");

    // The member heard about it: after the third wrong password, and at the lock.
    const mail = await mailTo(me.email);
    expect(mail.filter((m) => m.kind === "security_alert")).toHaveLength(1);
    expect(mail.filter((m) => m.kind === "security_alert")[0]!.text_body).toMatch(/3 wrong passwords/);
    expect(mail.filter((m) => m.kind === "account_locked")).toHaveLength(1);

    // The lock is the account's sign-in lock.
    expect(
      outcome(
        await startSignIn(database.db, new Browser("198.18.200.1").meta(), { email: me.email, password: PASSWORD }),
      ),
    ).toBe("locked");

    // It ends after 15 minutes: the right password works again.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 15 * 60 * 1000 + 1000);
    expect(
      outcome(
        await changeOwnPassword(database.db, browser.meta(), me, {
          current_password: PASSWORD,
          new_password: NEW_PASSWORD,
        }),
      ),
    ).toBe("ok");
  });

  it("counts the authenticator app's checks (turning it on and off) in the same limit", async () => {
    const { me, browser } = await signedInMember();
    expect(outcome(await startTotpEnrollment(database.db, browser.meta(), me, "Wrong guess one 1"))).toBe(
      "wrong_password",
    );
    expect(outcome(await startTotpEnrollment(database.db, browser.meta(), me, "Wrong guess two 2"))).toBe(
      "wrong_password",
    );
    expect(outcome(await disableTotp(database.db, browser.meta(), me, "Wrong guess three 3"))).toBe("wrong_password");
    expect(outcome(await disableTotp(database.db, browser.meta(), me, "Wrong guess four 4"))).toBe("wrong_password");
    expect(
      outcome(
        await changeOwnPassword(database.db, browser.meta(), me, {
          current_password: "Wrong guess five 5",
          new_password: NEW_PASSWORD,
        }),
      ),
    ).toBe("locked");
    expect(outcome(await startTotpEnrollment(database.db, browser.meta(), me, PASSWORD))).toBe("locked");
    expect(outcome(await disableTotp(database.db, browser.meta(), me, PASSWORD))).toBe("locked");
    expect((await wrongRows(me.id)).map((r) => (r.after as { purpose: string }).purpose)).toEqual([
      "authenticator_on",
      "authenticator_on",
      "authenticator_off",
      "authenticator_off",
      "password_change",
    ]);
  });

  it("caps simultaneous guesses: at most 10 are checked", async () => {
    const { me, browser } = await signedInMember();
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        changeOwnPassword(database.db, browser.meta(), me, {
          current_password: `Parallel guess ${i} x`,
          new_password: NEW_PASSWORD,
        }),
      ),
    );
    expect((await wrongRows(me.id)).length).toBeLessThanOrEqual(10);
    expect(results.filter((r) => outcome(r) === "wrong_password").length).toBeLessThanOrEqual(10);
    expect(results.some((r) => outcome(r) === "locked")).toBe(true);
  });

  it("Account Settings answers 429 with the reason next to the password field", async () => {
    const { me, browser } = await signedInMember();
    const post = (form: Record<string, string>) => {
      const request = new Request("http://localhost:3000/settings/account", {
        method: "POST",
        headers: {
          cookie: browser.cookieHeader(),
          origin: "http://localhost:3000",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams(form),
      });
      const context = new RouterContextProvider();
      context.set(requestInfoContext, { request_id: "current-password-0001", ip: browser.ip, nonce: "" });
      return accountRoute.action({ request, params: {}, context } as never) as Promise<{
        data: unknown;
        init: { status: number } | null;
      }>;
    };
    for (let i = 0; i < 4; i++)
      expect((await post({ intent: "totp-disable", current_password: `Wrong guess ${i} ok` })).init?.status).toBe(400);
    const fifth = await post({
      intent: "password",
      current_password: "Wrong guess five ok",
      new_password: NEW_PASSWORD,
      confirm_password: NEW_PASSWORD,
    });
    expect(fifth.init?.status).toBe(429);
    expect(fieldErrors(fifth.data).current_password).toBe(currentPasswordLockedMessage(15 * 60));
    // Even the right password, for any of the three, until the lock ends.
    const right = await post({ intent: "totp-start", current_password: PASSWORD });
    expect(right.init?.status).toBe(429);
    expect(fieldErrors(right.data).current_password).toMatch(/^Too many wrong passwords/);
    expect((await wrongRows(me.id)).every((r) => r.request_id === "current-password-0001")).toBe(true);
  });
});
