import { eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { users } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { ATTACHMENTS_MAX_BYTES, attachmentsTooLarge, sendEmail } from "~/server/mail/outbox.server";
import { hitRateLimit } from "~/server/rate-limit/rate-limit.server";
import { memberLoanStatementPdf } from "~/server/statements/loan-statements.server";
import { memberLineStatementPdf } from "./line-statements.server";
import { memberStatementPdf } from "./member-statements.server";
import type { StatementDownload } from "./statements.server";
import { refusal, type Refusal } from "~/domain/refusals";

/**
 * "Email it to me" on the Statements page (docs/product.md#statements): the statement's PDF sent
 * as an attachment to the member's registered email address (never an address from the form),
 * through the outbox like every other email. At most STATEMENT_EMAILS_PER_HOUR a member, so the
 * button cannot be used to flood a mailbox or the mail server. The message's text names the
 * account (masked) and the month, nothing of the statement's content: staff read outbox texts.
 */
export const STATEMENT_EMAILS_PER_HOUR = 5;
const HOUR_MS = 3_600_000;

/**
 * Emailed, with the words saying where; or refused: the statement's own refusal (not the member's,
 * a month not offered), `too_many` past the hour's limit (with `retry_after_s`), `too_large` when
 * the PDF is more than the outbox takes. The route picks the HTTP status (`refusalStatus`).
 */
export type StatementEmailResult = { ok: true; message: string } | Refusal;

export function statementEmailLimitMessage(retry_after_s: number): string {
  const minutes = Math.max(1, Math.ceil(retry_after_s / 60));
  return `You have asked for ${STATEMENT_EMAILS_PER_HOUR} statements by email in the last hour. Please try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}, or download the PDF.`;
}

export function statementTooLargeMessage(bytes: number): string {
  const mb = (n: number) => Math.ceil(n / (1024 * 1024));
  return `This statement (${mb(bytes)} MB) is larger than we can email (${mb(ATTACHMENTS_MAX_BYTES)} MB). Please download the PDF instead.`;
}

export async function emailStatement(
  db: Db,
  member_id: string,
  account_id_text: string,
  month_text: string,
  now: Date,
): Promise<StatementEmailResult> {
  return emailStatementFile(db, member_id, now, () =>
    memberStatementPdf(db, member_id, account_id_text, month_text, now),
  );
}

/** "Email it to me" for a loan's statement (docs/product.md#loan-statements): the same limit and message. */
export async function emailLoanStatement(
  db: Db,
  member_id: string,
  loan_id_text: string,
  month_text: string,
  now: Date,
): Promise<StatementEmailResult> {
  return emailStatementFile(db, member_id, now, () =>
    memberLoanStatementPdf(db, member_id, loan_id_text, month_text, now),
  );
}

/** "Email it to me" for a line of credit's statement (docs/product.md#line-statements): the same limit and message. */
export async function emailLineStatement(
  db: Db,
  member_id: string,
  line_id_text: string,
  closed_on_text: string,
  now: Date,
): Promise<StatementEmailResult> {
  return emailStatementFile(db, member_id, now, () =>
    memberLineStatementPdf(db, member_id, line_id_text, closed_on_text, now),
  );
}

async function emailStatementFile(
  db: Db,
  member_id: string,
  now: Date,
  load: () => Promise<StatementDownload>,
): Promise<StatementEmailResult> {
  const limit = await hitRateLimit(
    { key: `statement-email:member:${member_id}`, limit: STATEMENT_EMAILS_PER_HOUR, window_ms: HOUR_MS },
    { now, database: db },
  );
  if (!limit.allowed)
    return refusal("too_many", statementEmailLimitMessage(limit.retry_after_s), {
      retry_after_s: limit.retry_after_s,
    });
  const statement = await load();
  if (!statement.ok) return statement;
  const [member] = await db
    .select({ email: users.email, name: users.name })
    .from(users)
    .where(eq(users.id, member_id))
    .limit(1);
  if (!member) return refusal("not_found", "Member not found.");
  // A statement of a very busy month can be over what the outbox (and mail servers) take: the
  // member is told to download it instead, and nothing is queued.
  const attachments = [{ file_name: statement.file_name, content_type: "application/pdf", content: statement.pdf }];
  if (attachmentsTooLarge(attachments)) return refusal("too_large", statementTooLargeMessage(statement.pdf.length));
  const profile = institution();
  await sendEmail(db, {
    to: member.email,
    subject: `Your ${statement.month_label} statement`,
    text: [
      `Hello ${member.name},`,
      "",
      `Your statement for ${statement.account_label}, ${statement.month_label}, is attached as a PDF (${statement.file_name}).`,
      "",
      `You asked for it in online banking. If you did not, please sign in, change your password and call us at ${profile.support_phone}.`,
      "",
      profile.name,
    ].join("\n"),
    kind: "statement",
    user_id: member_id,
    attachments,
  });
  return {
    ok: true,
    message: `We emailed your ${statement.month_label} statement for ${statement.account_label} to ${member.email}.`,
  };
}
