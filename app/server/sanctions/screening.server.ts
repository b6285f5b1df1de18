import { refusal, type Refusal } from "~/domain/refusals";
import { and, desc, eq, inArray, ne, sql, type AnyColumn } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import {
  auditLog,
  externalPayments,
  ledgerAccounts,
  memberAccountSettings,
  memberProfiles,
  sanctionsScreenings,
  users,
  type ScreeningMatchRecord,
  type SanctionsScreening,
} from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { setAccountStatus } from "~/server/ledger/accounts.server";
import { hasControlCharacters } from "~/domain/plain-text";
import type { Actor } from "~/domain/actor";
import { memberPaymentStatus, type PaymentStatus } from "~/domain/payment-status";
import { screeningReportDraft, type ReportSubject, type ScreeningReportDraft } from "~/domain/sanctions/report";
import { SANCTIONS_SOURCE_NAMES, type SanctionsSource } from "~/domain/sanctions/entries";
import { accountLabel } from "~/domain/account-display";
import { formatBusinessDate } from "~/domain/calendar-date";
import { today } from "~/server/ledger/ledger.server";
import { MATCH_THRESHOLD, screenParty, type PossibleMatch, type ScreenedParty } from "~/domain/sanctions/match";
import { findCountry, searchCountries } from "~/domain/countries";
import { byDueDate, reviewDeadline, screeningPolicy, type ReviewDeadline } from "~/domain/review-deadlines";
import { currentScreeningIndex, type LoadedIndex } from "./lists.server";

/**
 * Sanctions screening (docs/product.md#sanctions-screening, 31 CFR 501 and the OFAC
 * regulations of chapter V): the parties of an action compared with the newest version of each
 * loaded list. A possible match stops the action and is kept here, in the screening queue, for
 * staff: cleared with a reason (the action goes on) or confirmed by two staff members (a payment
 * is never sent and its money stays held, the account is frozen; an application is declined; a
 * member's accounts are frozen).
 */
const MATCHES_KEPT = 5;

export type ScreeningSubject = SanctionsScreening["subject_type"];

/** The possible matches of the parties (best first, at most five), empty when none or no list is loaded. */
export async function screenParties(db: DbOrTx, parties: readonly ScreenedParty[]): Promise<ScreeningMatchRecord[]> {
  const loaded = await currentScreeningIndex(db);
  if (loaded.index.entries.length === 0) return [];
  return matchRecords(
    loaded,
    parties.map((party) => ({ party, matches: screenParty(party, loaded.index, MATCH_THRESHOLD) })),
  );
}

/** The matcher's answers for some parties as the queue keeps them: best first, one per entry, at most five. */
export function matchRecords(
  loaded: LoadedIndex,
  screened: readonly { party: ScreenedParty; matches: readonly PossibleMatch[] }[],
): ScreeningMatchRecord[] {
  const found: ScreeningMatchRecord[] = [];
  for (const { party, matches } of screened) {
    for (const match of matches) {
      const row = loaded.rows.get(match.entry)!;
      found.push({
        entry_id: row.entry_id,
        version_id: row.version_id,
        source: match.entry.source,
        uid: match.entry.uid,
        listed_name: match.entry.name,
        matched_name: match.matched_name,
        name_kind: match.name_kind,
        score: Math.round(match.score * 1000) / 1000,
        name_score: Math.round(match.name_score * 1000) / 1000,
        birth_date: match.birth_date,
        country: match.country,
        screened_name: party.name,
      });
    }
  }
  const seen = new Set<number>();
  return found
    .sort((a, b) => b.score - a.score)
    .filter((m) => (seen.has(m.entry_id) ? false : (seen.add(m.entry_id), true)))
    .slice(0, MATCHES_KEPT);
}

