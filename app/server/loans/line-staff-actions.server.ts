import { desc, eq } from "drizzle-orm";
import type { Actor } from "~/domain/actor";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import {
  creditLineChanges,
  creditLines,
  ledgerAccounts,
  loanApplications,
  users,
  type CreditLineChangeRow,
  type CreditLineRow,
} from "~/server/db/schema";
import { today } from "~/server/ledger/ledger.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { onPaperDelivery } from "~/server/electronic-delivery/electronic-delivery.server";
import { refusal, type Refusal } from "~/domain/refusals";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { ECOA_NOTICE, formatRatePpm } from "~/domain/loans/products";
import { totalOwed } from "~/domain/loans/servicing";
import {
  LINE_STOP_REASON_LABELS,
  RATE_INCREASE_NOTICE_DAYS,
  isAdverseAction,
  isStopReason,
  lineChangeSummary,
  lineState,
  lowerLimitProblem,
  rateChangeEffectiveOn,
  rateChangeProblem,
  rateChangeText,
  type LineStopReason,
} from "~/domain/loans/line-changes";
import { memberLineDetail, type MemberLineDetail } from "./line-views.server";
import { LINE_NOT_FOUND, accrueTo, lineNumber, lineOwed, lockLine, type Tx } from "./lines-of-credit.server";
import { loanProduct } from "./products.server";
import { mailAfterCommit } from "./applications.server";

/**
 * Servicing an open line of credit (docs/product.md#line-of-credit-servicing; decision 0035):
 * staff freeze and unfreeze its draws, close it, change its APR or lower its limit; the member
 * may close their own line. None moves money: each changes the line's row under its lock, writes
 * a `credit_line_changes` row (who, when, why, how the member was told), the audit log and the
 * member's bell in one transaction; the email follows the commit. A member who has not agreed to
 * electronic delivery (E-SIGN) is told in the app and put on the paper list instead of emailed.
 *
 * No second staff member: nothing is posted to the ledger, an APR stays within the product's
 * disclosed range, and an increase waits 45 days after its notice (Regulation Z 1026.9(c)(2)(i)).
 */

export const NOTE_MISSING = "Say why: the reason is kept with the change.";
export const NOTE_MAX_CHARS = 500;

export type LineChangeAnswer = { ok: true; message: string } | Refusal;

// ---------------------------------------------------------------------------------------------
// Reading

export interface StaffLineView {
  line: MemberLineDetail;
  member: { id: string; name: string; email: string };
  /** Past the due date and still unpaid of the latest cycle's minimum; null when nothing is late. */
  past_due: { amount_cents: number; due_on: string } | null;
  autopay_account_name: string | null;
  product: { rate_min_ppm: number; rate_max_ppm: number } | null;
  history: (CreditLineChangeRow & { summary: string; on: string })[];
}

export async function staffLineView(
  db: DbOrTx,
  line_id: number,
  now: Date = new Date(),
): Promise<StaffLineView | null> {
  const [row] = await db
    .select({ line: creditLines, name: users.name, email: users.email, product_slug: loanApplications.product_slug })
    .from(creditLines)
    .innerJoin(users, eq(users.id, creditLines.member_id))
    .innerJoin(loanApplications, eq(loanApplications.id, creditLines.application_id))
    .where(eq(creditLines.id, line_id));
  if (!row) return null;
  const line = await memberLineDetail(db, row.line.member_id, line_id, now);
  if (!line) return null;
  const history = await db
    .select()
    .from(creditLineChanges)
    .where(eq(creditLineChanges.line_id, line_id))
    .orderBy(desc(creditLineChanges.id))
    .limit(100);
  const [autopay] = row.line.autopay_account_id
    ? await db
        .select({ name: ledgerAccounts.name })
        .from(ledgerAccounts)
        .where(eq(ledgerAccounts.id, row.line.autopay_account_id))
    : [];
  const product = loanProduct(row.product_slug);
  const day = today(now);
  return {
    line,
    member: { id: row.line.member_id, name: row.name, email: row.email },
    past_due: line.minimum_due && line.minimum_due.due_on < day ? line.minimum_due : null,
    autopay_account_name: autopay?.name ?? null,
    product: product ? { rate_min_ppm: product.rate_min_ppm, rate_max_ppm: product.rate_max_ppm } : null,
    history: history.map((c) => ({ ...c, summary: lineChangeSummary(c), on: today(c.created_at) })),
  };
}

