import { withReadDatabase } from "~/server/db/db.server";
import type { SessionUser } from "~/server/auth/session.server";
import { memberHistory, memberHistoryExport } from "~/server/accounts/member-history.server";
import { TRANSACTION_CATEGORIES } from "~/server/accounts/history.server";

/** What /dashboard/transactions and its CSV export call (their view-model): each opens the database itself. */

/** The history page: the filters as read, a page of rows, and the account and category choices. */
export const loadHistory = withReadDatabase(async (database, user: SessionUser, url: URL) => {
  const { accounts, filters, page } = await memberHistory(database, user.id, url.searchParams);
  return {
    filters,
    rows: page.rows,
    next_before: page.next_before,
    first_page: !url.searchParams.get("before"),
    accounts: accounts.map((a) => ({
      id: a.id,
      label: `${a.type === "checking" ? "Checking" : "Savings"} ••${a.account_number.slice(-4)}`,
    })),
    categories: TRANSACTION_CATEGORIES,
  };
});

/** The filtered history as CSV. */
export const historyCsv = withReadDatabase((database, user: SessionUser, url: URL) =>
  memberHistoryExport(database, user.id, url.searchParams),
);
