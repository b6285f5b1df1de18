import "../identity-support";
import { afterEach, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import crypto from "node:crypto";
import { auditLog, notifications, outbox, rateLimitCounters, sessions, staffSignInCodes } from "~/server/db/schema";
import { authFor } from "~/server/auth/auth.server";
import { authHeaders } from "~/server/auth/request-meta.server";
import { endSignInStep, getSignInStep, startSignIn, verifySignInCode } from "~/server/auth/sign-in.server";
import { issueStaffCode, listStaffCodes, removeStaffCode } from "~/server/auth/staff-codes.server";
import { sessionUserFromCookie } from "~/server/auth/session.server";
import { changePassword } from "~/server/auth/password.server";
import { fileDatabase } from "../test-database";
import { Browser, lastCodeTo, lastMessageTo, outcome } from "../identity-support";
import { person } from "../../factories";
import { OTP_INVALID, lockedMessage } from "~/domain/sign-in-messages";

/** RFC 6238 TOTP (SHA-1, 6 digits, 30 s), written independently of the library under test. */
function rfc6238(base32Secret: string, at_ms: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const char of base32Secret.replace(/=+$/, "").toUpperCase())
    bits += alphabet.indexOf(char).toString(2).padStart(5, "0");
  const key = Buffer.from(bits.match(/.{8}/g)!.map((byte) => parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at_ms / 1000 / 30)));
  const hmac = crypto.createHmac("sha1", key).update(counter).digest();
  const offset = hmac[hmac.length - 1]! & 0x0f;
  const value = (hmac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return value.toString().padStart(6, "0");
}

const database = fileDatabase();
afterEach(() => {
  vi.useRealTimers();
});

const PASSWORD = "Tidewater morning 42";
let counter = 0;
async function member(role: "user" | "pending" | "admin" = "user"): Promise<{ id: string; email: string }> {
  counter += 1;
  // Signed out, as these tests start.
  const { id, email } = await person(database.db, role, {
    email: `member${counter}@example.com`,
    password: PASSWORD,
    name: `Member ${counter}`,
  });
  return { id, email };
}

function ip(): string {
  counter += 1;
  return `192.0.2.${counter % 250}`;
}

async function passwordStep(browser: Browser, email: string, password = PASSWORD) {
  const result = await startSignIn(database.db, browser.meta(), { email, password });
  if (result.ok && result.status === "challenge") browser.apply(result.set_cookies);
  return result;
}

describe("sign-in step 1: password", () => {
  it("asks for a second factor and sends an email code; no session exists yet", async () => {
    const { id, email } = await member();
    const browser = new Browser(ip());
    const result = await passwordStep(browser, email);
    expect(result).toMatchObject({ status: "challenge", method: "email" });
    expect(browser.has("two_factor")).toBe(true);
    expect(browser.has("session_token")).toBe(false);
    expect(await database.db.select().from(sessions).where(eq(sessions.userId, id))).toHaveLength(0);
    expect(await lastCodeTo(database.db, email)).toMatch(/^\d{6}$/);
    const step = await getSignInStep(database.db, browser.meta());
    expect(step).toMatchObject({ user_id: id, method: "email", failures: 0 });
    // The code is stored only as a keyed hash: the outbox copy is the only plaintext (no SMTP here).
    const code = await lastCodeTo(database.db, email);
    const rows = await database.db.execute<Record<string, unknown>>(`select * from verifications` as never);
    expect(JSON.stringify(rows.rows)).not.toContain(code);
  });

  it("says the same for a wrong password and an unknown address", async () => {
    const { email } = await member();
    expect(outcome(await passwordStep(new Browser(ip()), email, "not the password!!"))).toBe("invalid");
    expect(outcome(await passwordStep(new Browser(ip()), "nobody@example.com", "not the password!!"))).toBe("invalid");
  });

  it("locks sign-in for 15 minutes after 5 wrong passwords in 15 minutes, and emails the member", async () => {
    const { email } = await member();
    for (let i = 1; i <= 4; i++)
      expect(outcome(await passwordStep(new Browser(ip()), email, `wrong password ${i}`))).toBe("invalid");
    const fifth = await passwordStep(new Browser(ip()), email, "wrong password 5");
    // The fifth wrong password locks the address: the page says for how long, and 429 with Retry-After.
    expect(fifth).toEqual({
      ok: false,
      kind: "too_many",
      code: "locked",
      retry_after_s: 900,
      message: lockedMessage(900),
    });
    expect(await lastMessageTo(database.db, email)).toMatchObject({ kind: "account_locked" });
    // Even the right password is refused while locked.
    expect(outcome(await passwordStep(new Browser(ip()), email))).toBe("locked");

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 15 * 60 * 1000 + 1000);
    expect(outcome(await passwordStep(new Browser(ip()), email))).toBe("challenge");
  });

  it("does not lock for wrong passwords spread over more than 15 minutes", async () => {
    const { email } = await member();
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.now();
    for (let i = 0; i < 4; i++)
      expect(outcome(await passwordStep(new Browser(ip()), email, `wrong password ${i}`))).toBe("invalid");
    vi.setSystemTime(start + 16 * 60 * 1000);
    expect(outcome(await passwordStep(new Browser(ip()), email, "wrong again!!"))).toBe("invalid");
  });

  it("limits sign-in attempts per network address", async () => {
    const { email } = await member();
    const browser = new Browser("198.51.100.7");
    await database.db.insert(rateLimitCounters).values({
      key: `sign-in:ip:${browser.ip}`,
      window_start: new Date(Math.floor(Date.now() / 900_000) * 900_000),
      hits: 30,
    });
    expect(outcome(await passwordStep(browser, email))).toBe("rate_limited");
  });
});

