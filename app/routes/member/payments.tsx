import { data, Form, Link, useNavigation } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/payments";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { cancelOwnPayment, loadPayments } from "./payments.server";
import { readForm, refusalStatus } from "~/server/http/form.server";
import { UNKNOWN_INTENT_MESSAGE, formIntent } from "~/domain/form-intent";
import { formatCents } from "~/domain/money";
import { pageTitle } from "~/components/site/page-title";
import { Button, FormMessage } from "~/components/ui";
import { StatusBadge, formatDate } from "~/components/member/amount";
import { useInstitutionDates } from "~/components/institution-dates";
import { PAYMENT_STATUS_LABELS } from "~/domain/payment-status";

/**
 * /dashboard/payments (docs/product.md#payment-queues): the member's transfers to other banks
 * (To US Bank and International) and where each stands: Pending while it waits for the next
 * file (the money is held, and the member may cancel it), Sent with the file's date,
 * Cancelled, or Returned by the other bank, with why. Only the member's own payments are listed or can be cancelled.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Payments to other banks", matches);
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  return { payments: await loadPayments(user) };
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const form = await readForm(request);
  if (!formIntent(form, ["cancel"] as const))
    return data({ ok: false, message: UNKNOWN_INTENT_MESSAGE }, { status: 400 });
  const info = context.get(requestInfoContext);
  const result = await cancelOwnPayment(user, Number(form.get("payment_id")), {
    request_id: info.request_id,
    ip: info.ip,
  });
  if (!result.ok) return data({ ok: false, message: result.message }, { status: refusalStatus(result.kind) });
  return { ok: true, message: `Cancelled. ${formatCents(result.released_cents)} is available in your account again.` };
}

export default function Payments({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const { formatDateTime } = useInstitutionDates();
  const cancelling = navigation.state !== "idle" ? navigation.formData?.get("payment_id") : null;
  return (
    <div className="mx-auto max-w-4xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard/transactions"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Transactions
      </Link>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Payments to other banks</h1>
      <p className="mt-1 text-sm text-slate-700">
        A transfer to another bank waits, with the money held in your account, until the credit union sends the next
        file. Until then you can cancel it and the money is yours to use again.
      </p>
      {actionData ? (
        <FormMessage className="mt-4" tone={actionData.ok ? "success" : "error"}>
          {actionData.message}
        </FormMessage>
      ) : null}
      {loaderData.payments.length === 0 ? (
        <p className="mt-6 rounded-2xl border border-slate-200 bg-white p-8 text-center text-sm text-slate-700">
          You have not sent money to another bank yet.
        </p>
      ) : (
        <ul
          className="mt-6 divide-y divide-slate-100 rounded-2xl border border-slate-200 bg-white shadow-sm"
          aria-label="Payments to other banks"
        >
          {loaderData.payments.map((p) => (
            <li
              key={p.id}
              className="flex flex-wrap items-center justify-between gap-3 px-4 py-4 sm:px-5"
              data-testid="member-payment"
            >
              <div className="min-w-0">
                <p className="font-semibold text-slate-900">
                  {p.kind === "ach" ? "To US bank" : "International"}: {p.payee}
                </p>
                <p className="text-sm text-slate-700">
                  <span className="font-mono text-xs">{p.reference_number}</span> ·{" "}
                  <time dateTime={p.created_at}>{formatDateTime(p.created_at)}</time>
                  {p.kind === "wire" ? (
                    <>
                      {" "}
                      ·{" "}
                      <Link
                        to={`/dashboard/payments/${p.id}`}
                        className="font-semibold text-accent-700 hover:underline"
                      >
                        Receipt
                      </Link>
                    </>
                  ) : null}
                </p>
                <p className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-700">
                  <StatusBadge
                    status={PAYMENT_STATUS_LABELS[p.status].badge}
                    label={PAYMENT_STATUS_LABELS[p.status].label}
                  />
                  {p.status === "sent" && p.sent_effective_date ? (
                    <span>
                      {p.kind === "ach" ? "Effective" : "Sent for"} {formatDate(p.sent_effective_date)}
                    </span>
                  ) : null}
                  {p.status === "returned" ? (
                    <span data-testid="return-reason">
                      The other bank sent it back: {p.return_reason}. The money is back in your account.
                    </span>
                  ) : null}
                </p>
              </div>
              <div className="flex items-center gap-4">
                <div className="text-right">
                  <p className="font-semibold text-slate-900 tabular-nums">
                    {p.foreign_amount ?? formatCents(p.amount_cents)}
                  </p>
                  {p.fee_cents > 0 ? (
                    <p className="text-xs text-slate-700 tabular-nums">
                      {formatCents(p.amount_cents + p.fee_cents)} with fee
                    </p>
                  ) : null}
                </div>
                {p.can_cancel ? (
                  <Form method="post">
                    <input type="hidden" name="payment_id" value={p.id} />
                    <Button
                      type="submit"
                      name="intent"
                      value="cancel"
                      variant="secondary"
                      aria-label={`Cancel payment ${p.reference_number}`}
                      isPending={cancelling === String(p.id)}
                      pendingLabel="Cancelling…"
                    >
                      Cancel
                    </Button>
                  </Form>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
