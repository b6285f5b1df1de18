import { Link } from "react-router";
import type { Route } from "./+types/calculators";
import type { z } from "zod";
import { LOAN_FORM_DEFAULTS, LoanFormSchema, SAVINGS_FORM_DEFAULTS, SavingsFormSchema } from "~/domain/loan-math";
import { checkValues } from "~/components/ui/form-check";
import { LoanCalculator } from "~/components/calculators/loan-calculator";
import { SavingsCalculator } from "~/components/calculators/savings-calculator";
import { PageHero } from "~/components/site/page-hero";
import { pageTitle } from "~/components/site/page-title";

const DESCRIPTION = "Estimate a loan's monthly payment and total interest, with a full amortization schedule, or see how your savings can grow.";

export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Loan and Savings Calculators", matches), { name: "description", content: DESCRIPTION }];
}

/** Longest text taken from a query parameter: enough for any valid input, short enough to echo safely. */
const PARAM_MAX_CHARS = 32;

/**
 * The calculators' state lives in the query string (`?amount=&apr=&term=` and
 * `?deposit=&monthly=&apy=&years=`), so they work as plain GET forms without JavaScript and a
 * result can be bookmarked. Missing parameters take the defaults; present ones are validated.
 */
function readForm<K extends string, S extends z.ZodType>(params: URLSearchParams, defaults: Record<K, string>, schema: S) {
  const values = { ...defaults };
  for (const key of Object.keys(defaults) as K[]) {
    const raw = params.get(key);
    if (raw !== null) values[key] = raw.slice(0, PARAM_MAX_CHARS);
  }
  // The figures too: the page computes its first results from them, before the browser has the schema.
  const checked = checkValues(schema, values);
  return { values, errors: checked.messages, input: checked.value };
}

export function loader({ request }: Route.LoaderArgs) {
  const params = new URL(request.url).searchParams;
  return {
    loan: readForm(params, LOAN_FORM_DEFAULTS, LoanFormSchema),
    savings: readForm(params, SAVINGS_FORM_DEFAULTS, SavingsFormSchema),
  };
}

export default function CalculatorsRoute({ loaderData }: Route.ComponentProps) {
  const { loan, savings } = loaderData;
  return (
    <>
      <PageHero title="Calculators" lead="Plan with real numbers: estimate a loan payment or watch your savings grow, then talk to us about the details.">
        <nav aria-label="Calculators on this page" className="mt-8">
          <ul className="flex flex-wrap gap-3">
            <li>
              <a href="#loan" className="inline-flex rounded-lg bg-white px-4 py-2.5 text-sm font-semibold text-brand-800 shadow-sm hover:bg-brand-50">
                Loan payment
              </a>
            </li>
            <li>
              <a href="#savings" className="inline-flex rounded-lg bg-white/10 px-4 py-2.5 text-sm font-semibold text-white ring-1 ring-white/40 hover:bg-white/20">
                Savings growth
              </a>
            </li>
          </ul>
        </nav>
      </PageHero>
      <div className="mx-auto max-w-7xl space-y-10 px-4 py-12 sm:px-6 lg:px-8 lg:py-16">
        <LoanCalculator key={JSON.stringify(loan.values)} values={loan.values} errors={loan.errors} input={loan.input} carry={savings.values} />
        <SavingsCalculator key={JSON.stringify(savings.values)} values={savings.values} errors={savings.errors} input={savings.input} carry={loan.values} />
        <aside className="rounded-2xl border border-slate-200 bg-white p-6 text-sm text-slate-700 shadow-sm sm:p-8">
          <h2 className="text-base font-semibold text-slate-900">These are estimates</h2>
          <p className="mt-2">
            Results are for illustration only and are not an offer of credit or a guarantee of dividends. Your actual rate, payment and earnings depend on
            your application, the account and market conditions. Taxes, insurance and fees are not included.
          </p>
          <p className="mt-3">
            Ready to talk numbers?{" "}
            <Link to="/contact?subject=loan" className="font-semibold text-accent-700 underline underline-offset-2">
              Ask a loan officer
            </Link>{" "}
            or{" "}
            <Link to="/products" className="font-semibold text-accent-700 underline underline-offset-2">
              compare our rates
            </Link>
            .
          </p>
        </aside>
      </div>
    </>
  );
}
