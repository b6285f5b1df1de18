import { Form, Link } from "react-router";
import { ChevronLeft, ChevronRight, Search } from "lucide-react";
import { StatusBadge } from "./admin-shell";
import { withParams } from "./format";
import { useInstitutionDates } from "~/components/institution-dates";
import { joinedVerb, personKind, PERSON_KIND_LABELS, showsApplicationStatus } from "~/domain/staff-roles";

type Tab = "all" | "pending" | "approved" | "rejected";
const TABS: { id: Tab; label: string }[] = [
  { id: "all", label: "All Users" },
  { id: "pending", label: "Pending Review" },
  { id: "approved", label: "Approved" },
  { id: "rejected", label: "Rejected" },
];

interface ListItem {
  user_id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: string;
  status: string;
  document_status: string;
  source: "application" | "staff";
  created_at: Date | string;
}

/**
 * The member directory: tabs with counts (links, so they work before JavaScript), a search form
 * (GET), the page of members and Previous / Next.
 */
export function MemberList({
  tab,
  query,
  counts,
  list,
  search,
  selectedId,
}: {
  tab: Tab;
  query: string;
  counts: Record<Tab, number>;
  list: { items: ListItem[]; page: number; page_size: number; has_next: boolean; total: number | null };
  search: string;
  selectedId: string | null;
}) {
  const { formatDate } = useInstitutionDates();
  const pages = list.total !== null ? Math.max(1, Math.ceil(list.total / list.page_size)) : null;
  return (
    <section aria-labelledby="directory-title" className="rounded-2xl border border-slate-200 bg-white shadow-sm">
      <h2 id="directory-title" className="sr-only">
        Member directory
      </h2>
      <nav aria-label="Member status" className="border-b border-slate-200 px-2 pt-2">
        <ul className="grid grid-cols-4 gap-1">
          {TABS.map((t) => {
            const current = t.id === tab;
            return (
              <li key={t.id}>
                <Link
                  to={withParams(search, {
                    tab: t.id === "all" ? null : t.id,
                    page: null,
                    member: null,
                    verify: null,
                    reveal: null,
                    notice: null,
                  })}
                  aria-current={current ? "page" : undefined}
                  className={`flex h-full flex-col items-center justify-end gap-1 rounded-t-lg border-b-2 px-1 py-2 text-center text-xs font-medium sm:text-sm ${current ? "border-accent-600 text-brand-800" : "border-transparent text-slate-700 hover:text-brand-800"}`}
                >
                  {t.label}
                  <span
                    className={`tabular rounded-full px-2 py-0.5 text-xs font-semibold ${current ? "bg-accent-600 text-white" : "bg-slate-100 text-slate-800"}`}
                    data-testid={`count-${t.id}`}
                  >
                    {counts[t.id].toLocaleString("en-US")}
                  </span>
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <Form method="get" action="/admin" role="search" className="flex gap-2 border-b border-slate-200 p-3">
        {tab !== "all" ? <input type="hidden" name="tab" value={tab} /> : null}
        <label htmlFor="member-search" className="sr-only">
          Search by name, email or account number
        </label>
        <input
          id="member-search"
          name="q"
          type="search"
          defaultValue={query}
          key={query}
          placeholder="Name, email or account number"
          maxLength={100}
          className="block w-full min-w-0 rounded-lg border border-slate-300 px-3 py-2 text-sm text-slate-900 placeholder:text-slate-500 focus:border-accent-600 focus:outline-2 focus:outline-accent-600"
        />
        <button
          type="submit"
          className="inline-flex shrink-0 items-center gap-1.5 rounded-lg bg-brand-700 px-3 py-2 text-sm font-semibold text-white hover:bg-brand-800"
        >
          <Search className="size-4" aria-hidden="true" /> Search
        </button>
      </Form>
      {query ? (
        <p className="flex flex-wrap items-center justify-between gap-x-2 gap-y-1 px-4 pt-3 text-sm text-slate-700">
          {/* A long query (an email address) breaks rather than push Clear search off a 320 px screen. */}
          <span className="min-w-0 break-all">
            Results for <strong className="text-slate-900">“{query}”</strong>
          </span>
          <Link
            to={withParams(search, { q: null, page: null })}
            className="font-medium text-brand-700 underline underline-offset-2"
          >
            Clear search
          </Link>
        </p>
      ) : null}
      {list.items.length === 0 ? (
        <p className="px-4 py-10 text-center text-sm text-slate-700">
          {query ? "No members match this search." : "No members in this list yet."}
        </p>
      ) : (
        <ul className="divide-y divide-slate-100" aria-label="Members">
          {list.items.map((m) => {
            const selected = m.user_id === selectedId;
            return (
              <li key={m.user_id}>
                <Link
                  to={withParams(search, { member: m.user_id, verify: null, reveal: null, notice: null })}
                  preventScrollReset
                  aria-current={selected ? "true" : undefined}
                  className={`flex items-start justify-between gap-3 px-4 py-3 hover:bg-slate-50 ${selected ? "bg-brand-50 ring-2 ring-inset ring-accent-600" : ""}`}
                >
                  <span className="min-w-0">
                    <span className="block truncate font-medium text-slate-900">
                      {m.first_name} {m.last_name}
                      {showsApplicationStatus(m.role) ? null : (
                        <span className="ml-2 rounded bg-brand-100 px-1.5 py-0.5 text-xs font-semibold text-brand-800">
                          {PERSON_KIND_LABELS[personKind(m.role)]}
                        </span>
                      )}
                    </span>
                    <span className="block text-sm [overflow-wrap:anywhere] text-slate-700">{m.email}</span>
                    <span className="block text-xs text-slate-600">
                      {joinedVerb(m.source)} {formatDate(m.created_at)}
                    </span>
                  </span>
                  {showsApplicationStatus(m.role) ? (
                    <span className="flex shrink-0 flex-col items-end gap-1">
                      <StatusBadge status={m.status} />
                      {m.status === "pending" && m.document_status === "info_requested" ? (
                        <StatusBadge status="info_requested" />
                      ) : null}
                    </span>
                  ) : null}
                </Link>
              </li>
            );
          })}
        </ul>
      )}
      <nav
        aria-label="Pages"
        className="flex items-center justify-between gap-2 border-t border-slate-200 px-4 py-3 text-sm"
      >
        {list.page > 1 ? (
          <Link
            to={withParams(search, { page: list.page - 1 === 1 ? null : list.page - 1, member: null, verify: null })}
            className="inline-flex items-center gap-1 rounded-lg px-2 py-1.5 font-medium text-brand-700 hover:bg-brand-50"
          >
            <ChevronLeft className="size-4" aria-hidden="true" /> Previous
          </Link>
        ) : (
          <span />
        )}
        <span className="tabular text-slate-700">
          Page {list.page}
          {pages ? ` of ${pages.toLocaleString("en-US")}` : ""}
        </span>
        {list.has_next ? (
          <Link
            to={withParams(search, { page: list.page + 1, member: null, verify: null })}
            className="inline-flex items-center gap-1 rounded-lg px-2 py-1.5 font-medium text-brand-700 hover:bg-brand-50"
          >
            Next <ChevronRight className="size-4" aria-hidden="true" />
          </Link>
        ) : (
          <span />
        )}
      </nav>
    </section>
  );
}
