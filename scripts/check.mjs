// The first step of `npm test`: React Router's route types, then the typecheck, the lint and the
// formatting check (Prettier, `npm run format` fixes it) side by side. Each is one process on one core, so together they take the longer one's time instead of
// the sum (about 20 s less on a 2-core machine). Output is printed per command, not interleaved.
import { spawn } from "node:child_process";

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], shell: false });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("close", (code) => resolve({ name: [command, ...args].join(" "), code: code ?? 1, output }));
  });
}

const bin = (name) => `node_modules/.bin/${name}`;
const typegen = await run(bin("react-router"), ["typegen"]);
process.stdout.write(typegen.output);
if (typegen.code !== 0) process.exit(typegen.code);

const results = await Promise.all([
  run(bin("tsc"), ["--noEmit"]),
  run(bin("eslint"), ["."]),
  run(bin("prettier"), ["--check", "--log-level", "warn", "."]),
]);
let failed = false;
for (const { name, code, output } of results) {
  process.stdout.write(`> ${name}: ${code === 0 ? "passed" : `failed (exit ${code})`}\n${output}`);
  failed ||= code !== 0;
}
process.exit(failed ? 1 : 0);
