import type { ComponentProps } from "react";
import { Button, FormMessage, RadioGroup, SchemaForm, Select, TextField } from "~/components/ui";

/**
 * The member's payment and autopay forms, one each for a closed-end loan (routes/member/loan.tsx)
 * and a line of credit (routes/member/line-of-credit.tsx), docs/product.md#loan-servicing and
 * #lines-of-credit. The pages keep what is their own: the amount options (the next payment due or
 * the payoff; the minimum due or the whole balance) and the words of the autopay sentence.
 */

type SchemaFormOf = ComponentProps<typeof SchemaForm>["form"];
type AccountOption = { value: string; label: string };
type PayOption = ComponentProps<typeof RadioGroup>["options"][number];

export function PaymentSection({
  form,
  idempotency_key,
  accounts,
  options,
  defaultOption,
  problem,
  isDisabled,
  className,
}: {
  form: SchemaFormOf;
  idempotency_key: string;
  accounts: AccountOption[];
  options: PayOption[];
  defaultOption: string;
  problem: string | undefined;
  isDisabled: boolean;
  className: string;
}) {
  return (
    <section aria-labelledby="pay-heading" className={className}>
      <h2 id="pay-heading" className="text-lg font-semibold text-brand-900">
        Make a payment
      </h2>
      <p className="mt-1 text-sm text-slate-700">A payment goes to fees first, then interest, then principal.</p>
      {problem ? (
        <FormMessage className="mt-3" tone="error">
          {problem}
        </FormMessage>
      ) : null}
      <SchemaForm form={form} method="post" className="mt-4 grid gap-4" aria-labelledby="pay-heading">
        <input type="hidden" name="intent" value="pay" />
        <input type="hidden" name="idempotency_key" value={idempotency_key} />
        <Select name="from" label="Pay from" options={accounts} placeholder="Choose an account" isRequired />
        <RadioGroup name="pay" label="Amount" options={options} defaultValue={defaultOption} orientation="vertical" />
        <TextField name="amount" label="Other amount ($)" inputMode="decimal" prefix="$" />
        <Button type="submit" isDisabled={isDisabled}>
          Pay
        </Button>
      </SchemaForm>
    </section>
  );
}

/**
 * Autopay on from one of the member's accounts, or off. `what` names what autopay takes on each due
 * date ("payment", "minimum payment"); `inline` lays the account and the button on one row.
 */
export function AutopaySection({
  form,
  accounts,
  autopay_account_id,
  what,
  problem,
  isDisabled,
  inline,
  className,
}: {
  form: SchemaFormOf;
  accounts: AccountOption[];
  autopay_account_id: number | null;
  what: string;
  problem: string | undefined;
  isDisabled: boolean;
  inline: boolean;
  className: string;
}) {
  const autopayAccount = accounts.find((a) => a.value === String(autopay_account_id));
  return (
    <section aria-labelledby="autopay-heading" className={className}>
      <h2 id="autopay-heading" className="text-lg font-semibold text-brand-900">
        Autopay
      </h2>
      <p className="mt-1 text-sm text-slate-700">
        {autopayAccount
          ? `On: each ${what} is taken on its due date from ${autopayAccount.label.split(" · ")[0]}.`
          : `Off. Turn it on and each ${what} is taken on its due date.`}
      </p>
      {problem ? (
        <FormMessage className="mt-3" tone="error">
          {problem}
        </FormMessage>
      ) : null}
      <SchemaForm
        form={form}
        method="post"
        className={inline ? "mt-3 flex flex-wrap items-end gap-3" : "mt-3 grid gap-3"}
        aria-labelledby="autopay-heading"
      >
        <input type="hidden" name="intent" value="autopay" />
        <Select
          name="autopay_from"
          label="Take payments from"
          options={[{ value: "off", label: "Off" }, ...accounts]}
          defaultValue={autopayAccount ? autopayAccount.value : "off"}
          className={inline ? "min-w-64 flex-1" : undefined}
        />
        <Button type="submit" variant="secondary" isDisabled={isDisabled}>
          Save autopay
        </Button>
      </SchemaForm>
    </section>
  );
}
