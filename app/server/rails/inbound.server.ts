import type { Actor } from "~/domain/actor";
import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { achInboundFiles } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { today } from "~/server/ledger/ledger.server";
import { type NotificationInput } from "~/server/notifications/notifications.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { BATCH_TRANSACTIONS_MAX, toId } from "~/domain/ledger-rules";
import { businessDaysBefore } from "~/domain/payment-dates";
import { readInboundNachaFile, type InboundFile } from "~/domain/nacha/reader";
import { recordNotificationsOfChange } from "./inbound-noc.server";
import { type Item } from "./inbound-entries.server";
import { recordCreditReviews } from "./inbound-monitoring.server";
import { recordIatEntries, screenIatEntries } from "./inbound-iat.server";
import { creditReviewsOf, postMoney, type Decision } from "./inbound-posting.server";
import { applyReturn } from "./inbound-own-returns.server";

/**
 * ACH in (docs/product.md#ach-in): staff upload the NACHA file the Federal Reserve sent, and its
 * entries post to members' accounts.
 *
 *  1. The file is read whole (app/domain/nacha/reader.ts); a file breaking any rule is refused
 *     with its line and rule and nothing is stored.
 *  2. In one database transaction the file (its SHA-256 unique: the same file uploaded twice is
 *     stored once) and every entry are stored as received, and the upload audited.
 *  3. The entries post in chunks, each chunk one database transaction: its member accounts and
 *     the ACH settlement account locked in id order, every entry decided against them in file
 *     order (no such account R03, closed R02, frozen R16, a debit beyond the available balance
 *     R01), the postable ones written as ONE ledger batch (`postBatch`), each entry its own ledger
 *     transaction (so each is all or nothing, yet thousands share a commit; ./inbound-posting.server.ts),
 *     the entries marked, the members notified. Returns of the credit union's own entries
 *     (addenda 99) release or reverse the original payment and tell the member why
 *     (./inbound-own-returns.server.ts). Prenotes move nothing. Notifications
 *     of change (COR) move nothing either: each is recorded for staff with the payment of ours it
 *     names (./inbound-noc.server.ts). A credit or debit that repeats one received in the last
 *     DUPLICATE_WINDOW_BUSINESS_DAYS (same trace number, amount, effective date and account, in
 *     another file: a re-sent file under a new header) moves nothing either: it is held as a
 *     possible duplicate for staff to post or return (./inbound-held.server.ts). An IAT
 *     (international) credit or debit one of whose parties may be on a sanctions list moves
 *     nothing: it waits in the screening queue (./inbound-iat.server.ts).
 *  4. The file is marked posted and the result audited.
 *
 * If the work stops between chunks (a crash, a restart), uploading the same file again posts
 * the entries still waiting, and only those: a chunk's rows are locked and marked in the same
 * transaction as their ledger batch.
 */

/** Entries per database commit: big enough that the commit's fixed cost is shared, small enough to hold the locks briefly. */
export const INBOUND_CHUNK_ENTRIES = 10_000;

export type ReceiveResult =
  | {
      ok: true;
      file_id: number;
      file_name: string;
      resumed: boolean;
      entry_count: number;
      posted: number;
      returned: number;
      applied: number;
      unmatched: number;
      noted: number;
      changes: number;
      held: number;
      credit_total_cents: number;
      debit_total_cents: number;
    }
  | { ok: false; reason: "invalid" | "duplicate"; message: string };

