import { lazy, useMemo } from "react";
import { PiggyBank } from "lucide-react";
import { growSavings, type SavingsInput } from "~/domain/calculator-math";
import type { SavingsFormValues } from "~/domain/loan-math";
import { formatCents } from "~/domain/money";
import { TextField, type FieldMessages } from "~/components/ui";
import { ChartFrame } from "./chart-frame";
import { CalculatorCard, CalculatorForm, FiguresTable, ShareBar, StaleNote, Stat, StatGrid } from "./parts";
import { useCalculatorForm } from "./use-calculator-form";

const SavingsChart = lazy(() => import("./savings-chart"));
/** The fields' schema, loaded once the page is up (the page computes the server's entry without it). */
const loadSavingsFormSchema = () => import("~/domain/loan-math").then((module) => module.SavingsFormSchema);

/** Savings growth calculator: initial and monthly deposits, APY and years in; balance by year out. */
export function SavingsCalculator({
  values,
  errors,
  input: serverInput,
  carry,
}: {
  values: SavingsFormValues;
  errors: FieldMessages;
  input: SavingsInput | null;
  carry: Record<string, string>;
}) {
  const { formRef, field, onSubmit, input, stale } = useCalculatorForm(loadSavingsFormSchema, {
    values,
    errors,
    input: serverInput,
  });
  const growth = useMemo(() => (input ? growSavings(input) : null), [input]);
  const years = input?.years ?? 0;

  return (
    <CalculatorCard
      id="savings"
      title="Savings growth calculator"
      intro="See how regular deposits and dividends add up over time."
      icon={
        <span className="flex size-11 shrink-0 items-center justify-center rounded-xl bg-accent-50 text-accent-700">
          <PiggyBank className="size-5" aria-hidden="true" />
        </span>
      }
      form={
        <CalculatorForm id="savings" formRef={formRef} onSubmit={onSubmit} carry={carry}>
          <TextField
            {...field("deposit")}
            label="Initial deposit"
            prefix="$"
            inputMode="decimal"
            autoComplete="off"
            maxLength={20}
          />
          <TextField
            {...field("monthly")}
            label="Monthly deposit"
            prefix="$"
            inputMode="decimal"
            autoComplete="off"
            maxLength={20}
          />
          <TextField
            {...field("apy")}
            label="Dividend rate (APY)"
            suffix="%"
            inputMode="decimal"
            autoComplete="off"
            maxLength={10}
          />
          <TextField
            {...field("years")}
            label="Years of saving"
            suffix="years"
            inputMode="numeric"
            autoComplete="off"
            maxLength={4}
          />
        </CalculatorForm>
      }
      result={
        growth ? (
          <div className="flex h-full flex-col rounded-xl bg-accent-800 p-5 text-white sm:p-6">
            {stale ? <StaleNote /> : null}
            <p className="text-sm text-accent-50">Balance after {years === 1 ? "1 year" : `${years} years`}</p>
            <p
              className="tabular mt-1 text-4xl font-semibold tracking-tight sm:text-5xl"
              aria-live="polite"
              aria-atomic="true"
            >
              {formatCents(growth.final_balance_cents)}
            </p>
            <p className="mt-2 text-sm text-accent-50">
              Dividends compounded monthly; deposits made at the end of each month.
            </p>
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
        ) : null
      }
      details={
        growth ? (
          <>
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
                <FiguresTable
                  label="Growth by year"
                  caption="Deposits and dividends each year, and the balance at the end of the year"
                  columns={["Year", "Deposits", "Dividends", "Balance"]}
                  rows={growth.years.map((y) => ({
                    key: y.year,
                    cells: [y.year, y.deposits_cents, y.dividends_cents, y.balance_cents],
                  }))}
                  total={[growth.total_deposits_cents, growth.total_dividends_cents, growth.final_balance_cents]}
                  maxHeightClass={growth.years.length > 15 ? "max-h-[28rem]" : undefined}
                />
              </div>
            </div>
            <p className="text-sm text-slate-600">
              Each month&rsquo;s dividend is the balance times the monthly rate that gives the APY over a year, rounded
              to the cent. Rates can change; this assumes the APY stays the same.
            </p>
          </>
        ) : null
      }
    />
  );
}
