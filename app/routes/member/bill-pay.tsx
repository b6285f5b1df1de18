import crypto from "node:crypto";
import { data } from "react-router";
import type { Route } from "./+types/bill-pay";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import {
  parseSubmission,
  readForm,
  replyTo,
  formReply,
  refusalStatus,
  type FormReply,
} from "~/server/http/form.server";
import { refusal, type Refusal } from "~/domain/refusals";
import { logger } from "~/server/logger.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { cancelPayment, changePayment, deletePayee, loadBillPay, savePayee, schedulePayment } from "./bill-pay.server";
import {
  BILL_PAY_MESSAGES,
  billPaySchema,
  cancelBillPaymentSchema,
  editBillPaymentSchema,
  payeeSchema,
} from "~/domain/bill-pay";
import { formIntent, UNKNOWN_INTENT_MESSAGE } from "~/domain/form-intent";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
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
  const user = await requireMember(request);
  const editing = Number(new URL(request.url).searchParams.get("edit"));
  return {
    today: businessDate(institution().time_zone),
    quick_picks: institution().bill_pay_quick_picks,
    ...(await loadBillPay(user, editing)),
    // Fresh each time the page loads: a double click or a retry of one submission is answered once.
    keys: { schedule: crypto.randomUUID(), edit: crypto.randomUUID() },
  };
}

function refusalReply(submission: Parameters<typeof replyTo>[0], refusal: Refusal): FormReply {
  return replyTo(
    submission,
    refusal.field ? { fieldErrors: { [refusal.field]: [refusal.message] } } : { formErrors: [refusal.message] },
  );
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const form = await readForm(request);
  const intent = formIntent(form, INTENTS);
  if (!intent)
    return data<BillPayAnswer>(
      {
        intent: "unknown",
        ok: false,
        message: UNKNOWN_INTENT_MESSAGE,
        reply: formReply(form, { formErrors: [UNKNOWN_INTENT_MESSAGE] }),
      },
      { status: 400 },
    );
  const info = context.get(requestInfoContext);
  const origin = { request_id: info.request_id, ip: info.ip };
  const today = businessDate(institution().time_zone);
  try {
    switch (intent) {
      case "add_payee": {
        const submission = parseSubmission(payeeSchema, form);
        if (submission.status !== "success")
          return data<BillPayAnswer>({ intent, ok: false, reply: replyTo(submission) }, { status: 400 });
        const result = await savePayee(user, submission.value, origin);
        if (!result.ok)
          return data<BillPayAnswer>(
            { intent, ok: false, reply: refusalReply(submission, result) },
            { status: refusalStatus(result.kind) },
          );
        return {
          intent,
          ok: true,
          message: result.created
            ? `${result.payee.name} ${result.payee.masked_account} was added to your payees.`
            : `${result.payee.name} ${result.payee.masked_account} is already one of your payees.`,
        } satisfies BillPayAnswer;
      }
      case "remove_payee": {
        const id = Number(form.get("payee_id"));
        const result =
          Number.isSafeInteger(id) && id > 0
            ? await deletePayee(user, id, origin)
            : refusal("not_found", "This payee was not found.");
        if (!result.ok)
          return data<BillPayAnswer>(
            { intent, ok: false, message: result.message },
            { status: refusalStatus(result.kind) },
          );
        return {
          intent,
          ok: true,
          message: `${result.name} was removed from your payees. Payments already scheduled to it stay scheduled.`,
        } satisfies BillPayAnswer;
      }
      case "schedule": {
        const submission = parseSubmission(billPaySchema(today), form);
        if (submission.status !== "success")
          return data<BillPayAnswer>({ intent, ok: false, reply: replyTo(submission) }, { status: 400 });
        const result = await schedulePayment(user, submission.value, origin);
        if (!result.ok)
          return data<BillPayAnswer>(
            { intent, ok: false, reply: refusalReply(submission, result) },
            { status: refusalStatus(result.kind) },
          );
        return {
          intent,
          ok: true,
          message: `Payment scheduled: ${formatCents(result.amount_cents)} to ${result.payee_name} on ${formatBusinessDate(result.payment_date)}. The amount is held from your account until then. Reference ${result.reference_number}.`,
        } satisfies BillPayAnswer;
      }
      case "edit": {
        const submission = parseSubmission(editBillPaymentSchema(today), form);
        if (submission.status !== "success")
          return data<BillPayAnswer>(
            { intent, ok: false, reply: replyTo(submission), payment_id: Number(form.get("payment_id")) || null },
            { status: 400 },
          );
        const result = await changePayment(user, submission.value, origin);
        if (!result.ok)
          return data<BillPayAnswer>(
            { intent, ok: false, reply: refusalReply(submission, result), payment_id: submission.value.payment_id },
            { status: refusalStatus(result.kind) },
          );
        return {
          intent,
          ok: true,
          message: "Payment changed. The new amount is held until its date.",
        } satisfies BillPayAnswer;
      }
      case "cancel": {
        const submission = parseSubmission(cancelBillPaymentSchema, form);
        if (submission.status !== "success")
          return data<BillPayAnswer>({ intent, ok: false, message: BILL_PAY_MESSAGES.payment }, { status: 404 });
        const result = await cancelPayment(user, submission.value.payment_id, origin);
        if (!result.ok)
          return data<BillPayAnswer>(
            { intent, ok: false, message: result.message },
            { status: refusalStatus(result.kind) },
          );
        const released =
          result.released_cents > 0 ? ` ${formatCents(result.released_cents)} is available in your account again.` : "";
        return {
          intent,
          ok: true,
          message: `Payment cancelled.${released}${result.series_ended ? " The recurring series ends: no later payments will be made." : ""}`,
        } satisfies BillPayAnswer;
      }
    }
  } catch (error) {
    // The form keeps its idempotency key (see BillPayPage), so a retry is answered once.
    logger.error({ err: error, request_id: info.request_id, intent }, "bill pay request failed");
    return data<BillPayAnswer>(
      {
        intent,
        ok: false,
        failed: true,
        message: BILL_PAY_MESSAGES.failed,
        reply: formReply(form, { formErrors: [BILL_PAY_MESSAGES.failed] }),
      },
      { status: 500 },
    );
  }
}

export default function BillPay({ loaderData, actionData }: Route.ComponentProps) {
  return <BillPayPage data={loaderData} answer={actionData as BillPayAnswer | undefined} />;
}
