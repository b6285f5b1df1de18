import { data } from "react-router";
import type { Route } from "./+types/queues";
import { requestInfoContext } from "~/context";
import { requireMoneyStaff } from "~/server/rails/access.server";
import { EXPORT_PAYMENTS_MAX } from "~/server/rails/export.server";
import {
  adjustmentQueueRows,
  cancelQueuedPayment,
  decideQueuedAdjustment,
  decideQueuedPostingRequest,
  exportQueue,
  postingRequestQueueRows,
  queuesPage,
} from "./queues.server";
import { approveDeposit, depositQueueRows, rejectDeposit } from "./deposit-queue.server";
import { approveHoldFrom } from "~/domain/funds-availability";
import { readForm, refusalStatus } from "~/server/http/form.server";
import { formIntent, UNKNOWN_INTENT_MESSAGE } from "~/domain/form-intent";
import { formatCents } from "~/domain/money";
import { QUEUE_TITLES } from "~/domain/queues";
import { pageTitle } from "~/components/site/page-title";
import { StatusLine } from "~/components/admin/admin-shell";
import { ExportFiles, PaymentQueue, type QueueActionResult } from "~/components/admin/queues";
import { DepositQueue } from "~/components/admin/deposit-queue";
import {
  achChange,
  achCreditReview,
  achDuplicate,
  achInPage,
  achReturnHandled,
  achReturnsExport,
  achUpload,
  refuseTooLarge,
} from "./queues-ach-in.server";
import { NotificationsOfChange } from "~/components/admin/ach-changes";
import { CreditReviews } from "~/components/admin/ach-credit-reviews";
import { AchInbound, PossibleDuplicates, ReturnedItems } from "~/components/admin/ach-inbound";
import { SecondApprovalQueue, SECOND_APPROVAL_INTENTS } from "~/components/admin/second-approvals";
import { StaffGrantQueue } from "~/components/admin/staff-grants";
import { decideStaffGrant, staffGrantRows } from "./staff-grants.server";
import { STAFF_GRANT_INTENTS } from "~/domain/staff-grants";

