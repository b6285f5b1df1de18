import { withDatabase } from "~/server/db/db.server";
import {
  approveSar,
  markSarFiled,
  openSar,
  sarCase,
  sarList,
  sarSourceFacts,
} from "~/server/sanctions/suspicious-activity.server";

/** What the suspicious activity report pages call (their view-model); each opens the database itself. */
export const sarRows = withDatabase(sarList);
export const sarView = withDatabase(sarCase);
export const sarSource = withDatabase(sarSourceFacts);
export const openSarCase = withDatabase(openSar);
export const approveSarCase = withDatabase(approveSar);
export const fileSarCase = withDatabase(markSarFiled);
