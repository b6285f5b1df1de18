import { useState } from "react";
import { Form, Link } from "react-router";
import { Button, FormMessage, TextField } from "~/components/ui";
import { formatCents } from "~/domain/money";
import { internationalSchema } from "~/domain/transfers";
import { currencyInputStep, findCurrency } from "~/domain/currencies";
import { foreignText, rateText } from "~/domain/remittance";
import { CountryPicker, CurrencyPicker } from "../pickers";
import { formatDate } from "../amount";
import {
  CodeStep,
  Hidden,
  PausedNotice,
  RefusalMessage,
  Success,
  codeStepOf,
  AmountField,
  SubmitRow,
  actionFor,
  keyOf,
  useSubmitting,
  useTransferForm,
  valuesOf,
  type TransferData,
  type TransferResult,
  type WireQuoteView,
  FromAccountSelect,
  TransferSchemaForm,
} from "./shared";

/**
 * The pre-payment disclosure of a remittance transfer (12 CFR 1005.31(b)(1),
 * docs/product.md#remittance-transfers): the figures from the server's one pure function
 * (app/domain/remittance.ts), in the order the rule lists them, with the date of availability.
 */
function WireDisclosure({ quote, recipient }: { quote: WireQuoteView; recipient: string }) {
  const d = quote.disclosure;
  const rows: Array<[string, string, boolean?]> = [
    ["Recipient", recipient],
    ["Transfer amount", formatCents(d.transfer_amount_cents)],
    ["Transfer fees", formatCents(d.fee_cents)],
    ["Transfer taxes", formatCents(d.taxes_cents)],
    ["Total", formatCents(d.total_cents), true],
    ["Exchange rate used", rateText(d)],
    [`Transfer amount in ${d.currency}`, foreignText(d.sent_minor, d.currency)],
    ...(d.third_party_fee_minor > 0
      ? ([["Other fees (taken by the recipient's bank)", foreignText(d.third_party_fee_minor, d.currency)]] as Array<
          [string, string]
        >)
      : []),
    ["Total to recipient", foreignText(d.received_minor, d.currency), true],
    ["Date available", formatDate(d.available_on)],
  ];
  return (
    <>
      <dl
        className="divide-y divide-slate-100 rounded-2xl border border-slate-200 bg-white text-sm"
        data-testid="wire-disclosure"
      >
        {rows.map(([term, detail, total]) => (
          <div key={term} className={`flex justify-between gap-4 px-4 py-3 ${total ? "bg-slate-50" : ""}`}>
            <dt className={total ? "font-semibold text-slate-900" : "text-slate-600"}>{term}</dt>
            <dd className={`text-right tabular-nums text-slate-900 ${total ? "text-base font-bold" : "font-medium"}`}>
              {detail}
            </dd>
          </div>
        ))}
      </dl>
      <p className="text-xs text-slate-600">
        The recipient may receive less due to fees charged by the recipient&apos;s bank and foreign taxes.
        {quote.remittance_exempt
          ? " You can cancel until we send the transfer."
          : " After you pay you can cancel within 30 minutes for a full refund, from the receipt."}
      </p>
    </>
  );
}