/**
 * The back office's list of lines of credit, newest first (the latest 50), beside the booked loans:
 * all members', or one member's for their page in the back office.
 */
export async function staffLines(db: DbOrTx, options: { member_id?: string } = {}) {
  const rows = await db
    .select({ line: creditLines, member_name: users.name })
    .from(creditLines)
    .innerJoin(users, eq(users.id, creditLines.member_id))
    .where(options.member_id === undefined ? undefined : eq(creditLines.member_id, options.member_id))
    .orderBy(desc(creditLines.id))
    .limit(50);
  return rows.map(({ line, member_name }) => ({
    id: line.id,
    number: lineNumber(line.id),
    product_name: line.product_name,
    member_name,
    credit_limit_cents: line.credit_limit_cents,
    opened_on: line.opened_on,
    state: lineState(line),
  }));
}

// ---------------------------------------------------------------------------------------------
// Telling the member and keeping the change

interface Told {
  title: string;
  body: string;
  email_kind: "loan" | "disclosure_notice";
  /** Adverse action under Regulation B (app/domain/loans/line-changes.ts): the email carries the ECOA notice. */
  adverse: boolean;
}

/**
 * Writes the change, its audit and the member's bell in the caller's transaction, and answers the
 * email to send after the commit (null when the member is on paper: the change's notice goes on
 * the paper list, E-SIGN 15 U.S.C. 7001(c)).
 */
async function keep(
  tx: Tx,
  line: CreditLineRow,
  actor: Actor,
  origin: AuditOrigin,
  now: Date,
  change: Omit<typeof creditLineChanges.$inferInsert, "line_id" | "member_id" | "notice_channel" | "actor_id">,
  told: Told,
  before: Record<string, unknown>,
): Promise<Told | null> {
  const paper = await onPaperDelivery(tx, line.member_id);
  const [row] = await tx
    .insert(creditLineChanges)
    .values({
      ...change,
      line_id: line.id,
      member_id: line.member_id,
      notice_channel: paper ? "mail" : "email",
      actor_id: actor.id,
      actor_email: actor.email,
      created_at: now,
    })
    .returning();
  await recordAudit(tx, {
    actor_id: actor.id,
    actor_email: actor.email,
    action: `line.${change.kind}`,
    subject_type: "credit_line",
    subject_id: line.id,
    member_id: line.member_id,
    before,
    after: {
      change_id: row!.id,
      reason: change.reason ?? null,
      note: change.note,
      effective_on: change.effective_on,
      ...(change.kind === "rate" ? { rate_ppm: change.rate_to_ppm } : {}),
      ...(change.kind === "limit" ? { credit_limit_cents: change.limit_to_cents } : {}),
      notice_channel: row!.notice_channel,
    },
    ...origin,
    at: now,
  });
  await notify(tx, { member_id: line.member_id, kind: "loan_update", title: told.title, body: told.body, at: now });
  return paper ? null : told;
}

async function email(db: Db, member_id: string, told: Told | null) {
  if (!told) return;
  const [member] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, member_id));
  if (!member) return;
  await mailAfterCommit(db, member, () => ({
    kind: told.email_kind,
    subject: told.title,
    text:
      `${told.body}\n\nSee your line of credit under Loans in online banking.` +
      (told.adverse ? `\n\nNotice: ${ECOA_NOTICE}` : ""),
  }));
}

/** What a change kept in its transaction: the line as locked, and the email to send after the commit. */
interface Kept {
  ok: true;
  line: CreditLineRow;
  told: Told | null;
}

/**
 * One change of a line: `work` runs in one database transaction (the line locked by `lockOpen`)
 * and answers what it kept, or a refusal that rolls back all it wrote; after the commit the member
 * is emailed and staff read `message`.
 */
async function changeLine<K extends Kept>(
  db: Db,
  work: (tx: Tx) => Promise<K | Refusal>,
  message: (kept: K) => string,
): Promise<LineChangeAnswer> {
  const kept = await inRefusableTransaction(db, work);
  if (!kept.ok) return kept;
  await email(db, kept.line.member_id, kept.told);
  return { ok: true, message: message(kept) };
}

