import { withDatabase } from "~/server/db/db.server";
import type { SessionUser } from "~/server/auth/session.server";
import {
  memberCase,
  memberCases,
  readCaseAttachment,
  reportDispute,
  reportForm,
} from "~/server/disputes/disputes.server";

/**
 * What the member's "Report a problem" pages call (docs/product.md#disputes): each opens the
 * database itself. Every read is of the member's own transactions and cases only.
 */

export const loadReportForm = withDatabase((database, user: SessionUser, transaction_id: number) =>
  reportForm(database, user.id, transaction_id),
);

export const fileReport = withDatabase(reportDispute);

export const loadMemberCases = withDatabase((database, user: SessionUser) => memberCases(database, user.id));

export const loadMemberCase = withDatabase(async (database, user: SessionUser, case_id: number) => {
  const found = await memberCase(database, user.id, case_id);
  return found ? { ...found, events: found.events.map((e) => ({ ...e, at: e.at.toISOString() })) } : null;
});

/** A file the member sent with one of their own reports. */
export const loadMemberAttachment = withDatabase(
  (database, user: SessionUser, case_id: number, attachment_id: number) =>
    readCaseAttachment(database, { case_id, attachment_id, member_id: user.id }),
);
