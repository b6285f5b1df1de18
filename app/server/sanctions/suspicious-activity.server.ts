import { desc, eq, inArray, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import {
  achCreditReviews,
  achInboundEntries,
  externalPayments,
  sanctionsScreenings,
  suspiciousActivityReports,
  users,
  type SuspiciousActivityReport,
} from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { decryptField, encryptField } from "~/server/security/crypto.server";
import { today } from "~/server/ledger/ledger.server";
import type { Actor } from "~/domain/actor";
import { refusal, type Refusal } from "~/domain/refusals";
import { parseDollarsToCents } from "~/domain/money";
import { sarFilingDeadline } from "~/domain/suspicious-activity";
import { clockState, type ClockState } from "~/domain/disputes";

/**
 * Suspicious activity reports (31 CFR 1020.320, docs/product.md#suspicious-activity-reports):
 * staff open a case from a confirmed screening match or a decided incoming credit review, a second
 * staff member approves the filing, and it is marked filed with the BSA E-Filing acknowledgement
 * (the filing is made on FinCEN's system: Mutual sends nothing). Each step one transaction,
 * audited with no member named on the audit row and no narrative in it: a SAR and its existence
 * are confidential (1020.320(e)) and never reach the member (no notification, no member page).
 */
export type SarSource = SuspiciousActivityReport["source_type"];

/** The associated data of a case's narrative: the ciphertext opens on its own row only. */
export function sarNarrativeContext(id: number): string {
  return `suspicious_activity_reports.narrative:${id}`;
}

export interface SarSourceFacts {
  source_type: SarSource;
  source_id: number;
  /** What staff read: "Confirmed screening match, item 12 (KARIMI TRADING COMPANY LLC)". */
  label: string;
  member_id: string;
  member_email: string | null;
  amount_cents: number;
  /** The day the activity was first detected: the day the item arrived. */
  detected_on: string;
}

/**
 * The facts of a source a case may be opened from, or null: a screening staff confirmed, or an
 * incoming credit staff reviewed (released or returned).
 */
export async function sarSourceFacts(
  db: DbOrTx,
  source_type: string,
  source_id: number,
): Promise<SarSourceFacts | null> {
  if (!Number.isSafeInteger(source_id) || source_id <= 0) return null;
  if (source_type === "screening") {
    const [row] = await db
      .select({ s: sanctionsScreenings, email: users.email })
      .from(sanctionsScreenings)
      .leftJoin(users, eq(users.id, sanctionsScreenings.member_id))
      .where(eq(sanctionsScreenings.id, source_id));
    if (!row || row.s.status !== "confirmed" || !row.s.member_id) return null;
    const { s } = row;
    let amount_cents = 0;
    if (s.subject_type === "payment" && /^\d{1,18}$/.test(s.subject_id)) {
      const [p] = await db
        .select({ amount_cents: externalPayments.amount_cents })
        .from(externalPayments)
        .where(eq(externalPayments.id, Number(s.subject_id)));
      amount_cents = Number(p?.amount_cents ?? 0);
    } else if (s.subject_type === "ach_entry" && /^\d{1,18}$/.test(s.subject_id)) {
      const [e] = await db
        .select({ amount_cents: achInboundEntries.amount_cents })
        .from(achInboundEntries)
        .where(eq(achInboundEntries.id, Number(s.subject_id)));
      amount_cents = Number(e?.amount_cents ?? 0);
    }
    return {
      source_type: "screening",
      source_id,
      label: `Confirmed screening match, item ${s.id} (${s.screened_name})`,
      member_id: s.member_id,
      member_email: row.email,
      amount_cents,
      detected_on: today(s.created_at),
    };
  }
  if (source_type === "credit_review") {
    const [row] = await db
      .select({ r: achCreditReviews, company_name: achInboundEntries.company_name, email: users.email })
      .from(achCreditReviews)
      .innerJoin(achInboundEntries, eq(achInboundEntries.id, achCreditReviews.entry_id))
      .leftJoin(users, eq(users.id, achCreditReviews.member_id))
      .where(eq(achCreditReviews.id, source_id));
    if (!row || row.r.status === "waiting") return null;
    return {
      source_type: "credit_review",
      source_id,
      label: `Incoming credit reviewed (${row.r.status}), item ${row.r.id}, from ${row.company_name}`,
      member_id: row.r.member_id,
      member_email: row.email,
      amount_cents: Number(row.r.amount_cents),
      detected_on: today(row.r.created_at),
    };
  }
  return null;
}

export type SarResult = { ok: true; id: number; message: string } | Refusal;

export const SAR_MESSAGES = {
  source: "A report can be opened from a confirmed screening match or a reviewed incoming credit only.",
  not_found: "This report was not found.",
  changed: "This report was already approved or filed, or changed meanwhile. Reload the page.",
  own: "You opened this report: another staff member must approve its filing.",
} as const;

/** Opens a case: its deadline from the detection date, its narrative encrypted. */
export async function openSar(
  db: Db,
  input: {
    source_type: string;
    source_id: number;
    suspect_identified: boolean;
    amount: string;
    activity_from: string;
    activity_to: string;
    narrative: string;
    staff: Actor;
    origin: AuditOrigin;
  },
): Promise<SarResult> {
  const amount_cents = parseDollarsToCents(input.amount);
  if (amount_cents === null)
    return refusal("bad_input", "Enter the amount involved, such as 1250.00", { field: "amount" });
  return db.transaction(async (tx): Promise<SarResult> => {
    const source = await sarSourceFacts(tx, input.source_type, input.source_id);
    if (!source) return refusal("not_found", SAR_MESSAGES.source);
    const due_on = sarFilingDeadline(source.detected_on, input.suspect_identified);
    const [{ id } = { id: 0 }] = (
      await tx.execute(sql`select nextval(pg_get_serial_sequence('suspicious_activity_reports', 'id')) as id`)
    ).rows.map((r) => ({ id: Number(r.id) }));
    await tx.insert(suspiciousActivityReports).values({
      id,
      source_type: source.source_type,
      source_id: source.source_id,
      subject_member_ids: [source.member_id],
      suspect_identified: input.suspect_identified,
      amount_cents,
      activity_from: input.activity_from,
      activity_to: input.activity_to,
      detected_on: source.detected_on,
      due_on,
      narrative_enc: encryptField(input.narrative, sarNarrativeContext(id)),
      opened_by: input.staff.id,
    });
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "sar.opened",
      subject_type: "suspicious_activity_report",
      subject_id: id,
      // No member_id: the member's own views never list a SAR (1020.320(e)).
      after: { source_type: source.source_type, source_id: source.source_id, amount_cents, due_on },
      ...input.origin,
    });
    return {
      ok: true,
      id,
      message: `Report ${id} opened; it must be filed by ${due_on}. Another staff member approves it.`,
    };
  });
}

