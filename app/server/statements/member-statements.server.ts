import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { accountStatements } from "~/server/db/schema";
import { memberAccounts, type AccountView } from "~/server/ledger/accounts.server";
import { maskAccountNumber } from "~/domain/account-display";
import { STATEMENT_MONTH_MESSAGE, isStatementMonth, monthLabel, type StatementMonth } from "~/domain/statements";
import { payAccountDividendsSince } from "~/server/dividends/dividends.server";
import { refusal } from "~/domain/refusals";
import {
  availableMonths,
  keptStatement,
  statementFileName,
  statementFor,
  type StatementDownload,
} from "./statements.server";

/**
 * The member's Statements page and downloads (docs/product.md#statements). Only the member's own
 * accounts: the account comes from `memberAccounts(member)`, so another member's account id in
 * the address matches nothing and is answered as not found.
 */

export interface MemberStatementAccount {
  id: number;
  name: string;
  masked_number: string;
  months: { month: StatementMonth; label: string; ready: boolean }[];
}

export async function memberStatementAccounts(db: Db, member_id: string, now: Date): Promise<MemberStatementAccount[]> {
  const accounts = await memberAccounts(db, member_id);
  const kept = accounts.length
    ? await db
        .select({ account_id: accountStatements.account_id, month: accountStatements.period_month })
        .from(accountStatements)
        .where(
          and(
            eq(accountStatements.member_id, member_id),
            inArray(
              accountStatements.account_id,
              accounts.map((a) => a.id),
            ),
          ),
        )
    : [];
  const ready = new Set(kept.map((k) => `${k.account_id}:${k.month}`));
  const result: MemberStatementAccount[] = [];
  for (const account of accounts) {
    const months = await availableMonths(db, account, now);
    result.push({
      id: account.id,
      name: account.name,
      masked_number: maskAccountNumber(account.account_number),
      months: months.map((month) => ({ month, label: monthLabel(month), ready: ready.has(`${account.id}:${month}`) })),
    });
  }
  return result;
}

export const STATEMENT_ACCOUNT_MESSAGE = "Statement not found. Please choose one of your accounts.";

/**
 * A statement PDF for the member: their own account (else 404, the same answer whether the
 * account exists or not) and a month offered for it (else 400: before the account's history or
 * not yet ended).
 */
/** The member's own account whose id the address or form gives; anything else (malformed, another member's, none) is undefined. */
export async function memberAccountOf(
  db: Db,
  member_id: string,
  account_id_text: string,
): Promise<AccountView | undefined> {
  const account_id = /^[1-9]\d{0,15}$/.test(account_id_text) ? Number(account_id_text) : null;
  return account_id === null ? undefined : (await memberAccounts(db, member_id)).find((a) => a.id === account_id);
}

export async function memberStatementPdf(
  db: Db,
  member_id: string,
  account_id_text: string,
  month_text: string,
  now: Date,
): Promise<StatementDownload> {
  const account = await memberAccountOf(db, member_id, account_id_text);
  if (!account) return refusal("not_found", STATEMENT_ACCOUNT_MESSAGE);
  const months = await availableMonths(db, account, now);
  if (!isStatementMonth(month_text) || !months.includes(month_text)) {
    return refusal("bad_input", STATEMENT_MONTH_MESSAGE);
  }
  // A month's dividend is dated its last day but paid by the nightly run after it: a statement of
  // the month just ended (months[0], newest first) made first would be kept without it. So that
  // one month's dividend is worked out before its statement is made (the same rule and row as the
  // run, which then finds it done). Never an older month: a download must not back-pay months the
  // nightly run never paid (months from before dividends were switched on).
  if (month_text === months[0] && !(await keptStatement(db, account.id, month_text)))
    await payAccountDividendsSince(db, account.id, month_text, now);
  const { statement } = await statementFor(db, account, month_text, `member:${member_id}`);
  return {
    ok: true,
    pdf: statement.pdf,
    file_name: statementFileName(account.account_number, month_text),
    account_label: `${account.name} ${maskAccountNumber(account.account_number)}`,
    month_label: monthLabel(month_text),
  };
}
