import { letterPdf } from "~/server/files/pdf.server";
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { memberProfiles, taxForms, users, type TaxForm } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { centsAsDecimal, formatCents } from "~/domain/money";
import { maskTin, type TinType } from "~/domain/taxpayer-id";
import { csvDocument, csvField } from "~/server/files/csv.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import type { Actor } from "~/domain/actor";
import {
  FORM_1099_INT_THRESHOLD_CENTS,
  backupWithholdingFlag,
  dueFor1099Int,
  taxYearDueOn,
  taxYearMonths,
} from "~/domain/tax-forms";

/**
 * Form 1099-INT for the dividends of a year (docs/product.md#tax-forms). In January a job issues one
 * form per member whose posted dividends of the year reached $10: the total of the dividend runs'
 * postings (account_dividends joined to their ledger transaction, still posted: a reversed dividend
 * is not reported), with the member's taxpayer number as it stands then (type and last four) and
 * the backup-withholding flag. A form is issued once (the unique key): a second run issues only
 * those missing. The member reads it as a PDF beside their statements; staff download the year's
 * figures as a CSV (audited).
 */

/** The job waits until the 15th of January, so that December's dividends (paid on the 1st, retried after a failure) are in. */
export const ISSUE_FROM_DAY_OF_JANUARY = 15;
const INSERT_BATCH = 500;

export interface TaxFormRunCounts {
  [name: string]: number | string | boolean | null;
  tax_year: number;
  /** Forms issued by this run. */
  issued: number;
  /** Members due a form who already had one. */
  already_issued: number;
  /** Forms issued flagged for backup withholding (no US taxpayer number on file). */
  flagged: number;
  // Before the 15th of January nothing is issued, and the counts say `waiting_until` that day.
}

/** The nightly job's work: from the 15th of January, the previous year's forms still missing. */
export async function issueDueTaxForms(db: Db, now: Date): Promise<TaxFormRunCounts> {
  const today = businessDate(institution().time_zone, now);
  const tax_year = taxYearDueOn(today);
  const from = `${tax_year + 1}-01-${String(ISSUE_FROM_DAY_OF_JANUARY).padStart(2, "0")}`;
  if (today < from) return { tax_year, issued: 0, already_issued: 0, flagged: 0, waiting_until: from };
  const counts = await issueForms1099Int(db, tax_year);
  return {
    tax_year,
    issued: counts.issued,
    already_issued: counts.already_issued,
    flagged: counts.flagged,
  };
}

/** Issues the year's 1099-INT forms still missing; safe to repeat. */
export async function issueForms1099Int(
  db: Db,
  tax_year: number,
): Promise<{ tax_year: number; issued: number; already_issued: number; flagged: number }> {
  const due = await dividendsByMember(db, tax_year);
  let issued = 0;
  let flagged = 0;
  for (let start = 0; start < due.length; start += INSERT_BATCH) {
    const rows = due.slice(start, start + INSERT_BATCH).map((d) => ({
      member_id: d.member_id,
      tax_year,
      form: "1099-INT" as const,
      interest_cents: d.dividends_cents,
      tin_type: d.tin_type,
      tin_last_four: d.tin_last_four,
      backup_withholding_flag: backupWithholdingFlag(d.tin_type),
    }));
    const written = await db
      .insert(taxForms)
      .values(rows)
      .onConflictDoNothing()
      .returning({ flag: taxForms.backup_withholding_flag });
    issued += written.length;
    flagged += written.filter((w) => w.flag).length;
  }
  return { tax_year, issued, already_issued: due.length - issued, flagged };
}

interface DividendTotal {
  member_id: string;
  dividends_cents: number;
  tin_type: TinType | null;
  tin_last_four: string | null;
}

/** Each member's posted dividends of the year, at or above the threshold, with their own taxpayer number. */
async function dividendsByMember(db: DbOrTx, tax_year: number): Promise<DividendTotal[]> {
  const months = taxYearMonths(tax_year);
  const result = await db.execute<{
    member_id: string;
    dividends_cents: string;
    tin_type: TinType | null;
    tin_last_four: string | null;
  }>(sql`
    select a.member_id, sum(d.dividend_cents)::text as dividends_cents, t.tin_type, t.last_four as tin_last_four
      from account_dividends d
      join ledger_transactions x on x.id = d.transaction_id and x.status = 'posted'
      join ledger_accounts a on a.id = d.account_id
      left join taxpayer_ids t on t.user_id = a.member_id and t.party = 'member'
     where d.period_month between ${months.first} and ${months.last} and a.member_id is not null
     group by a.member_id, t.tin_type, t.last_four
    having sum(d.dividend_cents) >= ${FORM_1099_INT_THRESHOLD_CENTS}
     order by a.member_id`);
  return result.rows
    .map((r) => ({ ...r, dividends_cents: Number(r.dividends_cents) }))
    .filter((r) => dueFor1099Int(r.dividends_cents));
}

export interface MemberTaxForm {
  tax_year: number;
  form: "1099-INT";
  interest_cents: number;
  issued_at: Date;
}

