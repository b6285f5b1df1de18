import { Select, TextField } from "~/components/ui";
import { betweenAccountsSchema } from "~/domain/transfers";
import { ScheduledNotice, WhenFields, useWhen } from "../when-fields";
import {
  RefusalMessage,
  Success,
  AmountField,
  SubmitRow,
  accountOptions,
  keyOf,
  useSubmitting,
  useTransferForm,
  valuesOf,
  type TransferData,
  type TransferResult,
  FromAccountSelect,
  TransferSchemaForm,
} from "./shared";

export function BetweenAccountsForm({ data, result }: { data: TransferData; result?: TransferResult }) {
  const submitting = useSubmitting("internal");
  const mine = result?.tab === "internal" ? result : undefined;
  const values = valuesOf(mine, "internal");
  const done = mine?.status === "done" ? mine : undefined;
  const later = mine?.status === "scheduled" ? mine : undefined;
  const { form, refusal } = useTransferForm(betweenAccountsSchema, "internal", mine);
  const [when, setWhen] = useWhen(values, mine);
  const options = accountOptions(data.accounts);
  return (
    <div className="space-y-4">
      {done ? <Success result={done} note="The money is in the other account now." /> : null}
      {later ? <ScheduledNotice amount_cents={later.amount_cents} message={later.message} /> : null}
      {refusal ? <RefusalMessage result={refusal} support={data.support} /> : null}
      <TransferSchemaForm
        tab="internal"
        formKey={done?.reference_number ?? later?.next_key ?? "internal"}
        form={form}
        intent="internal"
        idempotencyKey={keyOf(mine, "internal", data.keys.internal)}
      >
        <FromAccountSelect data={data} values={values} wide={false} />
        <Select
          name="to_account_id"
          label="To"
          options={options}
          placeholder="Choose an account"
          defaultValue={values.to_account_id ?? String(data.accounts[1]?.id ?? "")}
          isRequired
        />
        <AmountField defaultValue={values.amount} />
        <TextField
          name="reference"
          label="Reference"
          defaultValue={values.reference}
          isRequired
          placeholder="e.g. Savings goal"
        />
        <WhenFields values={values} when={when} onWhen={setWhen} />
        <SubmitRow
          submitting={submitting}
          label={when === "now" ? "Transfer now" : "Schedule transfer"}
          pendingLabel={when === "now" ? "Sending…" : "Scheduling…"}
        />
      </TransferSchemaForm>
    </div>
  );
}
