import { defineConfig } from "vitest/config";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The integration tests, as one project to run (`vitest run --project integration`, with or
 * without file filters) made of two:
 *
 * - "integration (shared)", most files: each worker evaluates the app's modules once and its files
 *   share them (isolate: false), as the unit tests do. A fresh module graph per file cost about
 *   a third of the suite's CPU time: on PGlite, 369-393 -> 224-275 s of CPU (user + system) for
 *   the suite, the same 740 tests (726 passed, 14 skipped), measured 2026-11-24 interleaved on
 *   the shared 2-core machine at load average 2-12 (wall time moved with the load, 5:00 -> 5:04
 *   at 6-9, 10:33 -> 8:29 at 10-12). Any file order passes (--sequence.shuffle.files). The price: what a module reads once stays for every later
 *   file of the worker (env() and the secrets, the institution profile, the mail transport, the
 *   logger's level). So shared-setup.ts sets the test environment before any file runs, and fails
 *   a file that leaves process.env changed.
 * - "integration (isolated)": each file gets new modules and the environment it was started
 *   with. For the files that set their own environment before the app reads it (SMTP_URL,
 *   DATA_DIR, the data key) or replace a module (vi.mock), listed below; a new file that does
 *   either belongs there. And for the files that start processes (the built server, a job
 *   runner, a backup): the children inherit the test's environment, which the shared set-up
 *   would change, so they are found by what they import or call.
 */
const SETS_ITS_OWN_MODULE_STATE = [
  "data-dir-modes.test.ts", // DATA_DIR, set inside a test before env() is first read
  "data-key-rotation.test.ts", // DATA_ENCRYPTION_KEY and _PREVIOUS at module scope
  "secure-messages-rotation.test.ts", // the same
  "linked-accounts-rotation.test.ts", // the same
  "scheduled-us-bank-rotation.test.ts", // the same
  "payment-destination-rotation.test.ts", // the same
  "outbox-delivery.test.ts", // SMTP_URL: the mail transport is made once, on first use
  "statement-email.test.ts", // SMTP_URL
  "statement-email-too-large.test.ts", // vi.mock of the statement builder
  "push-authorization.test.ts", // VAPID keys and the local push service, read once by env()
  "sms-authorization.test.ts", // the SMS provider's secrets, read once by env()
  "session-places.test.ts", // CITY_DATABASE_FILE, read once by env()
];
const folder = fileURLToPath(new URL(".", import.meta.url));
const startsProcesses = (file: string) => {
  const source = fs.readFileSync(path.join(folder, file), "utf8");
  return /from "(\.\.\/)+app-server"|from "\.\/app-server"/.test(source) || /\bspawn\(/.test(source);
};
// Every test file under this folder, its subfolders included (they mirror app/server's folders).
const ISOLATED = fs
  .readdirSync(folder, { recursive: true, encoding: "utf8" })
  .filter(
    (file) =>
      file.endsWith(".test.ts") && (SETS_ITS_OWN_MODULE_STATE.includes(path.basename(file)) || startsProcesses(file)),
  )
  .map((file) => `tests/integration/${file.split(path.sep).join("/")}`);

export default defineConfig({
  // The repository, as for the unit tests (this file's folder would be the root otherwise).
  root: "../..",
  resolve: { alias: { "~": fileURLToPath(new URL("../../app", import.meta.url)) } },
  test: {
    name: "integration",
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Builds the compiled server once, for the tests that start it (tests/integration/app-server.ts),
    // and the migrated PGlite database every file's is copied from; once per run for both projects.
    globalSetup: ["tests/integration/global-setup.ts"],
    // PGlite instances are memory-hungry; a few files at a time is plenty on 2 cores.
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: "shared",
          include: ["tests/integration/**/*.test.ts"],
          exclude: ISOLATED,
          isolate: false,
          setupFiles: ["tests/integration/shared-setup.ts"],
        },
      },
      {
        test: {
          name: "isolated",
          include: ISOLATED,
        },
      },
    ],
  },
});
