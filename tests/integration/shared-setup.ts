import { afterAll, expect } from "vitest";
// The test environment (fixed secrets, a throw-away DATA_DIR, silent logs), set before the first
// file of a worker runs: the files of the shared project share the app's modules, and env() reads
// the environment once. Evaluated once per worker; a file importing it again changes nothing.
import "./identity-support";

/**
 * Run before each file of the "integration (shared)" project (tests/integration/vitest.config.ts).
 * A file that changes process.env and leaves it so would change the environment of the files after
 * it in the same worker (or not, as the app read it already): it fails here, by name.
 */
const before = { ...process.env };

afterAll(() => {
  const names = new Set([...Object.keys(before), ...Object.keys(process.env)]);
  const changed = [...names].filter((name) => before[name] !== process.env[name]);
  expect(
    changed,
    "this file changed process.env: restore it in afterAll, or run the file in the isolated project (SETS_ITS_OWN_MODULE_STATE in tests/integration/vitest.config.ts)",
  ).toEqual([]);
});
