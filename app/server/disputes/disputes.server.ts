import { accountLabel, referenceNumber } from "~/domain/account-display";
import { and, asc, desc, eq, inArray, not, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { disputeCases, disputeEvents, ledgerAccounts, users, type DisputeCaseRow } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { sendEmail, type OutgoingEmail } from "~/server/mail/outbox.server";
import { logger } from "~/server/logger.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer, today } from "~/server/ledger/ledger.server";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import { toCents, toId } from "~/domain/ledger-rules";
import { formatCents } from "~/domain/money";
import { refusal, refusalMessage, type Refusal } from "~/domain/refusals";
import { addBusinessDays } from "~/domain/payment-dates";
import { formatBusinessDate as d } from "~/domain/calendar-date";
import {
  caseNumber,
  clockState,
  currentDeadline,
  disputeClocks,
  DISPUTE_KIND_LABELS,
  DISPUTE_STATUS_LABELS,
  isDisputable,
  isNewAccountTransfer,
  isResolved,
  provisionalCreditNoticeBy,
  reversalDebitOn,
  type ClockState,
  type Deadline,
  type DisputeKind,
  type DisputeStatus,
} from "~/domain/disputes";
import {
  disputeAcknowledgedEmail,
  disputeDeadlineEmail,
  disputeErrorFoundEmail,
  disputeNoErrorEmail,
  disputeProvisionalCreditEmail,
  disputeReversedEmail,
} from "./emails.server";

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

/** A member reports a problem: the case is opened with its clocks, acknowledged on the page and by email. */
export async function reportDispute(
  db: Db,
  member: { id: string; email: string },
  input: ReportInput,
  origin: AuditOrigin,
  now: Date = new Date(),
): Promise<ReportAnswer> {
  const [earlier] = await db
    .select({ id: disputeCases.id })
    .from(disputeCases)
    .where(and(eq(disputeCases.member_id, member.id), eq(disputeCases.idempotency_key, input.idempotency_key)));
  if (earlier) return { ok: true, case_id: earlier.id, case_number: caseNumber(earlier.id), replayed: true };
  const transaction = await memberTransaction(db, member.id, input.transaction_id);
  if (!transaction) return refusal("not_found", TRANSACTION_NOT_FOUND, { field: "transaction_id" });
  if (!isDisputable(transaction.kind, transaction.status))
    return refusal(
      "conflict",
      "This transaction cannot be reported here: only completed electronic transactions can. Please contact us about it.",
      { field: "transaction_id" },
    );
  const received_on = today(now);
  const clocks = disputeClocks({
    received_on,
    new_account: isNewAccountTransfer(transaction.account_opened_on, transaction.effective_date),
    point_of_sale: transaction.kind === "card_payment",
    foreign: transaction.foreign_initiated,
  });
  const amount_cents = Math.abs(transaction.amount_cents);
  const created: { case_id: number; open?: undefined } | { case_id?: undefined; open: number } = await db
    .transaction(async (tx): Promise<{ case_id: number } | { open: number }> => {
      const open = await openCaseFor(tx, transaction.transaction_id, transaction.account_id);
      if (open) return { open: open.id };
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
        })
        .returning({ id: disputeCases.id });
      const case_id = row!.id;
      await tx.insert(disputeEvents).values({
        case_id,
        at: now,
        kind: "reported",
        actor_id: member.id,
        actor_email: member.email,
        text: `${DISPUTE_KIND_LABELS[input.kind]}.`,
      });
      await recordAudit(tx, {
        actor_id: member.id,
        actor_email: member.email,
        action: "dispute.report",
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
        },
        ...origin,
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
    })
    .catch((error: unknown) => {
      // Two reports of one transaction at the same moment: the second finds the first's case.
      if ((error as { code?: string })?.code === "23505") return { open: -1 } as const;
      throw error;
    });
  if (created.case_id === undefined) {
    const open =
      created.open !== undefined && created.open > 0
        ? created.open
        : (await openCaseFor(db, transaction.transaction_id, transaction.account_id))?.id;
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
      amount_cents,
      kind: input.kind,
      received_on,
      investigate_by: clocks.investigate_by,
      complete_by: clocks.complete_by,
    }),
  );
  return { ok: true, case_id: created.case_id, case_number: caseNumber(created.case_id), replayed: false };
}

type Message = Omit<OutgoingEmail, "to" | "user_id">;

