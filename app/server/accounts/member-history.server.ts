import type { DbOrTx } from "~/server/db/client.server";
import { memberAccounts, type AccountView } from "~/server/ledger/accounts.server";
import { memberHistoryCsv, memberHistoryPage, parseHistoryFilters } from "./history.server";

/**
 * A member's transaction history as /dashboard/transactions and its CSV export read it: the
 * member's own checking and savings accounts only, with the filters of the address's query.
 */

async function historyAccounts(db: DbOrTx, member_id: string): Promise<AccountView[]> {
  return (await memberAccounts(db, member_id)).filter((a) => a.type === "checking" || a.type === "savings");
}

/** One page of the filtered history (`before` names the page), with the accounts it covers. */
export async function memberHistory(db: DbOrTx, member_id: string, params: URLSearchParams) {
  const accounts = await historyAccounts(db, member_id);
  const filters = parseHistoryFilters(params, accounts);
  const page = await memberHistoryPage(db, accounts, filters, { before: params.get("before") });
  return { accounts, filters, page };
}

/** The whole filtered history as CSV. */
export async function memberHistoryExport(db: DbOrTx, member_id: string, params: URLSearchParams): Promise<string> {
  const accounts = await historyAccounts(db, member_id);
  return memberHistoryCsv(db, accounts, parseHistoryFilters(params, accounts));
}
