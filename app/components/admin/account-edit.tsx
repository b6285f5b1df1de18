import { Link, useNavigation } from "react-router";
import { Pencil } from "lucide-react";
import { Button, FormMessage, SchemaForm, Select, TextField, useSchemaForm } from "~/components/ui";
import { groupAccountNumber } from "~/domain/account-display";
import { formatCents } from "~/domain/money";
import {
  ACCOUNT_STATUSES,
  ACCOUNT_STATUS_LABELS,
  AccountEditSchema,
  AdjustBalanceSchema,
} from "~/domain/member-accounts";
import type { StaffMemberDetail as MemberDetailData } from "./member-detail";
import { StatusBadge, StatusLine } from "./admin-shell";
import { withParams } from "./format";
import { formMessageOf, resultFor } from "./money-result";

type Account = MemberDetailData["accounts"][number];

/**
 * The Accounts list with inline Edit for staff with money powers (docs/product.md#member-accounts-staff):
 * Edit opens the row (`?edit_account=<id>`, so it works before JavaScript), with the account's
 * details (Cancel / Save) and Adjust balance. The available balance is never typed: holds change it.
 */
export function StaffAccounts({
  member,
  settings,
  search,
  result,
  secondApprovalAboveCents,
}: {
  member: MemberDetailData;
  settings: Record<number, { routing_number: string; status_reason: string | null }>;
  search: string;
  result: unknown;
  secondApprovalAboveCents: number;
}) {
  const editing = Number(new URLSearchParams(search).get("edit_account") ?? "0");
  if (member.accounts.length === 0)
    return (
      <p className="mt-2 text-sm text-slate-700">
        No accounts yet. Checking and Savings open when the application is approved.
      </p>
    );
  return (
    <ul
      aria-label={`Accounts of ${member.name}`}
      className="mt-2 divide-y divide-slate-100 rounded-xl border border-slate-200"
    >
      {member.accounts.map((a) => {
        const s = settings[a.id] ?? { routing_number: a.routing_number, status_reason: null };
        const open = editing === a.id;
        return (
          <li key={a.id} className="p-3 sm:p-4">
            <div className="flex flex-wrap items-start justify-between gap-x-6 gap-y-2">
              <div className="min-w-0">
                <p className="flex flex-wrap items-center gap-2 font-medium text-slate-900">
                  <span>{a.name}</span> <StatusBadge status={a.status} />
                </p>
                <dl className="mt-1 grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:flex sm:flex-wrap">
                  <Figure label="Number" mono>
                    {groupAccountNumber(a.account_number)}
                  </Figure>
                  <Figure label="Routing" mono>
                    {s.routing_number}
                  </Figure>
                  <Figure label="Current">{formatCents(a.current_cents)}</Figure>
                  <Figure label="Available">{formatCents(a.available_cents)}</Figure>
                </dl>
                {s.status_reason && a.status !== "active" ? (
                  <p className="mt-1 text-sm text-slate-700">Reason: {s.status_reason}</p>
                ) : null}
              </div>
              {open ? null : (
                <Link
                  to={withParams(search, { edit_account: a.id })}
                  preventScrollReset
                  aria-label={`Edit ${a.name} ${a.account_number.slice(-4)}`}
                  className="inline-flex items-center gap-1.5 rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm font-semibold text-brand-800 hover:bg-slate-50"
                >
                  <Pencil className="size-4" aria-hidden="true" /> Edit
                </Link>
              )}
            </div>
            {open ? (
              <div className="mt-4 grid gap-4 lg:grid-cols-2">
                <AccountEditForm
                  key={`${a.account_number}:${a.status}:${s.routing_number}`}
                  member_id={member.user_id}
                  account={a}
                  settings={s}
                  search={search}
                  result={resultFor(result, "account_edit", a.id)}
                />
                <AdjustBalanceForm
                  key={`adjust:${a.current_cents}`}
                  member_id={member.user_id}
                  account={a}
                  result={resultFor(result, "adjust_balance", a.id)}
                  secondApprovalAboveCents={secondApprovalAboveCents}
                />
              </div>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}

function Figure({ label, mono, children }: { label: string; mono?: boolean; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-600">{label}</dt>
      <dd className={`tabular whitespace-nowrap text-slate-900 ${mono ? "font-mono" : ""}`}>{children}</dd>
    </div>
  );
}

function AccountEditForm({
  member_id,
  account,
  settings,
  search,
  result,
}: {
  member_id: string;
  account: Account;
  settings: { routing_number: string; status_reason: string | null };
  search: string;
  result: ReturnType<typeof resultFor>;
}) {
  const navigation = useNavigation();
  const form = useSchemaForm(AccountEditSchema, { lastResult: result?.reply, id: `account-edit-${account.id}` });
  const formMessage = formMessageOf(result);
  const saving = navigation.state === "submitting" && navigation.formData?.get("intent") === "account_edit";
  const closed = account.status === "closed";
  return (
    <SchemaForm
      form={form}
      method="post"
      preventScrollReset
      aria-label={`Edit ${account.name}`}
      className="space-y-3 rounded-lg border border-slate-200 bg-slate-50 p-4"
    >
      <h4 className="text-sm font-semibold text-brand-800">Account details</h4>
      {result?.tone === "success" ? <StatusLine message={result.message} tone="success" /> : null}
      {formMessage ? <FormMessage tone="error">{formMessage}</FormMessage> : null}
      <input type="hidden" name="intent" value="account_edit" />
      <input type="hidden" name="member_id" value={member_id} />
      <input type="hidden" name="account_id" value={account.id} />
      <TextField
        name="account_number"
        label="Account number"
        description="10 digits, not starting with 0"
        defaultValue={groupAccountNumber(account.account_number)}
        inputMode="numeric"
        maxLength={12}
        isRequired
        isDisabled={closed}
      />
      <TextField
        name="routing_number"
        label="Routing number"
        description="9 digits (ABA checksum)"
        defaultValue={settings.routing_number}
        inputMode="numeric"
        maxLength={9}
        isRequired
        isDisabled={closed}
      />
      <Select
        name="status"
        label="Status"
        defaultValue={account.status}
        options={ACCOUNT_STATUSES.map((value) => ({ value, label: ACCOUNT_STATUS_LABELS[value] }))}
        description="Frozen blocks every payment and transfer. Closed needs a zero balance and nothing on hold, and is final."
        isDisabled={closed}
      />
      <TextField
        name="status_reason"
        label="Reason (required for Frozen or Closed)"
        defaultValue={settings.status_reason ?? ""}
        maxLength={500}
        isDisabled={closed}
      />
      <div className="flex flex-wrap gap-2">
        <Link
          to={withParams(search, { edit_account: null })}
          preventScrollReset
          className="inline-flex items-center rounded-lg border border-slate-300 bg-white px-4 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-100"
        >
          Cancel
        </Link>
        {closed ? null : (
          <Button type="submit" isPending={saving} pendingLabel="Saving…">
            Save
          </Button>
        )}
      </div>
    </SchemaForm>
  );
}

function AdjustBalanceForm({
  member_id,
  account,
  result,
  secondApprovalAboveCents,
}: {
  member_id: string;
  account: Account;
  result: ReturnType<typeof resultFor>;
  secondApprovalAboveCents: number;
}) {
  const navigation = useNavigation();
  const form = useSchemaForm(AdjustBalanceSchema, {
    lastResult: result?.tone === "error" ? result.reply : undefined,
    id: `adjust-${account.id}`,
  });
  const formMessage = formMessageOf(result);
  const posting = navigation.state === "submitting" && navigation.formData?.get("intent") === "adjust_balance";
  if (account.status === "closed") return null;
  return (
    <SchemaForm
      form={form}
      method="post"
      preventScrollReset
      aria-label={`Adjust balance of ${account.name}`}
      className="space-y-3 rounded-lg border border-slate-200 bg-slate-50 p-4"
    >
      <h4 className="text-sm font-semibold text-brand-800">Adjust balance</h4>
      <p className="text-sm text-slate-700">
        Current balance {formatCents(account.current_cents)}. The difference posts as an adjustment; above{" "}
        {formatCents(secondApprovalAboveCents)} it waits for a second staff member&apos;s approval.
      </p>
      {result?.tone === "success" ? <StatusLine message={result.message} tone="success" /> : null}
      {formMessage ? <FormMessage tone="error">{formMessage}</FormMessage> : null}
      <input type="hidden" name="intent" value="adjust_balance" />
      <input type="hidden" name="member_id" value={member_id} />
      <input type="hidden" name="account_id" value={account.id} />
      <TextField name="target_balance" label="New balance" prefix="$" inputMode="decimal" isRequired />
      <TextField name="reason" label="Reason" maxLength={500} isRequired />
      <Button type="submit" variant="secondary" isPending={posting} pendingLabel="Posting…">
        Adjust balance
      </Button>
    </SchemaForm>
  );
}
