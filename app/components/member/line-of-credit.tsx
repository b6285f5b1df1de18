import { Form, useNavigation } from "react-router";
import { LineOfCreditApplicationSchema } from "~/domain/loans/forms";
import { lineDisclosureRows, minimumPaymentText, type LineOfCreditDisclosure } from "~/domain/loans/line-of-credit";
import { formatRatePpm, type LoanProductTerms } from "~/domain/loans/products";
import { formatCents } from "~/domain/money";
import { Button, TextField } from "~/components/ui";
import { ApplicationForm } from "./loan-application-form";
import type { FormReply } from "~/components/ui";

/**
 * The line of credit's parts of the loan pages (docs/product.md#lines-of-credit): the application
 * form (a credit limit in place of an amount and term) and the account-opening disclosure
 * (Regulation Z 1026.6(b)) with Accept, in place of the Truth in Lending box.
 */
export function LineApplyForm({
  product,
  idempotency_key,
  reply,
}: {
  product: LoanProductTerms;
  idempotency_key: string;
  reply: FormReply | null;
}) {
  return (
    <ApplicationForm
      schema={LineOfCreditApplicationSchema}
      form_id={`line-${idempotency_key}`}
      product={product}
      idempotency_key={idempotency_key}
      reply={reply}
      purpose_label="What will you use the line for?"
      terms={
        <p className="mt-2 text-sm text-slate-700">
          Credit limits from {formatCents(product.amount_min_cents)} to {formatCents(product.amount_max_cents)}, rates
          from {formatRatePpm(product.rate_min_ppm)} to {formatRatePpm(product.rate_max_ppm)}. Draw what you need when
          you need it and pay interest only on what you draw. Minimum payment:{" "}
          {product.minimum_payment ? minimumPaymentText(product.minimum_payment).toLowerCase() : null} If we approve,
          you see every term before you accept.
        </p>
      }
    >
      <TextField
        name="credit_limit"
        label="Credit limit you want ($)"
        inputMode="decimal"
        prefix="$"
        description={`${formatCents(product.amount_min_cents)} to ${formatCents(product.amount_max_cents)}`}
        isRequired
      />
    </ApplicationForm>
  );
}

/** The account-opening disclosure as a list of terms (the same rows as its PDF and email). */
export function LineDisclosure({ disclosure }: { disclosure: LineOfCreditDisclosure }) {
  return (
    <dl className="mt-2 divide-y divide-slate-200 rounded-xl border border-slate-300 text-sm">
      {lineDisclosureRows(disclosure).map(([label, value]) => (
        <div key={label} className="grid gap-1 px-3 py-2 sm:grid-cols-3 sm:gap-3">
          <dt className="font-semibold text-slate-900">{label}</dt>
          <dd className="text-slate-800 sm:col-span-2">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** An accept button for a line's open offer. */
export function AcceptLineForm() {
  const navigation = useNavigation();
  return (
    <Form method="post" className="mt-4 flex justify-end">
      <input type="hidden" name="intent" value="accept" />
      <Button type="submit" size="lg" isPending={navigation.state === "submitting"} pendingLabel="Opening…">
        Accept and open this line
      </Button>
    </Form>
  );
}
