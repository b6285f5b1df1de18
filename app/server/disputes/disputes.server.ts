import type { Actor } from "~/domain/actor";
import { accountLabel, referenceNumber } from "~/domain/account-display";
import { and, asc, desc, eq, inArray, not, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import {
  disputeAttachments,
  disputeCases,
  disputeEvents,
  ledgerAccounts,
  users,
  type DisputeCaseRow,
} from "~/server/db/schema";
import {
  removePrivateUpload,
  readPrivateUpload,
  storePrivateUpload,
  UploadRejectedError,
} from "~/server/uploads/private-uploads.server";
import { institution } from "~/config/institution.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { sendEmail, type OutgoingEmail } from "~/server/mail/outbox.server";
import { logger } from "~/server/logger.server";
import { today } from "~/server/ledger/ledger.server";
import { toCents, toId } from "~/domain/ledger-rules";
import { formatCents } from "~/domain/money";
import { refusal, type Refusal } from "~/domain/refusals";
import { formatBusinessDate as d } from "~/domain/calendar-date";
import {
  attachmentLabel,
  caseNumber,
  clockState,
  DISPUTE_ATTACHMENT_FIELDS,
  DISPUTE_ATTACHMENT_MAX_BYTES,
  DISPUTE_ATTACHMENT_MESSAGES,
  DISPUTE_ATTACHMENT_TYPES,
  DISPUTE_CHANNEL_LABELS,
  STAFF_REPORT_MESSAGES,
  type DisputeAttachmentField,
  type DisputeChannel,
  currentDeadline,
  disputeClocks,
  DISPUTE_KIND_LABELS,
  DISPUTE_STATUS_LABELS,
  DISPUTABLE_KINDS,
  isDisputable,
  isNewAccountTransfer,
  type ClockState,
  type Deadline,
  type DisputeClocks,
  type DisputeKind,
  type DisputeStatus,
} from "~/domain/disputes";
import { disputeAcknowledgedEmail } from "./emails.server";

/**
 * Error resolution under Regulation E (12 CFR 1005.11; docs/product.md#disputes): a member reports
 * a problem with one electronic transaction of their own history; the case's clocks are fixed at
 * receipt (app/domain/disputes.ts); staff provisionally credit, note and resolve; when no error is
 * found the provisional credit is debited 5 business days after the written notice, by the
 * dispute-clocks job, which also tells staff of every case within one business day of a deadline.
 *
 * Money moves only through the ledger, between the member's account and the credit union's
 * adjustments account, under the kinds `dispute_credit` and `dispute_credit_reversal`. Every step is
 * one database transaction with its case event, its audit entry and the member's notification; the
 * email follows the commit (the outbox), as every other service sends it.
 */

export type DisputeRefusal = Refusal;

export const TRANSACTION_NOT_FOUND = "We could not find that transaction in your accounts.";
export const CASE_NOT_FOUND = "We could not find that case.";

/** The member's side of a transaction: its row and the entry on one of their own checking or savings accounts. */
export interface DisputedTransaction {
  transaction_id: number;
  reference_number: string;
  account_id: number;
  account_label: string;
  account_opened_on: string;
  kind: string;
  status: string;
  effective_date: string;
  description: string;
  /** Signed for the member's account. */
  amount_cents: number;
  foreign_initiated: boolean;
}

/** One transaction of the member's own accounts, or null (another member's reads the same as none). */
export async function memberTransaction(
  db: DbOrTx,
  member_id: string,
  transaction_id: number,
): Promise<DisputedTransaction | null> {
  if (!Number.isSafeInteger(transaction_id) || transaction_id <= 0) return null;
  const result = await db.execute(sql`
    select t.id, t.kind, t.status, t.effective_date::text as effective_date, t.memo, e.amount_cents,
           a.id as account_id, a.type, a.account_number, (a.opened_at at time zone ${institution().time_zone})::date::text as opened_on,
           exists (select 1 from ach_inbound_entries i where i.transaction_id = t.id and i.sec_code = 'IAT') as foreign_initiated
      from ledger_transactions t
      join ledger_entries e on e.transaction_id = t.id
      join ledger_accounts a on a.id = e.account_id
     where t.id = ${transaction_id} and a.owner = 'member' and a.member_id = ${member_id}
       and a.type in ('checking', 'savings')
     order by e.id limit 1`);
  const r = result.rows[0];
  if (!r) return null;
  const kind = String(r.kind);
  return {
    transaction_id: toId(r.id),
    reference_number: referenceNumber(toId(r.id)),
    account_id: toId(r.account_id),
    account_label: accountLabel({ type: String(r.type), account_number: String(r.account_number) }),
    account_opened_on: String(r.opened_on),
    kind,
    status: String(r.status),
    effective_date: String(r.effective_date),
    description: (r.memo as string | null) ?? kind.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase()),
    amount_cents: toCents(r.amount_cents),
    foreign_initiated: r.foreign_initiated === true || r.foreign_initiated === "t",
  };
}

