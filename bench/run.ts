// `npm run bench`: every benchmark, one after another (each writes its results under bench/results/).
import { spawnSync } from "node:child_process";

for (const script of ["bench/home.ts", "bench/ledger.ts"]) {
  console.log(`\n=== ${script}`);
  const result = spawnSync(process.execPath, ["--import", "tsx", script], { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
