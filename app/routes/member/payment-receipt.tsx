import { data, Form, Link, useNavigation } from "react-router";
import { ArrowLeft, FileDown } from "lucide-react";
import type { Route } from "./+types/payment-receipt";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { cancelFromReceipt, loadReceipt } from "./payments.server";
import { readForm, refusalStatus } from "~/server/http/form.server";
import { UNKNOWN_INTENT_MESSAGE, formIntent } from "~/domain/form-intent";
import { formatCents } from "~/domain/money";
import { pageTitle } from "~/components/site/page-title";
import { Button, FormMessage } from "~/components/ui";
import { StatusBadge, formatDate } from "~/components/member/amount";
import { useInstitutionDates } from "~/components/institution-dates";
import { PAYMENT_STATUS_LABELS, memberPaymentStatus } from "~/domain/payment-status";

/**
 * /dashboard/payments/:paymentId (docs/product.md#remittance-transfers): an international wire's
 * remittance transfer receipt (12 CFR 1005.31(b)(2)): what the member paid, the rate, what the
 * recipient receives and when, the right to cancel within 30 minutes (1005.34) with the Cancel
 * button while it lasts, and the error-resolution rights (1005.33). Another member's wire, an ACH
 * payment or a made-up number reads as not found.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Transfer receipt", matches);
}

function paymentId(text: string): number {
  return /^[1-9]\d{0,15}$/.test(text) ? Number(text) : 0;
}

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const id = paymentId(params.paymentId);
  const receipt = id ? await loadReceipt(user, id, new Date()) : null;
  if (!receipt) throw data({ message: "We could not find that transfer." }, { status: 404 });
  return { receipt };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const form = await readForm(request);
  if (!formIntent(form, ["cancel"] as const))
    return data({ ok: false, message: UNKNOWN_INTENT_MESSAGE }, { status: 400 });
  const info = context.get(requestInfoContext);
  const id = paymentId(params.paymentId);
  // Only a wire has a receipt: an ACH payment's number here is not found, as another member's is.
  const receipt = id ? await loadReceipt(user, id, new Date()) : null;
  if (!receipt) return data({ ok: false, message: "We could not find that transfer." }, { status: 404 });
  const result = await cancelFromReceipt(user, id, { request_id: info.request_id, ip: info.ip }, new Date());
  if (!result.ok) return data({ ok: false, message: result.message }, { status: refusalStatus(result.kind) });
  return {
    ok: true,
    message: `Cancelled. ${formatCents(result.released_cents)}, the transfer and its fee, is available in your account again.`,
  };
}

export default function PaymentReceipt({ loaderData, actionData }: Route.ComponentProps) {
  const { receipt: r } = loaderData;
  const navigation = useNavigation();
  const { formatDateTime } = useInstitutionDates();
  const status = PAYMENT_STATUS_LABELS[memberPaymentStatus(r.status, null)];
  return (
    <div className="mx-auto max-w-3xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard/payments"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Payments to other banks
      </Link>
      <div className="mt-3 flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Transfer receipt</h1>
          <p className="mt-1 text-sm text-slate-700">
            International transfer <span className="font-mono text-xs">{r.reference_number}</span>, paid{" "}
            <time dateTime={r.paid_at}>{formatDateTime(r.paid_at)}</time>
          </p>
        </div>
        <StatusBadge status={status.badge} label={status.label} />
      </div>
      {actionData ? (
        <FormMessage className="mt-4" tone={actionData.ok ? "success" : "error"}>
          {actionData.message}
        </FormMessage>
      ) : null}

      <section aria-labelledby="recipient" className="mt-6 rounded-2xl border border-slate-200 bg-white p-4 sm:p-5">
        <h2 id="recipient" className="text-sm font-semibold text-slate-600">
          Recipient
        </h2>
        <p className="mt-1 font-semibold text-slate-900">{r.recipient.name}</p>
        <p className="text-sm text-slate-700">
          {r.recipient.bank_name}, {r.recipient.country} · account {r.recipient.account}
        </p>
      </section>

      <dl
        className="mt-4 divide-y divide-slate-100 rounded-2xl border border-slate-200 bg-white text-sm"
        aria-label="What you paid and what the recipient receives"
        data-testid="receipt-figures"
      >
        {r.rows.map(([term, detail]) => {
          const total = term === "Total" || term === "Total to recipient";
          return (
            <div key={term} className={`flex justify-between gap-4 px-4 py-3 ${total ? "bg-slate-50" : ""}`}>
              <dt className={total ? "font-semibold text-slate-900" : "text-slate-600"}>{term}</dt>
              <dd className={`text-right tabular-nums text-slate-900 ${total ? "text-base font-bold" : "font-medium"}`}>
                {detail}
              </dd>
            </div>
          );
        })}
        <div className="flex justify-between gap-4 px-4 py-3">
          <dt className="text-slate-600">Date available</dt>
          <dd className="text-right font-medium text-slate-900">
            {r.figures.available_on ? formatDate(r.figures.available_on) : "Not stated"}
          </dd>
        </div>
      </dl>
      <p className="mt-2 text-xs text-slate-600">
        The recipient may receive less due to fees charged by the recipient&apos;s bank and foreign taxes.
      </p>

      <section aria-labelledby="cancel-right" className="mt-6 rounded-2xl border border-slate-200 bg-white p-4 sm:p-5">
        <h2 id="cancel-right" className="text-base font-semibold text-brand-900">
          Your right to cancel
        </h2>
        <p className="mt-1 text-sm text-slate-700">{r.rights.cancel}</p>
        {r.cancel_until ? (
          <p className="mt-1 text-sm font-medium text-slate-900">
            Cancel by <time dateTime={r.cancel_until}>{formatDateTime(r.cancel_until)}</time>
          </p>
        ) : null}
        {r.can_cancel && !actionData?.ok ? (
          <Form method="post" className="mt-3">
            <Button
              type="submit"
              name="intent"
              value="cancel"
              variant="secondary"
              isPending={navigation.state !== "idle"}
              pendingLabel="Cancelling…"
            >
              Cancel this transfer
            </Button>
          </Form>
        ) : r.status === "cancelled" || actionData?.ok ? (
          <p className="mt-3 text-sm text-slate-700">This transfer is cancelled.</p>
        ) : (
          <p className="mt-3 text-sm text-slate-700">This transfer can no longer be cancelled online.</p>
        )}
      </section>

      <section aria-labelledby="errors" className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 sm:p-5">
        <h2 id="errors" className="text-base font-semibold text-brand-900">
          What to do if you think there is an error or problem
        </h2>
        <p className="mt-1 text-sm text-slate-700">{r.rights.errors}</p>
      </section>

      <a
        href={`/dashboard/payments/${r.payment_id}/receipt.pdf`}
        className="mt-6 inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
        download
      >
        <FileDown className="size-4" aria-hidden="true" /> Download the receipt (PDF)
      </a>
    </div>
  );
}
