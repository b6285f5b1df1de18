import type { Route } from "./+types/tax-forms-csv";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { parseTaxYear } from "~/domain/tax-forms";
import { exportTaxForms } from "./tax-forms.server";

/**
 * /admin/tax-forms/:year (a CSV file): the year's Form 1099-INT figures for staff (docs/product.md#tax-forms):
 * staff (admin) only; taxpayer numbers masked; the export is audited.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext));
  const tax_year = parseTaxYear(params.year);
  if (tax_year === null)
    return new Response("Not a tax year.\n", {
      status: 400,
      headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" },
    });
  const result = await exportTaxForms({ tax_year, staff, origin });
  return new Response(result.csv, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="1099-INT-${tax_year}.csv"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