/** The open case about this transaction, if there is one. */
async function openCaseFor(db: DbOrTx, transaction_id: number, account_id: number) {
  const [row] = await db
    .select({ id: disputeCases.id })
    .from(disputeCases)
    .where(
      and(
        eq(disputeCases.transaction_id, transaction_id),
        eq(disputeCases.account_id, account_id),
        not(inArray(disputeCases.status, ["resolved_error", "resolved_no_error"])),
      ),
    );
  return row ?? null;
}

/** What the report form shows: the transaction, whether it may be reported, and an open case about it. */
export async function reportForm(db: DbOrTx, member_id: string, transaction_id: number) {
  const transaction = await memberTransaction(db, member_id, transaction_id);
  if (!transaction) return null;
  const open = await openCaseFor(db, transaction.transaction_id, transaction.account_id);
  return {
    transaction,
    disputable: isDisputable(transaction.kind, transaction.status),
    open_case: open ? { id: open.id, number: caseNumber(open.id) } : null,
  };
}

export interface ReportInput {
  transaction_id: number;
  kind: DisputeKind;
  details: string;
  idempotency_key: string;
}

export type ReportAnswer = { ok: true; case_id: number; case_number: string; replayed: boolean } | DisputeRefusal;

/** How a report came in, when staff enter it for the member, and the files the member sent with it. */
export interface ReportOptions {
  /** Staff who entered a report the member made by phone, in person or by mail. */
  entered_by?: Actor;
  reported_via?: DisputeChannel;
  /** The day the member told us (a report staff enter): the clocks run from it. Default: today. */
  received_on?: string;
  /** The form's optional files, by field (a member's own report). */
  attachments?: Partial<Record<DisputeAttachmentField, File | null>>;
}

/**
 * A report of a problem: the case is opened with its clocks, acknowledged on the page and by email.
 * The member reports online themselves, or staff enter what the member told them by phone, in
 * person or by mail, dated the day the member told us (never after today, nor before the
 * transaction), audited as theirs. Attachments are checked by content and stored encrypted before
 * the case is written; a refused one refuses the report by its field and nothing is kept.
 */
export async function reportDispute(
  db: Db,
  member: Actor,
  input: ReportInput,
  origin: AuditOrigin,
  now: Date = new Date(),
  options: ReportOptions = {},
): Promise<ReportAnswer> {
  const files: { file: string; mime: string; bytes: number }[] = [];
  const forget = () =>
    Promise.all(files.map((f) => removePrivateUpload("dispute-attachments", f.file).catch(() => undefined)));
  try {
    const answer = await reportDisputeWith(db, member, input, origin, now, options, files);
    if (!answer.ok || answer.replayed) await forget();
    return answer;
  } catch (error) {
    await forget();
    throw error;
  }
}