export function InternationalForm({ data, result }: { data: TransferData; result?: TransferResult }) {
  const submitting = useSubmitting("wire");
  const mine = result?.tab === "wire" ? result : undefined;
  const values = valuesOf(mine, "wire");
  const done = mine?.status === "done" ? mine : undefined;
  const refused = mine?.status === "refused" ? mine : undefined;
  const { form, refusal } = useTransferForm(internationalSchema, "wire", mine);
  const step = mine?.status === "confirm" || mine?.status === "notice" ? mine.status : undefined;
  const code = codeStepOf(mine);
  const quote = mine?.status === "confirm" || mine?.status === "notice" ? mine.quote : undefined;
  const [currency, setCurrency] = useState(values.currency ?? "USD");
  const rated = data.rates.map((r) => r.code);
  const minorStep = findCurrency(currency) ? currencyInputStep(currency) : "0.01";
  return (
    <div className="space-y-4">
      {done ? (
        <Success
          result={done}
          note="The money (with the wire fee) is held now; the wire goes out from our back office. International transfers cannot be reversed once sent."
        />
      ) : null}
      {refusal ? <RefusalMessage result={refusal} support={data.support} /> : null}
      {data.outgoing_paused && !refused ? <PausedNotice data={data} /> : null}
      {code.at ? (
        <CodeStep
          tab="wire"
          values={values}
          summary={code.summary}
          passkey={code.passkey}
          intent="wire-send"
          submitting={submitting}
          reply={refused?.reply}
        />
      ) : step && quote ? (
        <Form method="post" action={actionFor("wire")} preventScrollReset className="space-y-4" noValidate>
          <Hidden values={values} />
          {step === "confirm" ? (
            <>
              <h3 className="text-base font-semibold text-brand-900">Before you pay: what it costs</h3>
              <WireDisclosure
                quote={quote}
                recipient={`${values.recipient_name}, ${values.bank_name} (${quote.country_name})`}
              />
              <div className="flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
                <Link
                  to="/dashboard?transfer=wire#transfer"
                  preventScrollReset
                  className="inline-flex items-center justify-center rounded-lg px-4 py-3 text-sm font-semibold text-brand-800 hover:bg-slate-100"
                >
                  Cancel
                </Link>
                <Button
                  type="submit"
                  name="intent"
                  value="wire-confirm"
                  size="lg"
                  isPending={submitting}
                  pendingLabel="Checking…"
                >
                  Continue
                </Button>
              </div>
            </>
          ) : (
            <>
              <FormMessage tone="warning" title="Before you send" announce={false}>
                International transfers may carry extra fees and processing time and cannot be reversed once sent.
              </FormMessage>
              <p className="text-sm text-slate-700">
                {formatCents(quote.total_cents)} will be held from your account now, for {quote.amount_text} to{" "}
                {values.recipient_name}.
              </p>
              <div className="flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
                <Link
                  to="/dashboard?transfer=wire#transfer"
                  preventScrollReset
                  className="inline-flex items-center justify-center rounded-lg px-4 py-3 text-sm font-semibold text-brand-800 hover:bg-slate-100"
                >
                  Cancel
                </Link>
                <Button
                  type="submit"
                  name="intent"
                  value="wire-code"
                  size="lg"
                  isPending={submitting}
                  pendingLabel="Checking…"
                >
                  Send transfer
                </Button>
              </div>
            </>
          )}
        </Form>
      ) : (
        <TransferSchemaForm
          tab="wire"
          formKey={done?.reference_number ?? "wire"}
          form={form}
          intent="wire-review"
          idempotencyKey={keyOf(mine, "wire", data.keys.wire)}
        >
          <FromAccountSelect data={data} values={values} />
          <TextField name="recipient_name" label="Recipient's name" defaultValue={values.recipient_name} isRequired />
          <TextField name="bank_name" label="Bank name" defaultValue={values.bank_name} isRequired />
          <TextField
            name="bic"
            label="SWIFT/BIC"
            defaultValue={values.bic}
            isRequired
            description="8 or 11 characters"
            inputClassName="uppercase"
          />
          <TextField
            name="account_number"
            label="Account number"
            defaultValue={values.account_number}
            isRequired
            description="8 to 34 characters"
          />
          <TextField
            name="iban"
            label="IBAN"
            optional
            defaultValue={values.iban}
            inputClassName="uppercase"
            className="sm:col-span-2"
          />
          <CountryPicker name="country" label="Country" defaultValue={values.country} />
          <CurrencyPicker
            name="currency"
            label="Currency"
            defaultValue={values.currency ?? "USD"}
            rated={rated}
            onChange={setCurrency}
            description="Only currencies with a current rate can be chosen"
          />
          <AmountField
            defaultValue={values.amount}
            label={`Amount (${currency})`}
            prefix=""
            step={minorStep}
            min={minorStep}
            description={`Wire fee ${formatCents(data.wire_fee_cents)}`}
          />
          <TextField name="reference" label="Reference" defaultValue={values.reference} isRequired />
          <SubmitRow
            submitting={submitting}
            label="Review transfer"
            pendingLabel="Checking…"
            disabled={data.outgoing_paused}
          />
        </TransferSchemaForm>
      )}
    </div>
  );
}