export async function receiveAchFile(
  db: Db,
  input: {
    bytes: Uint8Array;
    file_name: string;
    staff: Actor;
    origin: AuditOrigin;
    now?: Date;
    chunk_entries?: number;
  },
): Promise<ReceiveResult> {
  const sha256 = crypto.createHash("sha256").update(input.bytes).digest("hex");
  // A file already posted is known by its hash alone: no need to read 100,000 entries to refuse it.
  const [posted] = await db
    .select()
    .from(achInboundFiles)
    .where(and(eq(achInboundFiles.sha256, sha256), eq(achInboundFiles.status, "posted")));
  if (posted) return duplicate(posted.file_name, posted.uploaded_at);
  const read = readInboundNachaFile(input.bytes, { routing_number: institution().routing_number });
  if (!read.ok)
    return { ok: false, reason: "invalid", message: `The file was refused, nothing was posted: ${read.message}.` };
  const file = read.file;
  const file_name = input.file_name.replace(/[^\w.-]+/g, "_").slice(0, 200) || "ach-in.ach";

  const stored = await storeFile(db, {
    file,
    sha256,
    file_name,
    content: new TextDecoder("latin1").decode(input.bytes),
    staff: input.staff,
    origin: input.origin,
  });
  if (stored.status === "posted") return duplicate(stored.file_name, stored.uploaded_at);
  const chunk = Math.min(input.chunk_entries ?? INBOUND_CHUNK_ENTRIES, BATCH_TRANSACTIONS_MAX);
  const items: Item[] = file.batches.flatMap((b) =>
    b.entries.map((e) => ({
      id: 0,
      file_id: stored.id,
      line: e.line,
      batch_number: b.batch_number,
      // An IAT batch names no company: each entry's addenda 11 names its originator.
      company_name: e.iat?.originator.name ?? b.company_name,
      company_discretionary_data: b.company_discretionary_data,
      company_id: b.company_id,
      sec_code: b.sec_code,
      entry_description: b.entry_description,
      effective_date: b.effective_date,
      transaction_code: e.transaction_code,
      kind: e.kind,
      account_number: e.account_number,
      amount_cents: e.amount_cents,
      individual_id: e.individual_id,
      individual_name: e.individual_name,
      trace_number: e.trace_number,
      payment_information: e.payment_information,
      return_code: e.return_info?.reason_code ?? null,
      original_trace_number: e.return_info?.original_trace_number ?? e.change?.original_trace_number ?? null,
      duplicate_of_entry_id: null,
      change: e.change,
      iat: e.iat,
    })),
  );
  const now = input.now ?? new Date();
  // Each chunk commits on its own.
  for (let i = 0; i < items.length; i += chunk)
    await postChunk(db, stored.id, items.slice(i, i + chunk), input.staff, now);
  return finish(db, stored.id, stored.resumed, input.staff, input.origin);
}

function duplicate(file_name: string, uploaded_at: Date): ReceiveResult {
  return {
    ok: false,
    reason: "duplicate",
    message: `This file was already posted (${file_name}, uploaded ${uploaded_at.toISOString().slice(0, 10)}); nothing was posted again.`,
  };
}

async function storeFile(
  db: Db,
  input: {
    file: InboundFile;
    sha256: string;
    file_name: string;
    content: string;
    staff: Actor;
    origin: AuditOrigin;
  },
): Promise<{ id: number; status: "posting" | "posted"; file_name: string; uploaded_at: Date; resumed: boolean }> {
  return db.transaction(async (tx) => {
    const { file } = input;
    const [row] = await tx
      .insert(achInboundFiles)
      .values({
        file_name: input.file_name,
        sha256: input.sha256,
        content: input.content,
        immediate_origin: file.immediate_origin,
        created_date: file.created_date,
        file_id_modifier: file.file_id_modifier,
        entry_count: file.entry_count,
        credit_total_cents: file.credit_total_cents,
        debit_total_cents: file.debit_total_cents,
        uploaded_by: input.staff.id,
      })
      .onConflictDoNothing({ target: achInboundFiles.sha256 })
      .returning({ id: achInboundFiles.id, uploaded_at: achInboundFiles.uploaded_at });
    if (!row) {
      const [existing] = await tx.select().from(achInboundFiles).where(eq(achInboundFiles.sha256, input.sha256));
      if (!existing) throw new Error("inbound file vanished after a conflict on its hash");
      return {
        id: Number(existing.id),
        status: existing.status,
        file_name: existing.file_name,
        uploaded_at: existing.uploaded_at,
        resumed: true,
      };
    }
    const file_id = Number(row.id);
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "ach_inbound.received",
      subject_type: "ach_inbound_file",
      subject_id: file_id,
      after: {
        file_name: input.file_name,
        sha256: input.sha256,
        immediate_origin: file.immediate_origin,
        created: `${file.created_date} ${file.created_time}`,
        file_id_modifier: file.file_id_modifier,
        batches: file.batches.length,
        entries: file.entry_count,
        credit_total_cents: file.credit_total_cents,
        debit_total_cents: file.debit_total_cents,
      },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
    });
    return {
      id: file_id,
      status: "posting" as const,
      file_name: input.file_name,
      uploaded_at: row.uploaded_at,
      resumed: false,
    };
  });
}

/**
 * How far back an entry is looked for when deciding that another is its duplicate: banks hold a
 * repeated entry (same trace number, amount, effective date and receiving account) when the first
 * came within the last few business days, the time an originator or operator takes to notice and
 * re-send a file (docs/product.md#ach-in).
 */
