import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { createMember, MEMBER_PASSWORD, signIn, STAFF, TEMPORARY_PASSWORD } from "./support";

/**
 * The log holds no secret. This spec starts a server of its own (the same production build as the
 * other browser tests, on a fresh embedded database) so it can read everything the server writes.
 * Staff sign in and create a member; the member signs in as a person would (password, then the
 * emailed code), resets the password with the emailed link and signs in again. No session
 * cookie, sign-in challenge cookie, reset token, code, password or member's email address may
 * appear anywhere in what the server wrote.
 */
test.describe.configure({ mode: "serial" });

let server: ChildProcess | undefined;
let output = "";
let baseURL = "";
let dataDir = "";

test.beforeAll(async () => {
  test.setTimeout(180_000);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-log-"));
  // The compiled server (scripts/e2e.mjs has just built it), not server.ts through tsx: ready in
  // 25.5 s instead of 34.3 s on the shared 2-core machine at load average 10 (2026-11-24).
  const buildDir = process.env.MUTUAL_BUILD_DIR ?? "build";
  server = spawn(process.execPath, ["--enable-source-maps", path.join(buildDir, "bin/server.js")], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    env: {
      ...process.env,
      NODE_ENV: "production",
      // Any free port, read from its serving line: one looked up beforehand may be taken first.
      PORT: "0",
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      MUTUAL_EMBEDDED_DATABASE: "1",
      SMTP_URL: "",
      // The most the server ever writes.
      LOG_LEVEL: "debug",
      MUTUAL_BUILD_DIR: buildDir,
    },
  });
  const ready = new Promise<void>((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      const port = /"port":(\d+)[^\n]*Mutual is serving/.exec(output)?.[1];
      if (port) {
        baseURL = `http://localhost:${port}`;
        resolve();
      }
    };
    server!.stdout!.on("data", collect);
    server!.stderr!.on("data", collect);
    server!.once("exit", (code) => reject(new Error(`the server stopped (exit ${code}):\n${output}`)));
  });
  await ready;
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const stopped = new Promise((resolve) => server!.once("exit", resolve));
    server.kill("SIGTERM");
    await stopped;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Every Set-Cookie value the browser receives (the challenge cookie lives only between the two steps). */
function watchSetCookies(page: Page, into: Set<string>) {
  const pending: Promise<void>[] = [];
  page.on("response", (response) => {
    pending.push(
      response.headersArray().then(
        (headers) => {
          for (const { name, value } of headers) {
            if (name.toLowerCase() !== "set-cookie") continue;
            const cookieValue = value.split(";")[0]!.split("=").slice(1).join("=");
            if (cookieValue.length >= 8) into.add(cookieValue);
          }
        },
        () => undefined,
      ),
    );
  });
  return () => Promise.all(pending);
}

async function cookieValues(context: BrowserContext, into: Set<string>) {
  for (const cookie of await context.cookies()) if (cookie.value.length >= 8) into.add(cookie.value);
}

/** Every sign-in code the demo inbox shows for `email`. */
async function allInboxCodes(page: Page, email: string): Promise<string[]> {
  await page.goto(`/demo/inbox?to=${encodeURIComponent(email)}`);
  return (await page.getByTestId("demo-code").allTextContents()).map((code) => code.trim());
}

test("signing in and resetting a password leaves no token, code or password in the log", async ({ browser }) => {
  test.setTimeout(180_000);
  const NEW_PASSWORD = "Quiet harbor lantern 2026";
  const secrets = new Set<string>([STAFF.password, TEMPORARY_PASSWORD, MEMBER_PASSWORD, NEW_PASSWORD]);

  // Staff sign in (password, then the emailed code) and create a member, who replaces the
  // temporary password at first sign-in (support.ts: createMember).
  const staff = await browser.newContext({ baseURL });
  const staffPage = await staff.newPage();
  const staffCookiesSeen = watchSetCookies(staffPage, secrets);
  await signIn(staffPage, STAFF.email, STAFF.password);
  await cookieValues(staff, secrets);
  const member = await createMember(staff, baseURL, "log");
  secrets.add(member.email);
  await staffPage.goto("/admin");
  await staffPage.goto("/admin/outbox");

  // The member signs in, browses, and forgets the password.
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  const memberCookiesSeen = watchSetCookies(page, secrets);
  await signIn(page, member.email, member.password);
  await expect(page).toHaveURL(/\/dashboard/);
  await cookieValues(context, secrets);
  await page.goto("/dashboard/transactions");
  await page.goto("/settings/account");
  await context.clearCookies();
  await page.goto("/forgot-password");
  await page.getByLabel("Email address").fill(member.email);
  await page.getByRole("button", { name: "Send reset link" }).click();
  await expect(page.getByText(/If an account uses that email address/)).toBeVisible();

  // The emailed link carries the token in its address: the page, its data and the form post.
  await page.goto(`/demo/inbox?to=${encodeURIComponent(member.email)}`);
  const link = await page.getByRole("link", { name: "Open the reset link" }).first().getAttribute("href");
  expect(link).toMatch(/^\/reset-password\?token=/);
  secrets.add(new URL(link!, baseURL).searchParams.get("token")!);
  await page.goto(link!);
  await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
  await page.getByLabel("Confirm new password").fill(NEW_PASSWORD);
  await page.getByRole("button", { name: "Save new password" }).click();
  await expect(page).toHaveURL(/\/login\?notice=reset$/, { timeout: 20_000 });
  await page.goto(link!);
  await signIn(page, member.email, NEW_PASSWORD);
  await expect(page).toHaveURL(/\/dashboard/);
  await cookieValues(context, secrets);

  // Every code sent to either of them.
  for (const code of [...(await allInboxCodes(page, member.email)), ...(await allInboxCodes(staffPage, STAFF.email))])
    secrets.add(code);
  await Promise.all([staffCookiesSeen(), memberCookiesSeen()]);
  await Promise.all([context.close(), staff.close()]);

  // The log was written (every request) ...
  expect(output).toContain("request completed");
  // ... and holds none of the secrets, nor the URL-encoded or cookie-decoded forms of them ...
  const forms = [...secrets]
    .flatMap((secret) => [secret, encodeURIComponent(secret), decodeURIComponent(secret)])
    .filter((s) => s.length >= 6);
  // A code is digits only: it counts where it stands alone, not inside a timestamp.
  const found = forms.filter((secret) =>
    /^\d+$/.test(secret) ? new RegExp(`(?<!\\d)${secret}(?!\\d)`).test(output) : output.includes(secret),
  );
  expect(found, "secrets found in the server's log").toEqual([]);
  // ... while the addresses are still there, without their values.
  expect(output).toContain("/reset-password?token=[redacted]");
});