/**
 * /admin/queues (docs/product.md#payment-queues): the work waiting for staff who may move money.
 * Pending ACH transfers go out as one NACHA file, pending wires as one pain.001 message; either
 * can be cancelled while pending; past files can be downloaded again. Each queue is a section:
 * a new kind of work is one more section here (and in QUEUE_SECTIONS for the count).
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Payment queues", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const { staff } = await requireMoneyStaff(request, context.get(requestInfoContext));
  const [page, deposits, ach_in, adjustments, posting_requests, staff_grants] = await Promise.all([
    queuesPage(context),
    depositQueueRows(),
    achInPage(),
    adjustmentQueueRows(),
    postingRequestQueueRows(),
    staffGrantRows(),
  ]);
  return {
    ...page,
    deposits,
    ach_in,
    adjustments,
    posting_requests,
    staff_grants,
    staff_id: staff.id,
    per_file: EXPORT_PAYMENTS_MAX,
  };
}

const INTENTS = [
  "export",
  "cancel",
  "approve_deposit",
  "reject_deposit",
  "ach_upload",
  "ach_returns_export",
  "ach_return_handled",
  "ach_noc_apply",
  "ach_noc_handled",
  "ach_duplicate_post",
  "ach_duplicate_return",
  "ach_credit_release",
  "ach_credit_return",
  "approve_adjustment",
  "decline_adjustment",
  "approve_posting_request",
  "decline_posting_request",
  ...STAFF_GRANT_INTENTS,
] as const;

export async function action({ request, context }: Route.ActionArgs) {
  const { staff, role, origin } = await requireMoneyStaff(request, context.get(requestInfoContext));
  // ACH in (docs/product.md#ach-in): an upload over the inbound file limit is refused before its body is read.
  const too_large = refuseTooLarge(request);
  if (too_large)
    return data({ tone: too_large.tone, message: too_large.message } satisfies QueueActionResult, {
      status: too_large.status,
    });
  const form = await readForm(request);
  const intent = formIntent(form, INTENTS);
  if (intent === "export") {
    const kind = form.get("kind");
    if (kind !== "ach" && kind !== "wire")
      return data({ tone: "error", message: UNKNOWN_INTENT_MESSAGE } satisfies QueueActionResult, { status: 400 });
    const result = await exportQueue(kind, staff, origin);
    if (!result.ok)
      return data({ tone: "error", message: result.message } satisfies QueueActionResult, {
        status: refusalStatus(result.kind),
      });
    const f = result.file;
    const what =
      kind === "ach"
        ? `${f.payment_count} ACH ${f.payment_count === 1 ? "transfer" : "transfers"} (${formatCents(f.total_cents)})${f.verifications ? ` and micro-deposits for ${f.verifications} linked ${f.verifications === 1 ? "account" : "accounts"}` : ""}${f.pulls ? ` and ${f.pulls} ${f.pulls === 1 ? "debit" : "debits"} moving members' money in` : ""} exported as ${f.file_name}, effective ${f.effective_date}.`
        : `${f.payment_count} ${f.payment_count === 1 ? "wire" : "wires"} (${formatCents(f.total_cents)}) exported as ${f.file_name}, for ${f.effective_date}.`;
    const n = result.skipped.length;
    // One bad payment never blocks the rest (docs/product.md#payment-queues): it is named in the queue with its reason.
    const left_out =
      n === 0
        ? ""
        : ` ${n} ${n === 1 ? "payment was" : "payments were"} left out: ${n === 1 ? "it cannot" : "they cannot"} be written into the file (see the reason in the queue).`;
    return { tone: "success", message: `${what}${left_out}`, file_id: f.id } satisfies QueueActionResult;
  }
  if (intent === "cancel") {
    const payment_id = Number(form.get("payment_id"));
    const result = await cancelQueuedPayment(payment_id, { kind: "staff", ...staff }, origin);
    if (!result.ok)
      return data({ tone: "error", message: result.message } satisfies QueueActionResult, {
        status: refusalStatus(result.kind),
      });
    return {
      tone: "success",
      message: `Payment cancelled; ${formatCents(result.released_cents)} is available to the member again.`,
    } satisfies QueueActionResult;
  }
  if (intent === "approve_deposit" || intent === "reject_deposit") {
    // Mobile deposits (docs/product.md#mobile-deposit): a refused reject's message goes by its reason field.
    const deposit_id = /^\d{1,15}$/.test(String(form.get("deposit_id") ?? "")) ? Number(form.get("deposit_id")) : 0;
    // Approve may carry an exception hold staff chose (Regulation CC 229.13(c) or (e), with its reason).
    const hold =
      intent === "approve_deposit"
        ? approveHoldFrom(String(form.get("hold_exception") ?? ""), String(form.get("hold_reason") ?? ""))
        : null;
    const result =
      hold && !hold.ok
        ? hold
        : intent === "approve_deposit"
          ? await approveDeposit(deposit_id, staff, origin, hold?.ok ? hold.hold : undefined)
          : await rejectDeposit(deposit_id, String(form.get("reason") ?? ""), staff, origin);
    if (!result.ok)
      return data(
        {
          tone: "error",
          message: result.message,
          ...(result.field === "reason" || result.field === "hold_exception" || result.field === "hold_reason"
            ? { deposit_error: { deposit_id, field: result.field, message: result.message } }
            : {}),
        } satisfies QueueActionResult,
        { status: refusalStatus(result.kind) },
      );
    return { tone: "success", message: result.message } satisfies QueueActionResult;
  }
  if (intent === "approve_adjustment" || intent === "decline_adjustment") {
    // The member page's decision and answer (the maker cannot decide; a decline needs a reason).
    return decideQueuedAdjustment({ staff, role, origin, intent, form });
  }
  if (intent === "approve_posting_request" || intent === "decline_posting_request") {
    // An Add Transactions file or table held back by the dual-control rule (docs/security.md#dual-control).
    return decideQueuedPostingRequest({ staff, role, origin, intent, form });
  }
  // Staff role grants (docs/product.md#staff-role-grants): another admin than the requester decides.
  if (intent === "approve_staff_grant" || intent === "decline_staff_grant")
    return decideStaffGrant({ staff, origin, intent, form });
  if (intent === "ach_noc_apply" || intent === "ach_noc_handled") {
    // Notifications of change (docs/product.md#ach-in): a refused note goes next to its field.
    const answer = await achChange(intent, form, staff, origin);
    return data(
      { tone: answer.tone, message: answer.message, noc_error: answer.noc_error } satisfies QueueActionResult,
      { status: answer.status },
    );
  }
  if (intent === "ach_duplicate_post" || intent === "ach_duplicate_return") {
    // Possible duplicates (docs/product.md#ach-in): staff post the entry or return it as R24.
    const answer = await achDuplicate(intent, form, staff, origin);
    return data({ tone: answer.tone, message: answer.message } satisfies QueueActionResult, { status: answer.status });
  }
  if (intent === "ach_credit_release" || intent === "ach_credit_return") {
    // Incoming credits to review (docs/product.md#incoming-credits-to-review): release, or return as R17 or R23.
    const answer = await achCreditReview(intent, form, staff, origin);
    return data(
      {
        tone: answer.tone,
        message: answer.message,
        credit_review_error: answer.credit_review_error,
      } satisfies QueueActionResult,
      { status: answer.status },
    );
  }
  if (intent === "ach_upload" || intent === "ach_returns_export" || intent === "ach_return_handled") {
    const answer =
      intent === "ach_upload"
        ? await achUpload(form, staff, origin)
        : intent === "ach_returns_export"
          ? await achReturnsExport(staff, origin)
          : await achReturnHandled(form, staff, origin);
    return data({ tone: answer.tone, message: answer.message } satisfies QueueActionResult, { status: answer.status });
  }
  return data({ tone: "error", message: UNKNOWN_INTENT_MESSAGE } satisfies QueueActionResult, { status: 400 });
}

export default function Queues({ loaderData, actionData }: Route.ComponentProps) {
  const {
    counts,
    ach,
    wire,
    deposits,
    ach_in,
    adjustments,
    posting_requests,
    staff_grants,
    staff_id,
    files,
    per_file,
    verifications,
    pulls,
  } = loaderData;
  // A second approval's or a role grant's answer is shown in its own section, beside its forms.
  const queueAnswer =
    actionData &&
    !(
      "intent" in actionData && [...SECOND_APPROVAL_INTENTS, ...STAFF_GRANT_INTENTS].includes(String(actionData.intent))
    )
      ? (actionData as QueueActionResult)
      : null;
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Payment queues</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-700">
          Payments to other banks wait here, with the member&apos;s money held. Export sends every pending one in a
          single file (ACH as a NACHA file, wires as an ISO 20022 pain.001 message) and settles the holds. Cancel gives
          a pending payment&apos;s money back to the member. Mobile deposits wait for review: Approve posts the check,
          Reject tells the member why. Staff postings that credit a member above the dual-control limits wait for a
          second staff member. The Federal Reserve&apos;s inbound ACH file is uploaded here; entries that cannot post
          wait in Returned items for the return file.
        </p>
      </div>
      {queueAnswer ? <StatusLine message={queueAnswer.message} tone={queueAnswer.tone} /> : null}
      <PaymentQueue
        kind="ach"
        title={QUEUE_TITLES.ach}
        count={counts.ach ?? 0}
        rows={ach}
        fileLabel="NACHA file"
        perFile={per_file}
        verifications={verifications}
        pulls={pulls}
      />
      <PaymentQueue
        kind="wire"
        title={QUEUE_TITLES.wire}
        count={counts.wire ?? 0}
        rows={wire}
        fileLabel="pain.001 message"
        perFile={per_file}
      />
      <DepositQueue
        count={counts.deposits ?? 0}
        rows={deposits}
        error={(actionData as QueueActionResult | undefined)?.deposit_error ?? null}
      />
      <CreditReviews
        count={counts.credit_reviews ?? 0}
        rows={ach_in.credit_reviews}
        error={(actionData as QueueActionResult | undefined)?.credit_review_error ?? null}
      />
      <PossibleDuplicates count={counts.duplicates ?? 0} rows={ach_in.held} windowDays={ach_in.duplicate_window_days} />
      <ReturnedItems count={counts.returns ?? 0} rows={ach_in.returned} files={ach_in.return_files} />
      <NotificationsOfChange
        count={counts.changes ?? 0}
        rows={ach_in.changes}
        error={(actionData as QueueActionResult | undefined)?.noc_error ?? null}
      />
      <SecondApprovalQueue
        title={QUEUE_TITLES.adjustments}
        count={counts.adjustments ?? 0}
        adjustments={adjustments}
        requests={posting_requests}
        staffId={staff_id}
        result={actionData}
      />
      <StaffGrantQueue
        title={QUEUE_TITLES.staff_grants}
        count={counts.staff_grants ?? 0}
        items={staff_grants}
        staffId={staff_id}
        result={actionData}
      />
      <AchInbound files={ach_in.inbound_files} maxMegabytes={ach_in.max_megabytes} />
      <ExportFiles files={files} />
    </div>
  );
}
