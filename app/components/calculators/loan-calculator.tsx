import { lazy, useMemo } from "react";
import { Form } from "react-router";
import { ChevronRight, Landmark } from "lucide-react";
import { amortize, LoanFormSchema, type LoanFormValues } from "~/domain/loan-math";
import { formatCents } from "~/domain/money";
import { Button, TextField, type FieldErrors } from "~/components/ui";
import { ChartFrame } from "./chart-frame";
import { formatMonths } from "./format";
import { ScrollTable, ShareBar, StaleNote, Stat, StatGrid, tableClass, tdClass, thClass } from "./parts";
import { useCalculatorForm } from "./use-calculator-form";

const LoanChart = lazy(() => import("./loan-chart"));

/**
 * Loan payment calculator: amount, APR and term in; monthly payment, total interest, a chart and
 * the amortization schedule (by year, with every month behind a disclosure) out.
 */
export function LoanCalculator({ values, errors, carry }: { values: LoanFormValues; errors: FieldErrors; carry: Record<string, string> }) {
  const { formRef, field, onSubmit, input: parsedInput, stale } = useCalculatorForm(LoanFormSchema, values, errors);
  const schedule = useMemo(() => (parsedInput ? amortize(parsedInput) : null), [parsedInput]);
  const input = parsedInput;

  return (
    <section id="loan" aria-labelledby="loan-heading" className="scroll-mt-24 rounded-2xl border border-slate-200 bg-white shadow-sm">
      <header className="flex items-start gap-4 border-b border-slate-100 p-5 sm:p-8">
        <span className="flex size-11 shrink-0 items-center justify-center rounded-xl bg-brand-50 text-brand-700">
          <Landmark className="size-5" aria-hidden="true" />
        </span>
        <div>
          <h2 id="loan-heading" className="text-2xl font-semibold tracking-tight text-brand-800">
            Loan payment calculator
          </h2>
          <p className="mt-1 text-slate-700">See what a loan would cost each month and over its life.</p>
        </div>
      </header>

      <div className="grid gap-8 p-4 sm:p-8 lg:grid-cols-5">
        <Form ref={formRef} method="get" action="/calculators#loan" preventScrollReset noValidate onSubmit={onSubmit} aria-labelledby="loan-heading" className="space-y-5 lg:col-span-2">
          <TextField {...field("amount")} label="Loan amount" prefix="$" inputMode="decimal" autoComplete="off" maxLength={20} />
          <TextField {...field("apr")} label="Interest rate (APR)" suffix="%" inputMode="decimal" autoComplete="off" maxLength={10} />
          <TextField {...field("term")} label="Term in months" description="For example, 60 months is 5 years." suffix="months" inputMode="numeric" autoComplete="off" maxLength={4} />
          {Object.entries(carry).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} readOnly />
          ))}
          <Button type="submit" variant="secondary" className="w-full">
            Calculate
          </Button>
        </Form>

        <div className="lg:col-span-3">
          {schedule && input ? (
            <div className={`flex h-full flex-col rounded-xl bg-brand-800 p-5 text-white sm:p-6`}>
              {stale ? <StaleNote /> : null}
              <p className="text-sm text-brand-100">Monthly payment</p>
              <p className="tabular mt-1 text-4xl font-semibold tracking-tight sm:text-5xl" aria-live="polite" aria-atomic="true">
                {formatCents(schedule.monthly_payment_cents)}
                <span className="sr-only"> a month</span>
              </p>
              <p className="mt-2 text-sm text-brand-100">
                {schedule.payments.length} payments over {formatMonths(schedule.payments.length)}
                {schedule.final_payment_cents !== schedule.monthly_payment_cents ? `; the last is ${formatCents(schedule.final_payment_cents)}` : ""}.
              </p>
              <div className="mt-6">
                <ShareBar
                  label="Where your payments go"
                  first={{ label: "Principal", cents: input.principal_cents, className: "bg-accent-500" }}
                  second={{ label: "Interest", cents: schedule.total_interest_cents, className: "bg-brand-200" }}
                />
              </div>
              <div className="mt-auto pt-6">
                <StatGrid columns={3}>
                  <Stat label="Amount borrowed" value={formatCents(input.principal_cents)} />
                  <Stat label="Total interest" value={formatCents(schedule.total_interest_cents)} />
                  <Stat label="Total of payments" value={formatCents(schedule.total_paid_cents)} />
                </StatGrid>
              </div>
            </div>
          ) : (
            <NoResult />
          )}
        </div>
      </div>

      {schedule && input ? (
        <div className="space-y-6 border-t border-slate-100 p-4 sm:p-8">
          <ChartFrame
            caption="Balance, principal repaid and interest paid over the loan. The tables below list the same figures."
            legend={[
              { label: "Balance", swatchClass: "bg-brand-700" },
              { label: "Principal repaid", swatchClass: "bg-accent-600" },
              { label: "Interest paid", swatchClass: "bg-brand-500", dashed: true },
            ]}
          >
            <LoanChart principal_cents={input.principal_cents} schedule={schedule} />
          </ChartFrame>

          <div>
            <h3 className="text-lg font-semibold text-brand-800">Amortization by year</h3>
            <div className="mt-3">
              <ScrollTable label="Amortization by year">
                <table className={tableClass}>
                  <caption className="sr-only">Principal and interest paid each year, and the balance at the end of the year</caption>
                  <thead>
                    <tr>
                      <th scope="col" className={thClass}>Year</th>
                      <th scope="col" className={thClass}>Principal</th>
                      <th scope="col" className={thClass}>Interest</th>
                      <th scope="col" className={thClass}>Balance</th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-slate-100">
                    {schedule.years.map((y) => (
                      <tr key={y.year}>
                        <th scope="row" className={`${tdClass} font-medium`}>{y.year}</th>
                        <td className={tdClass}>{formatCents(y.principal_cents)}</td>
                        <td className={tdClass}>{formatCents(y.interest_cents)}</td>
                        <td className={tdClass}>{formatCents(y.balance_cents)}</td>
                      </tr>
                    ))}
                  </tbody>
                  <tfoot className="border-t-2 border-slate-200 bg-slate-50 font-semibold">
                    <tr>
                      <th scope="row" className={tdClass}>Total</th>
                      <td className={tdClass}>{formatCents(input.principal_cents)}</td>
                      <td className={tdClass}>{formatCents(schedule.total_interest_cents)}</td>
                      <td className={tdClass}>{formatCents(0)}</td>
                    </tr>
                  </tfoot>
                </table>
              </ScrollTable>
            </div>
          </div>

          <details className="group rounded-xl border border-slate-200">
            <summary className="flex cursor-pointer list-none items-center gap-2 rounded-xl px-4 py-3 font-semibold text-brand-800 hover:bg-slate-50 [&::-webkit-details-marker]:hidden">
              <ChevronRight className="size-5 transition-transform group-open:rotate-90 motion-reduce:transition-none" aria-hidden="true" />
              Every monthly payment ({schedule.payments.length})
            </summary>
            <div className="border-t border-slate-200 p-4">
              <ScrollTable label="Every monthly payment" maxHeightClass="max-h-[28rem]">
                <table className={tableClass}>
                  <caption className="sr-only">Each payment split into principal and interest, with the balance after it</caption>
                  <thead>
                    <tr>
                      <th scope="col" className={thClass}>Payment</th>
                      <th scope="col" className={thClass}>Amount</th>
                      <th scope="col" className={thClass}>Principal</th>
                      <th scope="col" className={thClass}>Interest</th>
                      <th scope="col" className={thClass}>Balance</th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-slate-100">
                    {schedule.payments.map((p) => (
                      <tr key={p.month}>
                        <th scope="row" className={`${tdClass} font-medium`}>{p.month}</th>
                        <td className={tdClass}>{formatCents(p.payment_cents)}</td>
                        <td className={tdClass}>{formatCents(p.principal_cents)}</td>
                        <td className={tdClass}>{formatCents(p.interest_cents)}</td>
                        <td className={tdClass}>{formatCents(p.balance_cents)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </ScrollTable>
            </div>
          </details>
          <p className="text-sm text-slate-600">
            Interest is charged monthly at the APR divided by 12 and rounded to the cent. The last payment settles the remaining balance, so it can differ from the
            others by a few cents.
          </p>
        </div>
      ) : null}
    </section>
  );
}

function NoResult() {
  return (
    <div className="flex h-full min-h-48 items-center justify-center rounded-xl border border-dashed border-slate-300 bg-slate-50 p-6 text-center text-slate-700">
      <p>Correct the highlighted fields to see your results.</p>
    </div>
  );
}