export const DUPLICATE_WINDOW_BUSINESS_DAYS = 5;

/**
 * The chunk's credits and debits that repeat an entry of another file received in the window:
 * line to the earlier entry's id (the first one).
 */
async function earlierDuplicates(
  tx: DbOrTx,
  file_id: number,
  money: readonly Item[],
  now: Date,
): Promise<Map<number, number>> {
  if (money.length === 0) return new Map();
  const since = businessDaysBefore(today(now), DUPLICATE_WINDOW_BUSINESS_DAYS);
  const keys = money.map((e) => ({
    line: e.line,
    trace: e.trace_number,
    amount: e.amount_cents,
    effective: e.effective_date,
    account: e.account_number,
  }));
  const found = await tx.execute(sql`
    select v.line, min(e.id) as earlier
      from jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) as v(line integer, trace text, amount bigint, effective date, account text)
      join ach_inbound_entries e on e.trace_number = v.trace and e.effective_date = v.effective and e.amount_cents = v.amount and e.account_number = v.account
      join ach_inbound_files f on f.id = e.file_id
     where e.file_id <> ${file_id} and e.kind in ('credit', 'debit')
       and (f.uploaded_at at time zone ${institution().time_zone})::date >= ${since}::date
     group by v.line`);
  return new Map(found.rows.map((r) => [Number(r.line), toId(r.earlier)]));
}

/**
 * Posts a chunk of the file's entries in one database transaction and stores each with what
 * became of it. The file's lock makes a second upload of the same file running at the same
 * moment wait; entries already stored (by an earlier, interrupted run) are skipped.
 */
