import { data, useNavigation } from "react-router";
import type { Route } from "./+types/settlement";
import { requestInfoContext } from "~/context";
import { requireBooksReader } from "~/server/admin/context.server";
import { parseSubmission, readForm, replyTo, type FormReply } from "~/server/http/form.server";
import { pageTitle } from "~/components/site/page-title";
import { StatusLine } from "~/components/admin/admin-shell";
import { BooksDateForm, dayLabel } from "~/components/books/books-parts";
import { Button, SchemaForm, TextField, useSchemaForm } from "~/components/ui";
import { useInstitutionDates } from "~/components/institution-dates";
import { formatCents } from "~/domain/money";
import { RECONCILE_MESSAGES, ReconcileSchema, booksDate, type Rail } from "~/domain/books";
import { booksToday, dateFromUrl, recordReconciliationFor, settlementReportFor } from "./books.server";

/**
 * /admin/books/settlement (docs/product.md#books): the daily settlement report, per rail, and its
 * reconciliation: staff or an accountant enter the statement's net for the day and see whether it
 * matches the ledger, or the difference and the day's entries to look at.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Settlement", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireBooksReader(request, context.get(requestInfoContext));
  const asked = dateFromUrl(request);
  const date = asked.ok ? asked.date : booksToday();
  const rails = await settlementReportFor(date);
  return {
    date,
    typed: new URL(request.url).searchParams.get("date") ?? date,
    error: asked.ok ? null : asked.message,
    rails,
  };
}

type ActionResult =
  | { status: "recorded"; rail: Rail; matched: boolean; message: string }
  | { status: "refused"; rail: string | null; reply: FormReply; message: string };

export async function action({ request, context }: Route.ActionArgs) {
  const { staff, origin } = await requireBooksReader(request, context.get(requestInfoContext));
  const form = await readForm(request);
  const parsed = parseSubmission(ReconcileSchema, form);
  const rail = typeof form.get("rail") === "string" ? (form.get("rail") as string) : null;
  if (parsed.status !== "success")
    return data(
      {
        status: "refused",
        rail,
        reply: replyTo(parsed),
        message: "Nothing was recorded: please check the form.",
      } satisfies ActionResult,
      { status: 400 },
    );
  const day = booksDate(parsed.value.date, booksToday());
  if (!day.ok)
    return data(
      {
        status: "refused",
        rail,
        reply: replyTo(parsed, { fieldErrors: { date: [day.message] } }),
        message: "Nothing was recorded: please check the form.",
      } satisfies ActionResult,
      { status: 400 },
    );
  const outcome = await recordReconciliationFor({
    rail: parsed.value.rail,
    date: day.date,
    statement_cents: parsed.value.statement_amount,
    staff,
    origin,
  });
  return {
    status: "recorded",
    rail: parsed.value.rail,
    matched: outcome.matched,
    message: outcome.matched ? RECONCILE_MESSAGES.recorded_matched : RECONCILE_MESSAGES.recorded_difference,
  } satisfies ActionResult;
}

const kindWords = (kind: string) => kind.replace(/_/g, " ");

export default function SettlementPage({ loaderData, actionData }: Route.ComponentProps) {
  const result = actionData as ActionResult | undefined;
  return (
    <div className="space-y-5">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Daily settlement</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-700">
          What each payment rail moved through its settlement account on the day, and the reconciliation: enter the
          statement&apos;s net for the day (money into the settlement account positive, out of it negative) to see
          whether it matches the ledger.
        </p>
      </div>
      <BooksDateForm value={loaderData.typed} error={loaderData.error} label="Business day" />
      {loaderData.rails.map((day) => (
        <RailCard
          key={day.rail}
          day={day}
          date={loaderData.date}
          result={result?.rail === day.rail ? result : undefined}
        />
      ))}
    </div>
  );
}

function RailCard({
  day,
  date,
  result,
}: {
  day: Route.ComponentProps["loaderData"]["rails"][number];
  date: string;
  result: ActionResult | undefined;
}) {
  const navigation = useNavigation();
  const { formatDateTime } = useInstitutionDates();
  const form = useSchemaForm(ReconcileSchema, {
    id: `reconcile-${day.rail}`,
    lastResult: result?.status === "refused" ? result.reply : undefined,
  });
  const headingId = `rail-${day.rail}-heading`;
  const rec = day.reconciliation;
  return (
    <section aria-labelledby={headingId} className="rounded-xl border border-slate-200 bg-white shadow-sm">
      <div className="flex flex-wrap items-baseline justify-between gap-2 border-b border-slate-200 px-4 py-3">
        <h2 id={headingId} className="text-base font-semibold text-slate-900">
          {day.label}
        </h2>
        <p className="text-xs text-slate-600">
          {day.account_name}
          {day.account_number ? ` · ${day.account_number}` : " · not used yet"}
        </p>
      </div>
      <div className="grid gap-4 px-4 py-4 lg:grid-cols-2">
        <div className="space-y-3">
          <dl className="grid grid-cols-3 gap-2 text-sm">
            <div>
              <dt className="text-xs text-slate-600">Credits</dt>
              <dd className="font-medium tabular-nums">{formatCents(day.credits_cents)}</dd>
            </div>
            <div>
              <dt className="text-xs text-slate-600">Debits</dt>
              <dd className="font-medium tabular-nums">{formatCents(day.debits_cents)}</dd>
            </div>
            <div>
              <dt className="text-xs text-slate-600">Ledger net</dt>
              <dd className="font-semibold tabular-nums" data-testid={`ledger-net-${day.rail}`}>
                {formatCents(day.net_cents)}
              </dd>
            </div>
          </dl>
          {day.by_kind.length === 0 ? (
            <p className="text-sm text-slate-700">Nothing settled through this account on {dayLabel(date)}.</p>
          ) : (
            <ul className="space-y-1 text-sm">
              {day.by_kind.map((k) => (
                <li key={k.kind} className="flex justify-between gap-3">
                  <span className="capitalize">
                    {kindWords(k.kind)} ({k.count})
                  </span>
                  <span className="tabular-nums">
                    {k.credits_cents ? `+${formatCents(k.credits_cents)}` : ""}
                    {k.credits_cents && k.debits_cents ? " / " : ""}
                    {k.debits_cents ? `-${formatCents(k.debits_cents)}` : ""}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </div>
        <div className="space-y-3">
          {rec ? (
            <div className="space-y-2">
              <StatusLine
                tone={rec.matched ? "success" : "error"}
                message={
                  rec.matched
                    ? `Matched: the statement's ${formatCents(rec.statement_cents)} equals the ledger.`
                    : `Difference of ${formatCents(rec.difference_cents)}: the statement says ${formatCents(rec.statement_cents)}, the ledger ${formatCents(day.net_cents)}.`
                }
              />
              <p className="text-xs text-slate-600">
                Entered {formatDateTime(rec.entered_at)}
                {rec.entered_by_email ? ` by ${rec.entered_by_email}` : ""}.
              </p>
              {!rec.matched ? (
                <div>
                  <h3 className="text-sm font-semibold text-slate-900">The day&apos;s entries to look at</h3>
                  {day.entries.length === 0 ? (
                    <p className="text-sm text-slate-700">
                      None in the ledger: a settlement on the statement was not posted.
                    </p>
                  ) : (
                    <ul className="mt-1 space-y-1 text-sm">
                      {day.entries.map((e) => (
                        <li key={e.transaction_id} className="flex justify-between gap-3">
                          <span>
                            Transaction {e.transaction_id}, {kindWords(e.kind)}
                          </span>
                          <span className="tabular-nums">{formatCents(e.amount_cents)}</span>
                        </li>
                      ))}
                    </ul>
                  )}
                </div>
              ) : null}
            </div>
          ) : (
            <p className="text-sm text-slate-700">Not reconciled yet for this day.</p>
          )}
          {result?.status === "recorded" ? (
            <StatusLine tone={result.matched ? "success" : "notice"} message={result.message} />
          ) : null}
          <SchemaForm
            form={form}
            method="post"
            aria-label={`Reconcile ${day.label}`}
            className="flex flex-wrap items-end gap-3"
          >
            <input type="hidden" name="rail" value={day.rail} />
            <input type="hidden" name="date" value={date} />
            <TextField
              name="statement_amount"
              label={`Statement net (${day.statement_source})`}
              inputMode="decimal"
              autoComplete="off"
              prefix="$"
              isRequired
              className="min-w-0 flex-1"
            />
            <Button
              type="submit"
              variant="secondary"
              isPending={navigation.state === "submitting"}
              pendingLabel="Recording…"
            >
              Record
            </Button>
          </SchemaForm>
          {result?.status === "refused" ? (
            <p role="alert" className="text-sm font-medium text-red-700">
              {result.message}
            </p>
          ) : null}
        </div>
      </div>
    </section>
  );
}
