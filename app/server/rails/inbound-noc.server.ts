import type { Actor } from "~/domain/actor";
import type { Refusal } from "~/domain/refusals";
import { inRefusableTransaction } from "~/server/db/refusable-transaction.server";
import { and, asc, count, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import {
  achInboundEntries,
  achInboundFiles,
  achNotificationsOfChange,
  externalPayments,
  users,
  type AchNotificationOfChange,
  type ExternalPayment,
} from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { changeReason, parseCorrectedData, type CorrectedData } from "~/domain/nacha/change";
import { formatCents } from "~/domain/money";
import { toId } from "~/domain/ledger-rules";
import { institution } from "~/config/institution.server";
import { sentPaymentByTrace, type Item } from "./inbound-entries.server";
import { lastFour, maskedNumber, openNumber, withAccountNumber } from "~/server/payments/payment-destination.server";

/**
 * Notifications of change (docs/product.md#ach-in): a bank that received one of our ACH payments
 * posted it but tells us (a COR entry, addenda 98) that the destination it was sent to has
 * changed: a new account number, routing number, account type (checking or savings), name. No money moves. Each waits in the
 * "Notifications of change" section of /admin/queues with the member and payment it names, until
 * staff apply the correction (the member's transfers still waiting to go to that destination take
 * the corrected data, so the next file is right, and the member is told) or mark it handled with
 * a note. One that names no payment of ours waits there too, as unmatched. Both are audited.
 */

/** Change codes whose correction a waiting transfer can take: the destination's routing number, account number, account type or name. */
const APPLICABLE: readonly string[] = ["C01", "C02", "C03", "C04", "C05", "C06", "C07"];

/**
 * The chunk's notifications of change, recorded with the payment each names, in the database
 * transaction that stores their entries (so an interrupted upload records each once).
 */
export async function recordNotificationsOfChange(
  tx: DbOrTx,
  file_id: number,
  entries: readonly Item[],
): Promise<void> {
  if (entries.length === 0) return;
  const stored = await tx.execute(sql`
    select id, line from ach_inbound_entries
     where file_id = ${file_id} and kind = 'noc' and line in (select (jsonb_array_elements_text(${JSON.stringify(entries.map((e) => e.line))}::jsonb))::int)`);
  const id_by_line = new Map(stored.rows.map((r) => [Number(r.line), toId(r.id)]));
  for (const entry of entries) {
    const change = entry.change;
    const entry_id = id_by_line.get(entry.line);
    if (!change || entry_id === undefined)
      throw new Error(`ACH in: notification of change at line ${entry.line} was not stored`);
    const payment_id = await sentPaymentByTrace(tx, change.original_trace_number, null);
    const [payment] =
      payment_id === null
        ? []
        : await tx
            .select({ member_id: externalPayments.member_id })
            .from(externalPayments)
            .where(eq(externalPayments.id, payment_id));
    await tx.insert(achNotificationsOfChange).values({
      entry_id,
      change_code: change.change_code,
      original_trace_number: change.original_trace_number,
      corrected_data: change.corrected_data,
      payment_id,
      member_id: payment?.member_id ?? null,
    });
  }
}

export async function waitingChangesCount(db: DbOrTx): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(achNotificationsOfChange)
    .where(eq(achNotificationsOfChange.status, "waiting"));
  return Number(row?.n ?? 0);
}

function mask(account_number: string): string {
  return account_number.length <= 4 ? account_number : `••${account_number.slice(-4)}`;
}

/** The changes a correction makes, in words ("Account number ••6789 to ••4321"), account numbers masked. */
function describeChanges(details: Record<string, string> | null, corrected: CorrectedData): string[] {
  const was = (value: string | undefined) => (value ? `${value} to ` : "");
  const out: string[] = [];
  if (corrected.routing_number) out.push(`Routing number ${was(details?.routing_number)}${corrected.routing_number}`);
  if (corrected.account_number)
    out.push(
      `Account number ${was(details ? maskedNumber(details, "account_number") || undefined : undefined)}${mask(corrected.account_number)}`,
    );
  if (corrected.account_type)
    out.push(`Account type ${details ? was(details.account_type ?? "checking") : ""}${corrected.account_type}`);
  if (corrected.name) out.push(`Name ${was(details?.account_name)}${corrected.name}`);
  if (corrected.individual_id) out.push(`Identification number to ${corrected.individual_id}`);
  return out;
}

