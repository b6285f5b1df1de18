import { Form, NavLink } from "react-router";
import { formatBusinessDate } from "~/domain/calendar-date";

/** The books' own tabs (docs/product.md#books), under the back office's navigation. */
export function BooksTabs() {
  const tab = ({ isActive }: { isActive: boolean }) =>
    `whitespace-nowrap rounded-md px-3 py-1.5 text-sm font-semibold ${isActive ? "bg-brand-800 text-white" : "text-brand-800 hover:bg-brand-50"}`;
  return (
    <nav aria-label="Books" className="flex flex-wrap gap-1">
      <NavLink to="/admin/books" end className={tab}>
        Accounts
      </NavLink>
      <NavLink to="/admin/books/trial-balance" className={tab}>
        Trial balance
      </NavLink>
      <NavLink to="/admin/books/settlement" className={tab}>
        Settlement
      </NavLink>
      <NavLink to="/admin/books/entries" className={tab}>
        GL entries
      </NavLink>
    </nav>
  );
}

/**
 * The day a books page is about: a GET form, so the page's address names the day (a bookmark or
 * a link to a colleague opens the same figures). A bad day is said next to the field.
 */
export function BooksDateForm({
  value,
  error,
  label = "As of the end of",
  hidden,
}: {
  value: string;
  error: string | null;
  label?: string;
  hidden?: Record<string, string>;
}) {
  return (
    <Form method="get" className="flex flex-wrap items-end gap-3" noValidate>
      {hidden
        ? Object.entries(hidden).map(([name, v]) => <input key={name} type="hidden" name={name} value={v} />)
        : null}
      <div>
        <label htmlFor="books-date" className="block text-sm font-medium text-slate-800">
          {label}
        </label>
        <input
          id="books-date"
          name="date"
          type="date"
          defaultValue={value}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "books-date-error" : undefined}
          className="mt-1 rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm shadow-xs focus:border-brand-600 focus:outline-none focus:ring-2 focus:ring-brand-600/30"
        />
        {error ? (
          <p id="books-date-error" className="mt-1 text-sm font-medium text-red-700">
            {error}
          </p>
        ) : null}
      </div>
      <button
        type="submit"
        className="rounded-lg bg-brand-700 px-4 py-2 text-sm font-semibold text-white shadow-xs hover:bg-brand-800"
      >
        Show
      </button>
    </Form>
  );
}

export function dayLabel(iso_date: string): string {
  return formatBusinessDate(iso_date);
}

/** The institution accounts' names, for the browser (the server's own list is in accounts.server.ts). */
export const INSTITUTION_ACCOUNT_LABELS = {
  cash: "Cash",
  ach_settlement: "ACH settlement",
  wire_settlement: "Wire settlement",
  bill_pay_settlement: "Bill pay settlement",
  deposits_in_transit: "Deposits in transit",
  adjustments: "Adjustments",
  fees_income: "Fees income",
  card_settlement: "Card settlement",
  dividends_paid: "Dividends paid",
  interest_receivable: "Loan interest receivable",
  interest_income: "Loan interest income",
} as const;
