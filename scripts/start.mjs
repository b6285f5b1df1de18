// `npm start`: build when the sources are newer than the last build, then serve in production
// mode (the server migrates the database and seeds the demo institution on an empty one).
import { spawnSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const builtFile = path.join(root, "build/server/index.js");

function newestMtime(target) {
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

const sources = ["app", "public", "package-lock.json", "vite.config.ts", "react-router.config.ts"].map((p) => path.join(root, p));
const sourceTime = Math.max(...sources.filter((p) => fs.existsSync(p)).map(newestMtime));
if (!fs.existsSync(builtFile) || fs.statSync(builtFile).mtimeMs < sourceTime) {
  console.log("Building Mutual (sources changed since the last build)...");
  const result = spawnSync("npx", ["react-router", "build"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const child = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, NODE_ENV: "production" },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
