import { sql } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { getAccount } from "~/server/ledger/accounts.server";
import { notify } from "~/server/notifications/notifications.server";
import { institution } from "~/config/institution.server";
import { businessDate, toId } from "~/domain/ledger-rules";
import { businessDayOnOrAfter } from "~/domain/payment-dates";
import { maskAccountNumber } from "~/domain/account-display";
import { addMonths, monthBounds, monthLabel, monthOfDate, type StatementMonth } from "~/domain/statements";
import { payMonthlyDividends } from "~/server/dividends/dividends.server";
import { runLoanStatements } from "~/server/statements/loan-statements.server";
import { runLineStatements } from "./line-statements.server";
import { statementFor } from "./statements.server";

/**
 * The monthly statement run (docs/product.md#statements), a job (app/server/jobs/registry.server.ts):
 * on the first business day of a month, and on any later day it runs, it makes the statement of
 * the month just ended for every member account that had history by the month's end and has
 * none yet, then for every loan with a balance or activity in the month, and tells the member in
 * the bell. On every run, also each line of credit's billing cycle closed since the last. Safe to repeat: an account's statement for a month
 * is made once (the unique account and month), and the member is told only by the run that made
 * it, in the same database transaction.
 */
export const STATEMENT_RUN_BATCH = 500;
/** Accounts worked on at once (each in its own database transaction); the embedded database takes them in turn. */
export const STATEMENT_RUN_CONCURRENCY = 4;

export interface StatementRunCounts {
  [name: string]: number | string | boolean | null;
  month: string;
  made: number;
  /** Loans' statements made (docs/product.md#loan-statements). */
  loan_statements_made: number;
  /** Lines of credit's statements made, one per billing cycle closed (docs/product.md#line-statements). */
  line_statements_made: number;
  /** Before the month's first business day nothing is made. */
  waiting_for_business_day: boolean;
}

export async function runMonthlyStatements(db: Db, now: Date): Promise<StatementRunCounts> {
  const today = businessDate(institution().time_zone, now);
  const month = addMonths(monthOfDate(today), -1);
  // A line of credit's cycle closes on its own day of the month, not at the month's end: every run
  // makes the statement of each cycle closed since (app/server/statements/line-statements.server.ts).
  const line_statements_made = await runLineStatements(db);
  if (today < businessDayOnOrAfter(`${monthOfDate(today)}-01`))
    return { month, made: 0, loan_statements_made: 0, line_statements_made, waiting_for_business_day: true };
  // The month's dividends first (a no-op once the nightly dividend run has paid them): a statement
  // is kept as made, so one made before its dividend would never show it.
  await payMonthlyDividends(db, now);
  let made = 0;
  for (let after = 0; ;) {
    const ids = await accountsWithoutStatement(db, month, after, STATEMENT_RUN_BATCH);
    // A few accounts at a time: while one waits on the database another draws its PDF.
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        if (await makeAndNotify(db, id, month)) made++;
      }
    };
    await Promise.all(Array.from({ length: STATEMENT_RUN_CONCURRENCY }, worker));
    if (ids.length < STATEMENT_RUN_BATCH) break;
    after = ids[ids.length - 1]!;
  }
  // Then every loan's of the month (app/server/statements/loan-statements.server.ts), made and told the same way.
  const loan_statements_made = await runLoanStatements(db, month);
  return { month, made, loan_statements_made, line_statements_made, waiting_for_business_day: false };
}

/**
 * Member accounts, by id from `after`, whose history began by the month's end (opened by then,
 * or with a posting dated by then) and that have no statement for the month.
 */
async function accountsWithoutStatement(
  db: Db,
  month: StatementMonth,
  after: number,
  limit: number,
): Promise<number[]> {
  const { end } = monthBounds(month);
  const result = await db.execute(sql`
    select a.id from ledger_accounts a
     where a.owner = 'member' and a.id > ${after}
       and not exists (select 1 from account_statements s where s.account_id = a.id and s.period_month = ${month})
       and ((a.opened_at at time zone ${institution().time_zone})::date <= ${end}::date
            or exists (select 1 from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
                        where e.account_id = a.id and t.effective_date <= ${end}::date))
     order by a.id limit ${limit}`);
  return result.rows.map((r) => toId(r.id));
}

async function makeAndNotify(db: Db, account_id: number, month: StatementMonth): Promise<boolean> {
  return db.transaction(async (tx) => {
    const account = await getAccount(tx, account_id);
    if (!account?.member_id) return false;
    const { made } = await statementFor(tx, account, month, "system:statements");
    if (made) {
      await notify(tx, {
        member_id: account.member_id,
        kind: "statement_ready",
        title: `Your ${monthLabel(month)} statement is ready`,
        body: `The statement for ${account.name} ${maskAccountNumber(account.account_number)} is on your Statements page.`,
      });
    }
    return made;
  });
}
