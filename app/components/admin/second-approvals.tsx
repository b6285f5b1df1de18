import { Link, useNavigation } from "react-router";
import { Button, FormMessage, SchemaForm, TextField, useSchemaForm } from "~/components/ui";
import { formatCents } from "~/domain/money";
import { ApprovePostingRequestSchema, DeclinePostingRequestSchema } from "~/domain/member-accounts";
import type { AwaitingAdjustment } from "~/server/member-accounts/adjustments.server";
import type { AwaitingPostingRequest } from "~/server/postings/approvals.server";
import { useInstitutionDates } from "~/components/institution-dates";
import { StatusLine } from "./admin-shell";
import { ApprovalList } from "./approvals";
import { formMessageOf, resultFor } from "./money-result";
import { QueueSection } from "./queues";

/** A request as the page receives it (dates as ISO text). */
export type QueuedPostingRequest = Omit<AwaitingPostingRequest, "requested_at"> & { requested_at: string };

const ADJUSTMENT_INTENTS = ["approve_adjustment", "decline_adjustment"] as const;
const REQUEST_INTENTS = ["approve_posting_request", "decline_posting_request"] as const;
/** The answers this section shows (the queues page leaves them to it). */
export const SECOND_APPROVAL_INTENTS: readonly string[] = [...ADJUSTMENT_INTENTS, ...REQUEST_INTENTS];

/**
 * Staff postings waiting for a second approval (docs/product.md#payment-queues,
 * docs/security.md#dual-control), the one place approvers look: balance adjustments and Add
 * Transactions files and tables side by side, each with who asked, when, why it waits and the
 * amounts (a file's rows too); another staff member approves (it posts, all or nothing) or
 * declines with a reason. The one who asked sees their own request without the buttons (the
 * server refuses them anyway).
 */
export function SecondApprovalQueue({
  title,
  count,
  adjustments,
  requests,
  staffId,
  result,
}: {
  title: string;
  count: number;
  adjustments: AwaitingAdjustment[];
  requests: QueuedPostingRequest[];
  staffId: string;
  result: unknown;
}) {
  const answer = resultFor(result, SECOND_APPROVAL_INTENTS);
  const memberHref = (member_id: string) => `/admin?member=${encodeURIComponent(member_id)}`;
  return (
    <QueueSection id="adjustments" title={title} count={count}>
      {answer ? (
        <div className="px-4 pt-4 sm:px-5">
          <StatusLine message={answer.message} tone={answer.tone} />
        </div>
      ) : null}
      {adjustments.length === 0 && requests.length === 0 ? (
        <p className="px-5 py-8 text-center text-sm text-slate-700">Nothing is waiting.</p>
      ) : (
        <div className="space-y-5 p-4 sm:p-5">
          {adjustments.length ? (
            <section aria-labelledby="waiting-adjustments-title" className="space-y-2">
              <h3 id="waiting-adjustments-title" className="text-base font-semibold text-slate-900">
                Balance adjustments ({adjustments.length})
              </h3>
              <ApprovalList items={adjustments} staffId={staffId} result={result} memberHref={memberHref} />
            </section>
          ) : null}
          {requests.length ? (
            <section aria-labelledby="waiting-requests-title" className="space-y-2">
              <h3 id="waiting-requests-title" className="text-base font-semibold text-slate-900">
                Add Transactions ({requests.length})
              </h3>
              <ul className="space-y-3">
                {requests.map((r) => (
                  <PostingRequest key={r.id} request={r} staffId={staffId} result={result} memberHref={memberHref} />
                ))}
              </ul>
            </section>
          ) : null}
        </div>
      )}
    </QueueSection>
  );
}

