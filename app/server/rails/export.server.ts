import { referenceNumber } from "~/domain/account-display";
import crypto from "node:crypto";
import { and, asc, count, eq, gt, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import type { Actor } from "~/domain/actor";
import { refusal, type Refusal } from "~/domain/refusals";
import {
  achReturnFiles,
  externalPayments,
  ledgerAccounts,
  linkedAccounts,
  paymentExportFiles,
  users,
  type ExternalPayment,
  type PaymentExportFile,
} from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { postTransfer, settleHolds, today } from "~/server/ledger/ledger.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { notifyAll } from "~/server/notifications/notifications.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { formatCents } from "~/domain/money";
import { formatCurrencyAmount } from "~/domain/currencies";
import { NachaFieldError, fileIdModifier, nachaCreditProblem, writeNachaFile, type NachaCredit } from "~/domain/nacha";
import { Pain001Error, pain001TransferProblem, writePain001, type Pain001Transfer } from "~/domain/pain001";
import { businessDayOnOrAfter, nextBusinessDay } from "~/domain/payment-dates";
import { BATCH_TRANSACTIONS_MAX } from "~/domain/ledger-rules";
import {
  MICRO_DEPOSIT_LINKS_PER_FILE,
  lockUnsentMicroDeposits,
  type UnsentMicroDeposits,
} from "~/server/linked-accounts/linked-accounts.server";
import { MICRO_ENTRY_DESCRIPTION, microDepositOffset } from "~/domain/linked-accounts";
import { openNumber } from "~/server/payments/payment-destination.server";
import {
  PULLS_PER_FILE,
  lockUnsentPulls,
  pullEntries,
  sendPulls,
  type UnsentPull,
} from "~/server/linked-accounts/money-in.server";

/**
 * Sending the queued payments to other banks (docs/product.md#payment-queues): staff export the
 * pending ACH transfers as one NACHA file, or the pending wires as one pain.001 message (up to
 * EXPORT_PAYMENTS_MAX a file, see below). In ONE
 * database transaction, all or nothing: the file is written and stored, its payments are marked
 * sent with the file's id, each payment's hold settles (the member's debit posts and the ACH or
 * wire settlement account receives the amount; a wire's fee goes to fees income), each member is
 * notified and the export is audited. If anything fails nothing is sent and nothing moves.
 *
 * Two staff exporting at once: the export takes a lock per kind, so the second waits and then
 * finds the payments already sent. A member cancelling at the same moment locks the payment row;
 * whichever comes first wins, and the other sees the payment's new status.
 *
 * A payment whose account is frozen or closed stays in the queue (the ledger refuses to settle
 * it) until staff cancel it or the account is open again.
 *
 * One bad payment never blocks the rest: a payment the file cannot carry (a payee name with no
 * letter the file's characters can hold, an account number of the wrong shape: the forms refuse
 * these today, but an older payment may hold one) is left out of the file, marked with the reason
 * (`export_problem`, shown on the queue, audited) and stays pending with its money held until
 * staff cancel it; the others are exported. Marked payments are not tried again.
 */

export type PaymentKind = "ach" | "wire";

/**
 * Most payments in one file; the rest wait for the next export. The holds settle in one bulk
 * ledger call, which takes at most this many; 10,000 export in about 1 s on a quiet 2-core machine
 * and 4-7 s on a busy one (bench/LOG.md "ACH export"), well inside the 60 s a request may take, and the settlement
 * account's row lock, which every new transfer to another bank needs, is held for that long.
 */
export const EXPORT_PAYMENTS_MAX = BATCH_TRANSACTIONS_MAX;

/** A payment an export left out, and why (staff's words, also stored on the payment). */
export interface SkippedPayment {
  payment_id: number;
  problem: string;
}

/** The transaction's answer: the file, or none when every payment was unwritable (marked, committed). */
type ExportOutcome = Extract<ExportResult, { ok: true }> | { ok: true; file: null; skipped: SkippedPayment[] };

export type ExportResult =
  | {
      ok: true;
      file: {
        id: number;
        file_name: string;
        kind: PaymentKind;
        payment_count: number;
        total_cents: number;
        effective_date: string;
        /** Linked accounts whose micro-deposits the file carries (ACH). */
        verifications?: number;
        /** Money members move in from linked accounts: WEB debits the file carries (ACH). */
        pulls?: number;
      };
      skipped: SkippedPayment[];
    }
  | ExportRefusal;

/**
 * No file was made: nothing pending (a conflict with the queue's state), or what was pending could
 * not be written (`refused`, with the payments marked in the queue and named in `skipped`).
 */
export type ExportRefusal = Refusal<"nothing_pending" | "refused"> & { skipped?: SkippedPayment[] };

function notExported(message: string, skipped?: SkippedPayment[]): ExportRefusal {
  const answer: ExportRefusal = refusal("unprocessable", message, { code: "refused" });
  if (skipped) answer.skipped = skipped;
  return answer;
}

const NOTHING: Record<PaymentKind, string> = {
  ach: "There are no pending ACH transfers to export.",
  wire: "There are no pending wires to export.",
};

/**
 * Settles every payment's hold in one ledger call. A refusal from the ledger (a value) stops the
 * export: refused, it rolls the whole transaction back.
 */
async function settle(tx: DbOrTx, payments: readonly ExternalPayment[], file_id: number, staff: Actor): Promise<void> {
  const answer = await settleHolds(tx, {
    holds: payments.map((p) => ({ transaction_id: Number(p.hold_transaction_id) })),
    idempotency_key: `export:${file_id}`,
    resolved_by: `staff:${staff.id}`,
  });
  if (!answer.ok) {
    const payment = answer.batch_index === undefined ? undefined : payments[answer.batch_index];
    refuse(
      notExported(
        `The hold of ${payment ? `payment ${payment.id}` : "a payment"} could not be settled (${answer.code}); nothing was exported.`,
      ),
    );
  }
}

/** "HH:MM" now in the institution's time zone. */
function clockTime(now: Date): string {
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: institution().time_zone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(now);
}

/**
 * The pending payments of a kind whose accounts can settle, oldest first, locked for this
 * transaction. A wire still inside its member's 30-minute cancellation window (`cancel_until`,
 * docs/product.md#remittance-transfers) waits for the next export after the window closes.
 */
async function lockPending(tx: DbOrTx, kind: PaymentKind, limit: number, now: Date): Promise<ExternalPayment[]> {
  const rows = await tx
    .select({ payment: externalPayments })
    .from(externalPayments)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, externalPayments.from_account_id))
    .where(
      and(
        eq(externalPayments.kind, kind),
        eq(externalPayments.status, "pending"),
        eq(ledgerAccounts.status, "active"),
        isNull(externalPayments.export_problem),
        or(isNull(externalPayments.cancel_until), lte(externalPayments.cancel_until, now)),
      ),
    )
    .orderBy(asc(externalPayments.id))
    .limit(limit)
    .for("update", { of: externalPayments });
  return rows.map((r) => r.payment);
}