async function reportDisputeWith(
  db: Db,
  member: Actor,
  input: ReportInput,
  origin: AuditOrigin,
  now: Date,
  options: ReportOptions,
  files: StoredAttachment[],
): Promise<ReportAnswer> {
  const [earlier] = await db
    .select({ id: disputeCases.id })
    .from(disputeCases)
    .where(and(eq(disputeCases.member_id, member.id), eq(disputeCases.idempotency_key, input.idempotency_key)));
  if (earlier) return { ok: true, case_id: earlier.id, case_number: caseNumber(earlier.id), replayed: true };
  const transaction = await memberTransaction(db, member.id, input.transaction_id);
  if (!transaction) return refusal("not_found", TRANSACTION_NOT_FOUND, { field: "transaction_id" });
  const received_on = options.received_on ?? today(now);
  const refused = reportRefusal(transaction, received_on, now) ?? (await storeAttachments(options, files));
  if (refused) return refused;
  const clocks = disputeClocks({
    received_on,
    new_account: isNewAccountTransfer(transaction.account_opened_on, transaction.effective_date),
    point_of_sale: transaction.kind === "card_payment",
    foreign: transaction.foreign_initiated,
  });
  const report: NewReport = { member, input, origin, now, options, files, transaction, received_on, clocks };
  const created = await db
    .transaction((tx) => openCase(tx, report))
    .catch((error: unknown) => {
      // Two reports of one transaction at the same moment: the second finds the first's case.
      if ((error as { code?: string })?.code === "23505") return { open: -1 } as const;
      throw error;
    });
  if (!("case_id" in created)) {
    const open =
      created.open > 0 ? created.open : (await openCaseFor(db, transaction.transaction_id, transaction.account_id))?.id;
    return refusal(
      "conflict",
      `You already reported this transaction${open ? `: case ${caseNumber(open)}` : ""}. We will tell you what we find.`,
      { field: "transaction_id" },
    );
  }
  await mailAfterCommit(db, member, () =>
    disputeAcknowledgedEmail({
      case_number: caseNumber(created.case_id),
      description: transaction.description,
      amount_cents: Math.abs(transaction.amount_cents),
      kind: input.kind,
      received_on,
      investigate_by: clocks.investigate_by,
      complete_by: clocks.complete_by,
    }),
  );
  return { ok: true, case_id: created.case_id, case_number: caseNumber(created.case_id), replayed: false };
}

type StoredAttachment = { file: string; mime: string; bytes: number };

/** A report checked and ready to open: the transaction, the day the member told us, and the clocks fixed from it. */
interface NewReport {
  member: Actor;
  input: ReportInput;
  origin: AuditOrigin;
  now: Date;
  options: ReportOptions;
  files: StoredAttachment[];
  transaction: DisputedTransaction;
  received_on: string;
  clocks: DisputeClocks;
}

/**
 * Why this transaction cannot be reported, or null: only completed electronic transactions can,
 * and the day the member told us is never after today nor before the transaction.
 */
function reportRefusal(transaction: DisputedTransaction, received_on: string, now: Date): Refusal | null {
  if (!isDisputable(transaction.kind, transaction.status))
    return refusal(
      "conflict",
      "This transaction cannot be reported here: only completed electronic transactions can. Please contact us about it.",
      { field: "transaction_id" },
    );
  if (received_on > today(now)) return refusal("bad_input", STAFF_REPORT_MESSAGES.future, { field: "received_on" });
  if (received_on < transaction.effective_date)
    return refusal("bad_input", STAFF_REPORT_MESSAGES.before_transaction(transaction.effective_date), {
      field: "received_on",
    });
  return null;
}

/** The form's files checked by content and stored encrypted (into `files`); a refused one refuses by its field. */
async function storeAttachments(options: ReportOptions, files: StoredAttachment[]): Promise<Refusal | null> {
  for (const field of DISPUTE_ATTACHMENT_FIELDS) {
    const upload = options.attachments?.[field] ?? null;
    if (!upload || upload.size === 0) continue;
    try {
      files.push(
        await storePrivateUpload("dispute-attachments", upload, {
          allowed: DISPUTE_ATTACHMENT_TYPES,
          max_bytes: DISPUTE_ATTACHMENT_MAX_BYTES,
          messages: DISPUTE_ATTACHMENT_MESSAGES,
        }),
      );
    } catch (error) {
      if (error instanceof UploadRejectedError) return refusal("bad_input", error.message, { field });
      throw error;
    }
  }
  return null;
}

/**
 * The case opened in one transaction with its attachments, its first event, its audit row and the
 * member's notification; or the open case already about this transaction.
 */