function PostingRequest({
  request: r,
  staffId,
  result,
  memberHref,
}: {
  request: QueuedPostingRequest;
  staffId: string;
  result: unknown;
  memberHref: (member_id: string) => string;
}) {
  const { formatDateTime } = useInstitutionDates();
  const what = r.source === "csv" ? `CSV file ${r.file_name ?? ""}`.trim() : "Table of rows";
  const where = r.source === "csv" ? "Line" : "Row";
  return (
    <li
      aria-label={`Add Transactions request ${r.id}`}
      className="rounded-xl border border-amber-200 bg-white p-3 text-sm"
    >
      <p className="font-medium text-slate-900">
        +{formatCents(r.credit_total_cents)} in credits
        {r.debit_total_cents > 0 ? `, ${formatCents(r.debit_total_cents)} in debits` : ""} for{" "}
        <Link to={memberHref(r.member_id)} className="break-all text-brand-700 underline underline-offset-2">
          {r.member_email ?? r.member_id}
        </Link>
      </p>
      <p className="text-slate-700 [overflow-wrap:anywhere]">
        {what}, {r.row_count} {r.row_count === 1 ? "row" : "rows"} · sent by {r.requested_by_email ?? r.requested_by} on{" "}
        {formatDateTime(r.requested_at)}
      </p>
      <p className="mt-1 text-slate-900">Why it waits: {r.reason}.</p>
      {/* On a phone each row is a short block; from 640 px a table. */}
      <ul
        aria-label={`Rows of request ${r.id}`}
        className="mt-2 max-h-80 divide-y divide-slate-100 overflow-y-auto rounded-lg border border-slate-200 sm:hidden"
      >
        {r.rows.map((row) => (
          <li key={row.line} className="px-3 py-2">
            <p className="flex justify-between gap-3">
              <span className="text-slate-700">
                {where} {row.line} · {row.account}
              </span>
              <span
                className={`whitespace-nowrap font-medium tabular-nums ${row.direction === "credit" ? "text-emerald-800" : "text-slate-900"}`}
              >
                {row.direction === "credit" ? "+" : "−"}
                {formatCents(row.amount_cents)}
              </span>
            </p>
            <p className="text-slate-900 [overflow-wrap:anywhere]">{row.description}</p>
            <p className="text-slate-700">
              {row.date} · {row.status === "pending" ? "Pending" : "Completed"}
            </p>
          </li>
        ))}
      </ul>
      <div
        className="mt-2 hidden max-h-72 overflow-auto rounded-lg border border-slate-200 bg-white sm:block"
        tabIndex={0}
        role="region"
        aria-label={`Rows of request ${r.id}`}
      >
        <table className="w-full min-w-[36rem] text-left text-sm">
          <thead className="sticky top-0 bg-slate-50 text-xs uppercase tracking-wide text-slate-700">
            <tr>
              <th scope="col" className="px-2 py-1.5 font-semibold">
                {where}
              </th>
              <th scope="col" className="px-2 py-1.5 font-semibold">
                Account
              </th>
              <th scope="col" className="px-2 py-1.5 text-right font-semibold">
                Amount
              </th>
              <th scope="col" className="px-2 py-1.5 font-semibold">
                Description
              </th>
              <th scope="col" className="px-2 py-1.5 font-semibold">
                Date
              </th>
              <th scope="col" className="px-2 py-1.5 font-semibold">
                Status
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {r.rows.map((row) => (
              <tr key={row.line}>
                <td className="px-2 py-1.5 tabular-nums">{row.line}</td>
                <td className="whitespace-nowrap px-2 py-1.5">{row.account}</td>
                <td
                  className={`whitespace-nowrap px-2 py-1.5 text-right font-medium tabular-nums ${row.direction === "credit" ? "text-emerald-800" : "text-slate-900"}`}
                >
                  {row.direction === "credit" ? "+" : "−"}
                  {formatCents(row.amount_cents)}
                </td>
                <td className="px-2 py-1.5 [overflow-wrap:anywhere]">{row.description}</td>
                <td className="whitespace-nowrap px-2 py-1.5 tabular-nums">{row.date}</td>
                <td className="px-2 py-1.5">{row.status === "pending" ? "Pending" : "Completed"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {r.row_count > r.rows.length ? (
        <p className="mt-1 text-slate-700">
          The first {r.rows.length} of {r.row_count} rows are shown; approving posts all {r.row_count}.
        </p>
      ) : null}
      {r.requested_by === staffId ? (
        <p className="mt-2 text-slate-700">
          You sent these transactions: another staff member must approve or decline them.
        </p>
      ) : (
        <div className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-end">
          <ApproveRequestForm request={r} result={resultFor(result, "approve_posting_request", r.id)} />
          <DeclineRequestForm request={r} result={resultFor(result, "decline_posting_request", r.id)} />
        </div>
      )}
    </li>
  );
}

function ApproveRequestForm({
  request,
  result,
}: {
  request: QueuedPostingRequest;
  result: ReturnType<typeof resultFor>;
}) {
  const navigation = useNavigation();
  const form = useSchemaForm(ApprovePostingRequestSchema, {
    lastResult: result?.reply,
    id: `approve-request-${request.id}`,
  });
  const busy =
    navigation.state === "submitting" &&
    navigation.formData?.get("intent") === "approve_posting_request" &&
    navigation.formData?.get("request_id") === String(request.id);
  return (
    <SchemaForm form={form} method="post" preventScrollReset aria-label={`Approve request ${request.id}`}>
      <input type="hidden" name="intent" value="approve_posting_request" />
      <input type="hidden" name="request_id" value={request.id} />
      <Button type="submit" isPending={busy} pendingLabel="Approving…">
        Approve and post
      </Button>
    </SchemaForm>
  );
}

function DeclineRequestForm({
  request,
  result,
}: {
  request: QueuedPostingRequest;
  result: ReturnType<typeof resultFor>;
}) {
  const navigation = useNavigation();
  const form = useSchemaForm(DeclinePostingRequestSchema, {
    lastResult: result?.reply,
    id: `decline-request-${request.id}`,
  });
  const formMessage = formMessageOf(result);
  const busy =
    navigation.state === "submitting" &&
    navigation.formData?.get("intent") === "decline_posting_request" &&
    navigation.formData?.get("request_id") === String(request.id);
  return (
    <SchemaForm
      form={form}
      method="post"
      preventScrollReset
      aria-label={`Decline request ${request.id}`}
      className="flex min-w-0 flex-1 flex-col gap-2 sm:flex-row sm:items-end"
    >
      {formMessage ? <FormMessage tone="error">{formMessage}</FormMessage> : null}
      <input type="hidden" name="intent" value="decline_posting_request" />
      <input type="hidden" name="request_id" value={request.id} />
      <TextField name="reason" label="Reason to decline" maxLength={500} isRequired className="min-w-0 flex-1" />
      <Button type="submit" variant="secondary" isPending={busy} pendingLabel="Declining…">
        Decline
      </Button>
    </SchemaForm>
  );
}
