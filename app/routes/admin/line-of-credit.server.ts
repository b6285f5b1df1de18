import { withDatabase } from "~/server/db/db.server";
import {
  changeLineRate,
  closeLineByStaff,
  freezeLine,
  lowerLineLimit,
  staffLineView,
  staffLines,
  unfreezeLine,
} from "~/server/loans/line-staff-actions.server";

/** What /admin/loans and /admin/loans/lines/:lineId call for lines of credit (docs/product.md#line-of-credit-servicing). */
export const loadStaffLines = withDatabase((database) => staffLines(database));
export const loadStaffLine = withDatabase((database, line_id: number) => staffLineView(database, line_id));
export const freezeStaffLine = withDatabase(freezeLine);
export const unfreezeStaffLine = withDatabase(unfreezeLine);
export const closeStaffLine = withDatabase(closeLineByStaff);
export const changeStaffLineRate = withDatabase(changeLineRate);
export const lowerStaffLineLimit = withDatabase(lowerLineLimit);