async function openCase(tx: DbOrTx, report: NewReport): Promise<{ case_id: number } | { open: number }> {
  const { member, input, now, options, files, transaction, received_on, clocks } = report;
  const open = await openCaseFor(tx, transaction.transaction_id, transaction.account_id);
  if (open) return { open: open.id };
  const reported_via = options.entered_by ? (options.reported_via ?? "phone") : "online";
  const amount_cents = Math.abs(transaction.amount_cents);
  const [row] = await tx
    .insert(disputeCases)
    .values({
      member_id: member.id,
      account_id: transaction.account_id,
      transaction_id: transaction.transaction_id,
      kind: input.kind,
      details: input.details,
      amount_cents,
      idempotency_key: input.idempotency_key,
      created_at: now,
      received_on,
      investigate_by: clocks.investigate_by,
      complete_by: clocks.complete_by,
      new_account: clocks.extended.includes("new_account"),
      point_of_sale: clocks.extended.includes("point_of_sale"),
      foreign_initiated: clocks.extended.includes("foreign"),
      reported_via,
      entered_by: options.entered_by?.id ?? null,
      entered_by_email: options.entered_by?.email ?? null,
    })
    .returning({ id: disputeCases.id });
  const case_id = row!.id;
  if (files.length > 0) await tx.insert(disputeAttachments).values(files.map((f) => ({ case_id, ...f, at: now })));
  const actor = options.entered_by ?? member;
  await tx.insert(disputeEvents).values({
    case_id,
    at: now,
    kind: "reported",
    actor_id: actor.id,
    actor_email: actor.email,
    text: reportedText(report, reported_via),
  });
  await recordAudit(tx, {
    actor_id: actor.id,
    actor_email: actor.email,
    action: options.entered_by ? "dispute.report_entered" : "dispute.report",
    subject_type: "dispute_case",
    subject_id: case_id,
    member_id: member.id,
    after: {
      transaction_id: transaction.transaction_id,
      kind: input.kind,
      amount_cents,
      received_on,
      investigate_by: clocks.investigate_by,
      complete_by: clocks.complete_by,
      extended: clocks.extended,
      reported_via,
      attachments: files.length,
    },
    ...report.origin,
    at: now,
  });
  await notify(tx, {
    member_id: member.id,
    kind: "dispute_update",
    title: `We received your report (case ${caseNumber(case_id)})`,
    body: `We are looking into ${transaction.description} (${formatCents(amount_cents)}). We will tell you what we find by ${d(clocks.investigate_by)}.`,
    at: now,
  });
  return { case_id };
}

/** The case's first event: what was reported and, entered by staff, how and when the member told us. */
function reportedText({ input, options, files, received_on }: NewReport, reported_via: DisputeChannel): string {
  if (options.entered_by)
    return `${DISPUTE_KIND_LABELS[input.kind]}. The member told us ${DISPUTE_CHANNEL_LABELS[reported_via].toLowerCase()} on ${d(received_on)}; entered by staff.`;
  return `${DISPUTE_KIND_LABELS[input.kind]}.${files.length > 0 ? ` ${files.length} ${files.length === 1 ? "file" : "files"} attached.` : ""}`;
}

type Message = Omit<OutgoingEmail, "to" | "user_id">;

/** The member's letter for a step, queued after its transaction committed. */
export async function mailAfterCommit(db: Db, member: Actor, message: () => Message): Promise<void> {
  try {
    await sendEmail(db, { ...message(), to: member.email, user_id: member.id });
  } catch (error) {
    // The step stands (it is in the case, the audit log and the member's notifications); the
    // missing email shows in the log and by its absence from the outbox.
    logger.error({ err: error }, "could not queue a dispute email");
  }
}

// ---------------------------------------------------------------------------------------------
// Reading cases

export interface CaseSummary {
  id: number;
  number: string;
  member_id: string;
  kind: DisputeKind;
  status: DisputeStatus;
  status_label: string;
  amount_cents: number;
  transaction_id: number;
  description: string;
  effective_date: string;
  received_on: string;
  investigate_by: string;
  complete_by: string;
  provisional_amount_cents: number | null;
  provisional_credited_on: string | null;
  reversal_on: string | null;
  deadline: (Deadline & { state: ClockState }) | null;
  reversal_problem: string | null;
}

