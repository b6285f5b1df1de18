import { Form, useNavigation } from "react-router";
import { Button } from "~/components/ui";
import { StatusLine } from "./admin-shell";
import { useInstitutionDates } from "~/components/institution-dates";
import type { PaymentsActionResult } from "./payment-controls";

/**
 * Currency rates for wires (docs/product.md#payment-controls): code, US dollars per unit, who set it
 * and when. A member can choose only a currency listed here for an International transfer.
 */
export function CurrencyRates({
  rates,
  currencies,
  result,
}: {
  rates: { code: string; usd_per_unit: string; updated_by_email: string | null; updated_by: string; updated_at: Date | string }[];
  currencies: { code: string; name: string }[];
  result?: PaymentsActionResult;
}) {
  const { formatDateTime } = useInstitutionDates();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "set_rate";
  const mine = result?.intent === "set_rate" ? result : undefined;
  const names = new Map(currencies.map((c) => [c.code, c.name]));
  const field = "mt-1.5 block w-full rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm focus:border-accent-600 focus:outline-2 focus:outline-accent-600";
  return (
    <section aria-labelledby="rates-title" className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
      <h2 id="rates-title" className="text-lg font-semibold text-brand-800">
        Currency rates for wires
      </h2>
      <p className="mt-1 text-sm text-slate-700">US dollars for one unit of each currency. Members can send International transfers only in the currencies listed here.</p>
      {mine ? (
        <div className="mt-3">
          <StatusLine message={mine.message} tone={mine.tone} />
        </div>
      ) : null}
      <table className="mt-4 w-full text-left text-sm">
        <caption className="sr-only">Currency rates</caption>
        <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-600">
          <tr>
            <th scope="col" className="py-2 pr-3 font-medium">
              Code
            </th>
            <th scope="col" className="py-2 pr-3 text-right font-medium">
              USD per unit
            </th>
            <th scope="col" className="hidden py-2 pr-3 font-medium sm:table-cell">
              Updated by
            </th>
            <th scope="col" className="py-2 font-medium">
              Updated at
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rates.map((r) => (
            <tr key={r.code}>
              <td className="py-2 pr-3">
                <span className="font-mono font-semibold">{r.code}</span> <span className="hidden text-slate-700 sm:inline">{names.get(r.code) ?? ""}</span>
              </td>
              <td className="tabular py-2 pr-3 text-right font-mono">{r.usd_per_unit}</td>
              <td className="hidden py-2 pr-3 break-all sm:table-cell">{r.code === "USD" ? "fixed" : (r.updated_by_email ?? r.updated_by)}</td>
              <td className="py-2 text-slate-700">{r.code === "USD" ? "—" : formatDateTime(r.updated_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Form method="post" preventScrollReset aria-label="Set a currency rate" className="mt-5 grid gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_auto] sm:items-end">
        <input type="hidden" name="intent" value="set_rate" />
        <div>
          <label htmlFor="rate-code" className="block text-sm font-medium text-slate-800">
            Currency
          </label>
          <select id="rate-code" name="code" required defaultValue={mine?.values?.code ?? ""} aria-invalid={mine?.errors?.code ? true : undefined} aria-describedby={mine?.errors?.code ? "rate-code-error" : undefined} className={field}>
            <option value="">Choose…</option>
            {currencies.map((c) => (
              <option key={c.code} value={c.code}>
                {c.code} · {c.name}
              </option>
            ))}
          </select>
          {mine?.errors?.code ? (
            <p id="rate-code-error" className="mt-1 text-sm font-medium text-red-800">
              {mine.errors.code}
            </p>
          ) : null}
        </div>
        <div>
          <label htmlFor="rate-usd" className="block text-sm font-medium text-slate-800">
            USD per unit
          </label>
          <input
            id="rate-usd"
            name="usd_per_unit"
            inputMode="decimal"
            required
            defaultValue={mine?.values?.usd_per_unit ?? ""}
            placeholder="1.08375"
            aria-invalid={mine?.errors?.usd_per_unit ? true : undefined}
            aria-describedby={mine?.errors?.usd_per_unit ? "rate-usd-error" : undefined}
            className={`${field} font-mono`}
          />
          {mine?.errors?.usd_per_unit ? (
            <p id="rate-usd-error" className="mt-1 text-sm font-medium text-red-800">
              {mine.errors.usd_per_unit}
            </p>
          ) : null}
        </div>
        <Button type="submit" isPending={busy} pendingLabel="Saving…">
          Save rate
        </Button>
      </Form>
    </section>
  );
}