/** A possible match put in the queue, with its audit row, inside the caller's transaction. */
export async function fileScreening(
  tx: DbOrTx,
  input: {
    subject_type: ScreeningSubject;
    subject_id: string;
    member_id: string;
    screened_name: string;
    screened_details: Record<string, string>;
    matches: ScreeningMatchRecord[];
  },
): Promise<number> {
  const [row] = await tx
    .insert(sanctionsScreenings)
    .values({ ...input, score: input.matches[0]!.score.toFixed(3) })
    .returning({ id: sanctionsScreenings.id });
  await recordAudit(tx, {
    actor_id: null,
    action: "sanctions.screening.hit",
    subject_type: "sanctions_screening",
    subject_id: row!.id,
    member_id: input.member_id,
    after: {
      subject_type: input.subject_type,
      subject_id: input.subject_id,
      screened_name: input.screened_name,
      matches: input.matches.map((m) => ({ source: m.source, uid: m.uid, listed_name: m.listed_name, score: m.score })),
    },
  });
  return row!.id;
}

/** The screening of a subject still standing in the way (open, or waiting for a second staff member), if any. */
export async function blockingScreening(
  db: DbOrTx,
  subject_type: ScreeningSubject,
  subject_id: string,
): Promise<SanctionsScreening | null> {
  const [row] = await db
    .select()
    .from(sanctionsScreenings)
    .where(
      and(
        eq(sanctionsScreenings.subject_type, subject_type),
        eq(sanctionsScreenings.subject_id, subject_id),
        inArray(sanctionsScreenings.status, ["open", "confirm_requested", "confirmed"]),
      ),
    )
    .orderBy(desc(sanctionsScreenings.id))
    .limit(1);
  return row ?? null;
}

/** Whether a subject's possible match was cleared by staff (the approval may go on without screening it again). */
export async function clearedScreening(
  db: DbOrTx,
  subject_type: ScreeningSubject,
  subject_id: string,
): Promise<boolean> {
  const [row] = await db
    .select({ id: sanctionsScreenings.id })
    .from(sanctionsScreenings)
    .where(
      and(
        eq(sanctionsScreenings.subject_type, subject_type),
        eq(sanctionsScreenings.subject_id, subject_id),
        eq(sanctionsScreenings.status, "cleared"),
      ),
    )
    .limit(1);
  return Boolean(row);
}

/** The listed entries ("source:uid") staff already cleared for each subject: not filed again for it. */
export async function clearedEntries(
  db: DbOrTx,
  subject_type: ScreeningSubject,
  subject_ids: readonly string[],
): Promise<Map<string, Set<string>>> {
  const cleared = new Map<string, Set<string>>();
  if (subject_ids.length === 0) return cleared;
  const rows = await db
    .select({ subject_id: sanctionsScreenings.subject_id, matches: sanctionsScreenings.matches })
    .from(sanctionsScreenings)
    .where(
      and(
        eq(sanctionsScreenings.subject_type, subject_type),
        inArray(sanctionsScreenings.subject_id, [...subject_ids]),
        eq(sanctionsScreenings.status, "cleared"),
      ),
    );
  for (const row of rows) {
    const set = cleared.get(row.subject_id) ?? new Set<string>();
    for (const m of row.matches) set.add(`${m.source}:${m.uid}`);
    cleared.set(row.subject_id, set);
  }
  return cleared;
}

/** An address country as the application states it ("United States", "US") as its ISO code, or null. */
export function countryCode(text: string | null | undefined): string | null {
  const typed = (text ?? "").trim();
  if (!typed) return null;
  const byCode = typed.length === 2 ? findCountry(typed) : undefined;
  if (byCode) return byCode.code;
  const [best] = searchCountries(typed, 1);
  const same = (a: string) => a.localeCompare(typed, "en", { sensitivity: "base" }) === 0;
  return best && (same(best.name) || (best.aliases ?? []).some(same)) ? best.code : null;
}

/** The people of a membership application screened before it is approved. */
export interface ApplicationParties {
  applicant: { name: string; birth_date: string | null; country: string | null };
  /** The joint owner's name: the application asks no date of birth or address for them. */
  joint_name: string | null;
}

