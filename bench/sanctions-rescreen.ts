/**
 * Re-screen of every member on a new sanctions list (`node --import tsx bench/sanctions-rescreen.ts`):
 * the `sanctions-rescreen` job's work (`rescreenMembers`, docs/operations.md#sanctions-re-screen)
 * for BENCH_MEMBERS approved members (default 20,000) on PostgreSQL, against a list the size of
 * OFAC's SDN list (BENCH_ENTRIES, default 12,000 entries with about 14,000 aliases).
 *
 * - The members: 95 % with common US given and family names, 5 % with Arabic, Russian, Spanish
 *   and Chinese names drawn from the same pools the list's names are (so many come near a listed
 *   name), 25 planted true matches; each with an encrypted date of birth (the job decrypts it)
 *   and one in ten with a joint owner. Written with set-based SQL (users) and batched inserts.
 * - The list: invented names in OFAC's published layout (SDN.CSV, ALT.CSV, ADD.CSV, weak aliases
 *   and dates of birth in the remarks), loaded through `loadSanctionsLists` as an upload is (its
 *   time is reported too). Its names are built from syllables and real name pools, about 20,000
 *   distinct tokens, as the real list has.
 * - Measured: members per minute of the whole job run (read, decrypt, screen, file the possible
 *   matches, commit the cursor per batch of 500). Beside it, in the same run: the floor (the same
 *   batches read and decrypted, no matching) and the one-at-a-time matcher that payments and
 *   applications use (`screenParty`) on a sample of 400 members, which the job would be without
 *   the bulk screener.
 *
 * PostgreSQL: BENCH_DATABASE_URL (default the shared server at 127.0.0.1:55432); the bench makes
 * and drops its own database there. Writes bench/results/sanctions-rescreen.json.
 */
import crypto from "node:crypto";
import { asc, eq, gt, and, sql } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { memberProfiles } from "~/server/db/schema";
import { loadSanctionsLists, currentScreeningIndex } from "~/server/sanctions/lists.server";
import { rescreenMembers, RESCREEN_BATCH } from "~/server/sanctions/rescreen.server";
import { encryptField, decryptField } from "~/server/security/crypto.server";
import { encryptionContext } from "~/server/members/members.server";
import { screenParty } from "~/domain/sanctions/match";
import { BulkScreener } from "~/domain/sanctions/bulk-screen";
import { loadAverage, machineLoad, onServerDatabase, seedVerified, writeResults } from "./support";

process.env.LOG_LEVEL ??= "silent";
process.env.SESSION_SECRET ??= crypto.randomBytes(32).toString("hex");
process.env.DATA_ENCRYPTION_KEY ??= crypto.randomBytes(32).toString("hex");
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:55432/postgres";
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 20_000);
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 12_000);
const SAMPLE = 400;

// A fixed pseudo-random sequence: every run screens the same people against the same list.
let state = 20261202;
const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;

const US_FIRST =
  "James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard Susan Joseph Jessica Thomas Sarah Christopher Karen Charles Lisa Daniel Nancy Matthew Betty Anthony Sandra Mark Margaret Donald Ashley Steven Kimberly Andrew Emily Paul Donna Joshua Michelle Kenneth Carol Kevin Amanda Brian Melissa George Deborah Timothy Stephanie Ronald Dorothy Jason Rebecca Edward Sharon Jeffrey Laura Ryan Cynthia Jacob Amy Gary Kathleen Nicholas Angela Eric Shirley Jonathan Brenda Stephen Emma Larry Anna Justin Pamela Scott Nicole Brandon Samantha Benjamin Katherine Samuel Christine Gregory Debra Alexander Rachel Patrick Carolyn Frank Janet Raymond Maria Jack Olivia Dennis Heather Jerry Helen Tyler Catherine Aaron Diane Jose Julie Adam Victoria Nathan Joyce Henry Lauren Zachary Kelly Douglas Christina Peter Ruth Kyle Joan Noah Virginia Ethan Judith Jeremy Evelyn Walter Hannah Christian Andrea Keith Megan Roger Cheryl Terry Jacqueline Austin Madison Sean Teresa Gerald Abigail Carl Sophia Harold Martha Dylan Sara Arthur Gloria Lawrence Janice Jordan Kathryn Jesse Ann Bryan Isabella Billy Judy Bruce Charlotte Gabriel Julia Joe Grace Logan Amber Alan Alice Juan Jean Albert Denise Willie Frances Elijah Danielle Wayne Marilyn Randy Natalie Vincent Beverly Mason Diana Roy Brittany Ralph Theresa Bobby Kayla Russell Alexis Bradley Doris Philip Lori Eugene Tiffany".split(
    " ",
  );
