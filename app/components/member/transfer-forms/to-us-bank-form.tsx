import { useState } from "react";
import { Select, TextField } from "~/components/ui";
import { useHydrated } from "~/components/ui/use-hydrated";
import { ScheduledNotice, WhenFields, useWhen } from "../when-fields";
import { NEW_US_PAYEE, usBankFormSchema, type UsAccountType } from "~/domain/transfers";
import {
  CodeStep,
  PausedNotice,
  RefusalMessage,
  Success,
  codeStepOf,
  AmountField,
  SubmitRow,
  keyOf,
  useSubmitting,
  useTransferForm,
  valuesOf,
  type TransferData,
  type TransferResult,
  FromAccountSelect,
  TransferSchemaForm,
} from "./shared";

const US_ACCOUNT_TYPE_OPTIONS = [
  { value: "checking", label: "Checking" },
  { value: "savings", label: "Savings" },
] satisfies { value: UsAccountType; label: string }[];

export function ToUsBankForm({ data, result }: { data: TransferData; result?: TransferResult }) {
  const submitting = useSubmitting("ach");
  const mine = result?.tab === "ach" ? result : undefined;
  const values = valuesOf(mine, "ach");
  const done = mine?.status === "done" ? mine : undefined;
  const refused = mine?.status === "refused" ? mine : undefined;
  const later = mine?.status === "scheduled" ? mine : undefined;
  const { form, refusal } = useTransferForm(usBankFormSchema, "ach", mine);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const code = codeStepOf(mine);
  const [when, setWhen] = useWhen(values, mine);
  const [bank, setBank] = useState(values.bank ?? "");
  const linked = data.linked_payees;
  // A member with verified linked accounts starts with the first; "new" types an account in.
  const [payee, setPayee] = useState(values.payee ?? (linked[0] ? String(linked[0].id) : NEW_US_PAYEE));
  // Before the page's script runs (or without it) every field shows: a typed account is sent only with "new".
  const hydrated = useHydrated();
  const typing = !hydrated || linked.length === 0 || payee === NEW_US_PAYEE;
  const payeeOptions = [
    ...linked.map((a) => ({
      value: String(a.id),
      label: `${a.nickname}, ${a.bank_name ?? `routing ${a.routing_number}`} ${a.masked}`,
    })),
    { value: NEW_US_PAYEE, label: "Another account: enter its details" },
  ];
  const bankOptions = [
    ...data.us_banks.map((b) => ({ value: b.routing_number, label: `${b.name} (${b.routing_number})` })),
    { value: "other", label: "Other bank: enter a routing number" },
  ];
  return (
    <div className="space-y-4">
      {done && dismissed !== done.reference_number ? (
        <Success
          result={done}
          note="The money is held now and goes out with the next ACH file (usually the next business day)."
          autoCloseMs={3000}
          onClose={() => setDismissed(done.reference_number)}
        />
      ) : null}
      {later ? <ScheduledNotice amount_cents={later.amount_cents} message={later.message} /> : null}
      {refusal ? <RefusalMessage result={refusal} support={data.support} /> : null}
      {data.outgoing_paused && !refused ? <PausedNotice data={data} /> : null}
      {code.at ? (
        <CodeStep
          tab="ach"
          values={values}
          summary={code.summary}
          passkey={code.passkey}
          intent="ach-send"
          submitting={submitting}
          reply={refused?.reply}
        />
      ) : (
        <TransferSchemaForm
          tab="ach"
          formKey={done?.reference_number ?? later?.next_key ?? "ach"}
          form={form}
          intent="ach-review"
          idempotencyKey={keyOf(mine, "ach", data.keys.ach)}
        >
          <FromAccountSelect data={data} values={values} />
          {linked.length > 0 ? (
            <Select
              name="payee"
              label="To"
              options={payeeOptions}
              defaultValue={payee}
              onChange={setPayee}
              description="Your verified linked accounts, or another account"
              isRequired
              className="sm:col-span-2"
            />
          ) : null}
          {typing ? (
            <>
              <Select
                name="bank"
                label="Bank"
                options={bankOptions}
                placeholder="Choose a bank"
                defaultValue={values.bank ?? ""}
                onChange={setBank}
                isRequired
              />
              <TextField
                name="routing_number"
                label="Routing number"
                inputMode="numeric"
                defaultValue={values.routing_number}
                description={
                  bank === "other" ? "9 digits, on the bottom left of a check" : "Only if you chose “Other bank”"
                }
                isDisabled={bank !== "" && bank !== "other"}
                optional={bank !== "other"}
              />
              <TextField
                name="account_number"
                label="Account number"
                inputMode="numeric"
                defaultValue={values.account_number}
                isRequired
                description="8 to 17 digits"
              />
              <Select
                name="account_type"
                label="Account type"
                options={US_ACCOUNT_TYPE_OPTIONS}
                defaultValue={values.account_type ?? "checking"}
                description="Ask the account holder if you are not sure"
                isRequired
              />
              <TextField
                name="account_name"
                label="Name on the account"
                defaultValue={values.account_name}
                isRequired
                className="sm:col-span-2"
              />
            </>
          ) : null}
          <AmountField defaultValue={values.amount} />
          <TextField name="reference" label="Reference" defaultValue={values.reference} isRequired />
          <WhenFields values={values} when={when} onWhen={setWhen} />
          <SubmitRow
            submitting={submitting}
            label="Continue"
            pendingLabel="Checking…"
            disabled={data.outgoing_paused}
          />
        </TransferSchemaForm>
      )}
    </div>
  );
}
