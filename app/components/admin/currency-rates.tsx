import { useNavigation } from "react-router";
import { Button, SchemaForm, Select, TextField, useSchemaForm } from "~/components/ui";
import { RateSchema } from "~/domain/payment-controls";
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
  rates: {
    code: string;
    usd_per_unit: string;
    updated_by_email: string | null;
    updated_by: string;
    updated_at: Date | string;
  }[];
  currencies: { code: string; name: string }[];
  result?: PaymentsActionResult;
}) {
  const { formatDateTime } = useInstitutionDates();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "set_rate";
  const mine = result?.intent === "set_rate" ? result : undefined;
  const names = new Map(currencies.map((c) => [c.code, c.name]));
  const form = useSchemaForm(RateSchema, {
    id: "set-rate",
    lastResult: mine?.tone === "error" ? mine.reply : undefined,
  });
  return (
    <section aria-labelledby="rates-title" className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
      <h2 id="rates-title" className="text-lg font-semibold text-brand-800">
        Currency rates for wires
      </h2>
      <p className="mt-1 text-sm text-slate-700">
        US dollars for one unit of each currency. Members can send International transfers only in the currencies listed
        here.
      </p>
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
                <span className="font-mono font-semibold">{r.code}</span>{" "}
                <span className="hidden text-slate-700 sm:inline">{names.get(r.code) ?? ""}</span>
              </td>
              <td className="tabular py-2 pr-3 text-right font-mono">{r.usd_per_unit}</td>
              <td className="hidden py-2 pr-3 break-all sm:table-cell">
                {r.code === "USD" ? "fixed" : (r.updated_by_email ?? r.updated_by)}
              </td>
              <td className="py-2 text-slate-700">
                {r.code === "USD" ? "—" : formatDateTime(r.updated_at)}
                {/* On a phone the Updated by column is folded in here. */}
                {r.code === "USD" ? null : (
                  <span className="block break-all sm:hidden">by {r.updated_by_email ?? r.updated_by}</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {/* Drawn afresh after a rate is saved, so the next one starts empty. */}
      <SchemaForm
        key={mine?.tone === "success" ? mine.message : "rate"}
        form={form}
        method="post"
        preventScrollReset
        aria-label="Set a currency rate"
        className="mt-5 grid gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_auto] sm:items-end"
      >
        <input type="hidden" name="intent" value="set_rate" />
        <Select
          name="code"
          label="Currency"
          placeholder="Choose…"
          options={currencies.map((c) => ({ value: c.code, label: `${c.code} · ${c.name}` }))}
          isRequired
        />
        <TextField
          name="usd_per_unit"
          label="USD per unit"
          placeholder="1.08375"
          inputMode="decimal"
          inputClassName="font-mono"
          isRequired
        />
        <Button type="submit" isPending={busy} pendingLabel="Saving…">
          Save rate
        </Button>
      </SchemaForm>
    </section>
  );
}
