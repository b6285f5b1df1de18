import { and, asc, desc, eq, gt, inArray } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { memberProfiles, sanctionsRescreens, sanctionsScreenings, type ScreeningMatchRecord } from "~/server/db/schema";
import { recordAudit } from "~/server/audit/audit.server";
import { decryptField } from "~/server/security/crypto.server";
import { encryptionContext } from "~/server/members/members.server";
import { logger } from "~/server/logger.server";
import { BulkScreener } from "~/domain/sanctions/bulk-screen";
import type { ScreenedParty } from "~/domain/sanctions/match";
import { currentScreeningIndex } from "./lists.server";
import { clearedEntries, countryCode, fileScreening, matchRecords } from "./screening.server";

/**
 * The re-screen of every member against a newly loaded list (docs/operations.md#sanctions-re-screen,
 * 31 CFR 501: a person listed after they joined must be found). Each load writes a
 * `sanctions_rescreens` row in its own transaction; the `sanctions-rescreen` job works through
 * the approved members in user id order, a batch at a time: the batch is screened (the member,
 * with date of birth and address country, and the joint owner by name) outside any transaction,
 * then its possible matches are filed in the screening queue and the cursor moved on in one
 * transaction. A run stopped half way goes on from the cursor; a batch another process did
 * meanwhile is not filed twice (the cursor is checked under the row's lock).
 *
 * A member with a possible match already in the queue (open, waiting for a second staff member,
 * or confirmed) gets no second item; entries staff cleared for the member are not filed again.
 */
export const RESCREEN_BATCH = 500;

export interface RescreenRun {
  rescreen_id: number | null;
  members_screened: number;
  possible_matches: number;
  finished: boolean;
  superseded: number;
}

/** A member's profile as the re-screen reads it. */
interface MemberToScreen {
  user_id: string;
  first_name: string;
  last_name: string;
  date_of_birth_enc: string | null;
  country: string | null;
  joint_account: boolean;
  joint_name: string | null;
}

/** A member of the batch with a possible match, and the parties screened. */
interface Hit {
  member: MemberToScreen;
  parties: ScreenedParty[];
  matches: ScreeningMatchRecord[];
}

/** The member and joint owner of a profile as the re-screen reads them. */
function partiesOf(member: MemberToScreen): ScreenedParty[] {
  let birth_date: string | null = null;
  try {
    birth_date = member.date_of_birth_enc
      ? decryptField(member.date_of_birth_enc, encryptionContext("date_of_birth", member.user_id))
      : null;
  } catch {
    // A date that cannot be read (a key retired too early) must not stop everyone's screening:
    // the name is screened without it, which can only find more.
    logger.warn({ user_id: member.user_id }, "re-screen: a member's date of birth could not be decrypted");
  }
  const parties: ScreenedParty[] = [
    { name: `${member.first_name} ${member.last_name}`, birth_date, country: countryCode(member.country) },
  ];
  if (member.joint_account && member.joint_name?.trim()) parties.push({ name: member.joint_name });
  return parties;
}

/**
 * Works through the newest unfinished re-screen (older unfinished ones are superseded: their
 * members are screened against the newer lists instead). `max_batches` bounds one call (tests,
 * the bench); the job calls it without a bound.
 */
export async function rescreenMembers(
  db: Db,
  options: { now?: Date; batch_size?: number; max_batches?: number } = {},
): Promise<RescreenRun> {
  const batch_size = options.batch_size ?? RESCREEN_BATCH;
  const running = await db
    .select()
    .from(sanctionsRescreens)
    .where(eq(sanctionsRescreens.status, "running"))
    .orderBy(desc(sanctionsRescreens.id));
  const run: RescreenRun = {
    rescreen_id: running[0]?.id ?? null,
    members_screened: 0,
    possible_matches: 0,
    finished: false,
    superseded: 0,
  };
  if (!running[0]) return run;
  const now = options.now ?? new Date();
  run.superseded = await supersedeOlder(
    db,
    running.slice(1).map((r) => r.id),
    now,
  );
  const rescreen_id = running[0].id;
  const loaded = await currentScreeningIndex(db);
  // One screener for the run: it keeps which listed names each given and family name comes near.
  const screener = new BulkScreener(loaded.index);

  for (let batch = 0; options.max_batches === undefined || batch < options.max_batches; batch++) {
    const [state] = await db.select().from(sanctionsRescreens).where(eq(sanctionsRescreens.id, rescreen_id));
    if (!state || state.status !== "running") break;
    const members = await membersAfter(db, state.cursor, batch_size);
    if (members.length === 0) {
      await finishRescreen(db, rescreen_id, now);
      run.finished = true;
      break;
    }
    // Screened outside the transaction: no lock waits on the matcher.
    const hits = members
      .map((member) => {
        const parties = partiesOf(member);
        const matches = matchRecords(
          loaded,
          parties.map((party) => ({ party, matches: screener.screen(party) })),
        );
        return { member, parties, matches };
      })
      .filter((h) => h.matches.length > 0);
    const filed = await fileBatch(db, { rescreen_id, cursor: state.cursor, members, hits });
    if (filed === null) continue;
    run.members_screened += members.length;
    run.possible_matches += filed;
  }
  return run;
}