async function postChunk(db: Db, file_id: number, chunk: readonly Item[], staff: Actor, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`ach-in:${file_id}`}))`);
    const done = await tx.execute(sql`
      select line from ach_inbound_entries where file_id = ${file_id} and line between ${chunk[0]!.line} and ${chunk.at(-1)!.line}`);
    const stored = new Set(done.rows.map((r) => Number(r.line)));
    const entries = chunk.filter((e) => !stored.has(e.line));
    if (entries.length === 0) return;

    const decisions: Decision[] = [];
    const notes: NotificationInput[] = [];
    for (const e of entries)
      if (e.kind === "prenote" || e.kind === "noc") decisions.push({ entry: e, status: "noted" });
    // A repeat of an entry received in the window is held for staff, not posted (docs/product.md#ach-in).
    // An IAT entry moves no money before its parties are screened; a possible match waits in the screening queue.
    const money_entries = entries.filter((e) => e.kind === "credit" || e.kind === "debit");
    const iat_hits = await screenIatEntries(tx, money_entries);
    for (const e of money_entries) if (iat_hits.has(e.line)) decisions.push({ entry: e, status: "screening" });
    const candidates = money_entries.filter((e) => !iat_hits.has(e.line));
    const earlier = await earlierDuplicates(tx, file_id, candidates, now);
    for (const e of candidates)
      if (earlier.has(e.line))
        decisions.push({ entry: e, status: "held", duplicate_of_entry_id: earlier.get(e.line)! });
    const money = candidates.filter((e) => !earlier.has(e.line));
    if (money.length > 0) decisions.push(...(await postMoney(tx, money, staff, now, `ach-in:${file_id}`, notes)));

    for (const entry of entries.filter((e) => e.kind === "return"))
      decisions.push(await applyReturn(tx, entry, staff, notes));

    await storeEntries(tx, file_id, decisions);
    await recordIatEntries(tx, file_id, entries, iat_hits);
    await recordCreditReviews(tx, creditReviewsOf(decisions));
    await recordNotificationsOfChange(
      tx,
      file_id,
      entries.filter((e) => e.kind === "noc"),
    );
    await notifyMany(tx, notes);
  });
}

/** The chunk's entries with their outcome, one INSERT per 5,000 (one JSON parameter each). */
async function storeEntries(tx: DbOrTx, file_id: number, decisions: readonly Decision[]): Promise<void> {
  const rows = decisions.map(({ entry: e, ...d }) => ({
    line: e.line,
    batch_number: e.batch_number,
    company_name: e.company_name,
    company_discretionary_data: e.company_discretionary_data,
    company_id: e.company_id,
    sec_code: e.sec_code,
    entry_description: e.entry_description,
    effective_date: e.effective_date,
    transaction_code: e.transaction_code,
    kind: e.kind,
    account_number: e.account_number,
    amount_cents: e.amount_cents,
    individual_id: e.individual_id,
    individual_name: e.individual_name,
    trace_number: e.trace_number,
    payment_information: e.payment_information,
    original_trace_number: e.original_trace_number,
    status: d.status,
    return_code: d.return_code ?? e.return_code ?? null,
    account_id: d.account_id ?? null,
    transaction_id: d.transaction_id ?? null,
    payment_id: d.payment_id ?? null,
    duplicate_of_entry_id: d.duplicate_of_entry_id ?? null,
  }));
  for (let i = 0; i < rows.length; i += 5_000) {
    await tx.execute(sql`
      insert into ach_inbound_entries (file_id, line, batch_number, company_name, company_discretionary_data, company_id, sec_code,
        entry_description, effective_date, transaction_code, kind, account_number, amount_cents, individual_id, individual_name,
        trace_number, payment_information, original_trace_number, status, return_code, account_id, transaction_id, payment_id, duplicate_of_entry_id, resolved_at)
      select ${file_id}, line, batch_number, company_name, company_discretionary_data, company_id, sec_code, entry_description,
        effective_date, transaction_code, kind, account_number, amount_cents, individual_id, individual_name, trace_number,
        payment_information, original_trace_number, status, return_code, account_id, transaction_id, payment_id, duplicate_of_entry_id,
        case when status in ('held', 'screening') then null else now() end
        from jsonb_to_recordset(${JSON.stringify(rows.slice(i, i + 5_000))}::jsonb) as v(line integer, batch_number integer,
          company_name text, company_discretionary_data text, company_id text, sec_code text, entry_description text,
          effective_date date, transaction_code text, kind text, account_number text, amount_cents bigint, individual_id text,
          individual_name text, trace_number text, payment_information text, original_trace_number text, status text,
          return_code text, account_id bigint, transaction_id bigint, payment_id bigint, duplicate_of_entry_id bigint)
       order by line`);
  }
}

/** The members' notifications of a chunk in one INSERT per 5,000 (a JSON parameter, not 4 parameters a row). */
async function notifyMany(tx: DbOrTx, notes: readonly NotificationInput[]): Promise<void> {
  for (let i = 0; i < notes.length; i += 5_000) {
    const rows = notes.slice(i, i + 5_000).map((n) => ({
      member_id: n.member_id,
      kind: n.kind,
      title: n.title.slice(0, 140),
      body: n.body.slice(0, 1_000),
    }));
    await tx.execute(sql`
      insert into notifications (member_id, kind, title, body)
      select member_id, kind, title, body from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(member_id text, kind text, title text, body text)`);
  }
}

async function finish(
  db: Db,
  file_id: number,
  resumed: boolean,
  staff: Actor,
  origin: AuditOrigin,
): Promise<ReceiveResult> {
  return db.transaction(async (tx) => {
    // Notifications of change are noted like prenotes but counted apart: staff have them to see to.
    const counts = await tx.execute(
      sql`select case when kind = 'noc' then 'changes' else status end as status, count(*)::int as n from ach_inbound_entries where file_id = ${file_id} group by 1`,
    );
    const by = Object.fromEntries(counts.rows.map((r) => [String(r.status), Number(r.n)])) as Record<string, number>;
    const [file] = await tx
      .update(achInboundFiles)
      .set({
        status: "posted",
        posted_count: by.posted ?? 0,
        returned_count: by.returned ?? 0,
        posted_at: sql`coalesce(${achInboundFiles.posted_at}, now())`,
      })
      .where(eq(achInboundFiles.id, file_id))
      .returning();
    if (!file) throw new Error(`inbound file ${file_id} vanished`);
    const result = {
      ok: true as const,
      file_id,
      file_name: file.file_name,
      resumed,
      entry_count: file.entry_count,
      posted: by.posted ?? 0,
      returned: by.returned ?? 0,
      applied: by.applied ?? 0,
      unmatched: by.unmatched ?? 0,
      noted: by.noted ?? 0,
      changes: by.changes ?? 0,
      held: by.held ?? 0,
      credit_total_cents: Number(file.credit_total_cents),
      debit_total_cents: Number(file.debit_total_cents),
    };
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "ach_inbound.posted",
      subject_type: "ach_inbound_file",
      subject_id: file_id,
      after: {
        file_name: file.file_name,
        resumed,
        posted: result.posted,
        returned: result.returned,
        applied: result.applied,
        unmatched: result.unmatched,
        noted: result.noted,
        changes: result.changes,
        held: result.held,
      },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return result;
  });
}