/**
 * The n-th file of a kind made on the business date (0-based): NACHA's file id modifier counts
 * them. ACH payment files and ACH return files go to the same operator from the same origin, so
 * they share one count (two files of a day with one modifier would be refused as a duplicate).
 */
export async function filesMadeOn(tx: DbOrTx, kind: PaymentKind, business_date: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(paymentExportFiles)
    .where(and(eq(paymentExportFiles.kind, kind), eq(paymentExportFiles.business_date, business_date)));
  let n = Number(row?.n ?? 0);
  if (kind === "ach") {
    const [returns] = await tx
      .select({ n: count() })
      .from(achReturnFiles)
      .where(eq(achReturnFiles.business_date, business_date));
    n += Number(returns?.n ?? 0);
  }
  return n;
}

async function nextFileId(tx: DbOrTx): Promise<number> {
  const result = await tx.execute(sql`select nextval(pg_get_serial_sequence('payment_export_files', 'id')) as id`);
  return Number(result.rows[0]!.id);
}

/** Seven digits from the payment's id: trace numbers stay unique across files. */
export function traceSequence(payment_id: number): number {
  return ((payment_id - 1) % 9_999_999) + 1;
}

interface Built {
  content: string;
  file_name: string;
  effective_date: string;
}

/** One payment as a NACHA credit. */
function achCredit(p: ExternalPayment, effective_date: string): NachaCredit {
  return {
    effective_date,
    routing_number: p.details.routing_number ?? "",
    // Sealed in the row; opened only into the file that sends the money.
    account_number: openNumber(p, "account_number"),
    // As the member chose it (22 or 32); a transfer queued before the form asked went to checking.
    account_type: p.details.account_type === "savings" ? "savings" : "checking",
    amount_cents: Number(p.amount_cents),
    individual_id: referenceNumber(Number(p.hold_transaction_id)),
    individual_name: p.details.account_name ?? "",
    trace_sequence: traceSequence(Number(p.id)),
    payment_information: p.reference ?? "",
  };
}

