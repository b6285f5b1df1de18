import { Link, useNavigation } from "react-router";
import { Button, FormMessage, SchemaForm, TextField, useSchemaForm } from "~/components/ui";
import { formatCents } from "~/domain/money";
import { ApproveAdjustmentSchema, DeclineAdjustmentSchema } from "~/domain/member-accounts";
import type { AwaitingAdjustment } from "~/server/member-accounts/adjustments.server";
import { useInstitutionDates } from "~/components/institution-dates";
import { StatusLine } from "./admin-shell";
import { withParams } from "./format";
import { formMessageOf, resultFor } from "./money-result";

/**
 * Adjustments waiting for a second approval (maker-checker, docs/product.md#member-accounts-staff):
 * who asked, when and why; another staff member approves (it posts) or declines with a reason.
 * The one who asked sees their own request without the buttons (the server refuses them anyway).
 */
export function ApprovalsBox({
  items,
  staffId,
  search,
  result,
}: {
  items: AwaitingAdjustment[];
  staffId: string;
  search: string;
  result: unknown;
}) {
  const answer = resultFor(result, ["approve_adjustment", "decline_adjustment"]);
  if (items.length === 0 && !answer) return null;
  return (
    <section
      aria-labelledby="approvals-title"
      className="space-y-3 rounded-2xl border border-amber-300 bg-amber-50 p-4 sm:p-5"
    >
      <h2 id="approvals-title" className="text-lg font-semibold text-amber-950">
        Adjustments waiting for approval ({items.length})
      </h2>
      {answer ? <StatusLine message={answer.message} tone={answer.tone} /> : null}
      <ApprovalList
        items={items}
        staffId={staffId}
        result={result}
        memberHref={(member_id) =>
          withParams(search, { member: member_id, edit_account: null, reverse: null, post: null, tx_before: null })
        }
      />
    </section>
  );
}

/**
 * The adjustments' list with their Approve and Decline forms; also shown in the queues page's
 * second-approval section (second-approvals.tsx), beside the Add Transactions requests.
 */
export function ApprovalList({
  items,
  staffId,
  result,
  memberHref,
}: {
  items: AwaitingAdjustment[];
  staffId: string;
  result: unknown;
  memberHref: (member_id: string) => string;
}) {
  const { formatDateTime } = useInstitutionDates();
  return (
    <ul className="space-y-3">
      {items.map((a) => (
        <li key={a.id} className="rounded-xl border border-amber-200 bg-white p-3 text-sm">
          <p className="font-medium text-slate-900">
            {a.amount_cents > 0 ? "+" : ""}
            {formatCents(a.amount_cents)} on {a.account_name} ••{a.account_number.slice(-4)} of{" "}
            <Link to={memberHref(a.member_id)} className="break-all text-brand-700 underline underline-offset-2">
              {a.member_email ?? a.member_id}
            </Link>
          </p>
          <p className="text-slate-700">
            From {formatCents(a.from_cents)} to {formatCents(a.target_cents)} · asked by{" "}
            {a.requested_by_email ?? a.requested_by} on {formatDateTime(a.requested_at)}
          </p>
          <BalanceNow adjustment={a} />
          <p className="mt-1 text-slate-900">Reason: “{a.reason}”</p>
          {a.requested_by === staffId ? (
            <p className="mt-2 text-slate-700">
              You asked for this adjustment: another staff member must approve or decline it.
            </p>
          ) : (
            <div className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-end">
              <ApproveForm adjustment={a} result={resultFor(result, "approve_adjustment", a.id)} />
              <DeclineForm adjustment={a} result={resultFor(result, "decline_adjustment", a.id)} />
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * What approving does now: it posts the amount asked for, so when the balance moved since the
 * request the account ends elsewhere than the requested balance, and the approver reads that
 * before approving (the server refuses an approval made on an older balance).
 */
function BalanceNow({ adjustment: a }: { adjustment: AwaitingAdjustment }) {
  const after = a.balance_now_cents + a.amount_cents;
  if (a.balance_now_cents === a.from_cents)
    return (
      <p className="text-slate-700" data-testid="adjustment-after">
        Approving posts {formatCents(a.amount_cents)}; the balance becomes {formatCents(after)}.
      </p>
    );
  return (
    <p className="mt-1 rounded-lg bg-amber-100 px-2 py-1 font-medium text-amber-950" data-testid="adjustment-after">
      The balance has changed since the request: it is {formatCents(a.balance_now_cents)} now (was{" "}
      {formatCents(a.from_cents)}). Approving posts {formatCents(a.amount_cents)}, as asked, and leaves{" "}
      {formatCents(after)}, not {formatCents(a.target_cents)}. If that is not right, decline and ask for a new
      adjustment.
    </p>
  );
}

function ApproveForm({ adjustment, result }: { adjustment: AwaitingAdjustment; result: ReturnType<typeof resultFor> }) {
  const navigation = useNavigation();
  const form = useSchemaForm(ApproveAdjustmentSchema, { lastResult: result?.reply, id: `approve-${adjustment.id}` });
  const busy =
    navigation.state === "submitting" &&
    navigation.formData?.get("intent") === "approve_adjustment" &&
    navigation.formData?.get("adjustment_id") === String(adjustment.id);
  return (
    <SchemaForm form={form} method="post" preventScrollReset aria-label={`Approve adjustment ${adjustment.id}`}>
      <input type="hidden" name="intent" value="approve_adjustment" />
      <input type="hidden" name="adjustment_id" value={adjustment.id} />
      <input type="hidden" name="seen_balance_cents" value={adjustment.balance_now_cents} />
      <Button type="submit" isPending={busy} pendingLabel="Approving…">
        Approve and post
      </Button>
    </SchemaForm>
  );
}

function DeclineForm({ adjustment, result }: { adjustment: AwaitingAdjustment; result: ReturnType<typeof resultFor> }) {
  const navigation = useNavigation();
  const form = useSchemaForm(DeclineAdjustmentSchema, { lastResult: result?.reply, id: `decline-${adjustment.id}` });
  const formMessage = formMessageOf(result);
  const busy =
    navigation.state === "submitting" &&
    navigation.formData?.get("intent") === "decline_adjustment" &&
    navigation.formData?.get("adjustment_id") === String(adjustment.id);
  return (
    <SchemaForm
      form={form}
      method="post"
      preventScrollReset
      aria-label={`Decline adjustment ${adjustment.id}`}
      className="flex min-w-0 flex-1 flex-col gap-2 sm:flex-row sm:items-end"
    >
      {formMessage ? <FormMessage tone="error">{formMessage}</FormMessage> : null}
      <input type="hidden" name="intent" value="decline_adjustment" />
      <input type="hidden" name="adjustment_id" value={adjustment.id} />
      <TextField name="reason" label="Reason to decline" maxLength={500} isRequired className="min-w-0 flex-1" />
      <Button type="submit" variant="secondary" isPending={busy} pendingLabel="Declining…">
        Decline
      </Button>
    </SchemaForm>
  );
}
