import { Download } from "lucide-react";

/**
 * A loan's monthly statements as download links (docs/product.md#loan-statements), on the
 * Statements page and the loan's own page: newest month first, each a PDF made once and kept.
 */
export function LoanStatementList({
  loan,
}: {
  loan: { id: number; number: string; product_name: string; months: { month: string; label: string }[] };
}) {
  if (loan.months.length === 0)
    return (
      <p className="px-5 py-6 text-sm text-slate-700">
        No statement yet: your first one covers the month the loan was paid out, once that month has ended.
      </p>
    );
  return (
    <ul className="divide-y divide-slate-100">
      {loan.months.map((m) => (
        <li key={m.month} className="flex flex-wrap items-center justify-between gap-3 px-5 py-3">
          <span className="text-sm font-medium text-slate-900">{m.label}</span>
          <a
            href={`/dashboard/loans/${loan.id}/statements/${m.month}`}
            download
            aria-label={`Download PDF: ${loan.product_name} ${loan.number}, ${m.label}`}
            className="inline-flex min-h-11 items-center gap-1.5 rounded-lg border border-slate-300 px-3 text-sm font-semibold text-accent-700 hover:border-accent-600 hover:bg-accent-50"
          >
            <Download className="size-4" aria-hidden="true" /> Download PDF
          </a>
        </li>
      ))}
    </ul>
  );
}
