import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import { institution } from "~/config/institution.server";
import {
  DISCLOSURE_KINDS,
  NOTICE_DAYS_AHEAD,
  NOTICE_RULES,
  changeTakesEffectOn,
  type DisclosureKind,
} from "~/domain/electronic-delivery";
import { formatBusinessDate } from "~/domain/calendar-date";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { disclosureChanges, disclosureNotices, memberProfiles, users } from "~/server/db/schema";
import { notify } from "~/server/notifications/notifications.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { today } from "~/server/ledger/ledger.server";
import { logger } from "~/server/logger.server";
import { onPaperDelivery } from "./electronic-delivery.server";

/**
 * Change-in-terms notices (docs/product.md#disclosures): when the profile holds a new version of a
 * disclosure, every approved member is told, by email and in the app when they consented to
 * electronic delivery, and on the paper mail list otherwise (E-SIGN, 15 U.S.C. 7001(c)). The change
 * takes effect no sooner than its rule's notice period after it was first seen (12 CFR 1005.8(a):
 * 21 days; 12 CFR 1030.5(a): 30 days; 12 CFR 229.18(e): 30 days). One `disclosure_notices` row per
 * member and version, written with the in-app notice in one transaction (its unique key: never
 * twice); the email follows the commit. The job tells members in batches and starts again where it
 * stopped.
 */

const BATCH = 200;

/** Records each disclosure's version the first time the profile holds it; the first one of a kind is the baseline. */
export async function recordDisclosureChanges(db: Db, now: Date): Promise<number> {
  const d = institution().disclosures;
  const on = today(now);
  let recorded = 0;
  for (const kind of DISCLOSURE_KINDS) {
    const { version, effective_on } = d[kind];
    const [seen] = await db
      .select({ id: disclosureChanges.id })
      .from(disclosureChanges)
      .where(and(eq(disclosureChanges.kind, kind), eq(disclosureChanges.version, version)));
    if (seen) continue;
    const [any] = await db
      .select({ id: disclosureChanges.id })
      .from(disclosureChanges)
      .where(eq(disclosureChanges.kind, kind))
      .limit(1);
    const baseline = !any;
    const inserted = await db
      .insert(disclosureChanges)
      .values({
        kind,
        version,
        profile_effective_on: effective_on,
        effective_on: baseline ? effective_on : changeTakesEffectOn(kind, on, effective_on),
        announced_on: on,
        baseline,
        created_at: now,
        notices_done_at: baseline ? now : null,
      })
      .onConflictDoNothing()
      .returning({ id: disclosureChanges.id });
    recorded += inserted.length;
  }
  return recorded;
}

interface Letter {
  member_id: string;
  email: string;
  subject: string;
  text: string;
}

function noticeText(kind: DisclosureKind, version: string, effective_on: string): { subject: string; text: string } {
  const profile = institution();
  const title = profile.disclosures[kind].title;
  const rule = NOTICE_RULES[kind];
  return {
    subject: `Change in terms: ${title}`,
    text:
      `We are changing our ${title}. The new version (${version}) takes effect on ${formatBusinessDate(effective_on)}.\n\n` +
      `You can read it in online banking under Statements and notices → Your disclosures, or ask us for a paper copy.` +
      (rule ? ` We tell you ${NOTICE_DAYS_AHEAD[kind]} days ahead, as ${rule} requires.` : "") +
      `\n\nIf you have questions, call us at ${profile.support_phone} or write to ${profile.support_email}.`,
  };
}

/**
 * Tells up to `BATCH` members not yet told of one change; answers how many were told. A member is
 * told once (the row's unique key), however often this runs.
 */