export interface ChangeItem {
  id: number;
  change_code: string;
  reason: string;
  /** What changed, in words; or why the corrected data cannot be read. */
  changes: string[];
  /** False when it names no payment we sent. */
  matched: boolean;
  /** Apply is offered: a matched payment and a correction to its destination. */
  applicable: boolean;
  member_name: string | null;
  member_email: string | null;
  /** The payee and bank of our payment, account masked. */
  payee: string | null;
  amount_cents: number | null;
  original_trace_number: string;
  file_name: string;
  line: number;
  received_at: Date;
}

export const CHANGE_ROWS_MAX = 100;

export async function waitingChanges(db: DbOrTx): Promise<ChangeItem[]> {
  const rows = await db
    .select({
      noc: achNotificationsOfChange,
      payment: externalPayments,
      member_name: users.name,
      member_email: users.email,
      line: achInboundEntries.line,
      file_name: achInboundFiles.file_name,
    })
    .from(achNotificationsOfChange)
    .innerJoin(achInboundEntries, eq(achInboundEntries.id, achNotificationsOfChange.entry_id))
    .innerJoin(achInboundFiles, eq(achInboundFiles.id, achInboundEntries.file_id))
    .leftJoin(externalPayments, eq(externalPayments.id, achNotificationsOfChange.payment_id))
    .leftJoin(users, eq(users.id, achNotificationsOfChange.member_id))
    .where(eq(achNotificationsOfChange.status, "waiting"))
    .orderBy(asc(achNotificationsOfChange.id))
    .limit(CHANGE_ROWS_MAX);
  return rows.map(({ noc, payment, member_name, member_email, line, file_name }) => {
    const parsed = parseCorrectedData(noc.change_code, noc.corrected_data);
    const details = payment?.details ?? null;
    return {
      id: Number(noc.id),
      change_code: noc.change_code,
      reason: changeReason(noc.change_code),
      changes: parsed.ok
        ? describeChanges(details, parsed.corrected)
        : [`Corrected data "${noc.corrected_data}": ${parsed.message}`],
      matched: payment !== null,
      applicable: payment !== null && parsed.ok && APPLICABLE.includes(noc.change_code),
      member_name,
      member_email,
      payee: details
        ? `${details.account_name ?? ""}, ${details.bank_name ? `${details.bank_name} ` : ""}routing ${details.routing_number ?? ""}, ${details.account_type ?? "checking"} account ${maskedNumber(details, "account_number")}`
        : null,
      amount_cents: payment ? Number(payment.amount_cents) : null,
      original_trace_number: noc.original_trace_number,
      file_name,
      line,
      received_at: noc.created_at,
    };
  });
}

export const CHANGE_NOTE_MAX = 500;

export type ChangeResult = { ok: true; message: string } | Refusal;

const NOT_FOUND = { ok: false, kind: "not_found", message: "This notification of change was not found." } as const;
const ALREADY = { ok: false, kind: "conflict", message: "This notification of change was already handled." } as const;

/**
 * Applies a notification of change: every transfer of the member still waiting to be sent to
 * the destination our payment went to (same routing and account number) takes the corrected
 * routing number, account number, account type or name, so the next file sends it right. The sent payment keeps
 * what was sent. The member is told; the change is audited with each payment's before and after.
 */
