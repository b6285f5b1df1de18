import "../identity-support";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import sharp from "sharp";
import type { Database } from "~/server/db/client.server";
import { auditLog, ledgerAccounts, memberSettings, users } from "~/server/db/schema";
import { sessionUserFromCookie } from "~/server/auth/session.server";
import { startSignIn, verifySignInCode } from "~/server/auth/sign-in.server";
import { openAccount, transferCount } from "~/server/ledger/accounts.server";
import { monthOf } from "~/domain/ledger-rules";
import { today } from "~/server/ledger/ledger.server";
import { readProfileImage, setProfileImage } from "~/server/profile-images/profile-images.server";
import {
  listTransferCounts,
  resetAllMemberTransferCounts,
  resetMemberTransferCount,
} from "~/server/payments/transfer-counts.server";
import {
  base32,
  changeOwnPassword,
  confirmTotpEnrollment,
  disableTotp,
  getAccountSettings,
  getProfileSettings,
  pendingTotpSetup,
  startTotpEnrollment,
  updateNotificationSettings,
  updateProfile,
  userDisplay,
} from "~/server/settings/settings.server";
import { SETTINGS_MESSAGES } from "~/domain/settings";
import { openTestDatabase } from "../test-database";
import { Browser, fileOf, lastCodeTo, outcome } from "../identity-support";
import { person as makePerson } from "../../factories";

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

const PASSWORD = "Settings passphrase 1";
let counter = 0;

/** An approved member (or staff) with a profile, as the back office would leave them. */
async function person(role: "user" | "admin" = "user") {
  counter += 1;
  const { id, email } = await makePerson(database.db, role, {
    email: `settings${counter}@example.com`,
    password: PASSWORD,
    name: "Casey Rivera",
    profile: { first_name: "Casey", last_name: "Rivera" },
  });
  return { id, email, role };
}

async function signIn(
  who: { email: string },
  browser = new Browser(`198.51.100.${(counter % 200) + 1}`),
  code?: () => string,
) {
  const step = await startSignIn(database.db, browser.meta(), { email: who.email, password: PASSWORD });
  if (!step.ok || step.status !== "challenge") throw new Error(outcome(step));
  browser.apply(step.set_cookies);
  const signed = await verifySignInCode(database.db, browser.meta(), {
    code: code ? code() : await lastCodeTo(database.db, who.email),
  });
  if (!signed.ok) throw new Error(outcome(signed));
  browser.apply(signed.set_cookies);
  return { browser, method: step.method };
}

