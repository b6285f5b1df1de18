import type { ReactNode } from "react";
import { useNavigation } from "react-router";
import { LOAN_EMPLOYER_MAX_CHARS, LOAN_PURPOSE_MAX_CHARS, LoanApplicationSchema } from "~/domain/loans/forms";
import { formatRatePpm, withArticle, type LoanProductTerms } from "~/domain/loans/products";
import { formatCents } from "~/domain/money";
import {
  Button,
  FormMessage,
  SchemaForm,
  Select,
  TextArea,
  TextField,
  formMessages,
  useSchemaForm,
  type FormReply,
  type SchemaSource,
  type SelectOption,
} from "~/components/ui";

/**
 * What a loan's and a line of credit's application share (docs/product.md#loans,
 * #lines-of-credit): the heading and the product's terms, the form's message, then what is asked
 * (the amount and term, or a credit limit: `children`), what it is for, the yearly income and
 * employer (kept encrypted), and Send.
 */
export function ApplicationForm({
  schema,
  form_id,
  product,
  idempotency_key,
  reply,
  terms,
  purpose_label,
  children,
}: {
  schema: SchemaSource;
  form_id: string;
  product: LoanProductTerms;
  idempotency_key: string;
  reply: FormReply | null;
  /** The product's terms under the heading. */
  terms: ReactNode;
  purpose_label: string;
  /** The fields of what is asked for, first in the form. */
  children: ReactNode;
}) {
  const navigation = useNavigation();
  const form = useSchemaForm(schema, { id: form_id, lastResult: reply });
  const problems = formMessages(reply);
  return (
    <>
      <h1 id="apply-heading" className="mt-3 text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">
        Apply for {withArticle(product.name)}
      </h1>
      {terms}
      {problems.length > 0 ? (
        <FormMessage className="mt-4" tone="error">
          {problems[0]}
        </FormMessage>
      ) : null}
      <SchemaForm
        form={form}
        method="post"
        className="mt-5 grid gap-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
        aria-labelledby="apply-heading"
      >
        <input type="hidden" name="idempotency_key" value={idempotency_key} />
        {children}
        <TextArea name="purpose" label={purpose_label} rows={3} maxLength={LOAN_PURPOSE_MAX_CHARS} isRequired />
        <div className="grid gap-5 sm:grid-cols-2">
          <TextField
            name="annual_income"
            label="Yearly income before taxes ($)"
            inputMode="decimal"
            prefix="$"
            description="Kept encrypted; read only by the staff who decide."
            isRequired
          />
          <TextField name="employer" label="Employer" maxLength={LOAN_EMPLOYER_MAX_CHARS} isRequired />
        </div>
        <div className="flex justify-end">
          <Button
            type="submit"
            size="lg"
            isPending={navigation.state === "submitting"}
            pendingLabel="Sending…"
            className="w-full sm:w-auto"
          >
            Send application
          </Button>
        </div>
      </SchemaForm>
    </>
  );
}

/**
 * A closed-end loan's application: an amount and a term within the product; for a share-secured
 * loan, the savings to pledge first (`pledgeable`, each with what may be borrowed against it).
 */
export function LoanApplyForm({
  product,
  pledgeable,
  idempotency_key,
  reply,
}: {
  product: LoanProductTerms;
  pledgeable: SelectOption[] | null;
  idempotency_key: string;
  reply: FormReply | null;
}) {
  return (
    <ApplicationForm
      schema={LoanApplicationSchema}
      form_id={`loan-${idempotency_key}`}
      product={product}
      idempotency_key={idempotency_key}
      reply={reply}
      purpose_label="What is the loan for?"
      terms={
        <>
          <p className="mt-2 text-sm text-slate-700">
            {formatCents(product.amount_min_cents)} to {formatCents(product.amount_max_cents)},{" "}
            {product.term_months_min} to {product.term_months_max} months, rates from{" "}
            {formatRatePpm(product.rate_min_ppm)} to {formatRatePpm(product.rate_max_ppm)}. Your rate depends on our
            review. If we approve, you see the full cost before you accept.
          </p>
          {pledgeable ? (
            <p className="mt-2 text-sm text-slate-700">
              You borrow against your own savings: up to {product.pledge_percent}% of what is available in the account
              you pledge. When the loan is paid out, the amount you borrow is held in that account (its balance stays
              and keeps earning dividends); the hold goes down to what you still owe after each payment and ends when
              the loan is paid off.
            </p>
          ) : null}
        </>
      }
    >
      {pledgeable ? (
        pledgeable.length > 0 ? (
          <Select
            name="pledged_account"
            label="Savings to pledge"
            options={pledgeable}
            placeholder="Choose a savings account"
            isRequired
          />
        ) : (
          <FormMessage tone="error">
            A share-secured loan is borrowed against one of your savings accounts, and you have no open savings account.
            Please open one or contact us.
          </FormMessage>
        )
      ) : null}
      <div className="grid gap-5 sm:grid-cols-2">
        <TextField name="amount" label="Amount to borrow ($)" inputMode="decimal" prefix="$" isRequired />
        <TextField
          name="term_months"
          label="Months to repay"
          inputMode="numeric"
          description={`${product.term_months_min} to ${product.term_months_max}`}
          isRequired
        />
      </div>
    </ApplicationForm>
  );
}