const US_LAST =
  "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Gomez Phillips Evans Turner Diaz Parker Cruz Edwards Collins Reyes Stewart Morris Morales Murphy Cook Rogers Gutierrez Ortiz Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward Richardson Watson Brooks Chavez Wood James Bennett Gray Mendoza Ruiz Hughes Price Alvarez Castillo Sanders Patel Myers Long Ross Foster Jimenez Powell Jenkins Perry Russell Sullivan Bell Coleman Butler Henderson Barnes Gonzales Fisher Vasquez Simmons Romero Jordan Patterson Alexander Hamilton Graham Reynolds Griffin Wallace Moreno West Cole Hayes Bryant Herrera Gibson Ellis Tran Medina Aguilar Stevens Murray Ford Castro Marshall Owens Harrison Fernandez McDonald Woods Washington Kennedy Wells Vargas Henry Chen Freeman Webb Tucker Guzman Burns Crawford Olson Simpson Porter Hunter Gordon Mendez Silva Shaw Snyder Mason Dixon Munoz Hunt Hicks Holmes Palmer Wagner Black Robertson Boyd Rose Stone Salazar Fox Warren Mills Meyer Rice Schmidt Garza Daniels Ferguson Nichols Stephens Soto Weaver Ryan Gardner Payne Grant Dunn Kelley Spencer Hawkins Arnold Pierce Vazquez Hansen Peters Santos Hart Bradley Knight Elliott Cunningham Duncan Armstrong Hudson Carroll Lane Riley Andrews Alvarado Ray Delgado Berry Perkins Hoffman Johnston Matthews Pena Richards Contreras Willis Carpenter Lawrence Sandoval".split(
    " ",
  );
const WORLD_FIRST =
  "Mohammed Ahmad Ali Hassan Hussein Omar Khalid Yusuf Ibrahim Abdul Abdullah Rahman Mahmoud Mustafa Tariq Bashir Kamal Samir Walid Farid Nasser Faisal Hamid Reza Karim Said Yasin Jamal Anwar Salim Ivan Sergei Dmitri Vladimir Nikolai Andrei Alexei Pavel Yuri Boris Igor Oleg Anatoly Viktor Mikhail Olga Elena Tatiana Natalia Irina Svetlana Miguel Pedro Rafael Jorge Manuel Ricardo Hector Luis Carlos Juan Javier Fernando Alejandro Wei Jian Ming Hui Li Jun Hong Xiao Yong Lei".split(
    " ",
  );
const WORLD_LAST =
  "Al-Rashid Al-Nouri Haddad Khoury Saleh Mansour Darwish Hamdan Barakat Suleimani Karimi Hosseini Mohammadi Rezaei Jafari Rahimi Sadeghi Nasrallah Qureshi Siddiqui Chaudhry Malik Sheikh Khan Hussain Ahmed Petrov Ivanov Smirnov Kuznetsov Popov Volkov Sokolov Lebedev Kozlov Novikov Morozov Pavlov Orlov Fedorov Zaitsev Gusev Vinogradov Belov Tarasov Medina Navarro Herrera Cardenas Valencia Zambrano Quintero Ochoa Arellano Guerrero Zhang Wang Liu Chen Yang Huang Zhao Wu Zhou Xu Sun Zhu Hu Guo Gao Lin Luo Zheng Liang".split(
    " ",
  );
const SYLLABLES =
  "ba be bi bo bu da de di do du fa fe ga ge gi go ha he hi ja jo ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu ra re ri ro ru sa se si so su ta te ti to tu va ve vi za ze zi zo al an ar ash el em en er ib id im in ir ol om on or ul un ur kh sh ch zh ts".split(
    " ",
  );