export type ApplicationScreening =
  | { status: "clear" }
  /** A possible match found now, put in the queue. */
  | { status: "filed"; screening_id: number }
  /** A possible match already in the queue (open, waiting for a second staff member, or confirmed). */
  | { status: "waiting"; screening_id: number; screening_status: SanctionsScreening["status"] };

/**
 * Screens an applicant and their joint owner (docs/product.md#sanctions-screening), inside the
 * caller's transaction (which holds the application's row): a possible match already in the queue
 * stands; a new one is filed. Entries staff cleared for this applicant are not filed again, so
 * a cleared hit lets the approval go on, while an entry of a newer list still stops it.
 */
export async function screenApplication(
  tx: DbOrTx,
  user_id: string,
  parties: ApplicationParties,
): Promise<ApplicationScreening> {
  const waiting = await blockingScreening(tx, "application", user_id);
  if (waiting) return { status: "waiting", screening_id: waiting.id, screening_status: waiting.status };
  const { applicant, joint_name } = parties;
  const screened: ScreenedParty[] = [
    { name: applicant.name, birth_date: applicant.birth_date, country: applicant.country },
  ];
  if (joint_name?.trim()) screened.push({ name: joint_name });
  const cleared = (await clearedEntries(tx, "application", [user_id])).get(user_id) ?? new Set<string>();
  const matches = (await screenParties(tx, screened)).filter((m) => !cleared.has(`${m.source}:${m.uid}`));
  if (matches.length === 0) return { status: "clear" };
  const details: Record<string, string> = { kind: "Membership application" };
  if (applicant.country) details.country = applicant.country;
  if (joint_name?.trim()) details.joint_owner = joint_name.trim();
  const screening_id = await fileScreening(tx, {
    subject_type: "application",
    subject_id: user_id,
    member_id: user_id,
    screened_name: applicant.name,
    screened_details: details,
    matches,
  });
  return { status: "filed", screening_id };
}

export interface ScreeningRow {
  id: number;
  subject_type: ScreeningSubject;
  subject_id: string;
  member_id: string;
  member_email: string | null;
  screened_name: string;
  screened_details: Record<string, string>;
  matches: ScreeningMatchRecord[];
  score: string;
  status: SanctionsScreening["status"];
  created_at: string;
  confirm_requested_by: string | null;
  confirm_requested_by_email: string | null;
  confirm_reason: string | null;
  /** When it must be decided (docs/product.md#review-deadlines), its age and how it stands. */
  deadline: ReviewDeadline;
}

/** The queue: possible matches waiting for staff (open, or waiting for a second staff member), by due date. */
export async function screeningQueue(db: DbOrTx, now: Date = new Date()): Promise<ScreeningRow[]> {
  const day = today(now);
  const requester = sql<
    string | null
  >`(select email from users where users.id = ${sanctionsScreenings.confirm_requested_by})`;
  const rows = await db
    .select({ s: sanctionsScreenings, member_email: users.email, requester_email: requester })
    .from(sanctionsScreenings)
    .leftJoin(users, eq(users.id, sanctionsScreenings.member_id))
    .where(inArray(sanctionsScreenings.status, ["open", "confirm_requested"]))
    .orderBy(sanctionsScreenings.id)
    .limit(200);
  const list = rows.map(({ s, member_email, requester_email }) => ({
    id: s.id,
    subject_type: s.subject_type,
    subject_id: s.subject_id,
    member_id: s.member_id,
    member_email,
    screened_name: s.screened_name,
    screened_details: s.screened_details,
    matches: s.matches,
    score: s.score,
    status: s.status,
    created_at: s.created_at.toISOString(),
    confirm_requested_by: s.confirm_requested_by,
    confirm_requested_by_email: requester_email,
    confirm_reason: s.confirm_reason,
    deadline: reviewDeadline(screeningPolicy(s.subject_type), today(s.created_at), day),
  }));
  return byDueDate(list);
}

