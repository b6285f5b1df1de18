/**
 * Precision and recall of the sanctions matcher (docs/decisions/0014) on a labelled set:
 * `node --import tsx bench/sanctions-matching.ts [--threshold 0.9] [--show]`.
 *
 * The list is bench/sanctions/SDN.CSV, ALT.CSV and ADD.CSV (OFAC's layout, invented names:
 * bench/sanctions/make-list.py writes them); the labelled set is bench/sanctions/labelled.csv:
 * each name screened as a payee or applicant would be (with a date of birth or country where
 * given) and the entry number it must hit, or none. A row is flagged when the matcher returns any
 * entry. True positive: a flagged row whose returned entries include the expected one; false
 * positive: a flagged row that expected none (or only other entries); false negative: an expected
 * entry not returned. Prints the figures at the threshold, a sweep of thresholds beside it, the
 * rows it got wrong with --show, and writes bench/results/sanctions-matching.json.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { parse } from "csv-parse/sync";
import { readOfacCsv } from "~/domain/sanctions/ofac-csv";
import { MATCH_THRESHOLD, prepareEntry, screenParty } from "~/domain/sanctions/match";

const { values } = parseArgs({ options: { threshold: { type: "string" }, show: { type: "boolean" } } });
const threshold = values.threshold ? Number(values.threshold) : MATCH_THRESHOLD;
const folder = path.join(import.meta.dirname, "sanctions");
const file = (name: string) => ({ name, text: fs.readFileSync(path.join(folder, name), "latin1") });
const entries = readOfacCsv({
  source: "sdn",
  primary: file("SDN.CSV"),
  alt: file("ALT.CSV"),
  add: file("ADD.CSV"),
}).map(prepareEntry);
const rows = parse(fs.readFileSync(path.join(folder, "labelled.csv"), "utf8"), { columns: true }) as {
  name: string;
  birth_date: string;
  country: string;
  expected_uid: string;
  kind: string;
}[];

function measure(at: number) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  const wrong: string[] = [];
  const started = performance.now();
  for (const row of rows) {
    const found = screenParty(
      { name: row.name, birth_date: row.birth_date || null, country: row.country || null },
      entries,
      at,
    );
    const uids = found.map((f) => f.entry.uid);
    const best = found[0] ? `${found[0].entry.uid} ${found[0].matched_name} ${found[0].score.toFixed(3)}` : "none";
    if (row.expected_uid) {
      if (uids.includes(row.expected_uid)) tp++;
      else {
        fn++;
        wrong.push(`missed   ${row.name} (${row.kind}) → expected ${row.expected_uid}, got ${best}`);
      }
      if (uids.some((u) => u !== row.expected_uid)) {
        fp++;
        wrong.push(`also hit ${row.name} → ${uids.filter((u) => u !== row.expected_uid).join(", ")}`);
      }
    } else if (uids.length > 0) {
      fp++;
      wrong.push(`false    ${row.name} (${row.kind}) → ${best}`);
    } else tn++;
  }
  const ms = performance.now() - started;
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  return { threshold: at, tp, fp, fn, tn, precision, recall, ms_per_name: ms / rows.length, wrong };
}

const hits = rows.filter((r) => r.expected_uid).length;
console.log(
  `${rows.length} labelled names (${hits} must hit, ${rows.length - hits} must not) against ${entries.length} entries`,
);
measure(threshold); // warm-up: the timing below is of compiled code
const main = measure(threshold);
console.log(
  `threshold ${threshold.toFixed(2)}: precision ${(main.precision * 100).toFixed(1)} %, recall ${(main.recall * 100).toFixed(1)} % (TP ${main.tp}, FP ${main.fp}, FN ${main.fn}, TN ${main.tn}); ${main.ms_per_name.toFixed(3)} ms a name`,
);
const sweep = [0.8, 0.84, 0.86, 0.88, 0.9, 0.92, 0.94, 0.96].map(measure);
for (const s of sweep)
  console.log(
    `  at ${s.threshold.toFixed(2)}: precision ${(s.precision * 100).toFixed(1)} %, recall ${(s.recall * 100).toFixed(1)} % (FP ${s.fp}, FN ${s.fn})`,
  );
if (values.show) for (const line of main.wrong) console.log(line);
const results = path.join(import.meta.dirname, "results", "sanctions-matching.json");
fs.writeFileSync(
  results,
  JSON.stringify(
    {
      date: new Date().toISOString(),
      names: rows.length,
      entries: entries.length,
      ...main,
      sweep: sweep.map(({ wrong: _wrong, ...s }) => s),
    },
    null,
    2,
  ) + "\n",
);
