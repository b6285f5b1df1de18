import "../admin-support";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { openDatabase, type Database, type Db } from "~/server/db/client.server";
import { setAppDatabase } from "~/server/db/db.server";
import { auditLog, jobRuns, sanctionsEntries, sanctionsListVersions } from "~/server/db/schema";
import { currentScreeningIndex } from "~/server/sanctions/lists.server";
import { screenParty } from "~/domain/sanctions/match";
import * as sanctionsRoute from "~/routes/admin/sanctions";
import { onPostgres, openTestDatabase } from "../test-database";
import { itRefuses, matrixCast, routeContext, run, SignedIn, expectSentAway } from "../authorization-matrix";

/**
 * Loading OFAC's lists (docs/product.md#sanctions-lists): `npm run sanctions:load` run for real
 * (its own process, as npm runs it) on this test's database, and the upload on /admin/sanctions;
 * each list a version with its publication date and entries, audited; a file not in OFAC's layout
 * or the same files again refused with nothing changed; the page and its upload for staff
 * ("admin") only.
 */
const repository = path.resolve(import.meta.dirname, "../../..");
const fixtures = path.join(repository, "tests/fixtures/sanctions");
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];

let database: Database & { url?: string };
let people: SignedIn<Persona>;
const context = routeContext({ request_id: "sanctions-lists-0001", ip: "203.0.113.61" });

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const cast = await matrixCast(database.db);
  people = await SignedIn.as(database.db, {
    staff: cast.staff.id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: cast.member.member.id,
    other_member: cast.other_member.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

async function snapshot() {
  const db = database.db;
  const [versions] = await db.select({ n: count() }).from(sanctionsListVersions);
  const [entries] = await db.select({ n: count() }).from(sanctionsEntries);
  const [audits] = await db.select({ n: count() }).from(auditLog);
  return { versions: Number(versions!.n), entries: Number(entries!.n), audits: Number(audits!.n) };
}

function fixtureFile(name: string): File {
  return new File([fs.readFileSync(path.join(fixtures, name))], name, { type: "text/csv" });
}

function upload(persona: Persona, files: File[], published_on = "2026-11-28"): Request {
  const body = new FormData();
  body.append("intent", "upload_lists");
  body.append("published_on", published_on);
  for (const f of files) body.append("files", f);
  return new Request("http://localhost:3000/admin/sanctions", {
    method: "POST",
    headers: people.headers(persona),
    body,
  });
}

const act = (r: Request) => run(() => sanctionsRoute.action({ request: r, params: {}, context: context() } as never));

describe("npm run sanctions:load", () => {
  // The command's own database: a new embedded one in a DATA_DIR of its own, or a new database on
  // the PostgreSQL server with TEST_DATABASE_URL (as tests/integration/admin/staff-create-command.test.ts).
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-sanctions-load-"));
  const dataDir = path.join(folder, "data");
  let postgres: (Database & { url?: string }) | undefined;
  beforeAll(async () => {
    if (onPostgres) postgres = await openTestDatabase();
  });
  afterAll(async () => {
    await postgres?.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  function runCommand(args: string[]): Promise<{ code: number | null; output: string }> {
    const env: Record<string, string | undefined> = {
      ...process.env,
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      PUBLIC_URL: "https://bank.example.test",
    };
    if (postgres?.url) env.DATABASE_URL = postgres.url;
    else delete env.DATABASE_URL;
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ["scripts/build-server.mjs", "--run", "sanctions-load", ...args], {
        cwd: repository,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      child.once("exit", (code) => resolve({ code, output }));
    });
  }

  /** Reads the command's database (the embedded one is opened only between runs: one process at a time). */
  async function inDatabase<T>(work: (db: Db) => Promise<T>): Promise<T> {
    if (postgres) return work(postgres.db);
    const opened = await openDatabase({ kind: "pglite", dataDir: path.resolve(dataDir) });
    try {
      return await work(opened.db);
    } finally {
      await opened.close();
    }
  }

  // Each run opens the embedded database in its own process: 30-45 s at a load average of 12-19.
  it("loads the SDN list's four files as one version, audited as the server command; the same files again, a lone ALT.CSV and a missing date are refused", async () => {
    const files = ["SDN.CSV", "ALT.CSV", "ADD.CSV", "SDN_COMMENTS.CSV"].map((f) => path.join(fixtures, f));
    const first = await runCommand(["--published", "2026-11-28", ...files]);
    expect(first.output).toContain(
      "Loaded the Specially Designated Nationals (SDN) list published 2026-11-28: 10 entries",
    );
    expect(first.code).toBe(0);
    const loaded = await inDatabase(async (db) => ({
      versions: await db.select().from(sanctionsListVersions),
      entries: await db.select().from(sanctionsEntries).orderBy(sanctionsEntries.uid),
      audits: await db.select().from(auditLog).where(eq(auditLog.action, "sanctions.list.load")),
      rescreens: await db.select().from(jobRuns).where(eq(jobRuns.job, "sanctions-rescreen")),
    }));
    // Every member is screened again against the new list: the command queues the job's run.
    expect(loaded.rescreens.map((r) => r.key)).toEqual([expect.stringMatching(/^rescreen:\d+$/)]);
    expect(loaded.versions).toHaveLength(1);
    expect(loaded.versions[0]).toMatchObject({
      source: "sdn",
      published_on: "2026-11-28",
      loaded_by: null,
      loaded_by_label: "server command",
      entry_count: 10,
      file_names: "SDN.CSV, ALT.CSV, ADD.CSV, SDN_COMMENTS.CSV",
    });
    expect(loaded.entries[0]).toMatchObject({
      uid: "10001",
      name: "AL-RASHIDI, Khalid Abdullah",
      type: "individual",
      programs: ["SDGT"],
      countries: ["YE"],
    });
    expect(loaded.entries[0]!.aliases).toContainEqual({ name: "ABU HAMZA", type: "aka", weak: true });
    expect(loaded.audits).toHaveLength(1);
    expect(loaded.audits[0]).toMatchObject({ actor_id: null, actor_email: "server command: npm run sanctions:load" });

    const again = await runCommand(["--published", "2026-11-28", ...files]);
    expect(again.code).toBe(1);
    expect(again.output).toContain("already loaded");
    const alone = await runCommand(["--published", "2026-11-28", path.join(fixtures, "ALT.CSV")]);
    expect(alone.code).toBe(1);
    expect(alone.output).toContain("SDN.CSV is missing");
    const undated = await runCommand([path.join(fixtures, "SDN.CSV")]);
    expect(undated.code).toBe(1);
    expect(undated.output).toContain("Usage");
    expect(await inDatabase(async (db) => (await db.select().from(sanctionsListVersions)).length)).toBe(1);
  }, 400_000);
});

describe("/admin/sanctions: the upload", () => {
  it("staff upload the consolidated list; its entries screen at once", async () => {
    const before = await snapshot();
    const outcome = await act(
      upload("staff", [fixtureFile("CONS_PRIM.CSV"), fixtureFile("CONS_ALT.CSV"), fixtureFile("CONS_ADD.CSV")]),
    );
    expect(outcome).toMatchObject({ kind: "ok", status: 200 });
    expect(outcome.body).toContain("Consolidated (non-SDN) sanctions list: 2 entries loaded.");
    const after = await snapshot();
    expect(after).toEqual({ versions: before.versions + 1, entries: before.entries + 2, audits: before.audits + 1 });
    const loaded = await currentScreeningIndex(database.db);
    const found = screenParty({ name: "Omar Farouk Hassan", country: "SY" }, loaded.index);
    expect(found[0]).toMatchObject({ matched_name: "HASSAN, Omar Faruq" });
    expect(loaded.rows.get(found[0]!.entry)?.version_id).toBe(
      loaded.versions.find((v) => v.source === "consolidated")!.id,
    );
    const page = await run(() =>
      sanctionsRoute.loader({
        request: people.get("staff", "/admin/sanctions"),
        params: {},
        context: context(),
      } as never),
    );
    expect(page.body).toContain("2026-11-28");
  });

  it("bad files and dates are refused next to their field and change nothing", async () => {
    const before = await snapshot();
    const cases: [File[], string, string, string][] = [
      [[], "2026-11-28", "files", "Choose the list files"],
      [[fixtureFile("ALT.CSV")], "2026-11-28", "files", "SDN.CSV is missing"],
      [[new File(["a,b\n1,2\n"], "SDN.CSV")], "2026-11-28", "files", "SDN.CSV: record 1 has 2 columns"],
      [[new File(["x"], "notes.txt")], "2026-11-28", "files", "notes.txt is not one of OFAC's list files"],
      [[fixtureFile("SDN.CSV")], "2999-01-01", "published_on", "between 1995-01-01 and today"],
      [[fixtureFile("SDN.CSV")], "28/11/2026", "published_on", "YYYY-MM-DD"],
      [
        [fixtureFile("CONS_PRIM.CSV"), fixtureFile("CONS_ALT.CSV"), fixtureFile("CONS_ADD.CSV")],
        "2026-11-28",
        "files",
        "already loaded",
      ],
    ];
    for (const [files, date, field, message] of cases) {
      const outcome = await act(upload("staff", files, date));
      expect(outcome, message).toMatchObject({ kind: "refused", status: 422 });
      expect(outcome.value).toMatchObject({ field });
      expect(outcome.body).toContain(message);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("an unknown intent is a 400", async () => {
    expect(await act(people.post("staff", "/admin/sanctions", { intent: "explode" }))).toMatchObject({
      kind: "refused",
      status: 400,
    });
  });
});

describe("/admin/sanctions: who may", () => {
  for (const persona of PERSONAS) {
    it(`the page for ${persona}`, async () => {
      const outcome = await run(() =>
        sanctionsRoute.loader({
          request: people.get(persona, "/admin/sanctions"),
          params: {},
          context: context(),
        } as never),
      );
      if (persona === "staff") expect(outcome).toMatchObject({ kind: "ok", status: 200 });
      else expectSentAway(outcome, persona, "/admin/sanctions");
    });
  }
  itRefuses(
    "the upload",
    PERSONAS.filter((p) => p !== "staff"),
    (persona) =>
      sanctionsRoute.action({
        request: upload(persona, [fixtureFile("SDN.CSV"), fixtureFile("ALT.CSV")], "2026-11-27"),
        params: {},
        context: context(),
      } as never),
    { unchanged: snapshot },
  );
});