/**
 * A linked account's verification entries (docs/product.md#linked-accounts): the two micro-deposit
 * credits and the debit taking their sum back, in one ACCTVERIFY batch as Nacha asks of
 * micro-entries (WEB: the member asked for them online). Their trace sequences are the next free
 * ones after the file's payments, so every trace number in the file is unique.
 */
function microEntries(
  links: readonly UnsentMicroDeposits[],
  effective_date: string,
  sequence: () => number,
): NachaCredit[] {
  return links.flatMap(({ link, account_number, member_name }) => {
    const amounts = [link.micro_first_cents, link.micro_second_cents] as const;
    const common = {
      effective_date,
      routing_number: link.routing_number,
      account_number,
      account_type: link.account_type,
      individual_id: `LA${String(link.id).padStart(8, "0")}`,
      individual_name: member_name,
      sec_code: "WEB" as const,
      entry_description: MICRO_ENTRY_DESCRIPTION,
    };
    return [
      { ...common, amount_cents: amounts[0], trace_sequence: sequence() },
      { ...common, amount_cents: amounts[1], trace_sequence: sequence() },
      { ...common, amount_cents: microDepositOffset(amounts), trace_sequence: sequence(), debit: true },
    ];
  });
}

/** The file's trace sequences not taken by its payments, in order: for the entries that are not payments. */
function freeSequences(used: Set<number>): () => number {
  let next = 0;
  return () => {
    do next = (next % 9_999_999) + 1;
    while (used.has(next));
    used.add(next);
    return next;
  };
}

function buildAch(
  payments: readonly ExternalPayment[],
  micro: readonly UnsentMicroDeposits[],
  pulls: readonly UnsentPull[],
  file_id: number,
  business_date: string,
  modifier: string,
  now: Date,
): Built & { pull_traces: number[] } {
  const profile = institution();
  const effective_date = nextBusinessDay(business_date);
  const credits = payments.map((p) => achCredit(p, effective_date));
  const sequence = freeSequences(new Set(credits.map((c) => c.trace_sequence)));
  const debits = pullEntries(pulls, effective_date, sequence);
  const file = writeNachaFile({
    // The file header's name field holds 23 characters: the profile's short name fits whole
    // ("HARBORVIEW CU"), where the full name was cut mid-word.
    origin: { routing_number: profile.routing_number, name: profile.short_name },
    // The ACH operator (a Federal Reserve Bank) or correspondent the file is sent to, and the
    // originator the members' banks show, as the profile names them (docs/product.md#payment-queues).
    destination: { routing_number: profile.ach.destination_routing_number, name: profile.ach.destination_name },
    company: {
      name: profile.ach.company_name,
      identification: profile.ach.company_identification,
      entry_description: profile.ach.company_entry_description,
    },
    created: { date: business_date, time: clockTime(now) },
    file_id_modifier: modifier,
    credits: [...credits, ...debits, ...microEntries(micro, effective_date, sequence)],
  });
  return {
    content: file.text,
    file_name: `ach-${business_date}-${modifier}-${file_id}.ach`,
    effective_date,
    pull_traces: debits.map((d) => d.trace_sequence),
  };
}

