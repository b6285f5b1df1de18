// Runs the browser tests. Without a Chromium, outside CI, they are skipped loudly with the
// install command; in CI a missing browser is a failure.
import { spawnSync } from "node:child_process";
import fs from "node:fs";

// playwright.config.ts prefers Debian's chromium-headless-shell (lighter) and falls back to chromium.
const chromium =
  process.env.CHROMIUM_PATH ??
  ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"].find((file) => fs.existsSync(file)) ??
  "/usr/bin/chromium";
if (!fs.existsSync(chromium)) {
  const message = `Browser tests need Chromium at ${chromium}. Install it with: sudo apt-get install -y chromium-headless-shell chromium (or set CHROMIUM_PATH).`;
  if (process.env.CI) {
    console.error(`\nFAIL: ${message}\n`);
    process.exit(1);
  }
  console.warn(
    `\n${"!".repeat(78)}\n!! SKIPPED: the browser (end-to-end) tests did not run.\n!! ${message}\n${"!".repeat(78)}\n`,
  );
  process.exit(0);
}

// A run on its own port (E2E_PORT, for engineers running specs side by side) builds into its own
// folder, so one run's build never replaces the files another run's server is reading.
if (process.env.E2E_PORT && !process.env.MUTUAL_BUILD_DIR)
  process.env.MUTUAL_BUILD_DIR = `build-e2e-${process.env.E2E_PORT}`;
const run = (cmd, args) => spawnSync(cmd, args, { stdio: "inherit" }).status ?? 1;
// The React Router build and the compiled server (BUILD/bin/server.js), which the browser tests
// run as production does (playwright.config.ts). Each part is rebuilt only when a source is newer
// than it: in `npm test` the integration tests' setup has just built the same folder.
let status = run(process.execPath, ["scripts/build-server.mjs"]);
if (status === 0) status = run("npx", ["playwright", "test", ...process.argv.slice(2)]);
process.exit(status);