describe("sign-in step 2: codes", () => {
  it("signs in with the email code once; the same code does not work again", async () => {
    const { id, email } = await member();
    const browser = new Browser(ip());
    await passwordStep(browser, email);
    const code = await lastCodeTo(database.db, email);
    const result = await verifySignInCode(database.db, browser.meta(), { code });
    expect(result).toMatchObject({ ok: true, user: { id, role: "user" } });
    if (!result.ok) return;
    // The session cookie: unreadable by scripts, not sent on cross-site posts, for the whole site.
    const sessionCookie = result.set_cookies.find((line) => /session_token=[^;]/.test(line));
    expect(sessionCookie).toMatch(/;\s*HttpOnly/i);
    expect(sessionCookie).toMatch(/;\s*SameSite=Lax/i);
    expect(sessionCookie).toMatch(/;\s*Path=\//i);
    browser.apply(result.set_cookies);
    expect(browser.has("two_factor")).toBe(false);
    const session = await sessionUserFromCookie(database.db, browser.cookieHeader());
    expect(session).toMatchObject({ id, role: "user" });
    expect(await lastMessageTo(database.db, email)).toMatchObject({ kind: "login_alert" });
    // A member's bell tells it too (docs/product.md#alerts: the sign-in from a new device).
    const bell = await database.db.select().from(notifications).where(eq(notifications.member_id, id));
    expect(bell.map((n) => [n.kind, n.title])).toEqual([["sign_in_alert", "New sign-in to your account"]]);
    // The sign-in is a security event in the append-only audit log.
    const events = await database.db.select().from(auditLog).where(eq(auditLog.member_id, id));
    expect(events.map((e) => e.action)).toContain("auth.sign_in");

    // Replaying the code (in a second browser that kept the old challenge cookie) is refused.
    const replay = await verifySignInCode(database.db, browser.meta(), { code });
    expect(outcome(replay)).toBe("expired");
  });

  it("gives a fresh session id at each sign-in and ends the previous one", async () => {
    const { id, email } = await member();
    const browser = new Browser(ip());
    await passwordStep(browser, email);
    const first = await verifySignInCode(database.db, browser.meta(), { code: await lastCodeTo(database.db, email) });
    if (!first.ok) throw new Error(outcome(first));
    browser.apply(first.set_cookies);
    const firstSession = await sessionUserFromCookie(database.db, browser.cookieHeader());
    await passwordStep(browser, email);
    const second = await verifySignInCode(database.db, browser.meta(), { code: await lastCodeTo(database.db, email) });
    if (!second.ok) throw new Error(outcome(second));
    browser.apply(second.set_cookies);
    const secondSession = await sessionUserFromCookie(database.db, browser.cookieHeader());
    expect(secondSession?.session_id).not.toBe(firstSession?.session_id);
    const live = await database.db.select().from(sessions).where(eq(sessions.userId, id));
    expect(live.map((s) => s.id)).toEqual([secondSession!.session_id]);
  });

  it("refuses an expired email code (10 minutes)", async () => {
    const { email } = await member();
    const browser = new Browser(ip());
    vi.useFakeTimers({ toFake: ["Date"] });
    await passwordStep(browser, email);
    const code = await lastCodeTo(database.db, email);
    vi.setSystemTime(Date.now() + 10 * 60 * 1000 + 1000);
    const result = await verifySignInCode(database.db, browser.meta(), { code });
    expect(["expired", "invalid"]).toContain(outcome(result));
    expect(outcome(result)).not.toBe("signed_in");
  });

  it("ends the attempt after 5 wrong codes, and the right code no longer works", async () => {
    const { email } = await member();
    const browser = new Browser(ip());
    await passwordStep(browser, email);
    const code = await lastCodeTo(database.db, email);
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 1; i <= 4; i++)
      expect(await verifySignInCode(database.db, browser.meta(), { code: wrong })).toEqual({
        ok: false,
        kind: "unauthenticated",
        code: "invalid",
        message: OTP_INVALID,
        remaining: 5 - i,
      });
    const fifth = await verifySignInCode(database.db, browser.meta(), { code: wrong });
    expect(outcome(fifth)).toBe("ended");
    if (!fifth.ok && "set_cookies" in fifth) browser.apply(fifth.set_cookies);
    expect(browser.has("two_factor")).toBe(false);
    expect(await getSignInStep(database.db, browser.meta())).toBeNull();
    expect(outcome(await verifySignInCode(database.db, browser.meta(), { code }))).toBe("expired");
  });

  it("Back ends the challenge", async () => {
    const { email } = await member();
    const browser = new Browser(ip());
    await passwordStep(browser, email);
    const code = await lastCodeTo(database.db, email);
    const ended = await endSignInStep(database.db, browser.meta());
    browser.apply(ended.set_cookies);
    expect(await getSignInStep(database.db, browser.meta())).toBeNull();
    expect(outcome(await verifySignInCode(database.db, browser.meta(), { code }))).toBe("expired");
  });

  it("limits code attempts per network address", async () => {
    const { email } = await member();
    const browser = new Browser("198.51.100.8");
    await passwordStep(browser, email);
    await database.db.insert(rateLimitCounters).values({
      key: `sign-in-code:ip:${browser.ip}`,
      window_start: new Date(Math.floor(Date.now() / 900_000) * 900_000),
      hits: 30,
    });
    expect(
      outcome(await verifySignInCode(database.db, browser.meta(), { code: await lastCodeTo(database.db, email) })),
    ).toBe("rate_limited");
  });
});