function cleanNote(note: string): string | Refusal {
  const text = note.trim();
  if (!text) return refusal("bad_input", NOTE_MISSING, { field: "note" });
  if (text.length > NOTE_MAX_CHARS)
    return refusal("bad_input", `Please keep the reason to ${NOTE_MAX_CHARS} characters.`, { field: "note" });
  return text;
}

/** Locks the line for a change: found, and not closed and paid (else the change's transaction ends refused). */
async function lockOpen(tx: Tx, line_id: number, member_id?: string): Promise<CreditLineRow> {
  const line = await lockLine(tx, line_id, member_id);
  if (!line) refuse(refusal("not_found", LINE_NOT_FOUND));
  if (line.status !== "active") refuse(refusal("conflict", "This line of credit is closed and paid."));
  return line;
}

const REPAID_UNDER_TERMS = "This line is closed to draws: it is repaid under its existing terms, which do not change.";

function reasonWords(reason: LineStopReason): string {
  return `Reason: ${LINE_STOP_REASON_LABELS[reason].toLowerCase()}.`;
}

// ---------------------------------------------------------------------------------------------
// Freezing and closing

export interface StaffLineInput {
  staff: Actor;
  origin: AuditOrigin;
  line_id: number;
  note: string;
}

/** Staff stop the line's draws until they unfreeze it; payments, interest and the cycles go on. */
export async function freezeLine(
  db: Db,
  input: StaffLineInput & { reason: string },
  now: Date = new Date(),
): Promise<LineChangeAnswer> {
  if (!isStopReason(input.reason)) return refusal("bad_input", "Choose why the line is frozen.", { field: "reason" });
  const reason = input.reason;
  const note = cleanNote(input.note);
  if (typeof note !== "string") return note;
  return changeLine(
    db,
    async (tx) => {
      const line = await lockOpen(tx, input.line_id);
      if (line.closing_reason) return refusal("conflict", "This line is already closed to draws.");
      if (line.frozen_reason) return refusal("conflict", "Draws on this line are already frozen.");
      await tx.update(creditLines).set({ frozen_reason: reason }).where(eq(creditLines.id, line.id));
      const told = await keep(
        tx,
        line,
        input.staff,
        input.origin,
        now,
        { kind: "freeze", reason, note, effective_on: today(now), status: "in_effect" },
        {
          title: `Draws on your ${line.product_name.toLowerCase()} are frozen`,
          body: `From today no money can be drawn from ${lineNumber(line.id)}. ${reasonWords(reason)} Payments still work and interest goes on; autopay stays as it is. Please contact us about it.`,
          email_kind: "loan",
          adverse: isAdverseAction("freeze", reason),
        },
        { frozen_reason: null },
      );
      return { ok: true, line, told };
    },
    ({ line }) => `Draws on ${lineNumber(line.id)} are frozen. The member was told.`,
  );
}

export async function unfreezeLine(db: Db, input: StaffLineInput, now: Date = new Date()): Promise<LineChangeAnswer> {
  const note = cleanNote(input.note);
  if (typeof note !== "string") return note;
  return changeLine(
    db,
    async (tx) => {
      const line = await lockOpen(tx, input.line_id);
      if (!line.frozen_reason) return refusal("conflict", "Draws on this line are not frozen.");
      await tx.update(creditLines).set({ frozen_reason: null }).where(eq(creditLines.id, line.id));
      const told = await keep(
        tx,
        line,
        input.staff,
        input.origin,
        now,
        { kind: "unfreeze", note, effective_on: today(now), status: "in_effect" },
        {
          title: `Your ${line.product_name.toLowerCase()} can be drawn on again`,
          body: line.closing_reason
            ? `${lineNumber(line.id)} is no longer frozen, but it stays closed to new draws.`
            : `${lineNumber(line.id)} is no longer frozen: you can draw on it again up to your available credit.`,
          email_kind: "loan",
          adverse: false,
        },
        { frozen_reason: line.frozen_reason },
      );
      return { ok: true, line, told };
    },
    ({ line }) => `Draws on ${lineNumber(line.id)} are unfrozen. The member was told.`,
  );
}

/**
 * Closes the line to draws for ever (staff, with a reason, or the member themself): the member
 * repays what is owed under the line's terms, and the line is closed and paid when nothing is
 * owed (at once when nothing is owed now; else by the payment that pays it off).
 */
