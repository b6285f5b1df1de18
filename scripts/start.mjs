// `npm start`: build what changed since the last build (scripts/build-server.mjs: the React Router
// build and the compiled server), then serve in production mode with plain JavaScript
// (BUILD/bin/server.js; the server migrates the database and seeds the demo institution on an
// empty one). A service manager can run `node build/bin/server.js` itself after a build.
import { spawn } from "node:child_process";
import os from "node:os";
import { buildApp, buildServer, compiledPath, root } from "./build-server.mjs";

try {
  buildApp();
  await buildServer();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

// `npm start` is the quick look on a laptop (README: the demo on the embedded database), so the
// embedded database is its default; the service runs build/bin/server.js itself, which refuses to
// start in production without DATABASE_URL or MUTUAL_EMBEDDED_DATABASE=1.
const embedded = process.env.DATABASE_URL
  ? {}
  : { MUTUAL_EMBEDDED_DATABASE: process.env.MUTUAL_EMBEDDED_DATABASE || "1" };
const child = spawn(process.execPath, ["--enable-source-maps", compiledPath("server")], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, NODE_ENV: "production", ...embedded },
});
// A terminal's Ctrl-C or systemd's stop signals the whole group, the server included; passing the
// signal on as well is harmless (the server shuts down once).
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
