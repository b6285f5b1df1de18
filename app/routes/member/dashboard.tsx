import { Link, data, useHref, useNavigate, useSearchParams } from "react-router";
import { requestInfoContext } from "~/context";
import { RouterProvider, Tab, TabList, TabPanel, Tabs } from "react-aria-components";
import {
  ArrowLeft,
  ArrowRight,
  CalendarClock,
  Camera,
  Clock,
  Gift,
  PiggyBank,
  ReceiptText,
  Users,
  Wallet,
  Zap,
} from "~/components/member/icons";
import type { Route } from "./+types/dashboard";
import { readForm } from "~/server/http/form.server";
import { requireMember } from "~/server/auth/session.server";
import { loadDashboard, transferAction } from "./dashboard.server";
import { TRANSFER_INTENTS, transferTab } from "~/server/payments/transfer-form-steps.server";
import { formIntent } from "~/domain/form-intent";
import { pageTitle } from "~/components/site/page-title";
import { formatCents } from "~/domain/money";
import { LINE_STATE_LABELS } from "~/domain/loans/line-changes";
import { groupAccountNumber } from "~/domain/account-display";
import { formatDate } from "~/components/member/amount";
import { CopyButton } from "~/components/member/copy-button";
import { SpendingChart } from "~/components/member/spending-chart";
import { TAB_META, type TransferResult, type TransferTab } from "~/components/member/transfer-forms/shared";
import { BetweenAccountsForm } from "~/components/member/transfer-forms/between-accounts-form";
import { ToMemberForm } from "~/components/member/transfer-forms/to-member-form";
import { ToUsBankForm } from "~/components/member/transfer-forms/to-us-bank-form";
import { InternationalForm } from "~/components/member/transfer-forms/international-form";
import { cx } from "~/components/ui/field-styles";
import { useInstitutionDates } from "~/components/institution-dates";
import { TransactionTable } from "~/components/member/transaction-table";
import { cardServicesSummary, type CardServicesSummary } from "~/server/cards/page.server";
import {
  CARD_SERVICES_TABS,
  CardServices,
  CardsQuickAction,
  useQuickActionFragment,
  type CardServicesTab,
} from "~/components/member/card-services-panel";
import { CreditCard, Landmark } from "lucide-react";
import { dividendRates } from "~/server/dividends/dividends.server";
import { formatApy } from "~/domain/dividends";
import { loanApplicationsOpen } from "~/server/loans/products.server";
import { loadMemberLoans } from "./loans.server";
import { loadMemberLines } from "./lines-of-credit.server";
import { formatRatePpm } from "~/domain/loans/products";
import { formatBusinessDate } from "~/domain/calendar-date";

export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Dashboard", matches);
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const url = new URL(request.url);
  const tab = transferTab(url.searchParams.get("transfer"));
  const services_tab: CardServicesTab = (CARD_SERVICES_TABS as readonly string[]).includes(
    url.searchParams.get("services") ?? "",
  )
    ? (url.searchParams.get("services") as CardServicesTab)
    : "overview";
  // Independent reads: on PostgreSQL they run on two pool connections at once.
  const [dashboard, card_services, loans, lines] = await Promise.all([
    loadDashboard(user, tab),
    cardServicesSummary(user, services_tab),
    loanApplicationsOpen() ? loadMemberLoans(user) : Promise.resolve([]),
    loanApplicationsOpen() ? loadMemberLines(user) : Promise.resolve([]),
  ]);
  return {
    ...dashboard,
    tab,
    quick_action: url.searchParams.get("action"),
    // Card Services (docs/product.md#dashboard): the tab is in the URL, as the transfer tabs are.
    card_services,
    services_tab,
    loans: loans.filter((l) => l.status === "active"),
    lines: lines.filter((l) => l.status === "active"),
    now: new Date().toISOString(),
    // The APY each account type is paid (docs/product.md#dividends): the figure the public savings page quotes.
    dividend_apy: Object.fromEntries(
      Object.entries(dividendRates())
        .filter(([, ppm]) => ppm > 0)
        .map(([type, ppm]) => [type, formatApy(ppm)]),
    ) as Partial<Record<string, string>>,
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const form = await readForm(request);
  const info = context.get(requestInfoContext);
  const result = await transferAction(user, form, { request_id: info.request_id, ip: info.ip });
  // A step no form sends moves nothing and is a bad request; its answer still reads as a failed
  // transfer, so the form keeps its idempotency key.
  return formIntent(form, TRANSFER_INTENTS) ? result : data(result, { status: 400 });
}

