import { useNavigation } from "react-router";
import { Button, FormMessage, SchemaForm, Select, TextField, useSchemaForm } from "~/components/ui";
import { formatCents } from "~/domain/money";
import { PlaceHoldSchema, ReleaseHoldSchema } from "~/domain/member-accounts";
import type { StaffHoldView } from "~/server/member-accounts/holds.server";
import { useInstitutionDates } from "~/components/institution-dates";
import type { StaffMemberDetail as MemberDetailData } from "./member-detail";
import { StatusLine } from "./admin-shell";
import { formMessageOf, resultFor } from "./money-result";

/**
 * Holds (docs/product.md#member-accounts-staff): staff hold an amount on an account (it lowers the
 * available balance, not the current one) and release it, each with a reason. The available
 * balance itself is never typed.
 */
export function HoldsBox({
  member,
  holds,
  requestKey,
  result,
}: {
  member: MemberDetailData;
  holds: StaffHoldView[];
  requestKey: string;
  result: unknown;
}) {
  const { formatDateTime } = useInstitutionDates();
  const open = member.accounts.filter((a) => a.status !== "closed");
  return (
    <section aria-labelledby="holds-title" className="space-y-3">
      <h3 id="holds-title" className="text-base font-semibold text-brand-800">
        Holds
      </h3>
      {holds.length === 0 ? (
        <p className="text-sm text-slate-700">No holds placed by staff.</p>
      ) : (
        <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200">
          {holds.map((h) => (
            <li key={h.transaction_id} className="flex flex-col gap-3 p-3 sm:flex-row sm:items-end sm:justify-between">
              <div className="min-w-0 text-sm">
                <p className="font-medium text-slate-900">
                  {formatCents(h.amount_cents)} on {h.account_name} ••{h.account_number.slice(-4)}
                </p>
                <p className="text-slate-700">
                  {h.memo ?? "Hold"} · {formatDateTime(h.placed_at)} by {h.placed_by_email ?? "staff"}
                </p>
              </div>
              <ReleaseHoldForm
                member_id={member.user_id}
                hold={h}
                result={resultFor(result, "release_hold", h.transaction_id)}
              />
            </li>
          ))}
        </ul>
      )}
      {open.length ? (
        <PlaceHoldForm
          key={requestKey}
          member_id={member.user_id}
          accounts={open}
          requestKey={requestKey}
          result={resultFor(result, "place_hold")}
        />
      ) : null}
    </section>
  );
}

function PlaceHoldForm({
  member_id,
  accounts,
  requestKey,
  result,
}: {
  member_id: string;
  accounts: MemberDetailData["accounts"];
  requestKey: string;
  result: ReturnType<typeof resultFor>;
}) {
  const navigation = useNavigation();
  const form = useSchemaForm(PlaceHoldSchema, {
    lastResult: result?.tone === "error" ? result.reply : undefined,
    id: "place-hold",
  });
  const formMessage = formMessageOf(result);
  const placing = navigation.state === "submitting" && navigation.formData?.get("intent") === "place_hold";
  return (
    <SchemaForm
      form={form}
      method="post"
      preventScrollReset
      aria-label="Place a hold"
      className="grid gap-3 rounded-lg border border-slate-200 bg-slate-50 p-4 sm:grid-cols-2"
    >
      <h4 className="text-sm font-semibold text-brand-800 sm:col-span-2">Place a hold</h4>
      {result ? (
        <div className="sm:col-span-2">
          <StatusLine message={result.message} tone={result.tone} />
        </div>
      ) : null}
      {formMessage && formMessage !== result?.message ? (
        <FormMessage tone="error" className="sm:col-span-2">
          {formMessage}
        </FormMessage>
      ) : null}
      <input type="hidden" name="intent" value="place_hold" />
      <input type="hidden" name="member_id" value={member_id} />
      <input type="hidden" name="request_key" value={requestKey} />
      <Select
        name="account_id"
        label="Account"
        options={accounts.map((a) => ({
          value: String(a.id),
          label: `${a.name} ••${a.account_number.slice(-4)} (available ${formatCents(a.available_cents)})`,
        }))}
        isRequired
      />
      <TextField name="amount" label="Amount" prefix="$" inputMode="decimal" isRequired />
      <TextField name="reason" label="Reason" maxLength={500} isRequired className="sm:col-span-2" />
      <div className="sm:col-span-2">
        <Button type="submit" variant="secondary" isPending={placing} pendingLabel="Placing…">
          Place hold
        </Button>
      </div>
    </SchemaForm>
  );
}

function ReleaseHoldForm({
  member_id,
  hold,
  result,
}: {
  member_id: string;
  hold: StaffHoldView;
  result: ReturnType<typeof resultFor>;
}) {
  const navigation = useNavigation();
  const form = useSchemaForm(ReleaseHoldSchema, { lastResult: result?.reply, id: `release-${hold.transaction_id}` });
  const formMessage = formMessageOf(result);
  const releasing =
    navigation.state === "submitting" && navigation.formData?.get("transaction_id") === String(hold.transaction_id);
  return (
    <SchemaForm
      form={form}
      method="post"
      preventScrollReset
      aria-label={`Release the hold of ${formatCents(hold.amount_cents)}`}
      className="flex flex-col gap-2 sm:w-80"
    >
      {formMessage ? <FormMessage tone="error">{formMessage}</FormMessage> : null}
      <input type="hidden" name="intent" value="release_hold" />
      <input type="hidden" name="member_id" value={member_id} />
      <input type="hidden" name="transaction_id" value={hold.transaction_id} />
      <TextField name="reason" label="Reason for release" maxLength={500} isRequired />
      <Button type="submit" variant="secondary" isPending={releasing} pendingLabel="Releasing…">
        Release hold
      </Button>
    </SchemaForm>
  );
}
