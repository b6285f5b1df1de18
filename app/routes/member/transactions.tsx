import { data, Form, Link, useNavigation } from "react-router";
import { ArrowLeft, ArrowRight, ChevronDown, Download, Search, SlidersHorizontal } from "lucide-react";
import type { Route } from "./+types/transactions";
import { requireMember } from "~/server/auth/session.server";
import { loadHistory } from "./transactions.server";
import { historyFilterProblems } from "~/server/accounts/history.server";
import { pageTitle } from "~/components/site/page-title";
import { Select } from "~/components/ui";
import { controlClass, cx, labelClass } from "~/components/ui/field-styles";
import { NativeFieldError } from "~/components/ui/field-parts";
import { TransactionTable } from "~/components/member/transaction-table";

export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Transactions", matches);
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const url = new URL(request.url);
  const history = await loadHistory(user, url);
  const problems = historyFilterProblems(url.searchParams);
  if (!problems) return { ...history, problems: null, typed: null };
  // A filter to correct: the message next to it, what was typed, and no rows (they would not be
  // what was asked for).
  const typed = {
    from: url.searchParams.get("from") ?? "",
    to: url.searchParams.get("to") ?? "",
    q: url.searchParams.get("q") ?? "",
  };
  return data({ ...history, rows: [], next_before: null, problems, typed }, { status: 400 });
}

const STATUS_OPTIONS = [
  { value: "posted", label: "Completed" },
  { value: "pending", label: "Pending" },
  { value: "failed", label: "Failed" },
  { value: "reversed", label: "Reversed" },
];