/** One screening with every decision on it, as its page shows it. */
export interface ScreeningItem extends ScreeningRow {
  cleared_by_email: string | null;
  cleared_at: string | null;
  clear_reason: string | null;
  confirm_requested_at: string | null;
  confirmed_by_email: string | null;
  confirmed_at: string | null;
  /** Every step, oldest first, from the audit log. */
  history: { at: string; action: string; actor: string; reason: string | null }[];
  /** The report a confirmation calls for, drafted when it was approved. */
  report_draft: ScreeningReportDraft | null;
  /** The payment a payee's screening stopped: what a banker asks first. */
  payment: { amount_cents: number; reference: string | null; status: PaymentStatus } | null;
}

const STEP_LABELS: Record<string, string> = {
  "sanctions.screening.hit": "Possible match found",
  "sanctions.screening.clear": "Cleared",
  "sanctions.screening.request_confirm": "Confirmation asked",
  "sanctions.screening.approve_confirm": "Confirmation approved",
  "sanctions.screening.decline_confirm": "Confirmation declined",
};

/** A screening by its id, whatever its status, or null. */
export async function screeningItem(db: DbOrTx, id: number): Promise<ScreeningItem | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const email = (column: AnyColumn) => sql<string | null>`(select email from users where users.id = ${column})`;
  const [found] = await db
    .select({
      s: sanctionsScreenings,
      member_email: users.email,
      requester_email: email(sanctionsScreenings.confirm_requested_by),
      cleared_by_email: email(sanctionsScreenings.cleared_by),
      confirmed_by_email: email(sanctionsScreenings.confirmed_by),
    })
    .from(sanctionsScreenings)
    .leftJoin(users, eq(users.id, sanctionsScreenings.member_id))
    .where(eq(sanctionsScreenings.id, id));
  if (!found) return null;
  const { s } = found;
  const history = await screeningHistory(db, id);
  const payment = await screenedPayment(db, s);
  return {
    report_draft: s.report_draft,
    payment,
    id: s.id,
    subject_type: s.subject_type,
    subject_id: s.subject_id,
    member_id: s.member_id,
    member_email: found.member_email,
    screened_name: s.screened_name,
    screened_details: s.screened_details,
    matches: s.matches,
    score: s.score,
    status: s.status,
    created_at: s.created_at.toISOString(),
    confirm_requested_by: s.confirm_requested_by,
    confirm_requested_by_email: found.requester_email,
    confirm_reason: s.confirm_reason,
    cleared_by_email: found.cleared_by_email,
    cleared_at: s.cleared_at?.toISOString() ?? null,
    clear_reason: s.clear_reason,
    confirm_requested_at: s.confirm_requested_at?.toISOString() ?? null,
    confirmed_by_email: found.confirmed_by_email,
    confirmed_at: s.confirmed_at?.toISOString() ?? null,
    deadline: reviewDeadline(screeningPolicy(s.subject_type), today(s.created_at), today()),
    history,
  };
}

/** Every step of a screening, oldest first, from the audit log, in staff's words. */
async function screeningHistory(db: DbOrTx, id: number): Promise<ScreeningItem["history"]> {
  const steps = await db
    .select({ at: auditLog.at, action: auditLog.action, actor_email: auditLog.actor_email, after: auditLog.after })
    .from(auditLog)
    .where(and(eq(auditLog.subject_type, "sanctions_screening"), eq(auditLog.subject_id, String(id))))
    .orderBy(auditLog.id);
  return steps.map((step) => {
    const reason = (step.after as { reason?: unknown } | null)?.reason;
    return {
      at: step.at.toISOString(),
      action: STEP_LABELS[step.action] ?? step.action,
      actor: step.actor_email ?? "automatic screening",
      reason: typeof reason === "string" && reason ? reason : null,
    };
  });
}