/** The member's forms, newest year first (the Statements page). */
export async function memberTaxForms(db: DbOrTx, member_id: string): Promise<MemberTaxForm[]> {
  const rows = await db
    .select({
      tax_year: taxForms.tax_year,
      form: taxForms.form,
      interest_cents: taxForms.interest_cents,
      issued_at: taxForms.issued_at,
    })
    .from(taxForms)
    .where(eq(taxForms.member_id, member_id))
    .orderBy(sql`${taxForms.tax_year} desc`);
  return rows;
}

/** The member's 1099-INT of a year as a PDF, or null when they have none for it. */
export async function taxFormPdf(
  db: DbOrTx,
  member_id: string,
  tax_year: number,
): Promise<{ pdf: Buffer; file_name: string } | null> {
  const [row] = await db
    .select({ form: taxForms, profile: memberProfiles, name: users.name })
    .from(taxForms)
    .innerJoin(users, eq(users.id, taxForms.member_id))
    .leftJoin(memberProfiles, eq(memberProfiles.user_id, taxForms.member_id))
    .where(and(eq(taxForms.member_id, member_id), eq(taxForms.tax_year, tax_year), eq(taxForms.form, "1099-INT")));
  if (!row) return null;
  const p = row.profile;
  const recipient = {
    name: p?.first_name ? `${p.first_name} ${p.last_name}` : row.name,
    address_lines: p?.street
      ? [p.street, [p.city, [p.state, p.postal_code].filter(Boolean).join(" ")].filter(Boolean).join(", ")]
      : [],
  };
  return { pdf: await render1099Int(row.form, recipient), file_name: `1099-INT-${tax_year}.pdf` };
}

/** The recipient's taxpayer number as the form shows it: masked, never in full. */
function recipientTin(form: TaxForm): string {
  return form.tin_type && form.tin_last_four ? maskTin(form.tin_type, form.tin_last_four) : "None on file";
}

/**
 * The recipient's copy (Copy B) as a PDF: payer, recipient, box 1 and box 4, as text in reading
 * order so a screen reader (and the tests) read it back. It is a statement of the figures, not
 * the IRS's scannable red form, which only the filed copy needs.
 */
function render1099Int(form: TaxForm, recipient: { name: string; address_lines: string[] }): Promise<Buffer> {
  const p = institution();
  const { doc, done } = letterPdf({
    margin: 54,
    info: { Title: `Form 1099-INT ${form.tax_year}`, Author: p.name, Subject: "Interest income" },
  });
  doc.font("Helvetica-Bold").fontSize(14).text(`Form 1099-INT: Interest Income, ${form.tax_year}`);
  doc
    .font("Helvetica")
    .fontSize(9)
    .text("Copy B, for the recipient. This is important tax information and is being furnished to the IRS.");
  doc.moveDown();
  doc.font("Helvetica-Bold").fontSize(10).text("Payer");
  doc.font("Helvetica").fontSize(10).text(p.name);
  doc.text(p.address.street);
  doc.text(`${p.address.city}, ${p.address.state} ${p.address.postal_code}`);
  doc.moveDown();
  doc.font("Helvetica-Bold").text("Recipient");
  doc.font("Helvetica").text(recipient.name);
  for (const line of recipient.address_lines) doc.text(line);
  doc.text(`Recipient's taxpayer identification number: ${recipientTin(form)}`);
  doc.moveDown();
  doc.font("Helvetica-Bold").text(`Box 1, Interest income: ${formatCents(form.interest_cents)}`);
  doc.font("Helvetica").text("Dividends on your share accounts, which the IRS treats as interest.");
  doc.font("Helvetica-Bold").text("Box 4, Federal income tax withheld: $0.00");
  if (form.backup_withholding_flag)
    doc
      .font("Helvetica")
      .text(
        "We have no US taxpayer identification number for you. Please give us your SSN or ITIN: without it, interest may become subject to backup withholding.",
      );
  doc.end();
  return done;
}

/** The year's forms as staff download them (CSV; taxpayer numbers masked), audited as an export of personal data. */
export async function taxFormsCsv(
  db: Db,
  input: { tax_year: number; staff: Actor; origin: AuditOrigin },
): Promise<{ csv: string; count: number }> {
  const rows = await db
    .select({ form: taxForms, email: users.email, name: users.name })
    .from(taxForms)
    .innerJoin(users, eq(users.id, taxForms.member_id))
    .where(eq(taxForms.tax_year, input.tax_year))
    .orderBy(asc(taxForms.member_id));
  const csv = csvDocument(
    [
      "Tax year",
      "Form",
      "Member ID",
      "Name",
      "Email",
      "Taxpayer number",
      "Box 1 interest",
      "Backup withholding flag",
      "Issued",
    ],
    rows.map((r) => [
      String(r.form.tax_year),
      r.form.form,
      csvField(r.form.member_id),
      csvField(r.name, { quote: "always" }),
      csvField(r.email),
      csvField(recipientTin(r.form)),
      centsAsDecimal(r.form.interest_cents),
      r.form.backup_withholding_flag ? "yes" : "no",
      r.form.issued_at.toISOString(),
    ]),
  );
  await recordAudit(db, {
    actor_id: input.staff.id,
    actor_email: input.staff.email,
    action: "tax_forms.export",
    subject_type: "tax_year",
    subject_id: String(input.tax_year),
    after: { forms: rows.length },
    request_id: input.origin.request_id,
    ip: input.origin.ip,
  });
  return { csv, count: rows.length };
}
