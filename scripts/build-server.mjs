// Builds what production runs, so that nothing is compiled at run time:
// - the React Router build (pages, loaders, actions): BUILD/server/index.js and BUILD/client;
// - the HTTP entry and the operations scripts, bundled by esbuild into plain JavaScript:
//   BUILD/bin/server.js, BUILD/bin/migrate.js, BUILD/bin/ledger-verify.js, with the database
//   migrations copied beside them (BUILD/bin/migrations, found by client.server.ts).
// BUILD is MUTUAL_BUILD_DIR or build/. Each part is rebuilt only when a source is newer than it.
//
//   node scripts/build-server.mjs                 both parts, when sources changed
//   node scripts/build-server.mjs --force         both parts, always
//   node scripts/build-server.mjs --server-only   only the bundles in BUILD/bin
//   node scripts/build-server.mjs --run migrate   build the bundles when needed, then run BUILD/bin/migrate.js
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const root = path.resolve(import.meta.dirname, "..");

/** The compiled programs: name in BUILD/bin → TypeScript source. */
export const serverEntries = {
  server: "server.ts",
  migrate: "scripts/migrate.ts",
  "ledger-verify": "scripts/ledger-verify.ts",
  backup: "scripts/backup.ts",
  restore: "scripts/restore.ts",
  "rotate-data-key": "scripts/rotate-data-key.ts",
  "staff-create": "scripts/staff-create.ts",
  "staff-passkeys-remove": "scripts/staff-passkeys-remove.ts",
  "sanctions-load": "scripts/sanctions-load.ts",
};

export function buildDirectory() {
  const directory = path.resolve(root, process.env.MUTUAL_BUILD_DIR ?? "build");
  // The bundles import the dependencies from node_modules, found from where the bundles are.
  if (path.relative(root, directory).startsWith(".."))
    throw new Error(
      `MUTUAL_BUILD_DIR must be inside ${root} (the compiled server loads its dependencies from node_modules there); it is ${directory}.`,
    );
  return directory;
}

export function compiledPath(name) {
  return path.join(buildDirectory(), "bin", `${name}.js`);
}

function newestMtime(target) {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

const newestOf = (paths) => Math.max(...paths.map((p) => newestMtime(path.join(root, p))));
const builtAt = (file) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : -1);

// Everything each part is made from (a dependency upgrade changes package-lock.json).
const appSources = [
  "app",
  "public",
  "package-lock.json",
  "vite.config.ts",
  "react-router.config.ts",
  "scripts/build-server.mjs",
];
const serverSources = [
  "app",
  "package-lock.json",
  "tsconfig.json",
  "scripts/build-server.mjs",
  ...Object.values(serverEntries),
];

/**
 * The React Router build, when app sources changed since the last one. An upgrade builds while the
 * old release still serves from BUILD (docs/operations.md#upgrades-and-migrations): building in
 * place emptied BUILD first, and every page the old processes served then asked for scripts and
 * styles that were gone (1,318 asset 404s in one upgrade). So the build goes into BUILD-next,
 * takes the previous release's own assets with it (pages already open in browsers, and processes
 * not yet restarted, still ask for them), and replaces BUILD in one rename.
 */
export function buildApp({ force = false } = {}) {
  const directory = buildDirectory();
  const built = path.join(directory, "server/index.js");
  if (!force && builtAt(built) >= newestOf(appSources)) return false;
  console.log("Building the app (sources changed since the last build)...");
  const next = `${directory}-next`;
  fs.rmSync(next, { recursive: true, force: true });
  // Always React's production build, whoever calls: Vitest sets NODE_ENV=test, and a build made
  // under it bundled React's development build for the browser (394 KB instead of 211 KB), which
  // the browser tests then reused.
  const result = spawnSync("npx", ["react-router", "build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production", MUTUAL_BUILD_DIR: path.relative(root, next) },
  });
  if (result.status !== 0) {
    fs.rmSync(next, { recursive: true, force: true });
    throw new Error("react-router build failed");
  }
  // Browser assets, and the server's own chunks, which a running server may still import lazily.
  for (const assets of ["client/assets", "server/assets"])
    carryPreviousAssets(path.join(directory, assets), path.join(next, assets));
  // The compiled server is not part of this build: kept (with its dates) for buildServer to judge.
  if (fs.existsSync(path.join(directory, "bin")))
    fs.cpSync(path.join(directory, "bin"), path.join(next, "bin"), { recursive: true, preserveTimestamps: true });
  const previous = `${directory}-previous`;
  fs.rmSync(previous, { recursive: true, force: true });
  // Two renames: BUILD is missing for the moment between them only, not for the whole build.
  if (fs.existsSync(directory)) fs.renameSync(directory, previous);
  fs.renameSync(next, directory);
  fs.rmSync(previous, { recursive: true, force: true });
  return true;
}