/** The payment a payee's screening stopped, as the member would see its status; null for other subjects. */
async function screenedPayment(db: DbOrTx, s: SanctionsScreening): Promise<ScreeningItem["payment"]> {
  if (s.subject_type !== "payment" || !/^\d{1,18}$/.test(s.subject_id)) return null;
  const [payment] = await db
    .select({
      amount_cents: externalPayments.amount_cents,
      reference: externalPayments.reference,
      status: externalPayments.status,
    })
    .from(externalPayments)
    .where(eq(externalPayments.id, Number(s.subject_id)));
  if (!payment) return null;
  return {
    amount_cents: Number(payment.amount_cents),
    reference: payment.reference,
    status: memberPaymentStatus(payment.status, null),
  };
}

/** How many possible matches wait for staff (the navigation's count). */
export async function screeningsWaiting(db: DbOrTx): Promise<number> {
  const [row] = await db
    .select({ n: sql<string>`count(*)::text` })
    .from(sanctionsScreenings)
    .where(inArray(sanctionsScreenings.status, ["open", "confirm_requested"]));
  return Number(row?.n ?? 0);
}

export type ScreeningDecision = "clear" | "request_confirm" | "approve_confirm" | "decline_confirm";

export type ScreeningDecisionResult = { ok: true; message: string } | Refusal;

const SCREENING_NOT_FOUND = "This screening was not found.";

const REASON_MAX = 500;

export interface ScreeningDecisionInput {
  screening_id: number;
  decision: ScreeningDecision;
  reason: string;
  staff: Actor;
  origin: AuditOrigin;
  /**
   * What a confirmed match on an applicant does, in the same transaction: the back office
   * declines the application (app/server/admin/review.server.ts, a floor above this one).
   */
  onApplicationConfirmed?: (tx: DbOrTx, screening: SanctionsScreening) => Promise<void>;
  /**
   * An incoming IAT entry's screening (the rails, a floor above): cleared, the entry posts and
   * the callback says what became of it; confirmed, the entry is blocked and the callback says
   * which account it named (frozen here) and what the report states.
   */
  onEntryCleared?: (tx: DbOrTx, screening: SanctionsScreening) => Promise<string>;
  onEntryConfirmed?: (
    tx: DbOrTx,
    screening: SanctionsScreening,
  ) => Promise<{ account_id: number | null; report: ReportSubject }>;
}

/** What one decision step needs: the locked screening, who decides, when, and the callers' callbacks. */
interface DecisionStep {
  tx: DbOrTx;
  row: SanctionsScreening;
  reason: string;
  now: Date;
  input: ScreeningDecisionInput;
}

/** What a step changed, for the audit row, and what staff read. */
type StepOutcome = { after: Record<string, unknown>; message: string };

/**
 * Staff's decision on a possible match, in one transaction with its audit row:
 * - clear (with a reason): the match is not the party; a payment goes to its queue (pending) and
 *   the member is told it is on its way; an application may be approved;
 * - request_confirm (with a reason): it is the party; it waits for a second staff member;
 * - approve_confirm, by another staff member than the one who asked: a payment is blocked (never
 *   sent, its money stays held) and the account it was to leave from is frozen; an application
 *   can no longer be approved;
 * - decline_confirm, by another staff member: back to open.
 */
export async function decideScreening(db: Db, input: ScreeningDecisionInput): Promise<ScreeningDecisionResult> {
  const { decision, staff, origin } = input;
  const reason = input.reason.trim();
  const bad = decisionInputRefusal(input, reason);
  if (bad) return bad;
  return db.transaction(async (tx): Promise<ScreeningDecisionResult> => {
    const [row] = await tx
      .select()
      .from(sanctionsScreenings)
      .where(eq(sanctionsScreenings.id, input.screening_id))
      .for("update");
    if (!row) return refusal("not_found", SCREENING_NOT_FOUND);
    const conflict = decisionConflict(row, decision, staff);
    if (conflict) return conflict;
    const step: DecisionStep = { tx, row, reason, now: new Date(), input };
    const before = { status: row.status };
    const { after, message } =
      decision === "clear"
        ? await clearScreening(step)
        : decision === "request_confirm"
          ? await requestConfirmation(step)
          : decision === "decline_confirm"
            ? await declineConfirmation(step)
            : await confirmScreening(step);
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: `sanctions.screening.${decision}`,
      subject_type: "sanctions_screening",
      subject_id: row.id,
      member_id: row.member_id,
      before,
      after,
      ...origin,
    });
    return { ok: true as const, message };
  });
}