/** One payment as a pain.001 credit transfer. */
function wireTransfer(p: ExternalPayment): Pain001Transfer {
  return {
    instruction_id: `W${p.id}`,
    end_to_end_id: referenceNumber(Number(p.hold_transaction_id)),
    currency: p.currency,
    amount_minor_units: Number(p.foreign_amount_minor ?? p.amount_cents),
    creditor_name: p.details.recipient_name ?? "",
    creditor_country: p.details.country ?? "",
    // Sealed in the row; opened only into the message that sends the money.
    creditor_iban: openNumber(p, "iban") || undefined,
    creditor_account_number: openNumber(p, "account_number"),
    creditor_agent_bic: p.details.bic ?? "",
    creditor_agent_name: p.details.bank_name ?? "",
    remittance_information: p.reference ?? "",
  };
}

/** Why a payment cannot go into its file, in staff's words, or null. */
function exportProblem(p: ExternalPayment, business_date: string): string | null {
  const problem =
    p.kind === "ach"
      ? nachaCreditProblem(achCredit(p, nextBusinessDay(business_date)))
      : pain001TransferProblem(wireTransfer(p));
  if (problem === null) return null;
  return `It cannot be written into the ${p.kind === "ach" ? "NACHA file" : "pain.001 message"}: ${problem}. Cancel it to give the member their money back.`;
}

/**
 * Marks the payments an export leaves out (still pending, money still held), one audit entry
 * each, and answers what was left out.
 */
async function markUnwritable(
  tx: DbOrTx,
  payments: readonly { payment: ExternalPayment; problem: string }[],
  staff: Actor,
  origin: AuditOrigin,
): Promise<SkippedPayment[]> {
  for (const { payment, problem } of payments) {
    await tx.update(externalPayments).set({ export_problem: problem }).where(eq(externalPayments.id, payment.id));
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "payment_export.left_out",
      subject_type: "external_payment",
      subject_id: payment.id,
      member_id: payment.member_id,
      before: { status: "pending" },
      after: { status: "pending", export_problem: problem },
      request_id: origin.request_id,
      ip: origin.ip,
    });
  }
  return payments.map(({ payment, problem }) => ({ payment_id: Number(payment.id), problem }));
}

/** Pending wires still inside their 30-minute cancellation window at `now`: the next export takes them. */
async function inCancelWindowCount(tx: DbOrTx, kind: PaymentKind, now: Date): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(externalPayments)
    .where(
      and(
        eq(externalPayments.kind, kind),
        eq(externalPayments.status, "pending"),
        gt(externalPayments.cancel_until, now),
      ),
    );
  return Number(row?.n ?? 0);
}

/** Pending payments of a kind an earlier export left out (they wait for staff). */
async function leftOutCount(tx: DbOrTx, kind: PaymentKind): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(externalPayments)
    .where(
      and(
        eq(externalPayments.kind, kind),
        eq(externalPayments.status, "pending"),
        isNotNull(externalPayments.export_problem),
      ),
    );
  return Number(row?.n ?? 0);
}

async function buildWires(
  tx: DbOrTx,
  payments: readonly ExternalPayment[],
  file_id: number,
  business_date: string,
  now: Date,
): Promise<Built> {
  const profile = institution();
  const settlement = await institutionAccount(tx, "wire_settlement");
  const requested = businessDayOnOrAfter(business_date);
  const transfers = payments.map(wireTransfer);
  const message = writePain001({
    message_id: `MUTUAL-W-${String(file_id).padStart(8, "0")}`,
    created_at: now.toISOString().replace(/\.\d{3}Z$/, "Z"),
    requested_execution_date: requested,
    debtor: { name: profile.name, routing_number: profile.routing_number, account_number: settlement.account_number },
    // The member paid the credit union's wire fee; the banks on the way share theirs.
    charge_bearer: "SHAR",
    transfers,
  });
  return { content: message.xml, file_name: `wires-${business_date}-${file_id}.xml`, effective_date: requested };
}

function sentNotification(p: ExternalPayment, effective_date: string): { title: string; body: string } {
  const reference = referenceNumber(Number(p.hold_transaction_id));
  if (p.kind === "ach") {
    return {
      title: `Transfer of ${formatCents(Number(p.amount_cents))} to ${p.details.account_name ?? "another bank"} was sent`,
      body: `It went out in the ACH file effective ${effective_date}. Reference ${reference}.`,
    };
  }
  const amount = formatCurrencyAmount(Number(p.foreign_amount_minor ?? 0), p.currency);
  return {
    title: `International transfer of ${amount} to ${p.details.recipient_name ?? "your recipient"} was sent`,
    body: `The wire was sent to our correspondent bank for ${effective_date}. Reference ${reference}.`,
  };
}

