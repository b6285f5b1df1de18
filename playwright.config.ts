import { defineConfig, devices } from "@playwright/test";
import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import webpush from "web-push";
import { demoInstitution } from "./app/config/demo-institution";

/**
 * Browser tests drive Debian's Chromium (never a downloaded browser) against the production
 * build, served on its own port with a fresh embedded database.
 */
const port = Number(process.env.E2E_PORT ?? 3210);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-e2e-"));
/**
 * Web Push (tests/e2e/web-push.spec.ts): a VAPID key pair made for this run, and the local push
 * service the spec starts on E2E_PUSH_PORT, which the server may post pushes to.
 */
export const pushPort = port + 1000;
const vapid = webpush.generateVAPIDKeys();
/**
 * Text messages (tests/e2e/text-messages.spec.ts): the demo profile with an SMS provider section
 * pointing at the local fake provider the spec starts on E2E_SMS_PORT, and its test secrets.
 */
export const smsPort = port + 2000;
export const SMS_ACCOUNT_SID = "ACe2e0000000000000000000000000000";
const profileFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mutual-e2e-profile-")), "institution.json");
fs.writeFileSync(
  profileFile,
  JSON.stringify({
    ...demoInstitution,
    sms: {
      kind: "twilio-messages",
      name: "Local test SMS provider",
      api_url: `http://127.0.0.1:${smsPort}`,
      from_number: "+15005550006",
    },
  }),
);
/**
 * Debian's chromium-headless-shell when it is installed: the same Chromium without the desktop
 * browser around it, which headless tests never show. It runs the suite on about a third less CPU
 * (calculators, contact and locations specs: 89.5 s of CPU with the full browser, 57.0 s with the
 * shell). The full browser when the shell is missing, or to watch the tests (--headed, --debug,
 * --ui), which the shell cannot. Set here in the runner, so its workers inherit the same choice.
 */
const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
const watched =
  process.argv.some((arg) => ["--headed", "--debug", "--ui"].includes(arg)) || Boolean(process.env.PWDEBUG);
process.env.CHROMIUM_PATH ??= !watched && fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium";
export const chromiumPath = process.env.CHROMIUM_PATH;

const launchOptions = {
  executablePath: chromiumPath,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: 2,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  // A busy 2-core CI machine renders a dialog in more than the default 5 s now and then.
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  // Each port gets its own results folder, so two runs side by side (E2E_PORT) do not clear
  // each other's traces.
  outputDir: process.env.E2E_PORT ? `test-results/port-${port}` : "test-results",
  use: {
    baseURL: `http://localhost:${port}`,
    // A failed test keeps its trace (each action's DOM snapshot, network, console) and a screenshot
    // of the end. The trace's screencast (a screenshot after every action) is left out: it cost
    // about a quarter of the suite's CPU time, for every test, passed or not.
    trace: { mode: "retain-on-failure", screenshots: false },
    screenshot: "only-on-failure",
    launchOptions,
  },
  // One browser project at 1440 px; tests that check phone width set a 375 px viewport themselves.
  // The payment-queue spec exports EVERY pending ACH transfer on the server (as staff do), which
  // would settle holds other specs are still looking at; it runs alone, after all the others.
  // Pausing outgoing payments holds every member's To US Bank and International, so that spec
  // runs alone after the exports.
  // (Playwright runs a dependency project whole: to run only that spec, add --no-deps.)
  projects: [
    {
      name: "chromium",
      testIgnore: /(payment-queues|linked-accounts|move-money-in|payments-pause)\.spec\.ts$/,
      use: { ...devices["Desktop Chrome"], viewport: { width: 1440, height: 900 }, launchOptions },
    },
    {
      name: "exports",
      testMatch: /payment-queues\.spec\.ts$/,
      dependencies: ["chromium"],
      use: { ...devices["Desktop Chrome"], viewport: { width: 1440, height: 900 }, launchOptions },
    },
    {
      // Linked accounts: staff export the ACH file carrying the micro-deposits, which sends every
      // pending ACH transfer too, so it also runs alone, after the payment-queue spec.
      name: "linked",
      testMatch: /linked-accounts\.spec\.ts$/,
      dependencies: ["exports"],
      use: { ...devices["Desktop Chrome"], viewport: { width: 1440, height: 900 }, launchOptions },
    },
    {
      // Move money in: staff export the ACH file carrying the member's debit (and every other
      // pending entry), so it runs alone too, after the linked accounts spec.
      name: "money-in",
      testMatch: /move-money-in\.spec\.ts$/,
      dependencies: ["linked"],
      use: { ...devices["Desktop Chrome"], viewport: { width: 1440, height: 900 }, launchOptions },
    },
    {
      name: "pause",
      testMatch: /payments-pause\.spec\.ts$/,
      dependencies: ["money-in"],
      use: { ...devices["Desktop Chrome"], viewport: { width: 1440, height: 900 }, launchOptions },
    },
  ],
  webServer: {
    // The compiled server, as production runs it (scripts/e2e.mjs builds it first).
    command: `node --enable-source-maps ${path.join(process.env.MUTUAL_BUILD_DIR ?? "build", "bin/server.js")}`,
    url: `http://localhost:${port}/readyz`,
    reuseExistingServer: false,
    timeout: 120_000,
    env: {
      ...(process.env.MUTUAL_BUILD_DIR ? { MUTUAL_BUILD_DIR: process.env.MUTUAL_BUILD_DIR } : {}),
      NODE_ENV: "production",
      // The embedded database, on purpose (a production start without DATABASE_URL refuses otherwise).
      MUTUAL_EMBEDDED_DATABASE: "1",
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      E2E: "1",
      TRUST_PROXY: "1",
      VAPID_PUBLIC_KEY: vapid.publicKey,
      VAPID_PRIVATE_KEY: vapid.privateKey,
      WEB_PUSH_EXTRA_ORIGINS: `http://127.0.0.1:${pushPort}`,
      INSTITUTION_CONFIG: profileFile,
      SMS_ACCOUNT_SID,
      SMS_AUTH_TOKEN: "e2e-sms-auth-token",
      // Browser tests move the job clock forward (/admin/jobs) to see jobs due later run now, and
      // poll often so those runs follow within a second (app/server/jobs/).
      JOB_CLOCK: "adjustable",
      JOB_POLL_MS: "300",
    },
  },
});