const TABS: TransferTab[] = ["internal", "member", "ach", "wire"];

export default function Dashboard({ loaderData, actionData }: Route.ComponentProps) {
  const d = loaderData;
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const result = actionData as TransferResult | undefined;
  // The tab lives in the URL (?transfer=), so it works without JavaScript and survives a reload.
  const fromUrl = params.get("transfer");
  const tab: TransferTab =
    result?.tab ?? (TABS.includes(fromUrl as TransferTab) ? (fromUrl as TransferTab) : "internal");
  const spentPercent =
    d.month.income_cents > 0
      ? Math.min(100, Math.round((d.month.outgoing_cents / d.month.income_cents) * 100))
      : d.month.outgoing_cents > 0
        ? 100
        : 0;
  const now = new Date(d.now);
  const { formatLongDate, formatClock } = useInstitutionDates();
  return (
    <RouterProvider
      navigate={(to, options) => navigate(to, { preventScrollReset: true, ...(options as unknown as object) })}
      useHref={useHref}
    >
      <div className="mx-auto max-w-7xl space-y-8 px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
        {/* Header */}
        <section aria-labelledby="welcome" className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
          <div>
            <p className="text-sm text-slate-600">
              <time dateTime={d.now}>
                {formatLongDate(now)} · {formatClock(now)}
              </time>
            </p>
            <h1 id="welcome" className="mt-1 text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">
              Welcome back, {d.first_name}
            </h1>
            {d.joint ? (
              <p className="mt-2 inline-flex items-center gap-1.5 rounded-full bg-accent-50 px-3 py-1 text-xs font-semibold text-accent-800 ring-1 ring-accent-100">
                <Users className="size-3.5" aria-hidden="true" /> Joint account · {d.holder}
              </p>
            ) : null}
          </div>
          <Link
            to="/dashboard/transactions"
            className="inline-flex items-center gap-1.5 self-start text-sm font-semibold text-accent-700 hover:underline sm:self-auto"
          >
            All transactions <ArrowRight className="size-4" aria-hidden="true" />
          </Link>
        </section>

        {/* Totals */}
        <section aria-label="Balances summary" className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          <div className="rounded-2xl bg-gradient-to-br from-brand-700 to-brand-900 p-6 text-white shadow-sm sm:col-span-2 lg:col-span-1">
            <p className="flex items-center gap-2 text-sm font-medium text-white/80">
              <Wallet className="size-4" aria-hidden="true" /> Total available balance
            </p>
            <p className="mt-2 text-3xl font-semibold tracking-tight tabular-nums sm:text-4xl">
              {formatCents(d.total_available_cents)}
            </p>
            <p className="mt-1 text-sm text-white/80">
              Across {d.accounts.length} {d.accounts.length === 1 ? "account" : "accounts"}
            </p>
          </div>
          <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
            <p className="flex items-center gap-2 text-sm font-medium text-slate-600">
              <Clock className="size-4" aria-hidden="true" /> Pending
            </p>
            <p className="mt-2 text-2xl font-semibold tabular-nums text-slate-900">
              {formatCents(d.pending.total_cents)}
            </p>
            <p className="mt-1 text-sm text-slate-600">
              {d.pending.count === 0
                ? "Nothing pending"
                : `${d.pending.count} pending ${d.pending.count === 1 ? "transaction" : "transactions"}`}
            </p>
          </div>
          <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
            <p className="text-sm font-medium text-slate-600">{d.month.label}</p>
            <dl className="mt-2 grid grid-cols-2 gap-3">
              <div>
                <dt className="text-xs text-slate-600">Income</dt>
                <dd className="text-lg font-semibold tabular-nums text-emerald-700">
                  +{formatCents(d.month.income_cents)}
                </dd>
              </div>
              <div className="text-right">
                <dt className="text-xs text-slate-600">Outgoing</dt>
                <dd className="text-lg font-semibold tabular-nums text-slate-900">
                  -{formatCents(d.month.outgoing_cents)}
                </dd>
              </div>
            </dl>
            <div className="mt-3">
              <div
                className="h-2 overflow-hidden rounded-full bg-slate-100"
                role="img"
                aria-label={`${spentPercent}% of this month's income spent`}
              >
                <div
                  className={cx("h-full rounded-full", spentPercent >= 90 ? "bg-amber-600" : "bg-accent-600")}
                  style={{ width: `${spentPercent}%` }}
                />
              </div>
              <p className="mt-1.5 text-xs text-slate-600">
                {d.month.income_cents > 0
                  ? `${spentPercent}% of this month's income spent`
                  : "No income yet this month"}
              </p>
            </div>
          </div>
        </section>

        {/* Accounts */}
        <section aria-labelledby="accounts-heading">
          <h2 id="accounts-heading" className="text-lg font-semibold text-brand-900">
            Your accounts
          </h2>
          {d.accounts.length === 0 ? (
            <p className="mt-3 rounded-2xl border border-dashed border-slate-300 bg-white p-8 text-center text-sm text-slate-600">
              Your accounts are being opened. They will appear here as soon as they are ready.
            </p>
          ) : (
            <ul className="mt-3 grid gap-4 md:grid-cols-2">
              {d.accounts.map((a) => (
                <li
                  key={a.id}
                  className="flex flex-col overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm"
                >
                  {/* flex-1: a card with the dividends line keeps its balances level with the others'. */}
                  <div
                    className={cx(
                      "flex-1 p-5 text-white",
                      a.type === "savings"
                        ? "bg-gradient-to-br from-accent-700 to-accent-800"
                        : "bg-gradient-to-br from-brand-700 to-brand-800",
                    )}
                  >
                    <div className="flex items-start justify-between gap-3">
                      <div>
                        <h3 className="flex items-center gap-2 font-semibold">
                          {a.type === "savings" ? (
                            <PiggyBank className="size-5" aria-hidden="true" />
                          ) : (
                            <Wallet className="size-5" aria-hidden="true" />
                          )}
                          {a.type_label}
                        </h3>
                        <p className="mt-0.5 text-sm text-white/85">{a.holder}</p>
                      </div>
                      <span
                        className={cx(
                          "rounded-full px-2.5 py-0.5 text-xs font-semibold ring-1",
                          a.status === "active"
                            ? "bg-white/15 text-white ring-white/30"
                            : a.status === "frozen"
                              ? "bg-amber-100 text-amber-950 ring-amber-300"
                              : "bg-slate-200 text-slate-800 ring-slate-300",
                        )}
                      >
                        {a.status === "active" ? "Active" : a.status === "frozen" ? "Frozen" : "Closed"}
                      </span>
                    </div>
                    <dl className="mt-4 space-y-1 text-sm">
                      <div className="flex items-center gap-2">
                        <dt className="w-20 text-white/80">Account</dt>
                        <dd className="flex items-center gap-1 font-mono tracking-wider">
                          {groupAccountNumber(a.account_number)}
                          <CopyButton value={a.account_number} label="account number" />
                        </dd>
                      </div>
                      <div className="flex items-center gap-2">
                        <dt className="w-20 text-white/80">Routing</dt>
                        <dd className="flex items-center gap-1 font-mono tracking-wider">
                          {d.routing_number}
                          <CopyButton value={d.routing_number} label="routing number" />
                        </dd>
                      </div>
                      {d.dividend_apy[a.type] ? (
                        <div className="flex items-center gap-2">
                          <dt className="w-20 text-white/80">Dividends</dt>
                          <dd>{d.dividend_apy[a.type]} APY, paid monthly</dd>
                        </div>
                      ) : null}
                    </dl>
                  </div>
                  <dl className="grid grid-cols-2 divide-x divide-slate-100">
                    <div className="p-4">
                      <dt className="text-xs text-slate-600">Current balance</dt>
                      <dd className="mt-0.5 text-lg font-semibold tabular-nums text-slate-900">
                        {formatCents(a.current_cents)}
                      </dd>
                    </div>
                    <div className="p-4 text-right">
                      <dt className="text-xs text-slate-600">Available</dt>
                      <dd className="mt-0.5 text-lg font-semibold tabular-nums text-slate-900">
                        {formatCents(a.available_cents)}
                      </dd>
                    </div>
                  </dl>
                </li>
              ))}
            </ul>
          )}
        </section>

        {/* Loans (docs/product.md#loan-servicing): each active loan's balance, next payment and rate. */}
        {d.loans.length > 0 || d.lines.length > 0 ? (
          <section aria-labelledby="dashboard-loans-heading">
            <h2 id="dashboard-loans-heading" className="text-lg font-semibold text-brand-900">
              Loans
            </h2>
            <ul className="mt-4 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
              {d.loans.map((l) => (
                <li key={l.id} className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
                  <Link to={`/dashboard/loans/${l.id}`} className="font-semibold text-accent-700 underline">
                    {l.product_name} {l.number}
                  </Link>
                  <p className="mt-2 text-2xl font-semibold tabular-nums text-slate-900">
                    {formatCents(l.balance_cents)}
                  </p>
                  <p className="text-sm text-slate-600">Balance owed</p>
                  <dl className="mt-3 grid grid-cols-2 gap-2 text-sm">
                    <dt className="text-slate-600">Next payment</dt>
                    <dd className="text-slate-900">
                      {l.next_payment
                        ? `${formatCents(l.next_payment.payment_cents)} due ${formatBusinessDate(l.next_payment.due_on)}`
                        : "None due"}
                    </dd>
                    <dt className="text-slate-600">Rate</dt>
                    <dd className="text-slate-900">{formatRatePpm(l.rate_ppm)}</dd>
                  </dl>
                </li>
              ))}
              {/* Lines of credit (docs/product.md#lines-of-credit): limit, drawn, available, the minimum due. */}
              {d.lines.map((l) => (
                <li key={`line-${l.id}`} className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
                  <Link to={`/dashboard/loans/lines/${l.id}`} className="font-semibold text-accent-700 underline">
                    {l.product_name} {l.number}
                  </Link>
                  {l.state !== "open" ? (
                    <span className="ml-2 text-sm text-slate-700">({LINE_STATE_LABELS[l.state]})</span>
                  ) : null}
                  <p className="mt-2 text-2xl font-semibold tabular-nums text-slate-900">
                    {formatCents(l.available_cents)}
                  </p>
                  <p className="text-sm text-slate-600">
                    Available of {formatCents(l.credit_limit_cents)}; {formatCents(l.drawn_cents)} drawn
                  </p>
                  <dl className="mt-3 grid grid-cols-2 gap-2 text-sm">
                    <dt className="text-slate-600">Minimum payment</dt>
                    <dd className="text-slate-900">
                      {l.minimum_due
                        ? `${formatCents(l.minimum_due.amount_cents)} due ${formatBusinessDate(l.minimum_due.due_on)}`
                        : "None due"}
                    </dd>
                    <dt className="text-slate-600">Rate</dt>
                    <dd className="text-slate-900">{formatRatePpm(l.rate_ppm)}</dd>
                  </dl>
                </li>
              ))}
            </ul>
          </section>
        ) : null}

        <div className="grid gap-8 lg:grid-cols-5">
          {/* Transfers */}
          <section
            id="transfer"
            aria-labelledby="transfer-heading"
            className="min-w-0 scroll-mt-24 rounded-2xl border border-slate-200 bg-white shadow-sm lg:col-span-3"
          >
            <div className="flex flex-wrap items-center justify-between gap-2 px-5 pt-5 sm:px-6">
              <h2 id="transfer-heading" className="text-lg font-semibold text-brand-900">
                Transfer Money
              </h2>
              <div className="flex flex-wrap items-center gap-x-4">
                <Link
                  to="/dashboard/scheduled-transfers"
                  className="inline-flex min-h-11 items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
                >
                  <CalendarClock className="size-4" aria-hidden="true" /> Scheduled transfers
                </Link>
                {/* Accounts at other banks, verified by micro-deposits (docs/product.md#linked-accounts). */}
                <Link
                  to="/dashboard/linked-accounts"
                  className="inline-flex min-h-11 items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
                >
                  <Landmark className="size-4" aria-hidden="true" /> Linked accounts
                </Link>
              </div>
            </div>
            <Tabs selectedKey={tab} keyboardActivation="manual" className="mt-3">
              {/* All four tabs always in sight, never scrolled away: a 2 × 2 grid on a phone, then a row that wraps if narrow. */}
              <TabList
                aria-label="Transfer type"
                className="grid grid-cols-2 gap-2 border-b border-slate-200 px-3 pb-3 sm:flex sm:flex-wrap sm:gap-x-1 sm:gap-y-0 sm:px-4 sm:pb-0"
              >
                {TABS.map((key) => {
                  const Icon = TAB_META[key].icon;
                  return (
                    <Tab
                      key={key}
                      id={key}
                      href={`/dashboard?transfer=${key}#transfer`}
                      className={({ isSelected }) =>
                        cx(
                          "flex min-h-11 min-w-0 cursor-pointer items-center gap-2 rounded-lg border px-3 py-2 text-sm font-semibold transition-colors sm:-mb-px sm:shrink-0 sm:rounded-none sm:border-0 sm:border-b-2 sm:py-3 sm:whitespace-nowrap sm:data-[focus-visible]:rounded-t-md",
                          isSelected
                            ? "border-accent-600 bg-accent-50 text-brand-900 sm:bg-transparent"
                            : "border-slate-200 text-slate-600 hover:text-brand-800 sm:border-transparent",
                        )
                      }
                    >
                      <Icon className="size-4 shrink-0" aria-hidden="true" />
                      {TAB_META[key].label}
                    </Tab>
                  );
                })}
              </TabList>
              {TABS.map((key) => (
                <TabPanel key={key} id={key} className="p-5 sm:p-6">
                  <p className="mb-5 text-sm text-slate-600">{TAB_META[key].intro}</p>
                  {d.accounts_for_forms.length === 0 ? (
                    <p className="text-sm text-slate-600">You need an open account to make transfers.</p>
                  ) : key === "internal" ? (
                    <BetweenAccountsForm data={{ ...d, accounts: d.accounts_for_forms }} result={result} />
                  ) : key === "member" ? (
                    <ToMemberForm data={{ ...d, accounts: d.accounts_for_forms }} result={result} />
                  ) : key === "ach" ? (
                    <ToUsBankForm data={{ ...d, accounts: d.accounts_for_forms }} result={result} />
                  ) : (
                    <InternationalForm data={{ ...d, accounts: d.accounts_for_forms }} result={result} />
                  )}
                </TabPanel>
              ))}
            </Tabs>
          </section>

          <div className="min-w-0 space-y-8 lg:col-span-2">
            {/* Spending */}
            <section
              aria-labelledby="spending-heading"
              className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
            >
              <h2 id="spending-heading" className="text-lg font-semibold text-brand-900">
                Spending by category
              </h2>
              <p className="mt-0.5 text-sm text-slate-600">
                Last 30 days, {formatDate(d.spending.from)} to {formatDate(d.spending.to)}
              </p>
              <div className="mt-5">
                <SpendingChart categories={d.spending.categories} total_cents={d.spending.total_cents} />
              </div>
            </section>

            {/* Quick actions */}
            <QuickActions current={d.quick_action} cards={d.card_services} />
          </div>
        </div>

        {/* Recent transactions */}
        <section aria-labelledby="recent-heading" className="rounded-2xl border border-slate-200 bg-white shadow-sm">
          <div className="flex items-center justify-between gap-4 px-5 py-4 sm:px-6">
            <h2 id="recent-heading" className="text-lg font-semibold text-brand-900">
              Recent transactions
            </h2>
            <Link
              to="/dashboard/transactions"
              className="inline-flex items-center gap-1 text-sm font-semibold text-accent-700 hover:underline"
            >
              View All <ArrowRight className="size-4" aria-hidden="true" />
            </Link>
          </div>
          <RecentTransactions rows={d.recent} />
        </section>

        <CardServices summary={d.card_services} tab={d.services_tab} />
      </div>
    </RouterProvider>
  );
}