/**
 * Exports as one file the oldest pending payments of `kind` whose accounts are open (a frozen or
 * closed account's payments stay pending), at most `max_payments`: EXPORT_PAYMENTS_MAX unless the
 * caller asks for fewer (tests do, to make several files); the rest wait for the next export. It
 * is not a way past the maximum: more than EXPORT_PAYMENTS_MAX holds are refused by the ledger's
 * bulk settle (batch_too_large) and nothing is exported. See the module comment.
 */
export async function exportPayments(
  db: Db,
  kind: PaymentKind,
  staff: Actor,
  origin: AuditOrigin,
  options: { now?: Date; max_payments?: number } = {},
): Promise<ExportResult> {
  const run: ExportRun = {
    kind,
    staff,
    origin,
    now: options.now ?? new Date(),
    max_payments: options.max_payments ?? EXPORT_PAYMENTS_MAX,
  };
  try {
    const outcome = await inRefusableTransaction<ExportOutcome | ExportRefusal>(db, (tx) => exportDuePayments(tx, run));
    if (!outcome.ok || outcome.file !== null) return outcome;
    const n = outcome.skipped.length;
    return notExported(
      `No file was made: ${n === 1 ? "the payment" : `all ${n} payments`} waiting cannot be written into the file; ${n === 1 ? "it is" : "they are"} marked in the queue with the reason.`,
      outcome.skipped,
    );
  } catch (error) {
    if (error instanceof NachaFieldError || error instanceof Pain001Error)
      return notExported(`The file could not be written (${error.message}); nothing was exported.`);
    throw error;
  }
}

/** One export as its steps see it: the kind of file, who asked, and when. */
interface ExportRun {
  kind: PaymentKind;
  staff: Actor;
  origin: AuditOrigin;
  now: Date;
  max_payments: number;
}

/**
 * The export's one transaction: lock what is due, leave out what the file cannot carry, write the
 * file, mark the payments sent and settle their holds, send the micro-deposits and pulls riding
 * with them, tell the members, audit. A refusal anywhere rolls all of it back.
 */
