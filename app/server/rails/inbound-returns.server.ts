import type { IatDetails } from "~/domain/nacha/iat";
import type { Actor } from "~/domain/actor";
import type { Refusal } from "~/domain/refusals";
import { inRefusableTransaction } from "~/server/db/refusable-transaction.server";
import crypto from "node:crypto";
import { and, count, desc, eq, isNull, or, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { achInboundEntries, achInboundFiles, achReturnFiles, users, type AchReturnFile } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { today } from "~/server/ledger/ledger.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { NachaFieldError, fileIdModifier } from "~/domain/nacha";
import { returnReason, writeReturnFile, type ReturnItem } from "~/domain/nacha/return-file";
import { nextBusinessDay } from "~/domain/payment-dates";
import { toCents, toId } from "~/domain/ledger-rules";
import { filesMadeOn, traceSequence } from "./export.server";

/**
 * Returned items (docs/product.md#ach-in): the entries of inbound files that could not post wait
 * here until staff export them as one return file to the ACH operator (the sender of the
 * inbound file), and returns of our own entries that could not be matched or reversed wait for
 * staff to look into them. Also the lists the queue page shows: recent inbound and return files.
 */

/** Most returns in one return file; more wait for the next. */
export const RETURN_FILE_ENTRIES_MAX = 10_000;

/** Items waiting: returns not yet in a return file, and returns of ours staff must look into. */
export async function returnedItemsCount(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ n: count() }).from(achInboundEntries).where(waiting());
  return Number(row?.n ?? 0);
}

function waiting() {
  return or(
    and(eq(achInboundEntries.status, "returned"), isNull(achInboundEntries.return_file_id)),
    eq(achInboundEntries.status, "unmatched"),
  )!;
}

export interface ReturnedItem {
  id: number;
  /** returned: waits for the return file; unmatched: a return of ours staff must look into. */
  status: "returned" | "unmatched";
  return_code: string;
  reason: string;
  company_name: string;
  individual_name: string;
  /** The account number as the entry named it, masked but for the last four. */
  account: string;
  kind: string;
  amount_cents: number;
  trace_number: string;
  original_trace_number: string | null;
  file_name: string;
  line: number;
  received_at: Date;
}

export const RETURNED_ROWS_MAX = 100;

function mask(account_number: string): string {
  return account_number.length <= 4 ? account_number : `••${account_number.slice(-4)}`;
}

export async function returnedItems(db: DbOrTx): Promise<ReturnedItem[]> {
  const rows = await db
    .select({ e: achInboundEntries, file_name: achInboundFiles.file_name, uploaded_at: achInboundFiles.uploaded_at })
    .from(achInboundEntries)
    .innerJoin(achInboundFiles, eq(achInboundFiles.id, achInboundEntries.file_id))
    .where(waiting())
    .orderBy(achInboundEntries.id)
    .limit(RETURNED_ROWS_MAX);
  return rows.map(({ e, file_name, uploaded_at }) => ({
    id: Number(e.id),
    status: e.status === "unmatched" ? "unmatched" : "returned",
    return_code: e.return_code ?? "",
    reason:
      e.status === "unmatched"
        ? `Return of our entry ${e.original_trace_number ?? ""} (${e.return_code ?? ""}: ${returnReason(e.return_code ?? "")}): no sent payment matches it, or it could not be reversed`
        : returnReason(e.return_code ?? ""),
    company_name: e.company_name,
    individual_name: e.individual_name,
    account: mask(e.account_number),
    kind: e.kind,
    amount_cents: Number(e.amount_cents),
    trace_number: e.trace_number,
    original_trace_number: e.original_trace_number,
    file_name,
    line: e.line,
    received_at: uploaded_at,
  }));
}

export interface InboundFileSummary {
  id: number;
  file_name: string;
  status: "posting" | "posted";
  entry_count: number;
  posted_count: number;
  returned_count: number;
  credit_total_cents: number;
  debit_total_cents: number;
  uploaded_at: Date;
  uploaded_by_email: string | null;
}