async function lockCase(tx: DbOrTx, id: number): Promise<SuspiciousActivityReport | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const [row] = await tx
    .select()
    .from(suspiciousActivityReports)
    .where(eq(suspiciousActivityReports.id, id))
    .for("update");
  return row ?? null;
}

/** A second staff member approves the filing. */
export async function approveSar(db: Db, input: { id: number; staff: Actor; origin: AuditOrigin }): Promise<SarResult> {
  return db.transaction(async (tx): Promise<SarResult> => {
    const row = await lockCase(tx, input.id);
    if (!row) return refusal("not_found", SAR_MESSAGES.not_found);
    if (row.status !== "open") return refusal("conflict", SAR_MESSAGES.changed);
    if (row.opened_by === input.staff.id) return refusal("conflict", SAR_MESSAGES.own);
    await tx
      .update(suspiciousActivityReports)
      .set({ status: "approved", approved_by: input.staff.id, approved_at: new Date() })
      .where(eq(suspiciousActivityReports.id, row.id));
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "sar.approved",
      subject_type: "suspicious_activity_report",
      subject_id: row.id,
      before: { status: "open" },
      after: { status: "approved", opened_by: row.opened_by },
      ...input.origin,
    });
    return {
      ok: true,
      id: row.id,
      message: "Approved: file it on the BSA E-Filing System, then record its BSA ID here.",
    };
  });
}

