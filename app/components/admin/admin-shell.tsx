import { Form, NavLink } from "react-router";
import { LogOut, ShieldCheck } from "lucide-react";

// `staff_only`: pages a reviewer (staff without money powers) is not shown and is refused.
// `books`: the institution's books, the only pages an accountant is shown (docs/product.md#books).
// `requires: "loans"`: shown only once members may apply for a loan.
const NAV: {
  to: string;
  label: string;
  end?: boolean;
  staff_only?: boolean;
  books?: boolean;
  count?: string;
  requires?: "loans";
}[] = [
  { to: "/admin", label: "Members", end: true },
  { to: "/admin/audit", label: "Audit log", staff_only: true },
  { to: "/admin/outbox", label: "Outbox", staff_only: true },
  // Secure messages from signed-in members; `count`: open conversations nobody has taken.
  { to: "/admin/inbox", label: "Inbox", count: "inbox" },
  { to: "/admin/messages", label: "Messages" },
  { to: "/admin/disputes", label: "Disputes" },
  // Loan applications: shown once members may apply (docs/product.md#loans).
  { to: "/admin/loans", label: "Loans", requires: "loans" },
  { to: "/admin/jobs", label: "Jobs", staff_only: true },
  // Members whose statements and notices are mailed (no consent to electronic delivery).
  { to: "/admin/paper-delivery", label: "Paper mail", staff_only: true },
  // New disclosure versions and their change-in-terms notices.
  { to: "/admin/disclosures", label: "Disclosures", staff_only: true },
  { to: "/admin/payments", label: "Payments", staff_only: true },
  // `count`: items waiting, from the layout's loader (the queues' total).
  { to: "/admin/queues", label: "Queues", staff_only: true, count: "queues" },
  // `count`: possible sanctions matches waiting for staff.
  { to: "/admin/sanctions", label: "Sanctions", staff_only: true, count: "screenings" },
  // Its own route outside this layout, drawn in this same frame by its page.
  { to: "/admin/reset-transfers", label: "Reset Transfer Counts", staff_only: true },
  // Their own routes outside this layout, drawn in this same frame (routes/books/layout.tsx).
  { to: "/admin/books", label: "Books", staff_only: true, books: true },
];

function shownTo(role: "admin" | "reviewer" | "accountant" | undefined, loans: boolean) {
  return (item: (typeof NAV)[number]) =>
    role === "accountant"
      ? item.books === true
      : !(item.staff_only && role === "reviewer") && !(item.requires === "loans" && !loans);
}

/**
 * The back office's top bar (docs/product.md#back-office): who is signed in, the staff pages, and
 * Sign out.
 */
export function AdminShell({
  staff,
  institution,
  counts,
  loans = false,
  children,
}: {
  staff: { name: string; email: string; role?: "admin" | "reviewer" | "accountant" };
  institution: string;
  counts?: Record<string, number>;
  loans?: boolean;
  children: React.ReactNode;
}) {
  const linkClass = ({ isActive }: { isActive: boolean }) =>
    `whitespace-nowrap rounded-md px-3 py-2 text-sm font-medium transition-colors ${isActive ? "bg-white/15 text-white" : "text-brand-100 hover:bg-white/10 hover:text-white"}`;
  return (
    <div className="min-h-dvh bg-slate-100">
      <header className="bg-brand-800 text-white shadow-md">
        <div className="mx-auto flex max-w-[90rem] flex-wrap items-center justify-between gap-x-6 gap-y-2 px-4 py-3 sm:px-6">
          <div className="flex items-center gap-3">
            <span className="flex size-9 items-center justify-center rounded-lg bg-white/10">
              <ShieldCheck className="size-5" aria-hidden="true" />
            </span>
            <div className="leading-tight">
              <p className="text-sm font-semibold">{institution}</p>
              <p className="text-xs text-brand-100">Back office</p>
            </div>
          </div>
          <div className="flex items-center gap-3">
            <p className="hidden text-right text-sm leading-tight sm:block">
              <span className="block font-semibold">{staff.name}</span>
              <span className="block text-xs text-brand-100">{staff.email}</span>
            </p>
            <Form method="post" action="/logout">
              <button
                type="submit"
                className="inline-flex items-center gap-2 rounded-lg border border-white/30 px-3 py-2 text-sm font-semibold hover:bg-white/10"
              >
                <LogOut className="size-4" aria-hidden="true" /> Sign out
              </button>
            </Form>
          </div>
          {/* Wraps onto a second line on a phone: every page stays in sight, none scrolled away. */}
          <nav aria-label="Back office" className="-mx-1 w-full">
            <ul className="flex flex-wrap gap-1 px-1">
              {NAV.filter(shownTo(staff.role, loans)).map((item) => (
                <li key={item.to}>
                  <NavLink to={item.to} end={item.end} className={linkClass}>
                    {item.label}
                    {item.count && counts?.[item.count] ? (
                      <span className="ml-1.5 rounded-full bg-white px-1.5 py-0.5 text-xs font-bold text-brand-800">
                        {counts[item.count]}
                        <span className="sr-only"> waiting</span>
                      </span>
                    ) : null}
                  </NavLink>
                </li>
              ))}
            </ul>
          </nav>
        </div>
      </header>
      <main id="main" className="mx-auto max-w-[90rem] px-3 py-5 sm:px-6 sm:py-8">
        {children}
      </main>
    </div>
  );
}

/**
 * A status line: red when it says Error or Failed, green otherwise (docs/product.md#back-office).
 */
/** "notice": done, but not finished (waiting for someone else), in amber. */
export function StatusLine({ message, tone }: { message: string; tone?: "error" | "success" | "notice" }) {
  const red = tone ? tone === "error" : /error|failed/i.test(message);
  const colors = red
    ? "border-red-200 bg-red-50 text-red-800"
    : tone === "notice"
      ? "border-amber-300 bg-amber-50 text-amber-950"
      : "border-emerald-200 bg-emerald-50 text-emerald-900";
  return (
    <p role={red ? "alert" : "status"} className={`rounded-lg border px-4 py-3 text-sm font-medium ${colors}`}>
      {message}
    </p>
  );
}

export function StatusBadge({ status }: { status: string }) {
  const styles: Record<string, string> = {
    pending: "bg-amber-100 text-amber-900",
    info_requested: "bg-sky-100 text-sky-900",
    approved: "bg-emerald-100 text-emerald-900",
    verified: "bg-emerald-100 text-emerald-900",
    active: "bg-emerald-100 text-emerald-900",
    rejected: "bg-red-100 text-red-900",
    frozen: "bg-sky-100 text-sky-900",
    closed: "bg-slate-200 text-slate-800",
    locked: "bg-slate-200 text-slate-800",
    new: "bg-amber-100 text-amber-900",
    answered: "bg-emerald-100 text-emerald-900",
  };
  const label = status.replace(/_/g, " ");
  return (
    <span
      className={`inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold capitalize ${styles[status] ?? "bg-slate-100 text-slate-800"}`}
    >
      {label}
    </span>
  );
}