describe("staff-issued codes", () => {
  it("work once, for their member only, instead of the email code", async () => {
    const staff = await member("admin");
    const { id, email } = await member();
    const other = await member();
    const issued = await issueStaffCode(database.db, { user_id: id, issued_by: staff.id });
    expect(issued.code).toMatch(/^\d{6}$/);
    const [row] = await database.db.select().from(staffSignInCodes).where(eq(staffSignInCodes.id, issued.id));
    expect(row!.code_hash).not.toContain(issued.code);

    // Another member cannot use it.
    const otherBrowser = new Browser(ip());
    await passwordStep(otherBrowser, other.email);
    expect(outcome(await verifySignInCode(database.db, otherBrowser.meta(), { code: issued.code }))).toBe("invalid");

    const browser = new Browser(ip());
    await passwordStep(browser, email);
    const result = await verifySignInCode(database.db, browser.meta(), { code: issued.code });
    expect(result).toMatchObject({ ok: true, user: { id } });

    const again = new Browser(ip());
    await passwordStep(again, email);
    expect(outcome(await verifySignInCode(database.db, again.meta(), { code: issued.code }))).toBe("invalid");
    expect((await listStaffCodes(database.db, { user_id: id }))[0]).toMatchObject({ state: "used" });
  });

  it("expire after 24 hours, can be removed, and a typed code must be 6 digits", async () => {
    const { id, email } = await member();
    await expect(issueStaffCode(database.db, { user_id: id, issued_by: null, code: "12345" })).rejects.toThrow(
      "Invalid OTP format. Please enter a 6-digit number.",
    );
    const issued = await issueStaffCode(database.db, { user_id: id, issued_by: null, code: "424242" });

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 24 * 60 * 60 * 1000 + 1000);
    const browser = new Browser(ip());
    await passwordStep(browser, email);
    expect(outcome(await verifySignInCode(database.db, browser.meta(), { code: issued.code }))).toBe("invalid");
    vi.useRealTimers();

    const fresh = await issueStaffCode(database.db, { user_id: id, issued_by: null });
    expect(await removeStaffCode(database.db, { id: fresh.id })).toBe(true);
    const later = new Browser(ip());
    await passwordStep(later, email);
    expect(outcome(await verifySignInCode(database.db, later.meta(), { code: fresh.code }))).toBe("invalid");
  });
});

