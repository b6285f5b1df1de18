import crypto from "node:crypto";
import zlib from "node:zlib";
import { expect, type Browser, type BrowserContext, type Page } from "./fixtures";

/**
 * Helpers for the settings and staff-tool browser tests: sign in as a person would (the code read
 * from the demo inbox, or computed from an authenticator secret), a fresh member made by staff
 * through the back office (so no test changes a published demo sign-in), a real PNG, and RFC 6238.
 */
export const STAFF = { email: "staff@harborview.example", password: "Staff-Demo-Pass-1" };
export const MEMBER_PASSWORD = "Harbor lights 2026 settings";

export function uniqueEmail(tag: string): string {
  return `e2e-${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** The newest sign-in code sent to `email`, read from the demo inbox in another tab. */
export async function inboxCode(page: Page, email: string): Promise<string> {
  const inbox = await page.context().newPage();
  try {
    await inbox.goto(`/demo/inbox?to=${encodeURIComponent(email)}`);
    const code = (await inbox.getByTestId("demo-code").first().textContent())?.trim() ?? "";
    expect(code).toMatch(/^\d{6}$/);
    return code;
  } finally {
    await inbox.close();
  }
}

/**
 * Signs in through /login. `code` gives the second factor (default: the emailed code). Another
 * test may sign the same account in at the same moment, which replaces the emailed code: then
 * the whole sign-in starts again (at most twice more).
 */
export async function signIn(page: Page, email: string, password: string, code?: () => string | Promise<string>) {
  for (let attempt = 0; attempt < 3; attempt++) {
    await page.goto("/login");
    // A sign-in that finished after all (a slow answer) lands elsewhere: signed in.
    if (!new URL(page.url()).pathname.startsWith("/login")) return;
    // A second step still open from the last try: go back to step 1.
    if (await page.getByRole("heading", { name: "Verify OTP" }).isVisible()) await page.getByRole("button", { name: "Back" }).click();
    await page.getByLabel("Email address").fill(email);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("heading", { name: "Verify OTP" })).toBeVisible();
    await page.getByLabel("Verification code").fill(code ? await code() : await inboxCode(page, email));
    await page.getByRole("button", { name: "Verify & Sign in" }).click();
    const outcome = await Promise.race([
      page.waitForURL((url) => !url.pathname.startsWith("/login"), { timeout: 20_000, waitUntil: "commit" }).then(() => "in" as const, () => "timeout" as const),
      page.getByText("Invalid OTP. Please try again.").waitFor({ timeout: 20_000 }).then(() => "invalid" as const, () => "timeout" as const),
    ]);
    if (outcome === "in") return;
    if (code) break;
  }
  await expect(page).not.toHaveURL(/\/login/);
}

/** A signed-in staff browser context (one sign-in per spec file: sign-ins are rate-limited per address). */
export async function staffContext(browser: Browser, baseURL: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await signIn(page, STAFF.email, STAFF.password);
  await page.close();
  return context;
}

export interface TestMember {
  email: string;
  password: string;
  first_name: string;
  last_name: string;
}

/**
 * A fresh, active member created by staff ("Create New User", SPEC 7) through the back office,
 * so the test can change their password or enrol an authenticator without touching a published
 * demo sign-in.
 */
export async function createMember(staff: BrowserContext, baseURL: string, tag: string): Promise<TestMember> {
  const member = { email: uniqueEmail(tag), password: MEMBER_PASSWORD, first_name: "Jordan", last_name: "Tester" };
  const response = await staff.request.post("/admin?index&create=1", {
    headers: { Origin: new URL(baseURL).origin },
    form: {
      intent: "create_member",
      email: member.email,
      password: member.password,
      first_name: member.first_name,
      last_name: member.last_name,
      phone: "(555) 010-3030",
      street: "12 Test Street",
      city: "Portsmouth",
      state: "NH",
      postal_code: "03801",
      role: "user",
    },
    maxRedirects: 0,
  });
  expect([200, 204, 302, 303], `creating ${member.email}`).toContain(response.status());
  return member;
}

/** A real PNG (`size`×`size`, a two-colour pattern), built with zlib. */
export function makePng(size = 64): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((size * 3 + 1) * size);
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) rows.set((x + y) % 16 < 8 ? [15, 118, 110] : [11, 37, 69], y * (size * 3 + 1) + 1 + x * 3);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", header), chunk("IDAT", zlib.deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
}

/** RFC 6238 TOTP (HMAC-SHA1, 30-second steps, 6 digits) from a base32 secret, with node:crypto. */
export function totp(secret_base32: string, at_ms = Date.now()): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const c of secret_base32.replace(/\s+/g, "").toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, "0");
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at_ms / 1000 / 30)));
  const mac = crypto.createHmac("sha1", key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  return ((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).toString().padStart(6, "0");
}