export async function recentInboundFiles(db: DbOrTx, limit = 10): Promise<InboundFileSummary[]> {
  const rows = await db
    .select({
      id: achInboundFiles.id,
      file_name: achInboundFiles.file_name,
      status: achInboundFiles.status,
      entry_count: achInboundFiles.entry_count,
      posted_count: achInboundFiles.posted_count,
      returned_count: achInboundFiles.returned_count,
      credit_total_cents: achInboundFiles.credit_total_cents,
      debit_total_cents: achInboundFiles.debit_total_cents,
      uploaded_at: achInboundFiles.uploaded_at,
      uploaded_by_email: users.email,
    })
    .from(achInboundFiles)
    .leftJoin(users, eq(users.id, achInboundFiles.uploaded_by))
    .orderBy(desc(achInboundFiles.id))
    .limit(limit);
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    credit_total_cents: Number(r.credit_total_cents),
    debit_total_cents: Number(r.debit_total_cents),
  }));
}

export interface ReturnFileSummary {
  id: number;
  file_name: string;
  entry_count: number;
  credit_total_cents: number;
  debit_total_cents: number;
  created_at: Date;
  created_by_email: string | null;
}

export async function recentReturnFiles(db: DbOrTx, limit = 10): Promise<ReturnFileSummary[]> {
  const rows = await db
    .select({
      id: achReturnFiles.id,
      file_name: achReturnFiles.file_name,
      entry_count: achReturnFiles.entry_count,
      credit_total_cents: achReturnFiles.credit_total_cents,
      debit_total_cents: achReturnFiles.debit_total_cents,
      created_at: achReturnFiles.created_at,
      created_by_email: users.email,
    })
    .from(achReturnFiles)
    .leftJoin(users, eq(users.id, achReturnFiles.created_by))
    .orderBy(desc(achReturnFiles.id))
    .limit(limit);
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    credit_total_cents: Number(r.credit_total_cents),
    debit_total_cents: Number(r.debit_total_cents),
  }));
}

export async function returnFile(db: DbOrTx, id: number): Promise<AchReturnFile | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const [row] = await db.select().from(achReturnFiles).where(eq(achReturnFiles.id, id));
  return row ?? null;
}

export type ReturnFileResult =
  | {
      ok: true;
      file: {
        id: number;
        file_name: string;
        entry_count: number;
        credit_total_cents: number;
        debit_total_cents: number;
      };
    }
  | { ok: false; reason: "nothing_waiting" | "refused"; message: string };

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
 * Writes the waiting returns (oldest first, up to RETURN_FILE_ENTRIES_MAX, those of one sender)
 * as one return file, stores it, marks each return with the file and its trace number, audits.
 * One database transaction; two staff at once: the second waits on the lock and finds nothing.
 */