/** The form's checks, before anything is read: a reason where one is needed, plain and short. */
function decisionInputRefusal(input: ScreeningDecisionInput, reason: string): Refusal | null {
  if ((input.decision === "clear" || input.decision === "request_confirm") && reason === "")
    return refusal("bad_input", "Enter the reason.", { field: "reason" });
  if (reason.length > REASON_MAX || hasControlCharacters(reason))
    return refusal("bad_input", `The reason is at most ${REASON_MAX} characters of plain text.`, { field: "reason" });
  if (!Number.isSafeInteger(input.screening_id) || input.screening_id <= 0)
    return refusal("not_found", SCREENING_NOT_FOUND);
  return null;
}

/**
 * Whether the screening is still where the decision expects it (someone may have decided
 * meanwhile), and the four-eyes rule: who asked to confirm cannot approve or decline.
 */
function decisionConflict(row: SanctionsScreening, decision: ScreeningDecision, staff: Actor): Refusal | null {
  const expected = decision === "clear" || decision === "request_confirm" ? "open" : "confirm_requested";
  if (row.status !== expected)
    return refusal("conflict", "This screening was already decided or changed meanwhile. Reload the page.");
  if ((decision === "approve_confirm" || decision === "decline_confirm") && row.confirm_requested_by === staff.id)
    return refusal("conflict", "You asked to confirm this match: another staff member must approve or decline it.");
  return null;
}

/** Not the party: what the screening held goes on (a payment to its queue, an IAT entry posts). */
async function clearScreening({ tx, row, reason, now, input }: DecisionStep): Promise<StepOutcome> {
  await tx
    .update(sanctionsScreenings)
    .set({ status: "cleared", cleared_by: input.staff.id, cleared_at: now, clear_reason: reason })
    .where(eq(sanctionsScreenings.id, row.id));
  const after = { status: "cleared", reason };
  if (row.subject_type === "payment") {
    const payment = await paymentOf(tx, row.subject_id);
    if (payment?.status !== "screening") return { after, message: "Cleared." };
    await tx.update(externalPayments).set({ status: "pending" }).where(eq(externalPayments.id, payment.id));
    await notify(tx, {
      member_id: row.member_id,
      kind: "payment_pending",
      title: "Your payment is on its way",
      body: "We finished reviewing your payment: it goes out with the next file.",
    });
    return { after, message: "Cleared: the payment goes to its queue and out with the next file." };
  }
  if (row.subject_type === "ach_entry") {
    if (!input.onEntryCleared) throw new Error("an IAT entry's screening is decided by the back office");
    return { after, message: `Cleared: ${await input.onEntryCleared(tx, row)}` };
  }
  if (row.subject_type === "application") return { after, message: "Cleared: the application can be approved." };
  return { after, message: "Cleared: nothing changes for the member." };
}

/** It is the party: the first of two staff members says so; nothing is stopped yet. */
async function requestConfirmation({ tx, row, reason, now, input }: DecisionStep): Promise<StepOutcome> {
  await tx
    .update(sanctionsScreenings)
    .set({
      status: "confirm_requested",
      confirm_requested_by: input.staff.id,
      confirm_requested_at: now,
      confirm_reason: reason,
    })
    .where(eq(sanctionsScreenings.id, row.id));
  return {
    after: { status: "confirm_requested", reason },
    message: "Confirmation asked: another staff member must approve it.",
  };
}