/** Which files of an assets folder its own build made (not carried from the release before). */
export const RELEASE_ASSETS_FILE = ".release-assets.json";

/**
 * Copies into a new build's assets folder the files the previous release built itself (hashed
 * names: a file of the same name has the same content), then records the new build's own files.
 * Only one release back is kept: files the previous release had carried are left behind. A dot
 * file, so the static file server never serves the record.
 */
export function carryPreviousAssets(previous_dir, next_dir) {
  if (!fs.existsSync(next_dir)) return { carried: 0 };
  const own = fs.readdirSync(next_dir).filter((name) => name !== RELEASE_ASSETS_FILE);
  let carried = 0;
  if (fs.existsSync(previous_dir)) {
    const record = path.join(previous_dir, RELEASE_ASSETS_FILE);
    const previous_own = fs.existsSync(record)
      ? JSON.parse(fs.readFileSync(record, "utf8"))
      : fs.readdirSync(previous_dir).filter((name) => name !== RELEASE_ASSETS_FILE);
    for (const name of previous_own) {
      const from = path.join(previous_dir, name);
      if (
        name.includes("/") ||
        name.startsWith(".") ||
        fs.existsSync(path.join(next_dir, name)) ||
        !fs.existsSync(from)
      )
        continue;
      fs.cpSync(from, path.join(next_dir, name), { recursive: true, preserveTimestamps: true });
      carried++;
    }
  }
  fs.writeFileSync(path.join(next_dir, RELEASE_ASSETS_FILE), JSON.stringify(own));
  return { carried };
}

/** The server and script bundles, when their sources changed since the last build. */
export async function buildServer({ force = false } = {}) {
  const outdir = path.join(buildDirectory(), "bin");
  // Every bundle is written in the same build: the oldest of them dates the build.
  const built = Math.min(...Object.keys(serverEntries).map((name) => builtAt(compiledPath(name))));
  if (!force && built >= newestOf(serverSources)) return false;
  const started_ms = performance.now();
  const esbuild = await import("esbuild");
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: serverEntries,
    outdir,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    // Dependencies stay in node_modules (native modules, PGlite's files); only the project's own
    // TypeScript is compiled. The `~` alias (tsconfig paths) is resolved to app/.
    packages: "external",
    alias: { "~": path.join(root, "app") },
    sourcemap: "linked",
    logLevel: "warning",
  });
  const migrations = path.join(outdir, "migrations");
  fs.rmSync(migrations, { recursive: true, force: true });
  fs.cpSync(path.join(root, "app/server/db/migrations"), migrations, { recursive: true });
  console.log(
    `Built ${path.relative(root, outdir)}/ (${Object.keys(serverEntries).join(", ")}) in ${Math.round(performance.now() - started_ms)} ms.`,
  );
  return true;
}

const signalExitCode = (signal) => 128 + (os.constants.signals[signal] ?? 0);

async function cli(args) {
  const force = args.includes("--force");
  const runIndex = args.indexOf("--run");
  if (runIndex >= 0) {
    const name = args[runIndex + 1];
    if (!(name in serverEntries)) throw new Error(`--run takes one of: ${Object.keys(serverEntries).join(", ")}`);
    await buildServer({ force });
    const result = spawnSync(
      process.execPath,
      ["--enable-source-maps", compiledPath(name), ...args.slice(runIndex + 2)],
      { cwd: root, stdio: "inherit" },
    );
    return result.status ?? signalExitCode(result.signal);
  }
  if (!args.includes("--server-only")) buildApp({ force });
  await buildServer({ force });
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    process.exitCode = await cli(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