export async function applyNotificationOfChange(
  db: Db,
  noc_id: number,
  staff: Actor,
  origin: AuditOrigin,
): Promise<ChangeResult> {
  if (!Number.isSafeInteger(noc_id) || noc_id <= 0) return NOT_FOUND;
  return inRefusableTransaction(db, async (tx) => {
    const [noc] = await tx
      .select()
      .from(achNotificationsOfChange)
      .where(eq(achNotificationsOfChange.id, noc_id))
      .for("update");
    if (!noc) return NOT_FOUND;
    const applicable = applicableCorrection(noc);
    if (!applicable.ok) return applicable;
    const [sent] = await tx.select().from(externalPayments).where(eq(externalPayments.id, applicable.payment_id));
    if (!sent) return NOT_FOUND;
    const { corrected } = applicable;
    const update = correctedFields(corrected);
    const waiting = await waitingTransfersLike(tx, sent);
    for (const p of waiting) {
      const details = { ...p.details, ...update };
      await tx
        .update(externalPayments)
        .set({
          details: corrected.account_number
            ? withAccountNumber(p.member_id, details, corrected.account_number)
            : details,
        })
        .where(eq(externalPayments.id, p.id));
    }
    const changes = describeChanges(sent.details, corrected);
    const note = `${changes.join("; ")}. ${waiting.length === 1 ? "1 waiting transfer" : `${waiting.length} waiting transfers`} corrected.`;
    await tx
      .update(achNotificationsOfChange)
      .set({ status: "applied", note, resolved_by: staff.id, resolved_at: new Date() })
      .where(eq(achNotificationsOfChange.id, noc_id));
    await auditApplied(tx, { noc, sent, update, corrected, waiting }, staff, origin);
    await notify(tx, changedNotice(sent, changes, waiting.length));
    return { ok: true, message: `The correction was applied: ${note}` } as const;
  });
}

/**
 * The correction, when it can be applied automatically: the notification still waits, names a
 * payment we sent, and carries corrected data of a kind applied here; otherwise why not.
 */
function applicableCorrection(
  noc: AchNotificationOfChange,
): { ok: true; payment_id: number; corrected: CorrectedData } | Refusal {
  if (noc.status !== "waiting") return ALREADY;
  if (noc.payment_id === null)
    return {
      ok: false,
      kind: "conflict",
      message: "This notification names no payment we sent: look into it and mark it handled with a note.",
    } as const;
  const parsed = parseCorrectedData(noc.change_code, noc.corrected_data);
  if (!parsed.ok || !APPLICABLE.includes(noc.change_code)) {
    return {
      ok: false,
      kind: "unprocessable",
      message: `This change cannot be applied automatically (${parsed.ok ? changeReason(noc.change_code) : parsed.message}): make it by hand and mark it handled with a note.`,
    } as const;
  }
  return { ok: true, payment_id: noc.payment_id, corrected: parsed.corrected };
}

/** The destination's fields the correction changes (the account number apart: it is sealed). */
function correctedFields(corrected: CorrectedData): Record<string, string> {
  const update: Record<string, string> = {};
  if (corrected.routing_number) {
    update.routing_number = corrected.routing_number;
    // The bank's name as the member's form would have named it for that routing number.
    update.bank_name = institution().us_banks.find((b) => b.routing_number === corrected.routing_number)?.name ?? "";
  }
  if (corrected.account_type) update.account_type = corrected.account_type;
  if (corrected.name) update.account_name = corrected.name;
  return update;
}

/** The member's ACH transfers still waiting to go to the sent one's destination (same routing and account number), locked. */
async function waitingTransfersLike(tx: DbOrTx, sent: ExternalPayment): Promise<ExternalPayment[]> {
  // The member's waiting transfers to the sent one's routing number, then those to its account
  // number: the numbers are sealed (payment-destination.server.ts), so compared opened, here.
  const sent_account = openNumber(sent, "account_number");
  const candidates = await tx
    .select()
    .from(externalPayments)
    .where(
      and(
        eq(externalPayments.member_id, sent.member_id),
        eq(externalPayments.kind, "ach"),
        eq(externalPayments.status, "pending"),
        sql`${externalPayments.details}->>'routing_number' = ${sent.details.routing_number ?? ""}`,
      ),
    )
    .orderBy(asc(externalPayments.id))
    .for("update");
  return candidates.filter(
    (p) =>
      lastFour(p.details, "account_number") === sent_account.slice(-4) &&
      openNumber(p, "account_number") === sent_account,
  );
}

