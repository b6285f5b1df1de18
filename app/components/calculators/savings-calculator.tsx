import { lazy, useMemo } from "react";
import { Form } from "react-router";
import { PiggyBank } from "lucide-react";
import { growSavings, SavingsFormSchema, type SavingsFormValues } from "~/domain/loan-math";
import { formatCents } from "~/domain/money";
import { Button, TextField, type FieldErrors } from "~/components/ui";
import { ChartFrame } from "./chart-frame";
import { ScrollTable, ShareBar, StaleNote, Stat, StatGrid, tableClass, tdClass, thClass } from "./parts";
import { useCalculatorForm } from "./use-calculator-form";

const SavingsChart = lazy(() => import("./savings-chart"));

/** Savings growth calculator: initial and monthly deposits, APY and years in; balance by year out. */
export function SavingsCalculator({ values, errors, carry }: { values: SavingsFormValues; errors: FieldErrors; carry: Record<string, string> }) {
  const { formRef, field, onSubmit, input: parsedInput, stale } = useCalculatorForm(SavingsFormSchema, values, errors);
  const growth = useMemo(() => (parsedInput ? growSavings(parsedInput) : null), [parsedInput]);
  const years = parsedInput?.years ?? 0;

  return (
    <section id="savings" aria-labelledby="savings-heading" className="scroll-mt-24 rounded-2xl border border-slate-200 bg-white shadow-sm">
      <header className="flex items-start gap-4 border-b border-slate-100 p-5 sm:p-8">
        <span className="flex size-11 shrink-0 items-center justify-center rounded-xl bg-accent-50 text-accent-700">
          <PiggyBank className="size-5" aria-hidden="true" />
        </span>
        <div>
          <h2 id="savings-heading" className="text-2xl font-semibold tracking-tight text-brand-800">
            Savings growth calculator
          </h2>
          <p className="mt-1 text-slate-700">See how regular deposits and dividends add up over time.</p>
        </div>
      </header>

      <div className="grid gap-8 p-4 sm:p-8 lg:grid-cols-5">
        <Form ref={formRef} method="get" action="/calculators#savings" preventScrollReset noValidate onSubmit={onSubmit} aria-labelledby="savings-heading" className="space-y-5 lg:col-span-2">
          <TextField {...field("deposit")} label="Initial deposit" prefix="$" inputMode="decimal" autoComplete="off" maxLength={20} />
          <TextField {...field("monthly")} label="Monthly deposit" prefix="$" inputMode="decimal" autoComplete="off" maxLength={20} />
          <TextField {...field("apy")} label="Dividend rate (APY)" suffix="%" inputMode="decimal" autoComplete="off" maxLength={10} />
          <TextField {...field("years")} label="Years of saving" suffix="years" inputMode="numeric" autoComplete="off" maxLength={4} />
          {Object.entries(carry).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} readOnly />
          ))}
          <Button type="submit" variant="secondary" className="w-full">
            Calculate
          </Button>
        </Form>

        <div className="lg:col-span-3">
          {growth ? (
            <div className={`flex h-full flex-col rounded-xl bg-accent-800 p-5 text-white sm:p-6`}>
              {stale ? <StaleNote /> : null}
              <p className="text-sm text-accent-50">Balance after {years === 1 ? "1 year" : `${years} years`}</p>
              <p className="tabular mt-1 text-4xl font-semibold tracking-tight sm:text-5xl" aria-live="polite" aria-atomic="true">
                {formatCents(growth.final_balance_cents)}
              </p>
              <p className="mt-2 text-sm text-accent-50">Dividends compounded monthly; deposits made at the end of each month.</p>
              <div className="mt-6">
                <ShareBar
                  label="What makes up your balance"
                  first={{ label: "Deposits", cents: growth.total_deposits_cents, className: "bg-white" }}
                  second={{ label: "Dividends", cents: growth.total_dividends_cents, className: "bg-accent-500" }}
                />
              </div>
              <div className="mt-auto pt-6">
                <StatGrid columns={2}>
                  <Stat label="Total deposits" value={formatCents(growth.total_deposits_cents)} />
                  <Stat label="Total dividends" value={formatCents(growth.total_dividends_cents)} />
                </StatGrid>
              </div>
            </div>
          ) : (
            <div className="flex h-full min-h-48 items-center justify-center rounded-xl border border-dashed border-slate-300 bg-slate-50 p-6 text-center text-slate-700">
              <p>Correct the highlighted fields to see your results.</p>
            </div>
          )}
        </div>
      </div>

      {growth ? (
        <div className="space-y-6 border-t border-slate-100 p-4 sm:p-8">
          <ChartFrame
            caption="Your balance at the end of each year: what you deposited and the dividends it earned. The table below lists the same figures."
            legend={[
              { label: "Deposits", swatchClass: "bg-brand-700" },
              { label: "Dividends", swatchClass: "bg-accent-600" },
            ]}
          >
            <SavingsChart growth={growth} />
          </ChartFrame>
          <div>
            <h3 className="text-lg font-semibold text-brand-800">Growth by year</h3>
            <div className="mt-3">
              <ScrollTable label="Growth by year" maxHeightClass={growth.years.length > 15 ? "max-h-[28rem]" : undefined}>
                <table className={tableClass}>
                  <caption className="sr-only">Deposits and dividends each year, and the balance at the end of the year</caption>
                  <thead>
                    <tr>
                      <th scope="col" className={thClass}>Year</th>
                      <th scope="col" className={thClass}>Deposits</th>
                      <th scope="col" className={thClass}>Dividends</th>
                      <th scope="col" className={thClass}>Balance</th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-slate-100">
                    {growth.years.map((y) => (
                      <tr key={y.year}>
                        <th scope="row" className={`${tdClass} font-medium`}>{y.year}</th>
                        <td className={tdClass}>{formatCents(y.deposits_cents)}</td>
                        <td className={tdClass}>{formatCents(y.dividends_cents)}</td>
                        <td className={tdClass}>{formatCents(y.balance_cents)}</td>
                      </tr>
                    ))}
                  </tbody>
                  <tfoot className="border-t-2 border-slate-200 bg-slate-50 font-semibold">
                    <tr>
                      <th scope="row" className={tdClass}>Total</th>
                      <td className={tdClass}>{formatCents(growth.total_deposits_cents)}</td>
                      <td className={tdClass}>{formatCents(growth.total_dividends_cents)}</td>
                      <td className={tdClass}>{formatCents(growth.final_balance_cents)}</td>
                    </tr>
                  </tfoot>
                </table>
              </ScrollTable>
            </div>
          </div>
          <p className="text-sm text-slate-600">
            Each month&rsquo;s dividend is the balance times the monthly rate that gives the APY over a year, rounded to the cent. Rates can change; this assumes
            the APY stays the same.
          </p>
        </div>
      ) : null}
    </section>
  );
}