async function mailAfterCommit(db: Db, member: { id: string; email: string }, message: () => Message): Promise<void> {
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

async function summaries(db: DbOrTx, rows: DisputeCaseRow[], now: Date): Promise<CaseSummary[]> {
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
    events: events.map((e) => ({ id: e.id, at: e.at, kind: e.kind, text: e.text })),
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

// ---------------------------------------------------------------------------------------------
// Staff actions

export interface StaffStep {
  staff: { id: string; email: string };
  origin: AuditOrigin;
  case_id: number;
  now?: Date;
}

export type StepAnswer = { ok: true; message: string } | DisputeRefusal;

async function lockCase(tx: DbOrTx, case_id: number): Promise<DisputeCaseRow> {
  if (!Number.isSafeInteger(case_id) || case_id <= 0) refuse(refusal("not_found", CASE_NOT_FOUND));
  const [row] = await tx.select().from(disputeCases).where(eq(disputeCases.id, case_id)).for("update");
  if (!row) refuse(refusal("not_found", CASE_NOT_FOUND));
  return row;
}

async function memberOf(db: DbOrTx, member_id: string) {
  const [person] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, member_id));
  return person ?? null;
}

/** A staff note on the case (never shown to the member). */
export async function addCaseNote(db: Db, step: StaffStep & { text: string }): Promise<StepAnswer> {
  const now = step.now ?? new Date();
  const outcome = await inRefusableTransaction(db, async (tx) => {
    const row = await lockCase(tx, step.case_id);
    await tx.insert(disputeEvents).values({
      case_id: row.id,
      at: now,
      kind: "note",
      actor_id: step.staff.id,
      actor_email: step.staff.email,
      text: step.text,
      internal: true,
    });
    await recordAudit(tx, {
      actor_id: step.staff.id,
      actor_email: step.staff.email,
      action: "dispute.note",
      subject_type: "dispute_case",
      subject_id: row.id,
      member_id: row.member_id,
      after: { length: step.text.length },
      ...step.origin,
      at: now,
    });
    return { ok: true as const, message: "Note added." };
  });
  return outcome;
}

async function postCredit(
  tx: DbOrTx,
  row: DisputeCaseRow,
  staff: { id: string },
  amount_cents: number,
  purpose: "provisional" | "final",
): Promise<number> {
  const adjustments = await institutionAccount(tx, "adjustments");
  const answer = await postTransfer(tx, {
    idempotency_key: `dispute:${row.id}:${purpose}`,
    initiator: `staff:${staff.id}`,
    kind: "dispute_credit",
    created_by: staff.id,
    memo: `${purpose === "provisional" ? "Provisional credit" : "Credit"}: case ${caseNumber(row.id)}`,
    category: "Other",
    reference: caseNumber(row.id),
    entries: [
      { account_id: adjustments.id, amount_cents: -amount_cents },
      { account_id: Number(row.account_id), amount_cents },
    ],
  });
  if (!answer.ok) refuse(refusal("conflict", `The credit could not post: ${refusalMessage(answer.code)}.`));
  return answer.transaction.id;
}

/**
 * Provisional credit (1005.11(c)(2)(i)): the amount (at most the amount in dispute) is credited to
 * the member's account now, and the member is told at once with the amount and date, which meets
 * the 2 business days of (c)(2)(ii). The case then has until its 45 (90) days to finish.
 */
