import { withDatabase } from "~/server/db/db.server";
import { taxFormsCsv } from "~/server/dividends/tax-forms.server";

/** The year's Form 1099-INT figures for /admin/tax-forms/:year (opens the database itself). */
export const exportTaxForms = withDatabase(taxFormsCsv);
