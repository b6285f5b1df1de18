import "../admin-support";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import {
  auditLog,
  jobRuns,
  ledgerAccounts,
  memberAccountSettings,
  memberProfiles,
  sanctionsRescreens,
  sanctionsScreenings,
} from "~/server/db/schema";
import { loadSanctionsLists } from "~/server/sanctions/lists.server";
import { rescreenMembers } from "~/server/sanctions/rescreen.server";
import { decideScreeningCase } from "~/server/admin/screening-decisions.server";
import { uploadSanctionsLists } from "~/routes/admin/sanctions.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { openTestDatabase } from "../test-database";
import { setAppDatabase } from "~/server/db/db.server";
import { fundedMember } from "../../factories";
import { ORIGIN, person } from "../admin-support";

/**
 * Every member screened again when a new list version is loaded (docs/operations.md#sanctions-re-screen):
 * the load asks for it in its own transaction, the job works through the approved members in
 * batches with a cursor (a run stopped half way goes on from there), possible matches land in the
 * screening queue once per member, entries staff cleared are not filed again, and a confirmed
 * match freezes the member's accounts.
 */
const fixtures = path.resolve(import.meta.dirname, "../../fixtures/sanctions");
let database: Database;
let first: { id: string; email: string };
let second: { id: string; email: string };
let listed: Awaited<ReturnType<typeof fundedMember>>;
let joint: Awaited<ReturnType<typeof fundedMember>>;

const files = (...names: string[]) =>
  names.map((name) => ({ name, bytes: fs.readFileSync(path.join(fixtures, name)) }));

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  first = await person(database.db, "admin");
  second = await person(database.db, "admin");
  for (let i = 0; i < 5; i++) await fundedMember(database.db, { first_name: "Pat", last_name: `Lee${i}` });
  listed = await fundedMember(database.db, {
    first_name: "Jose Luis",
    last_name: "Gonzales Moreno",
    date_of_birth: "1975-08-21", // the listed entry's
    checking_cents: 5_000,
  });
  joint = await fundedMember(database.db, { first_name: "Sam", last_name: "Okafor", joint_name: "Dmitry Petrovskiy" });
});
afterAll(async () => {
  if (database) expect((await verifyLedger(database.db)).ok).toBe(true);
  await database?.close();
});

const memberScreenings = (user_id: string) =>
  database.db
    .select()
    .from(sanctionsScreenings)
    .where(and(eq(sanctionsScreenings.subject_type, "member"), eq(sanctionsScreenings.subject_id, user_id)))
    .orderBy(sanctionsScreenings.id);
const approvedCount = async () =>
  Number(
    (
      await database.db
        .select({ n: sql<string>`count(*)::text` })
        .from(memberProfiles)
        .where(eq(memberProfiles.status, "approved"))
    )[0]!.n,
  );