export async function provisionallyCredit(db: Db, step: StaffStep & { amount_cents?: number }): Promise<StepAnswer> {
  const now = step.now ?? new Date();
  const day = today(now);
  const outcome = await inRefusableTransaction<
    { ok: true; row: DisputeCaseRow; amount_cents: number } | DisputeRefusal
  >(db, async (tx) => {
    const row = await lockCase(tx, step.case_id);
    if (row.status !== "open")
      refuse(refusal("conflict", "Only a case under investigation without a credit can be credited provisionally."));
    const amount_cents = step.amount_cents ?? Number(row.amount_cents);
    if (!Number.isSafeInteger(amount_cents) || amount_cents <= 0 || amount_cents > Number(row.amount_cents))
      refuse(
        refusal("bad_input", `Enter an amount from $0.01 to ${formatCents(Number(row.amount_cents))}.`, {
          field: "amount",
        }),
      );
    const transaction_id = await postCredit(tx, row, step.staff, amount_cents, "provisional");
    await tx
      .update(disputeCases)
      .set({
        status: "provisionally_credited",
        provisional_transaction_id: transaction_id,
        provisional_amount_cents: amount_cents,
        provisional_credited_on: day,
      })
      .where(eq(disputeCases.id, row.id));
    const text = `Provisional credit of ${formatCents(amount_cents)} on ${d(day)}; we finish by ${d(row.complete_by)}.`;
    await tx.insert(disputeEvents).values({
      case_id: row.id,
      at: now,
      kind: "provisional_credit",
      actor_id: step.staff.id,
      actor_email: step.staff.email,
      text,
    });
    await recordAudit(tx, {
      actor_id: step.staff.id,
      actor_email: step.staff.email,
      action: "dispute.provisional_credit",
      subject_type: "dispute_case",
      subject_id: row.id,
      member_id: row.member_id,
      before: { status: row.status },
      after: {
        status: "provisionally_credited",
        amount_cents,
        transaction_id,
        credited_on: day,
        notice_by: provisionalCreditNoticeBy(day),
      },
      ...step.origin,
      at: now,
    });
    await notify(tx, {
      member_id: row.member_id,
      kind: "dispute_update",
      title: `Provisional credit for case ${caseNumber(row.id)}`,
      body: `We credited ${formatCents(amount_cents)} to your account on ${d(day)} while we finish looking into it (by ${d(row.complete_by)}). You can use this money.`,
      at: now,
    });
    return { ok: true as const, row, amount_cents };
  });
  if (!outcome.ok) return outcome;
  const member = await memberOf(db, outcome.row.member_id);
  if (member)
    await mailAfterCommit(db, member, () =>
      disputeProvisionalCreditEmail({
        case_number: caseNumber(outcome.row.id),
        amount_cents: outcome.amount_cents,
        credited_on: day,
        complete_by: outcome.row.complete_by,
      }),
    );
  return { ok: true, message: `Provisionally credited ${formatCents(outcome.amount_cents)}; the member was told.` };
}

/**
 * Resolve (1005.11(c)(1), (d)): the error was found (the provisional credit becomes final, or the
 * amount is credited now), or it was not (with a provisional credit: the member is told in writing
 * that it will be debited 5 business days later, on the date named, and that payments are honoured
 * up to that amount until then; without one, the case is closed). Either way the member is told
 * what was found and may ask for the documents relied on.
 */
export async function resolveDispute(
  db: Db,
  step: StaffStep & { outcome: "error" | "no_error"; explanation: string },
): Promise<StepAnswer> {
  const now = step.now ?? new Date();
  const day = today(now);
  const outcome = await inRefusableTransaction<
    | { ok: true; row: DisputeCaseRow; status: DisputeStatus; credited_cents: number; reversal_on: string | null }
    | DisputeRefusal
  >(db, async (tx) => {
    const row = await lockCase(tx, step.case_id);
    if (row.status !== "open" && row.status !== "provisionally_credited")
      refuse(refusal("conflict", "This case is already decided."));
    const base = {
      resolution: step.explanation,
      decided_at: now,
      decided_by: step.staff.id,
    };
    let status: DisputeStatus;
    let event: "resolved_error" | "no_error_notice" | "resolved_no_error";
    let text: string;
    let credited_cents = 0;
    let reversal_on: string | null = null;
    let final_credit_transaction_id: number | null = null;
    if (step.outcome === "error") {
      status = "resolved_error";
      event = "resolved_error";
      if (row.status === "open") {
        credited_cents = Number(row.amount_cents);
        final_credit_transaction_id = await postCredit(tx, row, step.staff, credited_cents, "final");
        text = `Error found: ${formatCents(credited_cents)} credited on ${d(day)}.`;
      } else {
        credited_cents = Number(row.provisional_amount_cents);
        text = `Error found: the provisional credit of ${formatCents(credited_cents)} is final.`;
      }
      await tx
        .update(disputeCases)
        .set({ ...base, status, resolved_at: now, final_credit_transaction_id })
        .where(eq(disputeCases.id, row.id));
    } else if (row.status === "provisionally_credited") {
      status = "reversal_scheduled";
      event = "no_error_notice";
      reversal_on = reversalDebitOn(day);
      text = `No error found. The provisional credit of ${formatCents(Number(row.provisional_amount_cents))} will be debited on ${d(reversal_on)}.`;
      await tx
        .update(disputeCases)
        .set({ ...base, status, reversal_notice_on: day, reversal_on })
        .where(eq(disputeCases.id, row.id));
    } else {
      status = "resolved_no_error";
      event = "resolved_no_error";
      text = "No error found.";
      await tx
        .update(disputeCases)
        .set({ ...base, status, resolved_at: now })
        .where(eq(disputeCases.id, row.id));
    }
    await tx.insert(disputeEvents).values({
      case_id: row.id,
      at: now,
      kind: event,
      actor_id: step.staff.id,
      actor_email: step.staff.email,
      text: `${text} ${step.explanation}`,
    });
    await recordAudit(tx, {
      actor_id: step.staff.id,
      actor_email: step.staff.email,
      action: step.outcome === "error" ? "dispute.resolve_error" : "dispute.resolve_no_error",
      subject_type: "dispute_case",
      subject_id: row.id,
      member_id: row.member_id,
      before: { status: row.status },
      after: { status, credited_cents, final_credit_transaction_id, reversal_on, decided_on: day },
      ...step.origin,
      at: now,
    });
    await notify(tx, {
      member_id: row.member_id,
      kind: "dispute_update",
      title: `Case ${caseNumber(row.id)}: ${step.outcome === "error" ? "we corrected the error" : "no error found"}`,
      body: text,
      at: now,
    });
    return { ok: true as const, row, status, credited_cents, reversal_on };
  });
  if (!outcome.ok) return outcome;
  const member = await memberOf(db, outcome.row.member_id);
  const number = caseNumber(outcome.row.id);
  if (member) {
    if (step.outcome === "error")
      await mailAfterCommit(db, member, () =>
        disputeErrorFoundEmail({
          case_number: number,
          amount_cents: outcome.credited_cents,
          was_provisional: outcome.row.status === "provisionally_credited",
          on: day,
          explanation: step.explanation,
        }),
      );
    else
      await mailAfterCommit(db, member, () =>
        disputeNoErrorEmail({
          case_number: number,
          explanation: step.explanation,
          reversal:
            outcome.reversal_on === null
              ? null
              : { amount_cents: Number(outcome.row.provisional_amount_cents), on: outcome.reversal_on },
        }),
      );
  }
  return {
    ok: true,
    message:
      outcome.status === "reversal_scheduled"
        ? `Resolved: no error found. The provisional credit will be debited on ${d(outcome.reversal_on!)}; the member was told.`
        : `Resolved: ${outcome.status === "resolved_error" ? "error found" : "no error found"}; the member was told.`,
  };
}