const COUNTRIES = [
  "Iran",
  "Syria",
  "Russia",
  "Yemen",
  "Mexico",
  "Colombia",
  "China",
  "Korea, North",
  "Venezuela",
  "Iraq",
];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

const capital = (s: string) => s[0]!.toUpperCase() + s.slice(1);
function invented(syllables: number): string {
  let word = "";
  for (let i = 0; i < syllables; i++) word += pick(SYLLABLES);
  return capital(word);
}
const family = () => (random() < 0.55 ? invented(2 + Math.floor(random() * 2)) : pick(WORLD_LAST));
const given = () => (random() < 0.5 ? invented(2 + Math.floor(random() * 2)) : pick(WORLD_FIRST));
const csv = (cells: (string | number)[]) =>
  cells.map((c) => (typeof c === "number" ? String(c) : `"${c.replaceAll('"', "")}"`)).join(",");

/** A list of OFAC's size in its published layout: SDN.CSV, ALT.CSV, ADD.CSV. */
function makeList(): { files: { name: string; bytes: Uint8Array }[]; individuals: { name: string; dob: string }[] } {
  const sdn: string[] = [];
  const alt: string[] = [];
  const add: string[] = [];
  const individuals: { name: string; dob: string }[] = [];
  let alt_num = 1;
  for (let i = 0; i < ENTRIES; i++) {
    const uid = 30000 + i;
    const person = random() < 0.62;
    const country = pick(COUNTRIES);
    let name: string;
    const remarks: string[] = [];
    if (person) {
      const fam = family();
      const first = given();
      const middle = random() < 0.4 ? ` ${given()}` : "";
      name = `${fam.toUpperCase()}, ${first}${middle}`;
      const y = 1940 + Math.floor(random() * 50);
      const m = 1 + Math.floor(random() * 12);
      const d = 1 + Math.floor(random() * 28);
      if (random() < 0.8) remarks.push(`DOB ${String(d).padStart(2, "0")} ${MONTHS[m - 1]} ${y}`);
      remarks.push(`nationality ${country}`);
      if (random() < 0.2) remarks.push(`a.k.a. '${given().toUpperCase()}'`);
      individuals.push({
        name: `${first}${middle} ${fam}`,
        dob: `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`,
      });
    } else {
      name = `${family().toUpperCase()} ${pick(["TRADING", "SHIPPING", "GROUP", "HOLDINGS", "BANK", "INDUSTRIES", "PETROCHEMICAL", "EXCHANGE"])} ${pick(["LLC", "CO", "LTD", "FZE", "JSC", "S.A."])}`;
    }
    sdn.push(
      csv([
        uid,
        name,
        person ? "individual" : "-0- ",
        pick(["SDGT", "IRAN", "SYRIA", "RUSSIA-EO14024", "SDNTK", "DPRK3"]),
        "-0- ",
        "-0- ",
        "-0- ",
        "-0- ",
        "-0- ",
        "-0- ",
        "-0- ",
        remarks.length ? `${remarks.join("; ")}.` : "-0- ",
      ]),
    );
    const aliases = Math.floor(random() * 2.4);
    for (let a = 0; a < aliases; a++)
      alt.push(
        csv([
          uid,
          alt_num++,
          "aka",
          person
            ? `${family().toUpperCase()}, ${given()}`
            : // Entities' aliases are names of two words or more, as the real list's are ("KARIMI TRADING CO.").
              `${family().toUpperCase()} ${pick(["TRADING", "GENERAL TRADING", "SHIPPING", "INVESTMENT", "ENERGY"])} ${pick(["CO", "COMPANY", "ESTABLISHMENT"])}`,
          "-0- ",
        ]),
      );
    add.push(csv([uid, alt_num++, "-0- ", "-0- ", country, "-0- "]));
  }
  const bytes = (lines: string[]) => new TextEncoder().encode(`${lines.join("\r\n")}\r\n`);
  return {
    files: [
      { name: "SDN.CSV", bytes: bytes(sdn) },
      { name: "ALT.CSV", bytes: bytes(alt) },
      { name: "ADD.CSV", bytes: bytes(add) },
    ],
    individuals,
  };
}