async function close(
  db: Db,
  actor: Actor,
  origin: AuditOrigin,
  line_id: number,
  reason: LineStopReason,
  note: string,
  member_id: string | undefined,
  now: Date,
): Promise<LineChangeAnswer> {
  const day = today(now);
  return changeLine(
    db,
    async (tx) => {
      const locked = await lockOpen(tx, line_id, member_id);
      if (locked.closing_reason) return refusal("conflict", "This line is already closed to draws.");
      const line = await accrueTo(tx, locked, day);
      const owed = totalOwed(await lineOwed(tx, line));
      await tx
        .update(creditLines)
        .set(owed === 0 ? { closing_reason: reason, status: "closed", closed_on: day } : { closing_reason: reason })
        .where(eq(creditLines.id, line.id));
      const by_member = reason === "member_request" && member_id !== undefined;
      const how =
        owed === 0
          ? "Nothing is owed on it, so it is closed now."
          : `You owe ${formatCents(owed)}: pay it under the line's terms (the minimum each month, or more), and the line closes when it is paid.`;
      const told = await keep(
        tx,
        line,
        actor,
        origin,
        now,
        { kind: "close", reason, note, effective_on: day, status: "in_effect" },
        {
          title: `Your ${line.product_name.toLowerCase()} is closed to new draws`,
          body: `${by_member ? "As you asked, no" : "No"} more money can be drawn from ${lineNumber(line.id)}. ${how}${by_member ? "" : ` ${reasonWords(reason)}`}`,
          email_kind: "loan",
          adverse: !by_member && isAdverseAction("close", reason),
        },
        { closing_reason: null, owed_cents: owed },
      );
      return { ok: true, line, told, owed };
    },
    ({ line, owed }) =>
      owed === 0
        ? `${lineNumber(line.id)} is closed: nothing was owed.`
        : `${lineNumber(line.id)} is closed to draws; ${formatCents(owed)} is owed and is repaid under its terms.`,
  );
}

export async function closeLineByStaff(
  db: Db,
  input: StaffLineInput & { reason: string },
  now: Date = new Date(),
): Promise<LineChangeAnswer> {
  if (!isStopReason(input.reason)) return refusal("bad_input", "Choose why the line is closed.", { field: "reason" });
  const note = cleanNote(input.note);
  if (typeof note !== "string") return note;
  return close(db, input.staff, input.origin, input.line_id, input.reason, note, undefined, now);
}

/** The member closes their own line from its page (another member's reads as not found). */
export async function closeOwnLine(
  db: Db,
  member: Actor,
  line_id: number,
  origin: AuditOrigin,
  now: Date = new Date(),
): Promise<LineChangeAnswer> {
  return close(db, member, origin, line_id, "member_request", "Closed by the member online.", member.id, now);
}

// ---------------------------------------------------------------------------------------------
// Change in terms

/**
 * A new APR within the product's range. An increase takes effect RATE_INCREASE_NOTICE_DAYS after
 * today's notice (1026.9(c)(2)(i)); a decrease today (interest up to yesterday at the old rate).
 * One scheduled change at a time.
 */