// ---------------------------------------------------------------------------------------------
// The dispute-clocks job

/**
 * Debits every provisional credit whose notice period has ended (status reversal_scheduled,
 * reversal_on today or before): kind `dispute_credit_reversal`, the case closed, the member told.
 * When the ledger refuses (the money is no longer in the account, or the account is frozen), the
 * case stays, with the reason, for staff to handle: the member's money is never taken below zero.
 */
export async function postDueReversals(db: Db, now: Date): Promise<{ reversed: number; refused: number }> {
  const day = today(now);
  const due = await db
    .select({ id: disputeCases.id })
    .from(disputeCases)
    .where(and(eq(disputeCases.status, "reversal_scheduled"), sql`${disputeCases.reversal_on} <= ${day}::date`))
    .orderBy(asc(disputeCases.id));
  let reversed = 0;
  let refused = 0;
  for (const { id } of due) {
    const outcome = await db.transaction(async (tx) => {
      const [row] = await tx.select().from(disputeCases).where(eq(disputeCases.id, id)).for("update");
      if (!row || row.status !== "reversal_scheduled") return null;
      const amount_cents = Number(row.provisional_amount_cents);
      const adjustments = await institutionAccount(tx, "adjustments");
      const answer = await postTransfer(tx, {
        idempotency_key: `dispute:${row.id}:reversal`,
        initiator: "system:disputes",
        kind: "dispute_credit_reversal",
        created_by: "system:disputes",
        memo: `Provisional credit debited: case ${caseNumber(row.id)}`,
        category: "Other",
        reference: caseNumber(row.id),
        entries: [
          { account_id: Number(row.account_id), amount_cents: -amount_cents },
          { account_id: adjustments.id, amount_cents },
        ],
      });
      if (!answer.ok) {
        const problem = refusalMessage(answer.code);
        if (row.reversal_problem === problem) return { row, problem, repeated: true };
        await tx.update(disputeCases).set({ reversal_problem: problem }).where(eq(disputeCases.id, row.id));
        await tx.insert(disputeEvents).values({
          case_id: row.id,
          at: now,
          kind: "reversal_refused",
          text: `The debit of ${formatCents(amount_cents)} could not post: ${problem}.`,
          internal: true,
        });
        await recordAudit(tx, {
          actor_id: null,
          action: "dispute.reversal_refused",
          subject_type: "dispute_case",
          subject_id: row.id,
          member_id: row.member_id,
          after: { amount_cents, code: answer.code },
          at: now,
        });
        return { row, problem, repeated: false };
      }
      await tx
        .update(disputeCases)
        .set({
          status: "resolved_no_error",
          reversal_transaction_id: answer.transaction.id,
          resolved_at: now,
          reversal_problem: null,
        })
        .where(eq(disputeCases.id, row.id));
      const text = `The provisional credit of ${formatCents(amount_cents)} was debited on ${d(day)}, as we wrote on ${d(row.reversal_notice_on!)}.`;
      await tx.insert(disputeEvents).values({ case_id: row.id, at: now, kind: "reversed", text });
      await recordAudit(tx, {
        actor_id: null,
        action: "dispute.reverse_provisional_credit",
        subject_type: "dispute_case",
        subject_id: row.id,
        member_id: row.member_id,
        before: { status: row.status },
        after: { status: "resolved_no_error", amount_cents, transaction_id: answer.transaction.id, debited_on: day },
        at: now,
      });
      await notify(tx, {
        member_id: row.member_id,
        kind: "dispute_update",
        title: `Case ${caseNumber(row.id)}: provisional credit debited`,
        body: text,
        at: now,
      });
      return { row, amount_cents };
    });
    if (!outcome) continue;
    if ("problem" in outcome) {
      if (!outcome.repeated) refused++;
      continue;
    }
    reversed++;
    const member = await memberOf(db, outcome.row.member_id);
    if (member)
      await mailAfterCommit(db, member, () =>
        disputeReversedEmail({ case_number: caseNumber(outcome.row.id), amount_cents: outcome.amount_cents, on: day }),
      );
  }
  return { reversed, refused };
}