async function seedMembers(db: Db, listed: { name: string; dob: string }[]): Promise<void> {
  await db.execute(sql`
    insert into users (id, name, email, email_verified, created_at, updated_at, role, two_factor_enabled)
    select 'bench-' || lpad(g::text, 6, '0'), 'Member ' || g, 'member' || g || '@example.com', true, now(), now(), 'user', true
    from generate_series(1, ${MEMBERS}) g`);
  const planted = new Set(Array.from({ length: 25 }, (_, k) => Math.floor(((k + 1) * MEMBERS) / 26)));
  for (let from = 1; from <= MEMBERS; from += 1000) {
    const rows: (typeof memberProfiles.$inferInsert)[] = [];
    for (let g = from; g < Math.min(from + 1000, MEMBERS + 1); g++) {
      const user_id = `bench-${String(g).padStart(6, "0")}`;
      let first_name: string;
      let last_name: string;
      let dob = `${1950 + Math.floor(random() * 55)}-${String(1 + Math.floor(random() * 12)).padStart(2, "0")}-${String(1 + Math.floor(random() * 28)).padStart(2, "0")}`;
      if (planted.has(g)) {
        const hit = pick(listed);
        const parts = hit.name.split(" ");
        first_name = parts.slice(0, -1).join(" ");
        last_name = parts[parts.length - 1]!;
        dob = hit.dob;
      } else if (random() < 0.95) {
        first_name = pick(US_FIRST);
        last_name = pick(US_LAST);
      } else {
        first_name = pick(WORLD_FIRST);
        last_name = pick(WORLD_LAST);
      }
      const joint = random() < 0.1;
      rows.push({
        user_id,
        first_name,
        last_name,
        date_of_birth_enc: encryptField(dob, encryptionContext("date_of_birth", user_id)),
        country: "United States",
        status: "approved",
        document_status: "verified",
        joint_account: joint,
        joint_name: joint ? `${pick(US_FIRST)} ${last_name}` : null,
        joint_email: joint ? `joint${g}@example.com` : null,
        joint_phone: joint ? "(555) 010-0002" : null,
      });
    }
    await db.insert(memberProfiles).values(rows);
  }
  await db.execute(sql`analyze`);
}

/** The floor: the job's batches read and every date of birth decrypted, nothing screened. */
async function readFloor(db: Db): Promise<number> {
  const start = performance.now();
  let cursor: string | null = null;
  let seen = 0;
  for (;;) {
    const rows = await db
      .select({
        user_id: memberProfiles.user_id,
        dob: memberProfiles.date_of_birth_enc,
        first: memberProfiles.first_name,
      })
      .from(memberProfiles)
      .where(
        and(eq(memberProfiles.status, "approved"), cursor === null ? undefined : gt(memberProfiles.user_id, cursor)),
      )
      .orderBy(asc(memberProfiles.user_id))
      .limit(RESCREEN_BATCH);
    if (rows.length === 0) break;
    for (const r of rows) if (r.dob) decryptField(r.dob, encryptionContext("date_of_birth", r.user_id));
    seen += rows.length;
    cursor = rows[rows.length - 1]!.user_id;
  }
  return (seen / ((performance.now() - start) / 1000)) * 60;
}