async function tellBatch(db: Db, change: typeof disclosureChanges.$inferSelect, now: Date): Promise<number> {
  const kind = change.kind as DisclosureKind;
  const waiting = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .innerJoin(memberProfiles, eq(memberProfiles.user_id, users.id))
    .where(
      and(
        eq(memberProfiles.status, "approved"),
        sql`coalesce(${users.role}, 'user') = 'user'`,
        sql`not exists (select 1 from ${disclosureNotices} n where n.member_id = ${users.id} and n.kind = ${change.kind} and n.version = ${change.version})`,
      ),
    )
    .orderBy(asc(users.id))
    .limit(BATCH);
  const { subject, text } = noticeText(kind, change.version, change.effective_on);
  const letters: Letter[] = [];
  for (const member of waiting) {
    const told = await db.transaction(async (tx) => {
      const channel = (await onPaperDelivery(tx, member.id)) ? "mail" : "email";
      const [row] = await tx
        .insert(disclosureNotices)
        .values({
          member_id: member.id,
          kind: change.kind,
          version: change.version,
          effective_on: change.effective_on,
          channel,
          sent_at: now,
        })
        .onConflictDoNothing()
        .returning({ id: disclosureNotices.id });
      if (!row) return null;
      await notify(tx, { member_id: member.id, kind: "disclosure_change", title: subject, body: text, at: now });
      return channel;
    });
    if (told === "email") letters.push({ member_id: member.id, email: member.email, subject, text });
  }
  for (const letter of letters) {
    try {
      await sendEmail(db, {
        kind: "disclosure_notice",
        to: letter.email,
        user_id: letter.member_id,
        subject: letter.subject,
        text: letter.text,
      });
    } catch (error) {
      logger.error({ err: error }, "could not queue a change-in-terms email");
    }
  }
  return waiting.length;
}

/** The job: records new versions, then tells the members of every change not yet done. */
export async function sendChangeInTermsNotices(db: Db, now: Date = new Date()): Promise<Record<string, number>> {
  const recorded = await recordDisclosureChanges(db, now);
  const open = await db
    .select()
    .from(disclosureChanges)
    .where(and(isNull(disclosureChanges.notices_done_at), eq(disclosureChanges.baseline, false)))
    .orderBy(asc(disclosureChanges.id));
  let told = 0;
  for (const change of open) {
    for (;;) {
      const n = await tellBatch(db, change, now);
      told += n;
      if (n < BATCH) break;
    }
    await db.update(disclosureChanges).set({ notices_done_at: now }).where(eq(disclosureChanges.id, change.id));
  }
  return { recorded, changes: open.length, told };
}

export interface DisclosureChangeView {
  id: number;
  kind: DisclosureKind;
  title: string;
  version: string;
  announced_on: string;
  profile_effective_on: string;
  effective_on: string;
  rule: string | null;
  days_ahead: number;
  by_email: number;
  by_mail: number;
  done: boolean;
}

/** What staff see: each change (newest first) with its dates, rule and how many members were told how. */
export async function disclosureChangesForStaff(db: DbOrTx): Promise<DisclosureChangeView[]> {
  const rows = await db
    .select()
    .from(disclosureChanges)
    .where(eq(disclosureChanges.baseline, false))
    .orderBy(desc(disclosureChanges.id))
    .limit(100);
  const counts = await db
    .select({
      kind: disclosureNotices.kind,
      version: disclosureNotices.version,
      channel: disclosureNotices.channel,
      n: sql<number>`count(*)::int`,
    })
    .from(disclosureNotices)
    .groupBy(disclosureNotices.kind, disclosureNotices.version, disclosureNotices.channel);
  const count = (kind: string, version: string, channel: string) =>
    Number(counts.find((c) => c.kind === kind && c.version === version && c.channel === channel)?.n ?? 0);
  const d = institution().disclosures;
  return rows.map((r) => {
    const kind = r.kind as DisclosureKind;
    return {
      id: r.id,
      kind,
      title: d[kind]?.title ?? r.kind,
      version: r.version,
      announced_on: r.announced_on,
      profile_effective_on: r.profile_effective_on,
      effective_on: r.effective_on,
      rule: NOTICE_RULES[kind] ?? null,
      days_ahead: NOTICE_DAYS_AHEAD[kind] ?? 0,
      by_email: count(r.kind, r.version, "email"),
      by_mail: count(r.kind, r.version, "mail"),
      done: r.notices_done_at !== null,
    };
  });
}