/** RFC 6238 TOTP (HMAC-SHA1, 30 s, 6 digits) computed independently with node:crypto. */
function totp(secret_base32: string, at_ms: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const c of secret_base32.replace(/\s+/g, "")) bits += alphabet.indexOf(c).toString(2).padStart(5, "0");
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at_ms / 1000 / 30)));
  const mac = crypto.createHmac("sha1", key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  return ((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).toString().padStart(6, "0");
}

describe("profile", () => {
  it("loads and saves name, phone and address, and shows initials", async () => {
    const me = await person();
    expect(await getProfileSettings(database.db, me.id)).toMatchObject({
      email: me.email,
      first_name: "Casey",
      last_name: "Rivera",
      initials: "CR",
      image_url: null,
    });
    const saved = await updateProfile(database.db, me.id, {
      first_name: "Jamie",
      last_name: "Lopez",
      phone: "(555) 010-9000",
      street: "1 Main St",
      city: "Dover",
      state: "NH",
      postal_code: "03820",
      country: "United States",
    });
    expect(saved.status).toBe("updated");
    expect(await getProfileSettings(database.db, me.id)).toMatchObject({
      first_name: "Jamie",
      city: "Dover",
      postal_code: "03820",
      initials: "JL",
    });
    const [user] = await database.db.select({ name: users.name }).from(users).where(eq(users.id, me.id));
    expect(user!.name).toBe("Jamie Lopez");
    expect(await userDisplay(database.db, { id: me.id, email: me.email, name: "x", role: "user" })).toMatchObject({
      name: "Jamie Lopez",
      initials: "JL",
      image_url: null,
    });
  });

  it("re-encodes an image to a 256 px WebP without metadata, serves it only to its owner and staff", async () => {
    const me = await person();
    const other = await person();
    const staff = await person("admin");
    const png = await sharp({ create: { width: 900, height: 600, channels: 3, background: { r: 10, g: 80, b: 160 } } })
      .png()
      .withExif({ IFD0: { Copyright: "secret-camera-serial", Artist: "Someone" } })
      .toBuffer();
    expect(png.includes(Buffer.from("secret-camera-serial"))).toBe(true);
    const result = await setProfileImage(database.db, me.id, fileOf(png, "me.png", "image/png"));
    expect(result.ok).toBe(true);
    const image = await readProfileImage(database.db, { id: me.id, role: "user" }, me.id);
    expect(image).not.toBeNull();
    const meta = await sharp(image!.content).metadata();
    expect(meta).toMatchObject({ format: "webp", width: 256, height: 256 });
    expect(meta.exif).toBeUndefined();
    expect(image!.content.includes(Buffer.from("secret-camera-serial"))).toBe(false);
    expect(await readProfileImage(database.db, { id: other.id, role: "user" }, me.id)).toBeNull();
    expect(await readProfileImage(database.db, { id: staff.id, role: "admin" }, me.id)).not.toBeNull();
    expect((await getProfileSettings(database.db, me.id))!.image_url).toMatch(
      new RegExp(`^/settings/profile-image/${me.id}\\?v=`),
    );

    // A second upload replaces the first file.
    const first = path.join(process.env.DATA_DIR!, "uploads", "profile-images", image!.file);
    await setProfileImage(database.db, me.id, fileOf(png, "again.png", "image/png"));
    await expect(fs.stat(first)).rejects.toThrow();
  });

  it("refuses what is not an image, or is 5 MB or more", async () => {
    const me = await person();
    const text = await setProfileImage(
      database.db,
      me.id,
      fileOf(new TextEncoder().encode("just some text, not a picture"), "photo.png", "image/png"),
    );
    expect(text).toEqual({ ok: false, kind: "bad_input", field: "image", message: SETTINGS_MESSAGES.image_not_image });
    const pdf = await setProfileImage(
      database.db,
      me.id,
      fileOf(new TextEncoder().encode("%PDF-1.4\n%âãÏÓ\n1 0 obj\n"), "x.pdf", "application/pdf"),
    );
    expect(!pdf.ok && pdf.message).toBe(SETTINGS_MESSAGES.image_not_image);
    const big = new Uint8Array(5 * 1024 * 1024 + 1);
    big.set(Buffer.from("89504e470d0a1a0a", "hex"));
    const large = await setProfileImage(database.db, me.id, fileOf(big, "big.png", "image/png"));
    expect(large).toEqual({ ok: false, kind: "bad_input", field: "image", message: SETTINGS_MESSAGES.image_too_large });
    const broken = new Uint8Array(2000);
    broken.set(Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"));
    const garbled = await setProfileImage(database.db, me.id, fileOf(broken, "broken.png", "image/png"));
    expect(garbled.ok).toBe(false);
    expect((await getProfileSettings(database.db, me.id))!.image_url).toBeNull();
  });
});

describe("account settings", () => {
  it("has the documented defaults and saves the toggles", async () => {
    const me = await person();
    // Only the switches that work are offered (SMS and push are not: nothing sends them).
    expect((await getAccountSettings(database.db, me.id))!.settings).toEqual({
      two_factor: false,
      login_alerts: true,
    });
    await updateNotificationSettings(database.db, me.id, {
      login_alerts: false,
    });
    const [row] = await database.db.select().from(memberSettings).where(eq(memberSettings.user_id, me.id));
    expect(row).toMatchObject({
      email_notifications: true,
      sms_notifications: false,
      push_notifications: true,
      login_alerts: false,
      two_factor: false,
    });
  });

  it("changing the password ends every other session and keeps this one", async () => {
    const me = await person();
    const laptop = await signIn(me);
    const phone = await signIn(me);
    expect(await sessionUserFromCookie(database.db, phone.browser.cookieHeader())).not.toBeNull();
    const wrong = await changeOwnPassword(database.db, laptop.browser.meta(), me, {
      current_password: "Not my passphrase 9",
      new_password: "A brand new passphrase 7",
    });
    expect(outcome(wrong)).toBe("wrong_password");
    const changed = await changeOwnPassword(database.db, laptop.browser.meta(), me, {
      current_password: PASSWORD,
      new_password: "A brand new passphrase 7",
    });
    if (!changed.ok) throw new Error(outcome(changed));
    laptop.browser.apply(changed.set_cookies);
    expect(await sessionUserFromCookie(database.db, phone.browser.cookieHeader())).toBeNull();
    expect(await sessionUserFromCookie(database.db, laptop.browser.cookieHeader())).not.toBeNull();
    const audit = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.member_id, me.id), eq(auditLog.action, "auth.password.changed")));
    expect(audit).toHaveLength(1);
  });

  it("enrols an authenticator app, then sign-in asks for its code (RFC 6238), and it can be turned off", async () => {
    const me = await person();
    const { browser } = await signIn(me);
    expect(outcome(await startTotpEnrollment(database.db, browser.meta(), me, "wrong passphrase 1"))).toBe(
      "wrong_password",
    );
    const started = await startTotpEnrollment(database.db, browser.meta(), me, PASSWORD);
    if (!started.ok || started.status !== "started") throw new Error(outcome(started));
    expect(started.setup.uri).toMatch(/^otpauth:\/\/totp\//);
    expect(started.setup.qr_data_url).toMatch(/^data:image\/svg\+xml;base64,/);
    const secret = started.setup.secret.replace(/\s+/g, "");
    // The pending enrolment can be shown again (the same secret), and does not count yet.
    expect((await pendingTotpSetup(database.db, me))!.secret.replace(/\s+/g, "")).toBe(secret);
    expect((await getAccountSettings(database.db, me.id))!.totp_enrolled).toBe(false);

    const wrongCode = totp(secret, Date.now() + 10 * 60_000);
    expect(await confirmTotpEnrollment(database.db, browser.meta(), me, wrongCode)).toMatchObject({
      ok: false,
      kind: "bad_input",
      code: "invalid_code",
      field: "code",
    });
    expect(await confirmTotpEnrollment(database.db, browser.meta(), me, totp(secret, Date.now()))).toEqual({
      ok: true,
    });
    expect(await getAccountSettings(database.db, me.id)).toMatchObject({
      totp_enrolled: true,
      settings: { two_factor: true },
    });

    // Sign in again: the app's code (the next time step, since the enrolment code is spent).
    const again = await signIn(me, new Browser("203.0.113.77"), () => totp(secret, Date.now() + 30_000));
    expect(again.method).toBe("totp");

    expect(outcome(await disableTotp(database.db, again.browser.meta(), me, "wrong passphrase 1"))).toBe(
      "wrong_password",
    );
    expect(outcome(await disableTotp(database.db, again.browser.meta(), me, PASSWORD))).toBe("ok");
    const emailAgain = await signIn(me, new Browser("203.0.113.78"));
    expect(emailAgain.method).toBe("email");
  });

  it("computes base32 as RFC 4648 does", () => {
    expect(base32(Buffer.from("foobar"))).toBe("MZXW6YTBOI");
    expect(base32(Buffer.from("f"))).toBe("MY");
  });
});

