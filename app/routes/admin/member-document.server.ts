import { withDatabase } from "~/server/db/db.server";
import { readIdDocument } from "~/server/admin/directory.server";

/** An applicant's ID document for staff (every view audited); opens the database itself. */
export const memberIdDocument = withDatabase(readIdDocument);