/** The second staff member disagrees: the match is open again for anyone to decide. */
async function declineConfirmation({ tx, row, reason }: DecisionStep): Promise<StepOutcome> {
  await tx
    .update(sanctionsScreenings)
    .set({ status: "open", confirm_requested_by: null, confirm_requested_at: null, confirm_reason: null })
    .where(eq(sanctionsScreenings.id, row.id));
  return {
    after: { status: "open", declined_request_of: row.confirm_requested_by, reason: reason || null },
    message: "Confirmation declined: the match is open again.",
  };
}

/**
 * The second staff member confirms the match: what it screened is stopped (by subject, below)
 * and, when something was stopped, the report to OFAC is drafted.
 */
async function confirmScreening(step: DecisionStep): Promise<StepOutcome> {
  const { tx, row, now, input } = step;
  await tx
    .update(sanctionsScreenings)
    .set({ status: "confirmed", confirmed_by: input.staff.id, confirmed_at: now })
    .where(eq(sanctionsScreenings.id, row.id));
  const after = { status: "confirmed", requested_by: row.confirm_requested_by };
  const stopped =
    row.subject_type === "payment"
      ? await blockConfirmedPayment(step)
      : row.subject_type === "ach_entry"
        ? await blockConfirmedEntry(step)
        : row.subject_type === "application"
          ? await stopConfirmedApplication(step)
          : await freezeConfirmedMember(step);
  if (!stopped.report) return { after, message: stopped.message };
  // The report the confirmation calls for, drafted for staff to file with OFAC (the app sends nothing).
  const best = row.matches[0]!;
  const draft = screeningReportDraft({
    confirmed_on: today(now),
    party: row.screened_name,
    listed_name: best.listed_name,
    source_name: SANCTIONS_SOURCE_NAMES[best.source as SanctionsSource] ?? best.source,
    uid: best.uid,
    subject: stopped.report,
  });
  await tx.update(sanctionsScreenings).set({ report_draft: draft }).where(eq(sanctionsScreenings.id, row.id));
  return {
    after: { ...after, report_draft: { kind: draft.kind, due_by: draft.due_by } },
    message:
      stopped.message +
      (draft.due_by
        ? ` A report to OFAC is drafted on the item's page, due by ${formatBusinessDate(draft.due_by)}.`
        : ""),
  };
}

/** What a confirmation stopped, in staff's words, and what the report to OFAC must state (null: no report). */
type Stopped = { message: string; report: ReportSubject | null };

/** A payment still in screening is blocked (never sent, its money stays held) and its account frozen. */
async function blockConfirmedPayment({ tx, row, now, input }: DecisionStep): Promise<Stopped> {
  const payment = await paymentOf(tx, row.subject_id);
  if (payment?.status !== "screening") return { message: "Confirmed.", report: null };
  await tx
    .update(externalPayments)
    .set({ status: "blocked", resolved_at: now, resolved_by: input.staff.id })
    .where(eq(externalPayments.id, payment.id));
  await freezeForReview(tx, payment.from_account_id, row, input.staff, input.origin, now);
  await notify(tx, {
    member_id: row.member_id,
    kind: "account_status",
    title: "Payment stopped and account frozen",
    body: "We cannot send this payment, and the money stays held. Payments and transfers on the account are blocked. Please contact us.",
  });
  const [from] = await tx
    .select({ type: ledgerAccounts.type, account_number: ledgerAccounts.account_number })
    .from(ledgerAccounts)
    .where(eq(ledgerAccounts.id, payment.from_account_id));
  return {
    message: "Confirmed: the payment is blocked, its money stays held, and the account is frozen.",
    report: {
      type: "payment",
      kind: payment.kind === "ach" ? "To US Bank" : "International",
      amount_cents: Number(payment.amount_cents),
      fee_cents: Number(payment.fee_cents),
      reference: payment.reference,
      from_account: from ? accountLabel(from) : `account ${payment.from_account_id}`,
      to: [row.screened_name, row.screened_details.bank].filter(Boolean).join(", "),
    },
  };
}