async function main() {
  await onServerDatabase(
    "rescreen",
    async (database) => {
      const list = makeList();
      const { seed_s, load_start } = await seedVerified(database, (db) => seedMembers(db, list.individuals));
      console.log(
        `Seeded ${MEMBERS.toLocaleString("en-US")} members in ${seed_s.toFixed(1)} s (load ${loadAverage()}).`,
      );

      const load_begin = performance.now();
      const loaded = await loadSanctionsLists(database.db, {
        files: list.files,
        published_on: "2026-11-30",
        loader: null,
      });
      if (!loaded.ok) throw new Error(loaded.message);
      const load_s = (performance.now() - load_begin) / 1000;
      const index_begin = performance.now();
      const index = await currentScreeningIndex(database.db);
      const index_s = (performance.now() - index_begin) / 1000;
      const names = index.index.entries.reduce((n, e) => n + e.names.length, 0);
      const tokens = new Set(index.index.entries.flatMap((e) => e.names.flatMap((n) => n.prepared.tokens))).size;
      console.log(
        `Loaded ${ENTRIES.toLocaleString("en-US")} entries (${names.toLocaleString("en-US")} names, ${tokens.toLocaleString("en-US")} distinct tokens) in ${load_s.toFixed(1)} s; index ${index_s.toFixed(1)} s.`,
      );

      const floor_per_minute = await readFloor(database.db);

      // The one-at-a-time matcher on a sample: what the job would do without the bulk screener.
      const sample = await database.db
        .select()
        .from(memberProfiles)
        .orderBy(sql`md5(${memberProfiles.user_id})`)
        .limit(SAMPLE);
      const one_begin = performance.now();
      for (const m of sample)
        screenParty(
          {
            name: `${m.first_name} ${m.last_name}`,
            birth_date: decryptField(m.date_of_birth_enc!, encryptionContext("date_of_birth", m.user_id)),
            country: "US",
          },
          index.index,
        );
      const one_at_a_time_per_minute = (SAMPLE / ((performance.now() - one_begin) / 1000)) * 60;

      const cpu_start = process.cpuUsage();
      const start = performance.now();
      const run = await rescreenMembers(database.db);
      const run_s = (performance.now() - start) / 1000;
      const cpu = process.cpuUsage(cpu_start);
      if (!run.finished || run.members_screened !== MEMBERS)
        throw new Error(`the run screened ${run.members_screened}`);
      const per_minute = (run.members_screened / run_s) * 60;
      // The bulk matcher alone over the same members, in process: how much of the run is matching.
      const everyone = await database.db.select().from(memberProfiles);
      const matcher_begin = performance.now();
      const bulk = new BulkScreener(index.index);
      for (const m of everyone) {
        bulk.screen({
          name: `${m.first_name} ${m.last_name}`,
          birth_date: decryptField(m.date_of_birth_enc!, encryptionContext("date_of_birth", m.user_id)),
          country: "US",
        });
        if (m.joint_name) bulk.screen({ name: m.joint_name });
      }
      const matcher_alone_per_minute = (everyone.length / ((performance.now() - matcher_begin) / 1000)) * 60;
      const result = {
        date: new Date().toISOString(),
        database: "postgres 15 (shared server, TCP 127.0.0.1)",
        members: MEMBERS,
        list_entries: ENTRIES,
        list_names: names,
        list_distinct_tokens: tokens,
        batch: RESCREEN_BATCH,
        run_s: Number(run_s.toFixed(2)),
        members_per_minute: Math.round(per_minute),
        possible_matches_filed: run.possible_matches,
        planted_matches: 25,
        app_cpu_s: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
        reference_floor_read_and_decrypt_per_minute: Math.round(floor_per_minute),
        reference_one_at_a_time_matcher_per_minute: Math.round(one_at_a_time_per_minute),
        bulk_matcher_alone_per_minute: Math.round(matcher_alone_per_minute),
        app_cpu_ms_per_member: Number(((cpu.user + cpu.system) / 1e3 / MEMBERS).toFixed(2)),
        list_load_s: Number(load_s.toFixed(2)),
        index_build_s: Number(index_s.toFixed(2)),
        goal_members_per_minute: 10_000,
        ...machineLoad(load_start),
      };
      console.log(
        `Re-screen: ${MEMBERS.toLocaleString("en-US")} members in ${run_s.toFixed(1)} s = ${Math.round(per_minute).toLocaleString("en-US")} a minute (goal 10,000); ${run.possible_matches} possible matches filed (25 planted). Bulk matcher alone ${Math.round(matcher_alone_per_minute).toLocaleString("en-US")}/min; floor (read + decrypt): ${Math.round(floor_per_minute).toLocaleString("en-US")}/min; one-at-a-time matcher: ${Math.round(one_at_a_time_per_minute).toLocaleString("en-US")}/min. Load ${loadAverage()}.`,
      );
      console.log(`Wrote ${writeResults("sanctions-rescreen.json", result)}`);
      if (process.env.BENCH_SHOW) {
        const shown = await database.db.execute<{ screened_name: string; listed: string; score: string }>(
          sql`select screened_name, matches->0->>'listed_name' as listed, score from sanctions_screenings order by random() limit 15`,
        );
        for (const r of shown.rows) console.log(`  ${r.screened_name} ~ ${r.listed} (${r.score})`);
      }
    },
    { server_url: SERVER_URL },
  );
}

await main();