describe("re-screening every member on a new list", () => {
  it("nothing to do before any list is loaded", async () => {
    expect(await rescreenMembers(database.db)).toMatchObject({ rescreen_id: null, members_screened: 0 });
  });

  it("a load asks for a re-screen; the job goes batch by batch and on from where it stopped", async () => {
    const loaded = await loadSanctionsLists(database.db, {
      files: files("SDN.CSV", "ALT.CSV", "ADD.CSV"),
      published_on: "2026-11-28",
      loader: null,
    });
    if (!loaded.ok) throw new Error(loaded.message);
    const [row] = await database.db
      .select()
      .from(sanctionsRescreens)
      .where(eq(sanctionsRescreens.id, loaded.rescreen_id));
    expect(row).toMatchObject({ status: "running", cursor: null, members_screened: 0 });

    // Stopped after one batch of three (a process ended): the cursor holds.
    const part = await rescreenMembers(database.db, { batch_size: 3, max_batches: 1 });
    expect(part).toMatchObject({ rescreen_id: loaded.rescreen_id, members_screened: 3, finished: false });
    const [after] = await database.db
      .select()
      .from(sanctionsRescreens)
      .where(eq(sanctionsRescreens.id, loaded.rescreen_id));
    expect(after!.cursor).not.toBeNull();

    const rest = await rescreenMembers(database.db, { batch_size: 3 });
    const total = await approvedCount();
    expect(rest.members_screened).toBe(total - 3);
    expect(rest.finished).toBe(true);
    const [done] = await database.db
      .select()
      .from(sanctionsRescreens)
      .where(eq(sanctionsRescreens.id, loaded.rescreen_id));
    expect(done).toMatchObject({ status: "done", members_screened: total });

    const [hit] = await memberScreenings(listed.member.id);
    expect(hit).toMatchObject({ status: "open", screened_name: "Jose Luis Gonzales Moreno" });
    expect(hit!.matches[0]).toMatchObject({ uid: "10005" });
    const [jointHit] = await memberScreenings(joint.member.id);
    expect(jointHit!.screened_details.joint_owner).toBe("Dmitry Petrovskiy");
    expect(jointHit!.matches[0]).toMatchObject({ uid: "10002", screened_name: "Dmitry Petrovskiy" });
    const [audit] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "sanctions.rescreen.done"), eq(auditLog.subject_id, String(loaded.rescreen_id))));
    expect(audit!.after).toMatchObject({ members_screened: total });

    // Done: another run finds nothing to do and files nothing.
    expect(await rescreenMembers(database.db)).toMatchObject({ rescreen_id: null });
  });

  it("a newer load: an item still open is not filed twice; an entry staff cleared is not filed again", async () => {
    const [open] = await memberScreenings(joint.member.id);
    const cleared = await decideScreeningCase(database.db, {
      screening_id: open!.id,
      decision: "clear",
      reason: "The joint owner's passport shows another person",
      staff: first,
      origin: ORIGIN,
    });
    expect(cleared).toEqual({ ok: true, message: "Cleared: nothing changes for the member." });
    // The back office's upload queues the job's run at once.
    const loaded = await uploadSanctionsLists({
      files: files("CONS_PRIM.CSV", "CONS_ALT.CSV", "CONS_ADD.CSV"),
      published_on: "2026-11-29",
      loader: first,
      origin: ORIGIN,
    });
    if (!loaded.ok) throw new Error(loaded.message);
    const [queued] = await database.db
      .select()
      .from(jobRuns)
      .where(and(eq(jobRuns.job, "sanctions-rescreen"), eq(jobRuns.key, `rescreen:${loaded.rescreen_id}`)));
    expect(queued).toMatchObject({ state: "queued" });
    const run = await rescreenMembers(database.db);
    expect(run).toMatchObject({ rescreen_id: loaded.rescreen_id, finished: true, possible_matches: 0 });
    expect(await memberScreenings(listed.member.id)).toHaveLength(1);
    expect(await memberScreenings(joint.member.id)).toHaveLength(1);
  });

  it("an older unfinished re-screen is superseded by a newer one", async () => {
    await database.db.insert(sanctionsRescreens).values([{ version_ids: [1] }, { version_ids: [2] }]);
    const run = await rescreenMembers(database.db);
    expect(run).toMatchObject({ superseded: 1, finished: true });
    const running = await database.db.select().from(sanctionsRescreens).where(eq(sanctionsRescreens.status, "running"));
    expect(running).toHaveLength(0);
  });

  it("a confirmed match on a member freezes every account, audited, with the member told without a list named", async () => {
    const [open] = await memberScreenings(listed.member.id);
    await decideScreeningCase(database.db, {
      screening_id: open!.id,
      decision: "request_confirm",
      reason: "Date of birth agrees",
      staff: first,
      origin: ORIGIN,
    });
    const confirmed = await decideScreeningCase(database.db, {
      screening_id: open!.id,
      decision: "approve_confirm",
      reason: "",
      staff: second,
      origin: ORIGIN,
    });
    expect(confirmed).toMatchObject({
      ok: true,
      message: expect.stringMatching(
        /^Confirmed: the member's 2 accounts are frozen\. A report to OFAC is drafted on the item's page, due by [A-Z][a-z]{2} \d{1,2}, \d{4}\.$/,
      ),
    });
    const [decided] = await memberScreenings(listed.member.id);
    expect(decided!.report_draft).toMatchObject({
      kind: "blocked_property",
      party: "Jose Luis Gonzales Moreno",
      list_entry: "Specially Designated Nationals (SDN) list, entry 10005",
    });
    expect(decided!.report_draft!.facts[0]).toMatch(
      /^Checking •+ \d{4} \(\$50\.00\), Savings •+ \d{4} \(\$0\.00\) frozen: \$50\.00 in all\.$/,
    );
    const accounts = await database.db
      .select()
      .from(ledgerAccounts)
      .where(eq(ledgerAccounts.member_id, listed.member.id));
    expect(accounts.map((a) => a.status)).toEqual(["frozen", "frozen"]);
    const settings = await database.db
      .select()
      .from(memberAccountSettings)
      .where(eq(memberAccountSettings.account_id, accounts[0]!.id));
    expect(settings[0]).toMatchObject({ status_reason: "Compliance review", updated_by: second.id });
    const freezes = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "ledger.account.freeze"), eq(auditLog.member_id, listed.member.id)));
    expect(freezes).toHaveLength(2);
  });
});