function summary(row: DisputeCaseRow, description: string, effective_date: string, today_: string): CaseSummary {
  const deadline = currentDeadline({
    status: row.status,
    new_account: row.new_account,
    extended: row.new_account || row.point_of_sale || row.foreign_initiated,
    investigate_by: row.investigate_by,
    complete_by: row.complete_by,
    reversal_on: row.reversal_on,
  });
  return {
    id: row.id,
    number: caseNumber(row.id),
    member_id: row.member_id,
    kind: row.kind,
    status: row.status,
    status_label: DISPUTE_STATUS_LABELS[row.status],
    amount_cents: Number(row.amount_cents),
    transaction_id: Number(row.transaction_id),
    description,
    effective_date,
    received_on: row.received_on,
    investigate_by: row.investigate_by,
    complete_by: row.complete_by,
    provisional_amount_cents: row.provisional_amount_cents === null ? null : Number(row.provisional_amount_cents),
    provisional_credited_on: row.provisional_credited_on,
    reversal_on: row.reversal_on,
    deadline: deadline ? { ...deadline, state: clockState(deadline.due_on, today_) } : null,
    reversal_problem: row.reversal_problem,
  };
}

async function transactionFacts(db: DbOrTx, ids: number[]) {
  if (ids.length === 0) return new Map<number, { description: string; effective_date: string; kind: string }>();
  const result = await db.execute(sql`
    select id, kind, memo, effective_date::text as effective_date from ledger_transactions
     where id in (${sql.join(
       ids.map((id) => sql`${id}`),
       sql`, `,
     )})`);
  return new Map(
    result.rows.map((r) => [
      toId(r.id),
      {
        kind: String(r.kind),
        description:
          (r.memo as string | null) ??
          String(r.kind)
            .replace(/_/g, " ")
            .replace(/^./, (c) => c.toUpperCase()),
        effective_date: String(r.effective_date),
      },
    ]),
  );
}

export async function summaries(db: DbOrTx, rows: DisputeCaseRow[], now: Date): Promise<CaseSummary[]> {
  const facts = await transactionFacts(db, [...new Set(rows.map((r) => Number(r.transaction_id)))]);
  const day = today(now);
  return rows.map((r) => {
    const f = facts.get(Number(r.transaction_id));
    return summary(r, f?.description ?? "", f?.effective_date ?? "", day);
  });
}

/** The member's cases, newest first. */
export async function memberCases(db: DbOrTx, member_id: string, now: Date = new Date()): Promise<CaseSummary[]> {
  const rows = await db
    .select()
    .from(disputeCases)
    .where(eq(disputeCases.member_id, member_id))
    .orderBy(desc(disputeCases.id))
    .limit(200);
  return summaries(db, rows, now);
}

export interface CaseEvent {
  id: number;
  at: Date;
  kind: string;
  actor_email: string | null;
  text: string | null;
  internal: boolean;
}

/** One of the member's own cases with what they were told (staff notes are not theirs to read), or null. */
export async function memberCase(db: DbOrTx, member_id: string, case_id: number, now: Date = new Date()) {
  if (!Number.isSafeInteger(case_id) || case_id <= 0) return null;
  const [row] = await db
    .select()
    .from(disputeCases)
    .where(and(eq(disputeCases.id, case_id), eq(disputeCases.member_id, member_id)));
  if (!row) return null;
  const [item] = await summaries(db, [row], now);
  const events = await db
    .select()
    .from(disputeEvents)
    .where(and(eq(disputeEvents.case_id, case_id), eq(disputeEvents.internal, false)))
    .orderBy(asc(disputeEvents.id));
  return {
    ...item!,
    details: row.details,
    resolution: row.resolution,
    reported_via: row.reported_via,
    attachments: await caseAttachments(db, case_id),
    events: events.map((e) => ({ id: e.id, at: e.at, kind: e.kind, text: e.text })),
  };
}

