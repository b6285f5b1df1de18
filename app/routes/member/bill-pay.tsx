import crypto from "node:crypto";
import { data } from "react-router";
import type { Route } from "./+types/bill-pay";
import { requestInfoContext } from "~/context";
import { getAuth } from "~/server/auth/auth.server";
import { requireUser } from "~/server/auth/session.server";
import { parseSubmission, readForm, replyTo, formReply, type FormReply } from "~/server/http/form.server";
import { addPayee, cancelBillPayment, editBillPayment, listPayees, memberBillPayments, removePayee, scheduleBillPayment, type BillPayRefusal } from "~/server/bill-pay/bill-pay.server";
import { memberAccounts } from "~/server/ledger/accounts.server";
import { logger } from "~/server/logger.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { maskAccountNumber } from "~/domain/account-display";
import { BILL_PAY_MESSAGES, billPaySchema, cancelBillPaymentSchema, editBillPaymentSchema, payeeSchema } from "~/domain/bill-pay";
import { formIntent, UNKNOWN_INTENT_MESSAGE } from "~/domain/form-intent";
import { formatCents } from "~/domain/money";
import { pageTitle } from "~/components/site/page-title";
import { BillPayPage, type BillPayAnswer } from "~/components/member/bill-pay";

/**
 * /dashboard/bill-pay (docs/product.md#bill-pay): the member's payees, a payment form (one-off or
 * recurring), the upcoming payments with Edit and Cancel, and the payment history. Every form
 * posts here and works without JavaScript; the server checks everything again.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Bill Pay", matches);
}

const INTENTS = ["add_payee", "remove_payee", "schedule", "edit", "cancel"] as const;

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request, { roles: ["user"] });
  const { db } = await getAuth();
  const today = businessDate(institution().time_zone);
  const [accounts, payees, payments] = await Promise.all([memberAccounts(db, user.id), listPayees(db, user.id), memberBillPayments(db, user.id)]);
  const editing = Number(new URL(request.url).searchParams.get("edit"));
  return {
    today,
    accounts: accounts
      .filter((a) => a.type === "checking" && a.status === "active")
      .map((a) => ({ id: a.id, label: `Checking ${maskAccountNumber(a.account_number)} · ${formatCents(a.available_cents)} available` })),
    payees,
    quick_picks: institution().bill_pay_quick_picks,
    ...payments,
    editing: payments.upcoming.some((p) => p.id === editing) ? editing : null,
    // Fresh each time the page loads: a double click or a retry of one submission is answered once.
    keys: { schedule: crypto.randomUUID(), edit: crypto.randomUUID() },
  };
}

function refusalReply(submission: Parameters<typeof replyTo>[0], refusal: BillPayRefusal): FormReply {
  return replyTo(submission, refusal.field ? { fieldErrors: { [refusal.field]: [refusal.message] } } : { formErrors: [refusal.message] });
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireUser(request, { roles: ["user"] });
  const form = await readForm(request);
  const intent = formIntent(form, INTENTS);
  if (!intent) return data<BillPayAnswer>({ intent: "unknown", ok: false, message: UNKNOWN_INTENT_MESSAGE, reply: formReply(form, { formErrors: [UNKNOWN_INTENT_MESSAGE] }) }, { status: 400 });
  const { db } = await getAuth();
  const info = context.get(requestInfoContext);
  const origin = { request_id: info.request_id, ip: info.ip };
  const member = { id: user.id, email: user.email };
  const today = businessDate(institution().time_zone);
  try {
    switch (intent) {
      case "add_payee": {
        const submission = parseSubmission(payeeSchema, form);
        if (submission.status !== "success") return data<BillPayAnswer>({ intent, ok: false, reply: replyTo(submission) }, { status: 400 });
        const result = await addPayee(db, member, submission.value, origin);
        if (!result.ok) return data<BillPayAnswer>({ intent, ok: false, reply: refusalReply(submission, result) }, { status: result.status });
        return { intent, ok: true, message: result.created ? `${result.payee.name} ${result.payee.masked_account} was added to your payees.` : `${result.payee.name} ${result.payee.masked_account} is already one of your payees.` } satisfies BillPayAnswer;
      }
      case "remove_payee": {
        const id = Number(form.get("payee_id"));
        const result = Number.isSafeInteger(id) && id > 0 ? await removePayee(db, member, id, origin) : ({ ok: false, message: "This payee was not found.", status: 404 } as const);
        if (!result.ok) return data<BillPayAnswer>({ intent, ok: false, message: result.message }, { status: result.status });
        return { intent, ok: true, message: `${result.name} was removed from your payees. Payments already scheduled to it stay scheduled.` } satisfies BillPayAnswer;
      }
      case "schedule": {
        const submission = parseSubmission(billPaySchema(today), form);
        if (submission.status !== "success") return data<BillPayAnswer>({ intent, ok: false, reply: replyTo(submission) }, { status: 400 });
        const result = await scheduleBillPayment(db, member, submission.value, origin);
        if (!result.ok) return data<BillPayAnswer>({ intent, ok: false, reply: refusalReply(submission, result) }, { status: result.status });
        return {
          intent,
          ok: true,
          message: `Payment scheduled: ${formatCents(result.amount_cents)} to ${result.payee_name} on ${result.payment_date}. The amount is held from your account until then. Reference ${result.reference_number}.`,
        } satisfies BillPayAnswer;
      }
      case "edit": {
        const submission = parseSubmission(editBillPaymentSchema(today), form);
        if (submission.status !== "success") return data<BillPayAnswer>({ intent, ok: false, reply: replyTo(submission), payment_id: Number(form.get("payment_id")) || null }, { status: 400 });
        const result = await editBillPayment(db, member, submission.value, origin);
        if (!result.ok) return data<BillPayAnswer>({ intent, ok: false, reply: refusalReply(submission, result), payment_id: submission.value.payment_id }, { status: result.status });
        return { intent, ok: true, message: "Payment changed. The new amount is held until its date." } satisfies BillPayAnswer;
      }
      case "cancel": {
        const submission = parseSubmission(cancelBillPaymentSchema, form);
        if (submission.status !== "success") return data<BillPayAnswer>({ intent, ok: false, message: BILL_PAY_MESSAGES.payment }, { status: 404 });
        const result = await cancelBillPayment(db, member, submission.value.payment_id, origin);
        if (!result.ok) return data<BillPayAnswer>({ intent, ok: false, message: result.message }, { status: result.status });
        const released = result.released_cents > 0 ? ` ${formatCents(result.released_cents)} is available in your account again.` : "";
        return { intent, ok: true, message: `Payment cancelled.${released}${result.series_ended ? " The recurring series ends: no later payments will be made." : ""}` } satisfies BillPayAnswer;
      }
    }
  } catch (error) {
    // The form keeps its idempotency key (see BillPayPage), so a retry is answered once.
    logger.error({ err: error, request_id: info.request_id, intent }, "bill pay request failed");
    return data<BillPayAnswer>({ intent, ok: false, failed: true, message: BILL_PAY_MESSAGES.failed, reply: formReply(form, { formErrors: [BILL_PAY_MESSAGES.failed] }) }, { status: 500 });
  }
}

export default function BillPay({ loaderData, actionData }: Route.ComponentProps) {
  return <BillPayPage data={loaderData} answer={actionData as BillPayAnswer | undefined} />;
}
