import { withDatabase } from "~/server/db/db.server";
import type { SessionUser } from "~/server/auth/session.server";
import { drawOnLine, payLine, setLineAutopay } from "~/server/loans/lines-of-credit.server";
import { memberLineDetail, memberLines } from "~/server/loans/line-views.server";
import { closeOwnLine } from "~/server/loans/line-staff-actions.server";

/**
 * What the member's line-of-credit pages call (docs/product.md#lines-of-credit): each opens the
 * database itself, and every read is of the member's own lines only.
 */
export const loadMemberLines = withDatabase((database, user: SessionUser) => memberLines(database, user.id));
export const loadLineDetail = withDatabase((database, user: SessionUser, line_id: number) =>
  memberLineDetail(database, user.id, line_id),
);
export const drawOnMemberLine = withDatabase(drawOnLine);
export const payMemberLine = withDatabase(payLine);
export const setMemberLineAutopay = withDatabase(setLineAutopay);
export const closeMemberLine = withDatabase(closeOwnLine);