/** A case's attachments as listed ("PDF, 120 KB"), oldest first. */
async function caseAttachments(db: DbOrTx, case_id: number) {
  const rows = await db
    .select({ id: disputeAttachments.id, mime: disputeAttachments.mime, bytes: disputeAttachments.bytes })
    .from(disputeAttachments)
    .where(eq(disputeAttachments.case_id, case_id))
    .orderBy(asc(disputeAttachments.id));
  return rows.map((r, i) => ({ id: r.id, label: `Attachment ${i + 1} (${attachmentLabel(r.mime, r.bytes)})` }));
}

const ATTACHMENT_EXTENSIONS: Record<string, string> = {
  "application/pdf": "pdf",
  "image/jpeg": "jpg",
  "image/png": "png",
};

/**
 * One attachment of a case, for the member whose case it is (`member_id`) or for staff (every staff
 * view audited, as an ID document's is). Null when the case, the attachment or, for a member, the
 * ownership does not match: another member's reads as none.
 */
export async function readCaseAttachment(
  db: DbOrTx,
  input: { case_id: number; attachment_id: number; member_id?: string; staff?: Actor; origin?: AuditOrigin },
): Promise<{ bytes: Buffer; mime: string; filename: string } | null> {
  const { case_id, attachment_id } = input;
  if (![case_id, attachment_id].every((n) => Number.isSafeInteger(n) && n > 0)) return null;
  const [found] = await db
    .select({ a: disputeAttachments, member_id: disputeCases.member_id })
    .from(disputeAttachments)
    .innerJoin(disputeCases, eq(disputeCases.id, disputeAttachments.case_id))
    .where(and(eq(disputeAttachments.id, attachment_id), eq(disputeAttachments.case_id, case_id)));
  if (!found) return null;
  if (input.member_id !== undefined && found.member_id !== input.member_id) return null;
  if (input.member_id === undefined && !input.staff) return null;
  const bytes = await readPrivateUpload("dispute-attachments", found.a.file);
  if (input.staff)
    await recordAudit(db, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "dispute.attachment_view",
      subject_type: "dispute_case",
      subject_id: case_id,
      member_id: found.member_id,
      after: { attachment_id },
      ...(input.origin ?? { request_id: null, ip: null }),
    });
  return {
    bytes,
    mime: found.a.mime,
    filename: `${caseNumber(case_id)}-attachment-${attachment_id}.${ATTACHMENT_EXTENSIONS[found.a.mime] ?? "bin"}`,
  };
}

/** The staff queue: every unresolved case, nearest deadline first; then the latest resolved. */
export async function disputeQueue(db: DbOrTx, now: Date = new Date()) {
  const open_rows = await db
    .select()
    .from(disputeCases)
    .where(not(inArray(disputeCases.status, ["resolved_error", "resolved_no_error"])))
    .limit(1000);
  const resolved_rows = await db
    .select()
    .from(disputeCases)
    .where(inArray(disputeCases.status, ["resolved_error", "resolved_no_error"]))
    .orderBy(desc(disputeCases.resolved_at), desc(disputeCases.id))
    .limit(20);
  const names = await memberNames(
    db,
    [...open_rows, ...resolved_rows].map((r) => r.member_id),
  );
  const open = (await summaries(db, open_rows, now)).sort(
    (a, b) => (a.deadline?.due_on ?? "9999").localeCompare(b.deadline?.due_on ?? "9999") || a.id - b.id,
  );
  const resolved = await summaries(db, resolved_rows, now);
  const named = (c: CaseSummary) => ({ ...c, member_name: names.get(c.member_id) ?? "" });
  return { open: open.map(named), resolved: resolved.map(named), today: today(now) };
}