/** Marks an approved case filed with the acknowledgement FinCEN's system gave. */
export async function markSarFiled(
  db: Db,
  input: { id: number; bsa_acknowledgement: string; staff: Actor; origin: AuditOrigin },
): Promise<SarResult> {
  return db.transaction(async (tx): Promise<SarResult> => {
    const row = await lockCase(tx, input.id);
    if (!row) return refusal("not_found", SAR_MESSAGES.not_found);
    if (row.status !== "approved")
      return refusal(
        "conflict",
        row.status === "open" ? "This report must be approved by a second staff member first." : SAR_MESSAGES.changed,
      );
    await tx
      .update(suspiciousActivityReports)
      .set({
        status: "filed",
        filed_by: input.staff.id,
        filed_at: new Date(),
        bsa_acknowledgement: input.bsa_acknowledgement,
      })
      .where(eq(suspiciousActivityReports.id, row.id));
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "sar.filed",
      subject_type: "suspicious_activity_report",
      subject_id: row.id,
      before: { status: "approved" },
      after: { status: "filed", bsa_acknowledgement: input.bsa_acknowledgement },
      ...input.origin,
    });
    return { ok: true, id: row.id, message: `Recorded as filed, BSA ID ${input.bsa_acknowledgement}.` };
  });
}

export interface SarRow {
  id: number;
  status: SuspiciousActivityReport["status"];
  source_type: SarSource;
  source_id: number;
  subject_emails: string[];
  amount_cents: number;
  activity_from: string;
  activity_to: string;
  detected_on: string;
  due_on: string;
  suspect_identified: boolean;
  /** How the filing deadline stands (a filed case has none). */
  state: ClockState | null;
  opened_by_email: string | null;
  approved_by_email: string | null;
  filed_by_email: string | null;
  opened_by: string;
  bsa_acknowledgement: string | null;
  opened_at: string;
}

async function rowsOf(db: DbOrTx, cases: SuspiciousActivityReport[], now: Date): Promise<SarRow[]> {
  const ids = [
    ...new Set(
      cases.flatMap(
        (c) => [c.opened_by, c.approved_by, c.filed_by, ...c.subject_member_ids].filter(Boolean) as string[],
      ),
    ),
  ];
  const emails = new Map(
    ids.length === 0
      ? []
      : (await db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, ids))).map((u) => [
          u.id,
          u.email,
        ]),
  );
  const day = today(now);
  return cases.map((c) => ({
    id: c.id,
    status: c.status,
    source_type: c.source_type,
    source_id: c.source_id,
    subject_emails: c.subject_member_ids.map((id) => emails.get(id) ?? id),
    amount_cents: Number(c.amount_cents),
    activity_from: c.activity_from,
    activity_to: c.activity_to,
    detected_on: c.detected_on,
    due_on: c.due_on,
    suspect_identified: c.suspect_identified,
    state: c.status === "filed" ? null : clockState(c.due_on, day),
    opened_by: c.opened_by,
    opened_by_email: emails.get(c.opened_by) ?? null,
    approved_by_email: c.approved_by ? (emails.get(c.approved_by) ?? null) : null,
    filed_by_email: c.filed_by ? (emails.get(c.filed_by) ?? null) : null,
    bsa_acknowledgement: c.bsa_acknowledgement,
    opened_at: c.opened_at.toISOString(),
  }));
}

/** Every case, those still to file first by their deadline, then the filed ones newest first. */
export async function sarList(db: DbOrTx, now: Date = new Date()): Promise<SarRow[]> {
  const cases = await db
    .select()
    .from(suspiciousActivityReports)
    .orderBy(
      sql`case when ${suspiciousActivityReports.status} = 'filed' then 1 else 0 end`,
      sql`case when ${suspiciousActivityReports.status} = 'filed' then null else ${suspiciousActivityReports.due_on} end`,
      desc(suspiciousActivityReports.id),
    )
    .limit(200);
  return rowsOf(db, cases, now);
}

/** One case with its narrative decrypted, for the compliance staff's page. */
export async function sarCase(
  db: DbOrTx,
  id: number,
  now: Date = new Date(),
): Promise<(SarRow & { narrative: string; source_label: string | null }) | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const [row] = await db.select().from(suspiciousActivityReports).where(eq(suspiciousActivityReports.id, id));
  if (!row) return null;
  const [view] = await rowsOf(db, [row], now);
  const source = await sarSourceFacts(db, row.source_type, row.source_id);
  return {
    ...view!,
    narrative: decryptField(row.narrative_enc, sarNarrativeContext(row.id)),
    source_label: source?.label ?? null,
  };
}