export async function exportReturnFile(
  db: Db,
  staff: Actor,
  origin: AuditOrigin,
  options: { now?: Date } = {},
): Promise<ReturnFileResult> {
  const now = options.now ?? new Date();
  try {
    return await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('ach-return-file'))`);
      const rows = await waitingReturns(tx);
      if (rows.length === 0)
        return {
          ok: false,
          reason: "nothing_waiting",
          message: "There are no returned items waiting for a return file.",
        } as const;
      const destination = String(rows[0]!.immediate_origin);
      const profile = institution();
      const business_date = today(now);
      const modifier = fileIdModifier(await filesMadeOn(tx, "ach", business_date));
      const file = writeReturnFile({
        origin: { routing_number: profile.routing_number, name: profile.short_name },
        destination: {
          routing_number: destination.slice(-9),
          name: returnDestinationName(destination.slice(-9), profile),
        },
        created: { date: business_date, time: clockTime(now) },
        file_id_modifier: modifier,
        effective_date: nextBusinessDay(business_date),
        returns: rows.map(returnItem),
      });
      const { file_id, file_name, marks } = await storeReturnFile(tx, file, rows, {
        name: (id) => `ach-returns-${business_date}-${modifier}-${id}.ach`,
        business_date,
        created_by: staff.id,
      });
      const summary = {
        id: file_id,
        file_name,
        entry_count: file.entry_count,
        credit_total_cents: file.credit_total_cents,
        debit_total_cents: file.debit_total_cents,
      };
      await auditReturnFile(tx, staff, origin, { ...summary, destination, marks });
      return { ok: true, file: summary } as const;
    });
  } catch (error) {
    if (error instanceof NachaFieldError)
      return {
        ok: false,
        reason: "refused",
        message: `The return file could not be written (${error.message}); nothing was exported.`,
      };
    throw error;
  }
}

type WaitingReturn = Record<string, unknown>;

/**
 * The returns waiting for a file, oldest first, up to RETURN_FILE_ENTRIES_MAX and locked: those
 * from the oldest one's sender (a return file goes back to one ACH operator); the others wait.
 */
async function waitingReturns(tx: DbOrTx): Promise<WaitingReturn[]> {
  const picked = await tx.execute(sql`
    select e.id, e.return_code, e.company_name, e.company_discretionary_data, e.company_id, e.sec_code, e.entry_description,
           e.transaction_code, e.account_number, e.amount_cents, e.individual_id, e.individual_name, e.trace_number, f.immediate_origin,
           i.details as iat
      from ach_inbound_entries e join ach_inbound_files f on f.id = e.file_id
      left join ach_inbound_iat_entries i on i.entry_id = e.id
     where e.status = 'returned' and e.return_file_id is null
     order by e.id limit ${RETURN_FILE_ENTRIES_MAX}
       for update of e`);
  if (picked.rows.length === 0) return [];
  const destination = String(picked.rows[0]!.immediate_origin);
  return picked.rows.filter((r) => String(r.immediate_origin) === destination);
}

/** The file kept with its fingerprint, and each return marked with it and its new trace number. */
async function storeReturnFile(
  tx: DbOrTx,
  file: ReturnType<typeof writeReturnFile>,
  rows: readonly WaitingReturn[],
  stored: { name: (file_id: number) => string; business_date: string; created_by: string },
): Promise<{ file_id: number; file_name: string; marks: { id: number; trace: string | undefined }[] }> {
  const [id_row] = (await tx.execute(sql`select nextval(pg_get_serial_sequence('ach_return_files', 'id')) as id`)).rows;
  const file_id = toId(id_row!.id);
  const file_name = stored.name(file_id);
  await tx.insert(achReturnFiles).values({
    id: file_id,
    file_name,
    content: file.text,
    sha256: crypto.createHash("sha256").update(file.text).digest("hex"),
    business_date: stored.business_date,
    entry_count: file.entry_count,
    credit_total_cents: file.credit_total_cents,
    debit_total_cents: file.debit_total_cents,
    created_by: stored.created_by,
  });
  const marks = rows.map((r, i) => ({ id: toId(r.id), trace: file.trace_numbers[i] }));
  await tx.execute(sql`
    update ach_inbound_entries as e set return_file_id = ${file_id}, return_trace_number = v.trace
      from jsonb_to_recordset(${JSON.stringify(marks)}::jsonb) as v(id bigint, trace text)
     where e.id = v.id`);
  return { file_id, file_name, marks };
}

/** One returned entry as the return file carries it: the original entry as received, and why it goes back. */
function returnItem(r: WaitingReturn): ReturnItem {
  return {
    reason_code: String(r.return_code),
    // Nacha: an RDFI returning a credit it believes was sent under false pretenses uses R17 with QUESTIONABLE.
    ...(r.return_code === "R17" ? { information: "QUESTIONABLE" } : {}),
    trace_sequence: traceSequence(toId(r.id)),
    original: {
      company_name: String(r.company_name),
      company_discretionary_data: String(r.company_discretionary_data),
      company_id: String(r.company_id),
      sec_code: String(r.sec_code),
      entry_description: String(r.entry_description),
      transaction_code: String(r.transaction_code),
      account_number: String(r.account_number),
      amount_cents: toCents(r.amount_cents),
      individual_id: String(r.individual_id),
      individual_name: String(r.individual_name),
      trace_number: String(r.trace_number),
      // An IAT entry goes back in the IAT layout, with its addenda as received.
      iat: (r.iat as IatDetails | null) ?? null,
    },
  };
}

async function auditReturnFile(
  tx: DbOrTx,
  staff: Actor,
  origin: AuditOrigin,
  file: Extract<ReturnFileResult, { ok: true }>["file"] & { destination: string; marks: { id: number }[] },
): Promise<void> {
  await recordAudit(tx, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "ach_return_file.export",
    subject_type: "ach_return_file",
    subject_id: file.id,
    after: {
      file_name: file.file_name,
      returns: file.entry_count,
      credit_total_cents: file.credit_total_cents,
      debit_total_cents: file.debit_total_cents,
      destination: file.destination,
      first_entry_id: file.marks[0]!.id,
      last_entry_id: file.marks.at(-1)!.id,
    },
    request_id: origin.request_id,
    ip: origin.ip,
  });
}

export const HANDLED_NOTE_MAX = 500;

export type HandledResult = { ok: true } | Refusal;

/**
 * A return of ours that matched no sent payment, or could not be reversed, handled by staff
 * outside the ledger's automatic path (the other bank asked, the member's account was reopened and
 * staff posted a correction): marked noted with what staff did, so it leaves the queue. Audited.
 */
export async function markReturnHandled(
  db: Db,
  entry_id: number,
  note: string,
  staff: Actor,
  origin: AuditOrigin,
): Promise<HandledResult> {
  const text = note.trim();
  if (text === "")
    return { ok: false, kind: "bad_input", field: "note", message: "Please say what was done about this return." };
  if (text.length > HANDLED_NOTE_MAX)
    return {
      ok: false,
      kind: "bad_input",
      field: "note",
      message: `Please keep the note to ${HANDLED_NOTE_MAX} characters.`,
    };
  if (!Number.isSafeInteger(entry_id) || entry_id <= 0)
    return { ok: false, kind: "not_found", message: "This returned item was not found." };
  return inRefusableTransaction(db, async (tx) => {
    const [entry] = await tx.select().from(achInboundEntries).where(eq(achInboundEntries.id, entry_id)).for("update");
    if (!entry) return { ok: false, kind: "not_found", message: "This returned item was not found." } as const;
    if (entry.status !== "unmatched")
      return { ok: false, kind: "conflict", message: "This returned item was already handled." } as const;
    await tx
      .update(achInboundEntries)
      .set({ status: "noted", resolved_at: new Date() })
      .where(eq(achInboundEntries.id, entry_id));
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "ach_inbound.return_handled",
      subject_type: "ach_inbound_entry",
      subject_id: entry_id,
      before: {
        status: "unmatched",
        return_code: entry.return_code,
        original_trace_number: entry.original_trace_number,
        amount_cents: Number(entry.amount_cents),
      },
      after: { status: "noted", note: text },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { ok: true } as const;
  });
}

/**
 * The name in a return file's header: the ACH operator the inbound file came from. The profile
 * names the one our own files go to (`ach.destination_name`); an operator we know only by its
 * routing number is named generically.
 */
function returnDestinationName(
  routing_number: string,
  profile: {
    routing_number: string;
    short_name: string;
    ach: { destination_routing_number: string; destination_name: string };
  },
): string {
  if (routing_number === profile.ach.destination_routing_number) return profile.ach.destination_name;
  if (routing_number === profile.routing_number) return profile.short_name;
  return "Federal Reserve Bank";
}