export default function Transactions({ loaderData }: Route.ComponentProps) {
  const { filters, rows, next_before, first_page, accounts, categories, problems, typed } = loaderData;
  const navigation = useNavigation();
  const loading = navigation.state === "loading" && navigation.location?.pathname === "/dashboard/transactions";
  const query = new URLSearchParams();
  if (filters.q) query.set("q", filters.q);
  if (filters.account_id) query.set("account", String(filters.account_id));
  if (filters.type) query.set("type", filters.type);
  if (filters.category) query.set("category", filters.category);
  if (filters.status) query.set("status", filters.status);
  if (filters.from) query.set("from", filters.from);
  if (filters.to) query.set("to", filters.to);
  const filtered = query.toString() !== "";
  // The filters besides the search, counted on the phone's "Filters" button.
  const activeFilters = [
    filters.account_id,
    filters.type,
    filters.category,
    filters.status,
    filters.from,
    filters.to,
  ].filter(Boolean).length;
  const older = new URLSearchParams(query);
  if (next_before) older.set("before", next_before);
  return (
    <div className="mx-auto max-w-7xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Dashboard
      </Link>
      <div className="mt-3 flex flex-wrap items-end justify-between gap-4">
        <h1 className="text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Transactions</h1>
        <Link
          to="/dashboard/payments"
          className="text-sm font-semibold text-accent-700 underline-offset-2 hover:underline"
        >
          Payments to other banks
        </Link>
        <Link
          to="/dashboard/disputes"
          className="text-sm font-semibold text-accent-700 underline-offset-2 hover:underline"
        >
          Reported problems
        </Link>
        <a
          href={`/dashboard/transactions.csv${filtered ? `?${query}` : ""}`}
          download
          className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2.5 text-sm font-semibold text-brand-800 shadow-xs hover:bg-slate-50"
        >
          <Download className="size-4" aria-hidden="true" /> Export CSV{filtered ? " (filtered)" : ""}
        </a>
      </div>

      <Form
        method="get"
        className="mt-6 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
        role="search"
        aria-label="Search and filter transactions"
      >
        <div className="grid gap-4 md:grid-cols-2 lg:grid-cols-4">
          <div className="flex flex-col md:col-span-2">
            <label htmlFor="q" className={labelClass}>
              Search
            </label>
            <div className="relative mt-1.5">
              <Search
                className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-500"
                aria-hidden="true"
              />
              <input
                id="q"
                name="q"
                type="search"
                defaultValue={problems?.q ? typed?.q.slice(0, 100) : (filters.q ?? "")}
                placeholder="Description, reference or category"
                aria-invalid={problems?.q ? true : undefined}
                aria-describedby={problems?.q ? "q-error" : undefined}
                className={cx(controlClass, "pl-9")}
              />
            </div>
            <NativeFieldError id="q-error" message={problems?.q} />
          </div>
          {/*
            On a phone the six filters fold behind "Filters" (with how many are in use), so the
            first screen shows transactions; from 768 px they are always shown in the grid. Where
            a browser cannot style a <details> content box, "Filters" simply stays at every width.
          */}
          <details
            className="group/filters md:contents md:details-content:contents"
            open={problems?.from || problems?.to ? true : undefined}
          >
            <summary className="flex min-h-11 cursor-pointer list-none items-center justify-between gap-3 rounded-lg border border-slate-300 px-3 text-sm font-semibold text-brand-800 hover:bg-slate-50 md:supports-[selector(::details-content)]:hidden [&::-webkit-details-marker]:hidden">
              <span className="inline-flex items-center gap-2">
                <SlidersHorizontal className="size-4" aria-hidden="true" /> Filters
                {activeFilters > 0 ? (
                  <span className="rounded-full bg-accent-600 px-2 text-xs leading-5 text-white">
                    {activeFilters} active
                  </span>
                ) : null}
              </span>
              <ChevronDown className="size-4 transition-transform group-open/filters:rotate-180" aria-hidden="true" />
            </summary>
            <div className="mt-4 grid gap-4 sm:grid-cols-2 md:contents">
              <Select
                name="account"
                label="Account"
                options={accounts.map((a) => ({ value: String(a.id), label: a.label }))}
                placeholder="All accounts"
                defaultValue={filters.account_id ? String(filters.account_id) : ""}
              />
              <Select
                name="type"
                label="Type"
                options={[
                  { value: "credit", label: "Money in (credits)" },
                  { value: "debit", label: "Money out (debits)" },
                ]}
                placeholder="All types"
                defaultValue={filters.type ?? ""}
              />
              <Select
                name="category"
                label="Category"
                options={categories.map((c) => ({ value: c, label: c }))}
                placeholder="All categories"
                defaultValue={filters.category ?? ""}
              />
              <Select
                name="status"
                label="Status"
                options={STATUS_OPTIONS}
                placeholder="All statuses"
                defaultValue={filters.status ?? ""}
              />
              <DateFilter
                name="from"
                label="From date"
                problem={problems?.from}
                defaultValue={problems?.from ? typed?.from.slice(0, 10) : (filters.from ?? "")}
              />
              <DateFilter
                name="to"
                label="To date"
                problem={problems?.to}
                defaultValue={problems?.to ? typed?.to.slice(0, 10) : (filters.to ?? "")}
              />
            </div>
          </details>
        </div>
        <div className="mt-4 flex flex-wrap items-center justify-end gap-3">
          {filtered ? (
            <Link
              to="/dashboard/transactions"
              className="rounded-lg px-4 py-2.5 text-sm font-semibold text-brand-800 hover:bg-slate-100"
            >
              Clear filters
            </Link>
          ) : null}
          <button
            type="submit"
            className="inline-flex items-center gap-2 rounded-lg bg-brand-700 px-5 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-brand-800"
          >
            <SlidersHorizontal className="size-4" aria-hidden="true" /> Apply
          </button>
        </div>
      </Form>

      <section
        aria-labelledby="results-heading"
        aria-busy={loading}
        className={cx(
          "mt-6 overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm",
          loading && "opacity-60",
        )}
      >
        <h2 id="results-heading" className="sr-only">
          Results
        </h2>
        {problems ? (
          <div className="px-6 py-16 text-center">
            <p className="font-semibold text-slate-900">Please correct the highlighted filter</p>
            <p className="mt-1 text-sm text-slate-600">Then choose Apply to see your transactions.</p>
          </div>
        ) : rows.length === 0 ? (
          <div className="px-6 py-16 text-center">
            <p className="font-semibold text-slate-900">
              {filtered ? "No transactions match these filters" : "No transactions yet"}
            </p>
            <p className="mt-1 text-sm text-slate-600">
              {filtered ? "Try a wider date range or clear the filters." : "Your transactions will appear here."}
            </p>
          </div>
        ) : (
          <TransactionTable
            rows={rows}
            caption={`Transactions${filtered ? ", filtered" : ""}, newest first`}
            detailed
          />
        )}
      </section>
      <nav aria-label="Pages" className="mt-4 flex items-center justify-between gap-3">
        {!first_page ? (
          <Link
            to={`/dashboard/transactions${filtered ? `?${query}` : ""}`}
            className="inline-flex items-center gap-1.5 rounded-lg px-3 py-2 text-sm font-semibold text-accent-700 hover:bg-accent-50"
          >
            <ArrowLeft className="size-4" aria-hidden="true" /> Newest
          </Link>
        ) : (
          <span />
        )}
        {next_before ? (
          <Link
            to={`/dashboard/transactions?${older}`}
            className="inline-flex items-center gap-1.5 rounded-lg px-3 py-2 text-sm font-semibold text-accent-700 hover:bg-accent-50"
          >
            Older <ArrowRight className="size-4" aria-hidden="true" />
          </Link>
        ) : null}
      </nav>
    </div>
  );
}

/** A native date input of the history filters, with its message next to it when the server refused it. */
function DateFilter({
  name,
  label,
  problem,
  defaultValue,
}: {
  name: "from" | "to";
  label: string;
  problem?: string;
  defaultValue?: string;
}) {
  return (
    <div className="flex flex-col">
      <label htmlFor={name} className={labelClass}>
        {label}
      </label>
      <input
        id={name}
        name={name}
        type="date"
        defaultValue={defaultValue}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${name}-error` : undefined}
        className={cx(controlClass, "mt-1.5")}
      />
      <NativeFieldError id={`${name}-error`} message={problem} />
    </div>
  );
}