describe("authenticator app (TOTP)", () => {
  it("replaces the email code once enrolled, and each code works once", async () => {
    const { id, email } = await member();
    // Enrol (the settings UI does this later): sign in, enable, confirm with a code.
    const browser = new Browser(ip());
    await passwordStep(browser, email);
    const signedIn = await verifySignInCode(database.db, browser.meta(), {
      code: await lastCodeTo(database.db, email),
    });
    if (!signedIn.ok) throw new Error(outcome(signedIn));
    browser.apply(signedIn.set_cookies);
    const auth = authFor(database.db);
    const enabled = await auth.api.enableTwoFactor({
      body: { password: PASSWORD, method: "totp" },
      headers: authHeaders(browser.meta()),
      returnHeaders: true,
    });
    browser.apply(enabled.headers.getSetCookie());
    const totpURI = (enabled.response as { totpURI: string }).totpURI;
    // What an authenticator app does with the QR code: RFC 6238 on the base32 secret.
    const secret = new URL(totpURI).searchParams.get("secret")!;
    const totp = { totp: async () => rfc6238(secret, Date.now()) };
    await auth.api.verifyTOTP({ body: { code: await totp.totp() }, headers: authHeaders(browser.meta()) });

    const before = await database.db.select().from(outbox).where(eq(outbox.to_email, email));
    const phone = new Browser(ip());
    const step1 = await passwordStep(phone, email);
    expect(step1).toMatchObject({ status: "challenge", method: "totp" });
    // No email code was sent: the app replaces it.
    expect(
      (await database.db.select().from(outbox).where(eq(outbox.to_email, email))).filter(
        (m) => m.kind === "sign_in_code",
      ),
    ).toHaveLength(before.filter((m) => m.kind === "sign_in_code").length);
    expect(
      outcome(
        await verifySignInCode(database.db, phone.meta(), {
          code: "000000" === (await totp.totp()) ? "111111" : "000000",
        }),
      ),
    ).toBe("invalid");
    const code = await totp.totp();
    const result = await verifySignInCode(database.db, phone.meta(), { code });
    expect(result).toMatchObject({ ok: true, user: { id } });

    // The same app code, again within its window, is refused.
    const tablet = new Browser(ip());
    await passwordStep(tablet, email);
    expect(outcome(await verifySignInCode(database.db, tablet.meta(), { code }))).toBe("invalid");
  });
});

describe("sessions", () => {
  async function signedIn() {
    const { id, email } = await member();
    const browser = new Browser(ip());
    await passwordStep(browser, email);
    const result = await verifySignInCode(database.db, browser.meta(), { code: await lastCodeTo(database.db, email) });
    if (!result.ok) throw new Error(outcome(result));
    browser.apply(result.set_cookies);
    return { id, email, browser };
  }

  it("end after 15 minutes without activity, and activity keeps them alive", async () => {
    const { browser } = await signedIn();
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.now();
    vi.setSystemTime(start + 14 * 60 * 1000);
    const alive = await sessionUserFromCookie(database.db, browser.cookieHeader());
    expect(alive?.expires_in_ms).toBe(15 * 60 * 1000);
    vi.setSystemTime(start + 28 * 60 * 1000);
    expect(await sessionUserFromCookie(database.db, browser.cookieHeader())).not.toBeNull();
    // A look without activity (the idle warning's check) does not extend it.
    vi.setSystemTime(start + 40 * 60 * 1000);
    expect(await sessionUserFromCookie(database.db, browser.cookieHeader(), { touch: false })).not.toBeNull();
    vi.setSystemTime(start + 43 * 60 * 1000 + 1);
    expect(await sessionUserFromCookie(database.db, browser.cookieHeader())).toBeNull();
  });

  it("end after 12 hours whatever the activity", async () => {
    const { browser } = await signedIn();
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.now();
    for (let minutes = 10; minutes < 12 * 60; minutes += 10) {
      vi.setSystemTime(start + minutes * 60 * 1000);
      expect(await sessionUserFromCookie(database.db, browser.cookieHeader())).not.toBeNull();
    }
    vi.setSystemTime(start + 12 * 60 * 60 * 1000);
    expect(await sessionUserFromCookie(database.db, browser.cookieHeader())).toBeNull();
  });

  it("changing the password ends every other session", async () => {
    const { id, email, browser } = await signedIn();
    const laptop = new Browser(ip());
    await passwordStep(laptop, email);
    const other = await verifySignInCode(database.db, laptop.meta(), { code: await lastCodeTo(database.db, email) });
    if (!other.ok) throw new Error(outcome(other));
    laptop.apply(other.set_cookies);

    const wrong = await changePassword(database.db, browser.meta(), {
      email,
      user_id: id,
      current_password: "not it at all!",
      new_password: "A brand new passphrase 9",
    });
    expect(outcome(wrong)).toBe("wrong_password");
    const changed = await changePassword(database.db, browser.meta(), {
      email,
      user_id: id,
      current_password: PASSWORD,
      new_password: "A brand new passphrase 9",
    });
    expect(outcome(changed)).toBe("ok");
    if (changed.ok) browser.apply(changed.set_cookies);
    expect(await sessionUserFromCookie(database.db, laptop.cookieHeader())).toBeNull();
    expect(await sessionUserFromCookie(database.db, browser.cookieHeader())).toMatchObject({ id });
  });
});