async function exportDuePayments(tx: DbOrTx, run: ExportRun): Promise<ExportOutcome | ExportRefusal> {
  const { kind, staff, origin, now } = run;
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`payment-export:${kind}`}))`);
  const locked = await lockPending(tx, kind, run.max_payments, now);
  // Linked accounts' micro-deposits ride in the next ACH file, with or without payments.
  const micro = kind === "ach" ? await lockUnsentMicroDeposits(tx, MICRO_DEPOSIT_LINKS_PER_FILE) : [];
  // Money members move in from their linked accounts: WEB debits in the same file.
  const pulls = kind === "ach" ? await lockUnsentPulls(tx, PULLS_PER_FILE) : [];
  if (locked.length === 0 && micro.length === 0 && pulls.length === 0) return nothingToExport(tx, kind, now);
  const business_date = today(now);
  const payments: ExternalPayment[] = [];
  const unwritable: { payment: ExternalPayment; problem: string }[] = [];
  for (const payment of locked) {
    const problem = exportProblem(payment, business_date);
    if (problem === null) payments.push(payment);
    else unwritable.push({ payment, problem });
  }
  const skipped = await markUnwritable(tx, unwritable, staff, origin);
  // Every payment unwritable: no file, but the marks in the queue are kept (committed).
  if (payments.length === 0 && micro.length === 0 && pulls.length === 0)
    return { ok: true, file: null, skipped } as const;
  const file_id = await nextFileId(tx);
  const ach =
    kind === "ach"
      ? buildAch(
          payments,
          micro,
          pulls,
          file_id,
          business_date,
          fileIdModifier(await filesMadeOn(tx, kind, business_date)),
          now,
        )
      : null;
  const built = ach ?? (await buildWires(tx, payments, file_id, business_date, now));
  const file = await storeFile(tx, run, { file_id, built, business_date, payments });
  const ids = payments.map((p) => Number(p.id));
  await markSent(tx, run, ids, file_id);
  if (payments.length > 0) await settle(tx, payments, file_id, staff);
  await sendMicroDeposits(tx, micro, file_id, built.effective_date, staff);
  await sendPulls(tx, pulls, ach?.pull_traces ?? [], file_id, built.effective_date, staff, (m) =>
    refuse(notExported(m)),
  );
  await notifyAll(
    tx,
    payments.map((payment) => ({
      member_id: payment.member_id,
      kind: "payment_sent" as const,
      ...sentNotification(payment, built.effective_date),
    })),
  );
  const summary = {
    ...file,
    ...(micro.length > 0 ? { verifications: micro.length } : {}),
    ...(pulls.length > 0 ? { pulls: pulls.length } : {}),
  };
  await auditExport(tx, run, summary, ids);
  return { ok: true, file: summary, skipped } as const;
}

/**
 * Nothing to export, and why in staff's words: the payments waiting are still inside the member's
 * cancellation window, or an earlier export left them out, or there are none.
 */
async function nothingToExport(tx: DbOrTx, kind: PaymentKind, now: Date): Promise<ExportRefusal> {
  const left_out = await leftOutCount(tx, kind);
  const waiting = await inCancelWindowCount(tx, kind, now);
  const message =
    waiting > 0
      ? `${NOTHING[kind].slice(0, -1)} yet: ${waiting === 1 ? "the one waiting is" : `the ${waiting} waiting are`} still inside the member's 30-minute cancellation window.`
      : left_out === 0
        ? NOTHING[kind]
        : `${NOTHING[kind].slice(0, -1)}: ${left_out === 1 ? "the one waiting cannot be written into the file" : `the ${left_out} waiting cannot be written into the file`} (see its reason in the queue).`;
  return refusal("conflict", message, { code: "nothing_pending" });
}

type ExportedFile = Extract<ExportResult, { ok: true }>["file"];

/** The file kept with its fingerprint (staff download it, the books name it). */
async function storeFile(
  tx: DbOrTx,
  run: ExportRun,
  file: { file_id: number; built: Built; business_date: string; payments: readonly ExternalPayment[] },
): Promise<ExportedFile> {
  const { file_id, built, payments } = file;
  const total_cents = payments.reduce((sum, p) => sum + Number(p.amount_cents), 0);
  await tx.insert(paymentExportFiles).values({
    id: file_id,
    kind: run.kind,
    file_name: built.file_name,
    content: built.content,
    sha256: crypto.createHash("sha256").update(built.content).digest("hex"),
    business_date: file.business_date,
    effective_date: built.effective_date,
    payment_count: payments.length,
    total_cents,
    created_by: run.staff.id,
  });
  return {
    id: file_id,
    file_name: built.file_name,
    kind: run.kind,
    payment_count: payments.length,
    total_cents,
    effective_date: built.effective_date,
  };
}

/** The payments marked sent with the file; one that changed meanwhile refuses the whole export. */
async function markSent(tx: DbOrTx, run: ExportRun, ids: readonly number[], file_id: number): Promise<void> {
  // One statement, the ids as one JSON parameter: a list of 1,000 parameters per statement
  // cost 10,000 payments about 0.5 s to build and plan (bench/LOG.md "ACH export").
  const marked = await tx.execute(sql`
    with sent as (
      update external_payments set status = 'sent', export_file_id = ${file_id}, resolved_at = ${run.now.toISOString()}::timestamptz, resolved_by = ${`staff:${run.staff.id}`}
       where id in (select value::bigint from json_array_elements_text(${JSON.stringify(ids)}::json)) and status = 'pending'
      returning 1)
    select count(*)::int as n from sent`);
  if (Number(marked.rows[0]?.n) !== ids.length)
    refuse(notExported("A payment changed while the file was being written; nothing was exported. Please try again."));
}