/** An incoming IAT entry is blocked by the rails (the callback); the account it named is frozen here. */
async function blockConfirmedEntry({ tx, row, now, input }: DecisionStep): Promise<Stopped> {
  if (!input.onEntryConfirmed) throw new Error("an IAT entry's screening is decided by the back office");
  const blocked = await input.onEntryConfirmed(tx, row);
  const message = "Confirmed: the entry is blocked and never posts; its money stays in the ACH settlement account.";
  if (blocked.account_id === null) return { message, report: blocked.report };
  await freezeForReview(tx, blocked.account_id, row, input.staff, input.origin, now);
  await notify(tx, {
    member_id: row.member_id,
    kind: "account_status",
    title: "Your account is frozen",
    body: "Payments and transfers on the account are blocked while we review it. Please contact us.",
  });
  return { message: `${message} The account it named is frozen.`, report: blocked.report };
}

/** An applicant: the back office declines the application (the callback) or it can no longer be approved. */
async function stopConfirmedApplication({ tx, row, input }: DecisionStep): Promise<Stopped> {
  let message = "Confirmed: the application cannot be approved.";
  if (input.onApplicationConfirmed) {
    await input.onApplicationConfirmed(tx, row);
    message = "Confirmed: the application is declined and no account was opened.";
  }
  const [applied] = await tx
    .select({ created_at: memberProfiles.created_at })
    .from(memberProfiles)
    .where(eq(memberProfiles.user_id, row.subject_id));
  return { message, report: { type: "application", applied_on: today(applied?.created_at ?? row.created_at) } };
}

/** A member (a rescreening's match): every account not closed is frozen, the balances go in the report. */
async function freezeConfirmedMember({ tx, row, now, input }: DecisionStep): Promise<Stopped> {
  const accounts = await tx
    .select({
      id: ledgerAccounts.id,
      type: ledgerAccounts.type,
      account_number: ledgerAccounts.account_number,
      posted_cents: ledgerAccounts.posted_cents,
    })
    .from(ledgerAccounts)
    .where(and(eq(ledgerAccounts.member_id, row.member_id), ne(ledgerAccounts.status, "closed")))
    .orderBy(ledgerAccounts.id);
  for (const account of accounts) await freezeForReview(tx, account.id, row, input.staff, input.origin, now);
  await notify(tx, {
    member_id: row.member_id,
    kind: "account_status",
    title: "Your accounts are frozen",
    body: "Payments and transfers on your accounts are blocked while we review them. Please contact us.",
  });
  return {
    message: `Confirmed: the member's ${accounts.length === 1 ? "account is" : `${accounts.length} accounts are`} frozen.`,
    report: {
      type: "member",
      accounts: accounts.map((a) => ({ label: accountLabel(a), balance_cents: Number(a.posted_cents) })),
    },
  };
}

/** An account frozen for compliance review, with its reason and audit row (a confirmed match). */
async function freezeForReview(
  tx: DbOrTx,
  account_id: number,
  row: SanctionsScreening,
  staff: Actor,
  origin: AuditOrigin,
  now: Date,
): Promise<void> {
  const frozen = await setAccountStatus(tx, account_id, "frozen");
  if (!frozen.ok) throw new Error(`an account of a confirmed match could not be frozen: ${frozen.code}`);
  await tx
    .insert(memberAccountSettings)
    .values({ account_id, status_reason: "Compliance review", updated_by: staff.id })
    .onConflictDoUpdate({
      target: memberAccountSettings.account_id,
      set: { status_reason: "Compliance review", updated_by: staff.id, updated_at: now },
    });
  await recordAudit(tx, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "ledger.account.freeze",
    subject_type: "ledger_account",
    subject_id: account_id,
    member_id: row.member_id,
    after: { status: "frozen", status_reason: "Compliance review", screening_id: row.id },
    ...origin,
  });
}

async function paymentOf(tx: DbOrTx, subject_id: string) {
  if (!/^\d{1,18}$/.test(subject_id)) return null;
  const [payment] = await tx
    .select()
    .from(externalPayments)
    .where(eq(externalPayments.id, Number(subject_id)))
    .for("update");
  return payment ?? null;
}
