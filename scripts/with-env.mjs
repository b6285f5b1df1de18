#!/usr/bin/env node
// Runs a command with the environment a mutual@ service has: the variables of an environment file
// read as systemd's EnvironmentFile= reads it (scripts/env-file.mjs), on a clean environment. For
// the maintenance commands and PostgreSQL's tools on a server (docs/operations.md#configure):
//
//   node scripts/with-env.mjs /etc/mutual/mutual.env NODE_ENV=production node build/bin/migrate.js
//   node scripts/with-env.mjs /etc/mutual/mutual.env sh -c 'pg_dump --format=custom --file=x.dump "$DATABASE_URL"'
//
// NAME=value words before the command are set after the file, as the unit's Environment= lines
// (NODE_ENV=production) are beside it. Never `set -a; . mutual.env` in a shell: a URL's `&` is
// run as a command and DATABASE_URL is lost.
//
// Exit codes as env(1)'s: the command's own; 125 when the file cannot be read or no command is
// given (nothing was run); 126 when the command cannot be run; 127 when it is not found.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { PASSED_THROUGH, parseEnvironmentFile } from "./env-file.mjs";

const USAGE = "usage: node scripts/with-env.mjs <environment file> [NAME=value ...] <command> [arguments ...]";

function refuse(message) {
  console.error(`with-env: ${message}`);
  process.exit(125);
}

const [file, ...rest] = process.argv.slice(2);
if (!file || file === "--help" || file === "-h") refuse(USAGE);

let text;
try {
  text = fs.readFileSync(file, "utf8");
} catch (error) {
  refuse(`cannot read ${file} (${error.code ?? error.message}): nothing was run.`);
}
const { values, skipped } = parseEnvironmentFile(text);
for (const { line, name } of skipped)
  console.error(`with-env: ${file}:${line}: ignoring "${name}": not a valid variable name (systemd ignores it too)`);

const assignments = {};
while (rest.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0])) {
  const word = rest.shift();
  const at = word.indexOf("=");
  assignments[word.slice(0, at)] = word.slice(at + 1);
}
if (!rest.length) refuse(`no command given: nothing was run.\n${USAGE}`);

const environment = Object.fromEntries(
  PASSED_THROUGH.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]),
);
const [command, ...args] = rest;
const child = spawn(command, args, { stdio: "inherit", env: { ...environment, ...values, ...assignments } });
child.on("error", (error) => {
  console.error(`with-env: cannot run ${command}: ${error.code ?? error.message}`);
  process.exit(error.code === "ENOENT" ? 127 : 126);
});
// A terminal's Ctrl-C reaches the command through the process group; a signal sent to this
// process alone (kill, a timer's stop) is passed on.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
