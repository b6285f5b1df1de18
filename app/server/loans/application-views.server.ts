import { and, desc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { loanApplications, users, type LoanApplicationRow } from "~/server/db/schema";
import { today } from "~/server/ledger/ledger.server";
import { decryptField } from "~/server/security/crypto.server";
import {
  LOAN_APPLICATION_STATUS_LABELS,
  adverseActionReasonLines,
  offerOpen,
  type AdverseActionReason,
  type LoanApplicationStatus,
} from "~/domain/loans/products";
import { loanOfferDisclosure, withSecurity, type LoanOfferDisclosure } from "~/domain/loans/offer";
import type { LineOfCreditDisclosure, MinimumPaymentRule } from "~/domain/loans/line-of-credit";
import { loanProduct } from "./products.server";
import { lineOfApplication } from "./lines-of-credit.server";
import { loanFieldContext } from "./fields.server";
import { applicationPledge } from "./share-secured.server";
import { memberOf } from "./applications.server";
import { memberLoans, type MemberLoanView } from "./loan-views.server";

/**
 * What the loan application pages read (docs/product.md#loans): the member's applications and one
 * of them with its offer, its disclosure (as it would be if accepted today, or as accepted) or its
 * adverse action notice, and the kept PDF; the back office's queue and one application with the
 * income and employer decrypted. The steps that change an application are in
 * applications.server.ts and offer-acceptance.server.ts.
 */

export interface ApplicationSummary {
  id: number;
  product_name: string;
  /** The amount asked for, or a line of credit's credit limit (`open_end`, no term). */
  amount_cents: number;
  term_months: number | null;
  open_end: boolean;
  status: LoanApplicationStatus;
  status_label: string;
  applied_on: string;
  offer_expires_on: string | null;
}

/** What an application's status is today: an offer past its last day reads as expired. */
function statusToday(row: LoanApplicationRow, today_: string): LoanApplicationStatus {
  if ((row.status === "approved" || row.status === "countered") && !offerOpen(row.status, row.offer_expires_on, today_))
    return "lapsed";
  return row.status;
}

function summary(row: LoanApplicationRow, today_: string): ApplicationSummary {
  const status = statusToday(row, today_);
  return {
    id: row.id,
    product_name: row.product_name,
    amount_cents: row.amount_cents,
    term_months: row.term_months,
    open_end: row.open_end,
    status,
    status_label: LOAN_APPLICATION_STATUS_LABELS[status],
    applied_on: today(row.created_at),
    offer_expires_on: row.offer_expires_on,
  };
}

export async function memberApplications(db: DbOrTx, member_id: string, now: Date = new Date()) {
  const rows = await db
    .select()
    .from(loanApplications)
    .where(eq(loanApplications.member_id, member_id))
    .orderBy(desc(loanApplications.id));
  return rows.map((r) => summary(r, today(now)));
}

export interface MemberApplicationView extends ApplicationSummary {
  purpose: string;
  offer: { amount_cents: number; term_months: number | null; rate_ppm: number; counter: boolean } | null;
  /** The Truth in Lending disclosure: of the open offer (as if accepted today), or as accepted. */
  disclosure: LoanOfferDisclosure | null;
  /** A line of credit's account-opening disclosure (Regulation Z 1026.6), in place of the Truth in Lending box. */
  line_disclosure: LineOfCreditDisclosure | null;
  /** Once a line of credit's offer is accepted: the line opened. */
  line_id: number | null;
  may_accept: boolean;
  /** A decline's notice (Regulation B 1002.9). */
  adverse_action: { decided_on: string; reasons: string[] } | null;
  has_pdf: boolean;
  /** Once accepted: the booked loan. */
  loan: MemberLoanView | null;
}

/** One of the member's own applications; null for another member's or none. */
export async function memberApplication(
  db: DbOrTx,
  member_id: string,
  application_id: number,
  now: Date = new Date(),
): Promise<MemberApplicationView | null> {
  const [row] = await db
    .select()
    .from(loanApplications)
    .where(and(eq(loanApplications.id, application_id), eq(loanApplications.member_id, member_id)));
  if (!row) return null;
  const today_ = today(now);
  const base = summary(row, today_);
  const may_accept = offerOpen(row.status, row.offer_expires_on, today_);
  const offer =
    row.offer_amount_cents !== null
      ? {
          amount_cents: row.offer_amount_cents,
          term_months: row.offer_term_months,
          rate_ppm: row.offer_rate_ppm!,
          counter:
            row.status === "countered" ||
            row.offer_amount_cents !== row.amount_cents ||
            row.offer_term_months !== row.term_months,
        }
      : null;
  const disclosure = row.open_end
    ? null
    : row.status === "accepted"
      ? (row.disclosure as unknown as LoanOfferDisclosure)
      : may_accept && offer && offer.term_months !== null
        ? withSecurity(
            loanOfferDisclosure({ ...offer, term_months: offer.term_months, disbursed_on: today_ }),
            await applicationPledge(db, row.id),
          )
        : null;
  const line = row.open_end ? await lineOfApplication(db, row, may_accept, today_) : null;
  return {
    ...base,
    purpose: row.purpose,
    offer,
    disclosure,
    line_disclosure: line?.disclosure ?? null,
    line_id: line?.line_id ?? null,
    may_accept,
    adverse_action:
      row.status === "declined"
        ? {
            decided_on: today(row.decided_at!),
            reasons: adverseActionReasonLines(
              (row.adverse_reasons ?? []) as AdverseActionReason[],
              row.adverse_other_text,
            ),
          }
        : null,
    has_pdf: row.disclosure_pdf !== null,
    loan:
      row.status === "accepted" && !row.open_end
        ? ((await memberLoans(db, member_id, now)).find((l) => l.application_id === row.id) ?? null)
        : null,
  };
}

/** The accepted disclosure's PDF, for its member only. */
export async function memberDisclosurePdf(
  db: DbOrTx,
  member_id: string,
  application_id: number,
): Promise<Buffer | null> {
  const [row] = await db
    .select({ pdf: loanApplications.disclosure_pdf })
    .from(loanApplications)
    .where(and(eq(loanApplications.id, application_id), eq(loanApplications.member_id, member_id)));
  return row?.pdf ?? null;
}

/** The back office's queue: applications waiting for a decision, oldest first, then the latest decided. */
export async function applicationQueue(db: DbOrTx, now: Date = new Date()) {
  const waiting = await db
    .select()
    .from(loanApplications)
    .where(eq(loanApplications.status, "submitted"))
    .orderBy(loanApplications.id);
  const decided = await db
    .select()
    .from(loanApplications)
    .where(inArray(loanApplications.status, ["approved", "countered", "declined", "accepted", "lapsed"]))
    .orderBy(desc(loanApplications.decided_at))
    .limit(25);
  const names = await memberNames(
    db,
    [...waiting, ...decided].map((r) => r.member_id),
  );
  const row = (r: LoanApplicationRow) => ({ ...summary(r, today(now)), member_name: names.get(r.member_id) ?? "" });
  return { waiting: waiting.map(row), decided: decided.map(row) };
}

export interface StaffApplicationView extends ApplicationSummary {
  member_id: string;
  member_name: string;
  member_email: string;
  product_slug: string;
  purpose: string;
  annual_income_cents: number;
  employer: string;
  product: {
    rate_min_ppm: number;
    rate_max_ppm: number;
    term_months_min: number;
    term_months_max: number;
    amount_min_cents: number;
    amount_max_cents: number;
    /** A line of credit's minimum payment rule; null for a loan with a term. */
    minimum_payment: MinimumPaymentRule | null;
  } | null;
  decided_by_email: string | null;
  offer: { amount_cents: number; term_months: number | null; rate_ppm: number } | null;
  adverse_reasons: string[];
  /** A share-secured application: the savings pledged. */
  pledge: Awaited<ReturnType<typeof applicationPledge>>;
}

/** One application for staff, income and employer decrypted (they decide on them). */
export async function staffApplication(
  db: DbOrTx,
  application_id: number,
  now: Date = new Date(),
): Promise<StaffApplicationView | null> {
  const [row] = await db.select().from(loanApplications).where(eq(loanApplications.id, application_id));
  if (!row) return null;
  const member = await memberOf(db, row.member_id);
  const product = loanProduct(row.product_slug);
  return {
    ...summary(row, today(now)),
    member_id: row.member_id,
    member_name: member.name,
    member_email: member.email,
    product_slug: row.product_slug,
    purpose: row.purpose,
    annual_income_cents: Number(decryptField(row.income_enc, loanFieldContext("income", row.member_id))),
    employer: decryptField(row.employer_enc, loanFieldContext("employer", row.member_id)),
    product: product
      ? {
          rate_min_ppm: product.rate_min_ppm,
          rate_max_ppm: product.rate_max_ppm,
          term_months_min: product.term_months_min,
          term_months_max: product.term_months_max,
          amount_min_cents: product.amount_min_cents,
          amount_max_cents: product.amount_max_cents,
          minimum_payment: product.minimum_payment,
        }
      : null,
    decided_by_email: row.decided_by_email,
    offer:
      row.offer_amount_cents !== null
        ? { amount_cents: row.offer_amount_cents, term_months: row.offer_term_months, rate_ppm: row.offer_rate_ppm! }
        : null,
    adverse_reasons: adverseActionReasonLines(
      (row.adverse_reasons ?? []) as AdverseActionReason[],
      row.adverse_other_text,
    ),
    pledge: await applicationPledge(db, row.id),
  };
}

async function memberNames(db: DbOrTx, ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, unique));
  return new Map(rows.map((r) => [r.id, r.name]));
}