type Row = Route.ComponentProps["loaderData"]["recent"][number];

export function RecentTransactions({ rows }: { rows: Row[] }) {
  if (rows.length === 0) {
    return (
      <p className="border-t border-slate-100 px-6 py-12 text-center text-sm text-slate-600">
        No transactions yet. Your first deposit will show up here.
      </p>
    );
  }
  return <TransactionTable rows={rows} caption={`Your latest ${rows.length} transactions`} />;
}

const QUICK_ACTIONS = {
  zelle: {
    label: "Zelle",
    icon: Zap,
    title: "Zelle is coming soon",
    text: "We're bringing Zelle to online banking so you can send money to friends and family at other banks in minutes. Until then, use To Another Member or To US Bank in Transfer Money.",
  },
  rewards: {
    label: "Rewards",
    icon: Gift,
    title: "Rewards are being enhanced",
    text: "We're improving our rewards program to give members more back. Points you've earned are safe, and we'll let you know as soon as the new program is ready.",
  },
} as const;

/** Quick actions opened in place with more than a message (and the fragments `#quick-actions-cards`, `#quick-actions-billpay`). */
const IN_PLACE = ["cards", "billpay"] as const;

function QuickActions({ current, cards }: { current: string | null; cards: CardServicesSummary }) {
  const open = current && current in QUICK_ACTIONS ? QUICK_ACTIONS[current as keyof typeof QUICK_ACTIONS] : null;
  const in_place = (IN_PLACE as readonly string[]).includes(current ?? "")
    ? (current as (typeof IN_PLACE)[number])
    : null;
  useQuickActionFragment(current);
  return (
    <section
      id="quick-actions"
      aria-labelledby="quick-heading"
      className="scroll-mt-24 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
    >
      <h2 id="quick-heading" className="text-lg font-semibold text-brand-900">
        Quick actions
      </h2>
      {in_place ? (
        <div className="mt-4">
          <Link
            to="/dashboard#quick-actions"
            preventScrollReset
            className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
          >
            <ArrowLeft className="size-4" aria-hidden="true" /> Back to Quick Actions
          </Link>
          <div id={`quick-actions-${in_place}`} className="mt-4 scroll-mt-24 rounded-xl bg-slate-50 p-5">
            {in_place === "cards" ? (
              <CardsQuickAction summary={cards} />
            ) : (
              <div>
                <CalendarClock className="size-8 text-accent-700" aria-hidden="true" />
                <h3 className="mt-3 font-semibold text-slate-900">Bill Pay</h3>
                <p className="mt-1 text-sm text-slate-700">
                  Pay a bill from your account to a saved payee, once or on a schedule, and see what is coming up and
                  what was paid.
                </p>
                <Link
                  to="/dashboard/bill-pay"
                  className="mt-3 inline-flex min-h-11 items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
                >
                  Open Bill Pay <ArrowRight className="size-4" aria-hidden="true" />
                </Link>
              </div>
            )}
          </div>
        </div>
      ) : open ? (
        <div className="mt-4">
          <Link
            to="/dashboard#quick-actions"
            preventScrollReset
            className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
          >
            <ArrowLeft className="size-4" aria-hidden="true" /> Back to Quick Actions
          </Link>
          <div role="status" className="mt-4 rounded-xl bg-slate-50 p-5">
            <open.icon className="size-8 text-accent-700" aria-hidden="true" />
            <h3 className="mt-3 font-semibold text-slate-900">{open.title}</h3>
            <p className="mt-1 text-sm text-slate-700">{open.text}</p>
          </div>
        </div>
      ) : (
        <ul className="mt-4 grid grid-cols-2 gap-3">
          {/* Quick actions with a page of their own. */}
          <li>
            <Link
              to="/dashboard/bill-pay"
              className="flex h-full flex-col items-start gap-2 rounded-xl border border-slate-200 p-4 transition-colors hover:border-accent-600 hover:bg-accent-50"
            >
              <CalendarClock className="size-6 text-accent-700" aria-hidden="true" />
              <span className="text-sm font-semibold text-slate-900">Bill Pay</span>
            </Link>
          </li>
          <li>
            <Link
              to="/dashboard/deposit"
              className="flex h-full flex-col items-start gap-2 rounded-xl border border-slate-200 p-4 transition-colors hover:border-accent-600 hover:bg-accent-50"
            >
              <Camera className="size-6 text-accent-700" aria-hidden="true" />
              <span className="text-sm font-semibold text-slate-900">Mobile Deposit</span>
            </Link>
          </li>
          <li>
            <Link
              to="/dashboard?action=cards#quick-actions-cards"
              preventScrollReset
              className="flex h-full flex-col items-start gap-2 rounded-xl border border-slate-200 p-4 transition-colors hover:border-accent-600 hover:bg-accent-50"
            >
              <CreditCard className="size-6 text-accent-700" aria-hidden="true" />
              <span className="text-sm font-semibold text-slate-900">Cards</span>
            </Link>
          </li>
          <li>
            <Link
              to="/dashboard/statements"
              className="flex h-full flex-col items-start gap-2 rounded-xl border border-slate-200 p-4 transition-colors hover:border-accent-600 hover:bg-accent-50"
            >
              <ReceiptText className="size-6 text-accent-700" aria-hidden="true" />
              <span className="text-sm font-semibold text-slate-900">Statements</span>
            </Link>
          </li>
          {(Object.entries(QUICK_ACTIONS) as Array<[string, (typeof QUICK_ACTIONS)[keyof typeof QUICK_ACTIONS]]>).map(
            ([key, qa]) => (
              <li key={key}>
                <Link
                  to={`/dashboard?action=${key}#quick-actions`}
                  preventScrollReset
                  className="flex h-full flex-col items-start gap-2 rounded-xl border border-slate-200 p-4 transition-colors hover:border-accent-600 hover:bg-accent-50"
                >
                  <qa.icon className="size-6 text-accent-700" aria-hidden="true" />
                  <span className="text-sm font-semibold text-slate-900">{qa.label}</span>
                </Link>
              </li>
            ),
          )}
        </ul>
      )}
    </section>
  );
}