/** Older re-screens still running: their members are screened against the newer lists instead. */
async function supersedeOlder(db: Db, older: number[], now: Date): Promise<number> {
  if (older.length === 0) return 0;
  const superseded = await db
    .update(sanctionsRescreens)
    .set({ status: "superseded", finished_at: now })
    .where(and(inArray(sanctionsRescreens.id, older), eq(sanctionsRescreens.status, "running")))
    .returning({ id: sanctionsRescreens.id });
  return superseded.length;
}

/** The next batch of approved members after the cursor, in user id order. */
async function membersAfter(db: Db, cursor: string | null, batch_size: number): Promise<MemberToScreen[]> {
  return db
    .select({
      user_id: memberProfiles.user_id,
      first_name: memberProfiles.first_name,
      last_name: memberProfiles.last_name,
      date_of_birth_enc: memberProfiles.date_of_birth_enc,
      country: memberProfiles.country,
      joint_account: memberProfiles.joint_account,
      joint_name: memberProfiles.joint_name,
    })
    .from(memberProfiles)
    .where(and(eq(memberProfiles.status, "approved"), cursor === null ? undefined : gt(memberProfiles.user_id, cursor)))
    .orderBy(asc(memberProfiles.user_id))
    .limit(batch_size);
}

/** Every member screened: the re-screen is done, with its totals in the audit log (once, under its lock). */
async function finishRescreen(db: Db, rescreen_id: number, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const [locked] = await tx
      .select()
      .from(sanctionsRescreens)
      .where(eq(sanctionsRescreens.id, rescreen_id))
      .for("update");
    if (locked?.status !== "running") return;
    await tx
      .update(sanctionsRescreens)
      .set({ status: "done", finished_at: now })
      .where(eq(sanctionsRescreens.id, rescreen_id));
    await recordAudit(tx, {
      actor_id: null,
      action: "sanctions.rescreen.done",
      subject_type: "sanctions_rescreen",
      subject_id: rescreen_id,
      after: {
        version_ids: locked.version_ids,
        members_screened: locked.members_screened,
        possible_matches: locked.possible_matches,
      },
    });
  });
}

/**
 * Files a screened batch's possible matches and moves the cursor past it, in one transaction;
 * null when another process moved the cursor meanwhile (or finished): the batch is theirs.
 */
async function fileBatch(
  db: Db,
  batch: { rescreen_id: number; cursor: string | null; members: MemberToScreen[]; hits: Hit[] },
): Promise<number | null> {
  const { rescreen_id, members } = batch;
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .select()
      .from(sanctionsRescreens)
      .where(eq(sanctionsRescreens.id, rescreen_id))
      .for("update");
    if (locked?.status !== "running" || locked.cursor !== batch.cursor) return null;
    const count = batch.hits.length > 0 ? await fileNewMatches(tx, rescreen_id, batch.hits) : 0;
    await tx
      .update(sanctionsRescreens)
      .set({
        cursor: members[members.length - 1]!.user_id,
        members_screened: locked.members_screened + members.length,
        possible_matches: locked.possible_matches + count,
      })
      .where(eq(sanctionsRescreens.id, rescreen_id));
    return count;
  });
}

/**
 * Files a screening item for each member with a possible match not already waiting in the queue
 * (or confirmed) and not cleared by staff before; returns how many were filed.
 */
async function fileNewMatches(tx: DbOrTx, rescreen_id: number, hits: Hit[]): Promise<number> {
  const ids = hits.map((h) => h.member.user_id);
  const waiting = new Set(
    (
      await tx
        .select({ subject_id: sanctionsScreenings.subject_id })
        .from(sanctionsScreenings)
        .where(
          and(
            eq(sanctionsScreenings.subject_type, "member"),
            inArray(sanctionsScreenings.subject_id, ids),
            inArray(sanctionsScreenings.status, ["open", "confirm_requested", "confirmed"]),
          ),
        )
    ).map((r) => r.subject_id),
  );
  const cleared = await clearedEntries(tx, "member", ids);
  let count = 0;
  for (const { member, parties, matches } of hits) {
    if (waiting.has(member.user_id)) continue;
    const done = cleared.get(member.user_id);
    const fresh = done ? matches.filter((m) => !done.has(`${m.source}:${m.uid}`)) : matches;
    if (fresh.length === 0) continue;
    const details: Record<string, string> = { kind: "Member re-screen", rescreen: String(rescreen_id) };
    if (parties[0]!.country) details.country = parties[0]!.country;
    if (parties[1]) details.joint_owner = parties[1].name;
    await fileScreening(tx, {
      subject_type: "member",
      subject_id: member.user_id,
      member_id: member.user_id,
      screened_name: parties[0]!.name,
      screened_details: details,
      matches: fresh,
    });
    count++;
  }
  return count;
}
