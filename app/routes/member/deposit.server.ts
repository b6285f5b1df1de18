import { withDatabase } from "~/server/db/db.server";
import type { SessionUser } from "~/server/auth/session.server";
import { depositAccounts, submitMobileDeposit } from "~/server/deposits/deposits.server";
import { memberDeposits } from "~/server/deposits/deposit-lists.server";
import { depositPolicyText } from "~/server/deposits/availability.server";

/** What /dashboard/deposit calls (its view-model): each opens the database itself. */

/** The member's accounts a check may go to, and their deposits (dates as ISO text). */
export const loadDepositPage = withDatabase(async (database, user: SessionUser) => {
  const [accounts, deposits] = await Promise.all([
    depositAccounts(database, user.id),
    memberDeposits(database, user.id),
  ]);
  return {
    // Regulation CC's amounts in force today, with the profile's policy (docs/product.md#funds-availability).
    policy: depositPolicyText(),
    accounts,
    deposits: deposits.map((d) => ({
      ...d,
      created_at: d.created_at.toISOString(),
      reviewed_at: d.reviewed_at?.toISOString() ?? null,
    })),
  };
});

/** The member deposits a check to one of their own accounts. */
export const depositCheck = withDatabase(submitMobileDeposit);