/** The audit row: the sent payment's destination before and after (numbers masked), and the transfers corrected. */
async function auditApplied(
  tx: DbOrTx,
  applied: {
    noc: AchNotificationOfChange;
    sent: ExternalPayment;
    update: Record<string, string>;
    corrected: CorrectedData;
    waiting: ExternalPayment[];
  },
  staff: Actor,
  origin: AuditOrigin,
): Promise<void> {
  const { noc, sent } = applied;
  const masked = (d: Record<string, string>, account_number?: string) => ({
    routing_number: d.routing_number ?? "",
    account_number: account_number ? mask(account_number) : maskedNumber(d, "account_number"),
    account_name: d.account_name ?? "",
  });
  await recordAudit(tx, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "ach_noc.applied",
    subject_type: "ach_notification_of_change",
    subject_id: noc.id,
    member_id: sent.member_id,
    before: {
      status: "waiting",
      change_code: noc.change_code,
      payment_id: Number(sent.id),
      destination: masked(sent.details),
    },
    after: {
      status: "applied",
      destination: masked({ ...sent.details, ...applied.update }, applied.corrected.account_number),
      corrected_payment_ids: applied.waiting.map((p) => Number(p.id)),
    },
    request_id: origin.request_id,
    ip: origin.ip,
  });
}

function changedNotice(
  sent: ExternalPayment,
  changes: string[],
  corrected: number,
): { member_id: string; kind: "account_correction"; title: string; body: string } {
  const payee = sent.details.account_name || "your payee";
  return {
    member_id: sent.member_id,
    kind: "account_correction",
    title: `${payee}'s bank updated its details`,
    body: `Your transfer of ${formatCents(Number(sent.amount_cents))} to ${payee} arrived, but their bank told us: ${changes.join("; ")}. ${
      corrected > 0
        ? `Your ${corrected === 1 ? "transfer still waiting" : `${corrected} transfers still waiting`} to go there now use${corrected === 1 ? "s" : ""} the new details. `
        : ""
    }Please use the new details for your next transfers.`,
  };
}

/** A notification of change staff dealt with themselves (or that names no payment of ours): marked handled with their note. Audited. */
export async function markChangeHandled(
  db: Db,
  noc_id: number,
  note: string,
  staff: Actor,
  origin: AuditOrigin,
): Promise<ChangeResult> {
  const text = note.trim();
  if (text === "")
    return {
      ok: false,
      kind: "bad_input",
      field: "note",
      message: "Please say what was done about this notification of change.",
    };
  if (text.length > CHANGE_NOTE_MAX)
    return {
      ok: false,
      kind: "bad_input",
      field: "note",
      message: `Please keep the note to ${CHANGE_NOTE_MAX} characters.`,
    };
  if (!Number.isSafeInteger(noc_id) || noc_id <= 0) return NOT_FOUND;
  return inRefusableTransaction(db, async (tx) => {
    const [noc] = await tx
      .select()
      .from(achNotificationsOfChange)
      .where(eq(achNotificationsOfChange.id, noc_id))
      .for("update");
    if (!noc) return NOT_FOUND;
    if (noc.status !== "waiting") return ALREADY;
    await tx
      .update(achNotificationsOfChange)
      .set({ status: "handled", note: text, resolved_by: staff.id, resolved_at: new Date() })
      .where(eq(achNotificationsOfChange.id, noc_id));
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "ach_noc.handled",
      subject_type: "ach_notification_of_change",
      subject_id: noc_id,
      member_id: noc.member_id,
      before: { status: "waiting", change_code: noc.change_code, payment_id: noc.payment_id },
      after: { status: "handled", note: text },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { ok: true, message: "The notification of change was marked as handled." } as const;
  });
}