/**
 * Tells staff, once a business day, of every unresolved case whose deadline is today, the next
 * business day or already passed (and of a reversal the ledger refused): one email to each staff
 * member who may move money, and an event on each case.
 */
export async function flagDeadlines(db: Db, now: Date): Promise<{ flagged: number; told: number }> {
  const day = today(now);
  const soon = addBusinessDays(day, 1);
  const rows = await db
    .select()
    .from(disputeCases)
    .where(
      and(
        not(inArray(disputeCases.status, ["resolved_error", "resolved_no_error"])),
        sql`(${disputeCases.flagged_on} is null or ${disputeCases.flagged_on} < ${day}::date)`,
      ),
    )
    .orderBy(asc(disputeCases.id));
  const cases = (await summaries(db, rows, now)).filter(
    (c) => (c.deadline !== null && c.deadline.due_on <= soon) || c.reversal_problem !== null,
  );
  if (cases.length === 0) return { flagged: 0, told: 0 };
  await db.transaction(async (tx) => {
    for (const c of cases) {
      await tx.update(disputeCases).set({ flagged_on: day }).where(eq(disputeCases.id, c.id));
      await tx.insert(disputeEvents).values({
        case_id: c.id,
        at: now,
        kind: "deadline_flagged",
        text: c.deadline
          ? `${c.deadline.what} by ${d(c.deadline.due_on)} (${c.deadline.rule}): ${c.deadline.state.replace("_", " ")}.`
          : `The debit could not post: ${c.reversal_problem}.`,
        internal: true,
      });
    }
    await recordAudit(tx, {
      actor_id: null,
      action: "dispute.deadlines_flagged",
      subject_type: "dispute_case",
      after: { cases: cases.map((c) => c.id), on: day },
      at: now,
    });
  });
  const staff = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(and(eq(users.role, "admin"), sql`coalesce(${users.banned}, false) = false`));
  const message = disputeDeadlineEmail(
    day,
    cases.map((c) => ({
      number: c.number,
      what: c.deadline?.what ?? "Debit refused",
      due_on: c.deadline?.due_on ?? day,
      rule: c.deadline?.rule ?? "",
      state: c.deadline?.state ?? "overdue",
      problem: c.reversal_problem,
    })),
  );
  let told = 0;
  for (const person of staff) {
    try {
      await sendEmail(db, { ...message, to: person.email, user_id: person.id });
      told++;
    } catch (error) {
      logger.error({ err: error }, "could not queue a dispute deadline email");
    }
  }
  return { flagged: cases.length, told };
}

/** The job's run: due reversals first (a refused one is flagged in the same run), then the flags. */
export async function runDisputeClocks(db: Db, now: Date) {
  const reversals = await postDueReversals(db, now);
  const flags = await flagDeadlines(db, now);
  return { ...reversals, ...flags };
}

export { isResolved };