async function auditExport(tx: DbOrTx, run: ExportRun, file: ExportedFile, ids: readonly number[]): Promise<void> {
  await recordAudit(tx, {
    actor_id: run.staff.id,
    actor_email: run.staff.email,
    action: run.kind === "ach" ? "payment_export.ach" : "payment_export.wire",
    subject_type: "payment_export_file",
    subject_id: file.id,
    after: {
      file_name: file.file_name,
      payments: file.payment_count,
      total_cents: file.total_cents,
      effective_date: file.effective_date,
      first_payment_id: ids[0],
      last_payment_id: ids.at(-1),
      ...(file.verifications ? { micro_deposit_links: file.verifications } : {}),
      ...(file.pulls ? { money_in_pulls: file.pulls } : {}),
    },
    request_id: run.origin.request_id,
    ip: run.origin.ip,
  });
}

/**
 * The micro-deposits of a file in the books and with the members: the links are marked with the
 * file, the credits are paid from Adjustments through ACH settlement and the debit brings the same
 * sum back (two posted transactions, so the books show both legs and the trial balance stays
 * balanced), and each member is told to look for the two deposits.
 */
async function sendMicroDeposits(
  tx: DbOrTx,
  micro: readonly UnsentMicroDeposits[],
  file_id: number,
  effective_date: string,
  staff: Actor,
): Promise<void> {
  if (micro.length === 0) return;
  const ids = micro.map(({ link }) => Number(link.id));
  await tx.execute(sql`
    update ${linkedAccounts} set micro_file_id = ${file_id}
     where id in (select value::bigint from json_array_elements_text(${JSON.stringify(ids)}::json))`);
  const total = micro.reduce((sum, { link }) => sum + link.micro_first_cents + link.micro_second_cents, 0);
  const adjustments = await institutionAccount(tx, "adjustments");
  const settlement = await institutionAccount(tx, "ach_settlement");
  for (const [leg, sign] of [
    ["out", 1],
    ["back", -1],
  ] as const) {
    const answer = await postTransfer(tx, {
      idempotency_key: `micro-deposits:${file_id}:${leg}`,
      initiator: `staff:${staff.id}`,
      kind: "adjustment",
      created_by: staff.id,
      entries: [
        { account_id: adjustments.id, amount_cents: -sign * total },
        { account_id: settlement.id, amount_cents: sign * total },
      ],
      memo:
        leg === "out"
          ? `Micro-deposits to verify ${micro.length} linked account(s), file ${file_id}`
          : `Micro-deposits taken back, file ${file_id}`,
      category: "Account verification",
    });
    if (!answer.ok)
      refuse(notExported(`The micro-deposits could not be booked (${answer.code}); nothing was exported.`));
  }
  await notifyAll(
    tx,
    micro.map(({ link }) => ({
      member_id: link.member_id,
      kind: "payment_sent" as const,
      title: `Two small deposits are on their way to ${link.nickname}`,
      body: `They should arrive on ${effective_date}, with a withdrawal of the same total. Enter the two amounts under Linked accounts to start using ••${link.account_last4}.`,
    })),
  );
}

export interface ExportFileSummary {
  id: number;
  kind: PaymentKind;
  file_name: string;
  effective_date: string;
  payment_count: number;
  total_cents: number;
  created_at: Date;
  created_by_email: string | null;
}

/** The newest export files, without their content. */
export async function recentExportFiles(db: DbOrTx, limit = 20): Promise<ExportFileSummary[]> {
  const rows = await db
    .select({
      id: paymentExportFiles.id,
      kind: paymentExportFiles.kind,
      file_name: paymentExportFiles.file_name,
      effective_date: paymentExportFiles.effective_date,
      payment_count: paymentExportFiles.payment_count,
      total_cents: paymentExportFiles.total_cents,
      created_at: paymentExportFiles.created_at,
      created_by_email: users.email,
    })
    .from(paymentExportFiles)
    .leftJoin(users, eq(users.id, paymentExportFiles.created_by))
    .orderBy(sql`${paymentExportFiles.id} desc`)
    .limit(limit);
  return rows.map((r) => ({ ...r, id: Number(r.id), total_cents: Number(r.total_cents) }));
}

/** One stored file, to download it again (the caller audits the download). */
export async function exportFile(db: DbOrTx, id: number): Promise<PaymentExportFile | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const [row] = await db.select().from(paymentExportFiles).where(eq(paymentExportFiles.id, id));
  return row ?? null;
}