async function memberNames(db: DbOrTx, ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, unique));
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** One case as staff see it: everything, notes included. */
export async function staffCase(db: DbOrTx, case_id: number, now: Date = new Date()) {
  if (!Number.isSafeInteger(case_id) || case_id <= 0) return null;
  const [row] = await db.select().from(disputeCases).where(eq(disputeCases.id, case_id));
  if (!row) return null;
  const [item] = await summaries(db, [row], now);
  const events = await db
    .select()
    .from(disputeEvents)
    .where(eq(disputeEvents.case_id, case_id))
    .orderBy(asc(disputeEvents.id));
  const [person] = await db
    .select({ name: users.name, email: users.email })
    .from(users)
    .where(eq(users.id, row.member_id));
  const [account] = await db
    .select({ type: ledgerAccounts.type, account_number: ledgerAccounts.account_number })
    .from(ledgerAccounts)
    .where(eq(ledgerAccounts.id, Number(row.account_id)));
  const facts = (await transactionFacts(db, [Number(row.transaction_id)])).get(Number(row.transaction_id));
  return {
    ...item!,
    member_name: person?.name ?? "",
    member_email: person?.email ?? "",
    account_label: account ? accountLabel(account) : "",
    transaction_kind: facts?.kind ?? "",
    reference_number: referenceNumber(Number(row.transaction_id)),
    details: row.details,
    resolution: row.resolution,
    new_account: row.new_account,
    point_of_sale: row.point_of_sale,
    foreign_initiated: row.foreign_initiated,
    reversal_notice_on: row.reversal_notice_on,
    reported_via: row.reported_via,
    entered_by_email: row.entered_by_email,
    chargeback_marked_at: row.chargeback_marked_at,
    chargeback_marked_by: row.chargeback_marked_by,
    attachments: await caseAttachments(db, case_id),
    events: events.map((e) => ({
      id: e.id,
      at: e.at,
      kind: e.kind,
      actor_email: e.actor_email,
      text: e.text,
      internal: e.internal,
    })),
  };
}

/** The member a case belongs to, to write to. */
export async function memberOf(db: DbOrTx, member_id: string) {
  const [person] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, member_id));
  return person ?? null;
}

// ---------------------------------------------------------------------------------------------
// A report staff enter for a member who told us by phone, in person or by mail

/** The transactions a member may report, newest first: what staff choose from when entering a report. */
export const STAFF_ENTRY_TRANSACTIONS_MAX = 60;

/** The member staff look up by email (an approved member), with their reportable transactions. */
export async function memberForStaffReport(db: DbOrTx, email: string) {
  const typed = email.trim().toLowerCase();
  if (!typed || typed.length > 254) return null;
  const [person] = await db
    .select({ id: users.id, name: users.name, email: users.email, role: users.role })
    .from(users)
    .where(eq(users.email, typed));
  if (!person || (person.role ?? "user") !== "user") return null;
  const result = await db.execute(sql`
    select t.id
      from ledger_transactions t
      join ledger_entries e on e.transaction_id = t.id
      join ledger_accounts a on a.id = e.account_id
     where a.owner = 'member' and a.member_id = ${person.id} and a.type in ('checking', 'savings')
       and t.status = 'posted' and t.kind in (${sql.join(
         DISPUTABLE_KINDS.map((k) => sql`${k}`),
         sql`, `,
       )})
     order by t.effective_date desc, t.id desc
     limit ${STAFF_ENTRY_TRANSACTIONS_MAX}`);
  const transactions: DisputedTransaction[] = [];
  for (const r of result.rows) {
    const t = await memberTransaction(db, person.id, toId(r.id));
    if (t) transactions.push(t);
  }
  return { member: { id: person.id, name: person.name, email: person.email }, transactions };
}
/**
 * Staff enter a report for a member who told us by phone, in person or by mail (docs/product.md#disputes):
 * the same case, clocks from the day the member told us, acknowledged to the member by notification
 * and email, audited as the staff member's (`dispute.report_entered`) with how the member told us.
 */
export async function enterReportForMember(
  db: Db,
  staff: Actor,
  input: ReportInput & { member_id: string; reported_via: "phone" | "in_person" | "mail"; received_on: string },
  origin: AuditOrigin,
  now: Date = new Date(),
): Promise<ReportAnswer> {
  const [person] = await db
    .select({ id: users.id, email: users.email, role: users.role })
    .from(users)
    .where(eq(users.id, input.member_id));
  if (!person || (person.role ?? "user") !== "user")
    return refusal("not_found", "We could not find that member.", { field: "member_id" });
  return reportDispute(db, { id: person.id, email: person.email }, input, origin, now, {
    entered_by: staff,
    reported_via: input.reported_via,
    received_on: input.received_on,
  });
}

/** Today's business date in the institution's time zone: the default day a member told us. */
export function businessToday(now: Date = new Date()): string {
  return today(now);
}
