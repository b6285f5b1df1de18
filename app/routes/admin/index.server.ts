import { withDatabase, withReadDatabase } from "~/server/db/db.server";
import { directoryCounts, listDirectory, memberDetail, reviewerMemberDetail } from "~/server/admin/directory.server";
import { approveApplication, rejectApplication, requestInformation } from "~/server/admin/review.server";
import { createMemberByStaff } from "~/server/admin/create-member.server";
import { setMemberImageByStaff } from "~/server/admin/member-image.server";
import { clearUsedCodes, codePanel, issueCodeForMember, removeCode } from "~/server/admin/code-panel.server";
import { moneyAction } from "~/server/member-accounts/actions.server";
import { awaitingAdjustments, memberMoneyPane } from "~/server/member-accounts/pane.server";

/**
 * What the back office home calls (its view-model): the directory, a member's details and money
 * pane, the code panel, and every action of the page. Each opens the database itself; the staff
 * member and the request's origin (for the audit log) are passed in by the route.
 */

export const memberCounts = withReadDatabase(directoryCounts);
export const directoryPage = withReadDatabase(listDirectory);
export const memberDetails = withDatabase(memberDetail);
/** A reviewer's view of a member: no balances, masked account numbers (the type has no other fields). */
export const reviewerMemberDetails = withDatabase(reviewerMemberDetail);
export const memberMoney = withDatabase(memberMoneyPane);
export const adjustmentsAwaitingApproval = withDatabase(awaitingAdjustments);
export const signInCodes = withDatabase(codePanel);

export const approve = withDatabase(approveApplication);
export const reject = withDatabase(rejectApplication);
export const askForInformation = withDatabase(requestInformation);
export const createMember = withDatabase(createMemberByStaff);
export const setMemberImage = withDatabase(setMemberImageByStaff);
export const issueSignInCode = withDatabase(issueCodeForMember);
export const removeSignInCode = withDatabase(removeCode);
export const clearUsedSignInCodes = withDatabase(clearUsedCodes);

/** Reversals, adjustments, holds and account edits (money powers are checked inside). */
export const moneyControl = withDatabase((database, input: Omit<Parameters<typeof moneyAction>[0], "db">) =>
  moneyAction({ db: database, ...input }),
);
