import { lazy, useMemo } from "react";
import { ChevronRight, Landmark } from "lucide-react";
import { amortize, type LoanInput } from "~/domain/calculator-math";
import type { LoanFormValues } from "~/domain/loan-math";
import { formatCents } from "~/domain/money";
import { TextField, type FieldMessages } from "~/components/ui";
import { ChartFrame } from "./chart-frame";
import { formatMonths } from "./format";
import { CalculatorCard, CalculatorForm, FiguresTable, ShareBar, StaleNote, Stat, StatGrid } from "./parts";
import { useCalculatorForm } from "./use-calculator-form";

const LoanChart = lazy(() => import("./loan-chart"));
/** The fields' schema, loaded once the page is up (the page computes the server's entry without it). */
const loadLoanFormSchema = () => import("~/domain/loan-math").then((module) => module.LoanFormSchema);

/**
 * Loan payment calculator: amount, APR and term in; monthly payment, total interest, a chart and
 * the amortization schedule (by year, with every month behind a disclosure) out.
 */
export function LoanCalculator({
  values,
  errors,
  input: serverInput,
  carry,
}: {
  values: LoanFormValues;
  errors: FieldMessages;
  input: LoanInput | null;
  carry: Record<string, string>;
}) {
  const { formRef, field, onSubmit, input, stale } = useCalculatorForm(loadLoanFormSchema, {
    values,
    errors,
    input: serverInput,
  });
  const schedule = useMemo(() => (input ? amortize(input) : null), [input]);

  return (
    <CalculatorCard
      id="loan"
      title="Loan payment calculator"
      intro="See what a loan would cost each month and over its life."
      icon={
        <span className="flex size-11 shrink-0 items-center justify-center rounded-xl bg-brand-50 text-brand-700">
          <Landmark className="size-5" aria-hidden="true" />
        </span>
      }
      form={
        <CalculatorForm id="loan" formRef={formRef} onSubmit={onSubmit} carry={carry}>
          <TextField
            {...field("amount")}
            label="Loan amount"
            prefix="$"
            inputMode="decimal"
            autoComplete="off"
            maxLength={20}
          />
          <TextField
            {...field("apr")}
            label="Interest rate (APR)"
            suffix="%"
            inputMode="decimal"
            autoComplete="off"
            maxLength={10}
          />
          <TextField
            {...field("term")}
            label="Term in months"
            description="For example, 60 months is 5 years."
            suffix="months"
            inputMode="numeric"
            autoComplete="off"
            maxLength={4}
          />
        </CalculatorForm>
      }
      result={
        schedule && input ? (
          <div className="flex h-full flex-col rounded-xl bg-brand-800 p-5 text-white sm:p-6">
            {stale ? <StaleNote /> : null}
            <p className="text-sm text-brand-100">Monthly payment</p>
            <p
              className="tabular mt-1 text-4xl font-semibold tracking-tight sm:text-5xl"
              aria-live="polite"
              aria-atomic="true"
            >
              {formatCents(schedule.monthly_payment_cents)}
              <span className="sr-only"> a month</span>
            </p>
            <p className="mt-2 text-sm text-brand-100">
              {schedule.payments.length} payments over {formatMonths(schedule.payments.length)}
              {schedule.final_payment_cents !== schedule.monthly_payment_cents
                ? `; the last is ${formatCents(schedule.final_payment_cents)}`
                : ""}
              .
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
        ) : null
      }
      details={
        schedule && input ? (
          <>
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
                <FiguresTable
                  label="Amortization by year"
                  caption="Principal and interest paid each year, and the balance at the end of the year"
                  columns={["Year", "Principal", "Interest", "Balance"]}
                  rows={schedule.years.map((y) => ({
                    key: y.year,
                    cells: [y.year, y.principal_cents, y.interest_cents, y.balance_cents],
                  }))}
                  total={[input.principal_cents, schedule.total_interest_cents, 0]}
                />
              </div>
            </div>

            <details className="group rounded-xl border border-slate-200">
              <summary className="flex cursor-pointer list-none items-center gap-2 rounded-xl px-4 py-3 font-semibold text-brand-800 hover:bg-slate-50 [&::-webkit-details-marker]:hidden">
                <ChevronRight
                  className="size-5 transition-transform group-open:rotate-90 motion-reduce:transition-none"
                  aria-hidden="true"
                />
                Every monthly payment ({schedule.payments.length})
              </summary>
              <div className="border-t border-slate-200 p-4">
                <FiguresTable
                  label="Every monthly payment"
                  caption="Each payment split into principal and interest, with the balance after it"
                  columns={["Payment", "Amount", "Principal", "Interest", "Balance"]}
                  rows={schedule.payments.map((p) => ({
                    key: p.month,
                    cells: [p.month, p.payment_cents, p.principal_cents, p.interest_cents, p.balance_cents],
                  }))}
                  maxHeightClass="max-h-[28rem]"
                />
              </div>
            </details>
            <p className="text-sm text-slate-600">
              Interest is charged monthly at the APR divided by 12 and rounded to the cent. The last payment settles the
              remaining balance, so it can differ from the others by a few cents.
            </p>
          </>
        ) : null
      }
    />
  );
}