export async function changeLineRate(
  db: Db,
  input: StaffLineInput & { rate_ppm: number | null },
  now: Date = new Date(),
): Promise<LineChangeAnswer> {
  const note = cleanNote(input.note);
  if (input.rate_ppm === null)
    return refusal("bad_input", "Enter the new APR as a percent, like 13.99.", { field: "rate" });
  if (typeof note !== "string") return note;
  const rate_ppm = input.rate_ppm;
  const day = today(now);
  return changeLine(
    db,
    async (tx) => {
      const line = await lockOpen(tx, input.line_id);
      if (line.closing_reason) return refusal("conflict", REPAID_UNDER_TERMS);
      const scheduled = (await tx.select().from(creditLineChanges).where(eq(creditLineChanges.line_id, line.id))).find(
        (c) => c.kind === "rate" && c.status === "scheduled",
      );
      if (scheduled)
        return refusal(
          "conflict",
          `An APR change to ${formatRatePpm(scheduled.rate_to_ppm!)} already takes effect ${formatBusinessDate(scheduled.effective_on)}.`,
          { field: "rate" },
        );
      const [application] = await tx
        .select({ slug: loanApplications.product_slug })
        .from(loanApplications)
        .where(eq(loanApplications.id, line.application_id));
      const product = application ? loanProduct(application.slug) : null;
      if (!product) return refusal("conflict", "This line's product is no longer offered: its APR cannot change.");
      const problem = rateChangeProblem(product, line.rate_ppm, rate_ppm);
      if (problem) return refusal("bad_input", problem, { field: "rate" });
      const effective_on = rateChangeEffectiveOn(line.rate_ppm, rate_ppm, day);
      const increase = rate_ppm > line.rate_ppm;
      const told = await keep(
        tx,
        line,
        input.staff,
        input.origin,
        now,
        {
          kind: "rate",
          note,
          rate_from_ppm: line.rate_ppm,
          rate_to_ppm: rate_ppm,
          effective_on,
          status: "scheduled",
        },
        {
          title: `Change in terms: the APR on your ${line.product_name.toLowerCase()}`,
          body: `${lineNumber(line.id)}: ${rateChangeText(line.rate_ppm, rate_ppm, effective_on)} Reason: ${note}`,
          email_kind: "disclosure_notice",
          adverse: isAdverseAction(rate_ppm > line.rate_ppm ? "rate_increase" : "rate_decrease", null),
        },
        { rate_ppm: line.rate_ppm },
      );
      // A decrease is in effect today: the accrual puts it in effect on its day.
      if (!increase) await accrueTo(tx, line, day);
      return { ok: true, line, told, effective_on, increase };
    },
    ({ line, effective_on, increase }) =>
      increase
        ? `The APR on ${lineNumber(line.id)} becomes ${formatRatePpm(rate_ppm)} on ${formatBusinessDate(effective_on)}, ${RATE_INCREASE_NOTICE_DAYS} days after today's notice. The member was told.`
        : `The APR on ${lineNumber(line.id)} is ${formatRatePpm(rate_ppm)} from today. The member was told.`,
  );
}

/**
 * A lower credit limit, at once: never below what is owed (principal, interest and fees accrued to
 * today), so the change does not take the line over its limit; the line charges no over-limit fee
 * (1026.9(c)(2)(vi)).
 */
export async function lowerLineLimit(
  db: Db,
  input: StaffLineInput & { limit_cents: number | null },
  now: Date = new Date(),
): Promise<LineChangeAnswer> {
  const note = cleanNote(input.note);
  if (input.limit_cents === null)
    return refusal("bad_input", "Enter the new credit limit in dollars.", { field: "limit" });
  if (typeof note !== "string") return note;
  const limit_cents = input.limit_cents;
  const day = today(now);
  return changeLine(
    db,
    async (tx) => {
      const locked = await lockOpen(tx, input.line_id);
      if (locked.closing_reason) return refusal("conflict", REPAID_UNDER_TERMS);
      const line = await accrueTo(tx, locked, day);
      const owed = totalOwed(await lineOwed(tx, line));
      const problem = lowerLimitProblem(line.credit_limit_cents, owed, limit_cents);
      if (problem) return refusal("bad_input", problem, { field: "limit" });
      await tx.update(creditLines).set({ credit_limit_cents: limit_cents }).where(eq(creditLines.id, line.id));
      const told = await keep(
        tx,
        line,
        input.staff,
        input.origin,
        now,
        {
          kind: "limit",
          note,
          limit_from_cents: line.credit_limit_cents,
          limit_to_cents: limit_cents,
          effective_on: day,
          status: "in_effect",
        },
        {
          title: `Change in terms: the credit limit on your ${line.product_name.toLowerCase()}`,
          body: `${lineNumber(line.id)}'s credit limit is now ${formatCents(limit_cents)} (it was ${formatCents(line.credit_limit_cents)}). Reason: ${note} No fee or higher rate is charged because of the lower limit.`,
          email_kind: "disclosure_notice",
          adverse: isAdverseAction("limit", null),
        },
        { credit_limit_cents: line.credit_limit_cents },
      );
      return { ok: true, line, told };
    },
    ({ line }) =>
      `The credit limit on ${lineNumber(line.id)} is ${formatCents(limit_cents)} from today. The member was told.`,
  );
}