describe("reset transfer counts", () => {
  async function savingsWithCount(member_id: string, count: number) {
    const account = await openAccount(database.db, { member_id, type: "savings", name: "Savings" });
    await database.db
      .update(ledgerAccounts)
      .set({ transfer_count: count, transfer_count_month: monthOf(today()) })
      .where(eq(ledgerAccounts.id, account.id));
  }

  it("lists members without staff, resets one and all, and audits each reset", async () => {
    const staff = await person("admin");
    const a = await person();
    const b = await person();
    const c = await person();
    await savingsWithCount(a.id, 4);
    await savingsWithCount(b.id, 6);
    await savingsWithCount(staff.id, 2);
    const list = (await listTransferCounts(database.db)).members;
    expect(list.find((r) => r.user_id === staff.id)).toBeUndefined();
    expect(list.find((r) => r.user_id === a.id)!.current_count).toBe(4);
    expect(list.find((r) => r.user_id === c.id)!.current_count).toBe(0);

    const one = await resetMemberTransferCount(database.db, staff, a.id, { request_id: "req-1", ip: "192.0.2.9" });
    expect(one).toEqual({ status: "reset", email: a.email, before: 4 });
    expect(await transferCount(database.db, a.id)).toBe(0);
    expect((await resetMemberTransferCount(database.db, staff, staff.id)).status).toBe("not_found");

    const members = (await listTransferCounts(database.db)).total;
    const all = await resetAllMemberTransferCounts(database.db, staff);
    expect(all).toEqual({ status: "reset", reset: 1, skipped: members - 1 });
    expect(await transferCount(database.db, b.id)).toBe(0);
    // Staff accounts are not members: untouched.
    expect(await transferCount(database.db, staff.id)).toBe(2);

    const audit = await database.db.select().from(auditLog).where(eq(auditLog.actor_id, staff.id));
    expect(audit.map((r) => r.action).sort()).toEqual(["transfers.count_reset", "transfers.count_reset_all"]);
    expect(audit.find((r) => r.action === "transfers.count_reset")).toMatchObject({
      member_id: a.id,
      before: { transfer_count: 4 },
      after: { transfer_count: 0 },
    });
  });
});
