import { useState } from "react";
import { Form, useNavigation } from "react-router";
import { Download, Send } from "lucide-react";
import { Button } from "~/components/ui";
import { formatCents } from "~/domain/money";
import { useInstitutionDates } from "~/components/institution-dates";
import type { ExportFileSummary } from "~/server/rails/export.server";
import type { QueuedPayment } from "~/server/rails/queues.server";
import type { AsSent } from "./waiting-list";

/**
 * The sections of /admin/queues (docs/product.md#payment-queues). `QueueSection` is the frame
 * every queue shares (title, count, the action on the whole queue, the rows); a new queue
 * (mobile deposits to review, adjustments awaiting a second approval, returned items) renders
 * its own rows inside one.
 */

export interface QueueActionResult {
  tone: "success" | "error";
  message: string;
  file_id?: number;
  /** A refused mobile-deposit decision: shown next to that deposit's reason field. */
  deposit_error?: { deposit_id: number; field?: string; message: string };
  /** A refused Mark as handled of a notification of change: shown next to its note field. */
  noc_error?: { noc_id: number; message: string };
  /** A refused Return of a credit to review: shown next to its reason field. */
  credit_review_error?: { review_id: number; message: string };
}

export type QueueRow = AsSent<Omit<QueuedPayment, "kind">>;
export type ExportFileRow = AsSent<ExportFileSummary>;

export function QueueSection({
  id,
  title,
  count,
  countLabel = "waiting",
  action,
  children,
}: {
  id: string;
  title: string;
  count: number;
  /** What the count counts, for screen readers: "waiting" (a queue) or "shown" (a list). */
  countLabel?: string;
  action?: React.ReactNode;
  children: React.ReactNode;
}) {
  return (
    <section
      aria-labelledby={`${id}-title`}
      className="rounded-2xl border border-slate-200 bg-white shadow-sm"
      data-testid={`queue-${id}`}
    >
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-100 px-4 py-4 sm:px-5">
        <h2 id={`${id}-title`} className="flex items-center gap-2 text-lg font-semibold text-brand-800">
          {title}
          <span
            className="rounded-full bg-slate-100 px-2.5 py-0.5 text-sm font-semibold text-slate-800"
            aria-label={`${count} ${countLabel}`}
          >
            {count}
          </span>
        </h2>
        {action}
      </div>
      {children}
    </section>
  );
}

function busyWith(navigation: ReturnType<typeof useNavigation>, intent: string, value: string): boolean {
  const form = navigation.formData;
  return (
    navigation.state !== "idle" &&
    form?.get("intent") === intent &&
    (form.get("kind") === value || form.get("payment_id") === value)
  );
}

export function PaymentQueue({
  kind,
  title,
  count,
  rows,
  fileLabel,
  perFile,
  verifications = 0,
  pulls = 0,
}: {
  kind: "ach" | "wire";
  title: string;
  /** Payments waiting, plus (ACH) the linked accounts whose micro-deposits wait. */
  count: number;
  rows: QueueRow[];
  fileLabel: string;
  perFile: number;
  /** ACH: linked accounts whose micro-deposits go with the next file (docs/product.md#linked-accounts). */
  verifications?: number;
  /** ACH: money members move in from linked accounts, debits that go with the next file (docs/product.md#move-money-in). */
  pulls?: number;
}) {
  // Counted beside the payments but not listed with them.
  const others = verifications + pulls;
  const navigation = useNavigation();
  const { formatDateTime } = useInstitutionDates();
  // Left out of the file (an account not active, a payment the file cannot carry): not counted as going out.
  // The page's own time, for the remittance windows (docs/product.md#remittance-transfers): a wire
  // still inside its member's 30 minutes is shown with its time and not counted as going out.
  const [now] = useState(() => new Date().toISOString());
  const going = rows.filter(
    (r) =>
      r.account_active &&
      r.export_problem === null &&
      (r.cancel_until === null || Date.parse(r.cancel_until) <= Date.parse(now)),
  );
  const sendable = going.length;
  const total_cents = going.reduce((sum, r) => sum + r.amount_cents, 0);
  // Every payment shown waits for staff (an account not active, a payment the file cannot carry) and none is beyond the list: nothing to export.
  const action =
    count > 0 && sendable === 0 && others === 0 && count <= rows.length ? (
      <p className="text-sm text-slate-700">
        {rows.some((r) => r.cancel_until !== null && Date.parse(r.cancel_until) > Date.parse(now))
          ? "None can be exported now: each waits for staff or for its member's 30-minute cancellation window."
          : "None can be exported now: each waits for staff."}
      </p>
    ) : count > 0 ? (
      <Form method="post" className="flex flex-wrap items-center gap-3">
        <input type="hidden" name="kind" value={kind} />
        <p className="text-sm text-slate-700">
          {formatCents(total_cents)} in {sendable} {sendable === 1 ? "payment" : "payments"}
          {count - others > rows.length ? " shown" : ""}
          {verifications > 0
            ? `, with micro-deposits for ${verifications} linked ${verifications === 1 ? "account" : "accounts"}`
            : ""}
          {pulls > 0 ? `, with ${pulls} ${pulls === 1 ? "debit" : "debits"} moving members' money in` : ""}
        </p>
        <Button
          type="submit"
          name="intent"
          value="export"
          isPending={busyWith(navigation, "export", kind)}
          pendingLabel="Exporting…"
        >
          <Send className="size-4" aria-hidden="true" /> Export as {fileLabel}
        </Button>
      </Form>
    ) : null;
  return (
    <QueueSection id={kind} title={title} count={count} action={action}>
      {rows.length === 0 ? (
        <p className="px-5 py-8 text-center text-sm text-slate-700">Nothing is waiting.</p>
      ) : (
        <>
          {count - others > rows.length ? (
            <p className="px-5 pt-3 text-sm text-slate-700">
              The oldest {rows.length} of {count} are shown.
              {count > perFile
                ? ` Export sends the oldest ${perFile.toLocaleString("en-US")}; the rest wait for the next file.`
                : " Export sends them all."}
            </p>
          ) : null}
          <ul className="divide-y divide-slate-100">
            {rows.map((r) => (
              <li
                key={r.id}
                className="grid gap-x-6 gap-y-2 px-4 py-4 sm:px-5 md:grid-cols-[minmax(0,1.2fr)_minmax(0,1.4fr)_auto_auto] md:items-center"
                data-testid="queued-payment"
              >
                <div className="min-w-0">
                  <p className="font-semibold text-slate-900">{r.member_name}</p>
                  <p className="truncate text-sm text-slate-700">{r.member_email}</p>
                  <p className="text-sm text-slate-700">
                    From {r.from_account}
                    {r.account_active ? null : (
                      <span className="ml-2 rounded-full bg-red-100 px-2 py-0.5 text-xs font-semibold text-red-900">
                        Account not active: waits
                      </span>
                    )}
                  </p>
                </div>
                <div className="min-w-0">
                  <p className="font-medium text-slate-900">To {r.payee}</p>
                  <p className="text-sm text-slate-700">{r.payee_bank}</p>
                  <p className="text-sm text-slate-700">
                    <span className="font-mono text-xs">{r.reference_number}</span> ·{" "}
                    <time dateTime={r.created_at}>{formatDateTime(r.created_at)}</time>
                  </p>
                  {r.cancel_until && Date.parse(r.cancel_until) > Date.parse(now) ? (
                    <p className="mt-1 text-sm text-amber-900" data-testid="cancel-window">
                      The member may cancel until{" "}
                      <time dateTime={r.cancel_until}>{formatDateTime(r.cancel_until)}</time>; the first export after
                      that takes it.
                    </p>
                  ) : null}
                  {r.export_problem ? (
                    <p
                      className="mt-1 rounded-lg bg-red-50 px-3 py-2 text-sm text-red-900"
                      data-testid="export-problem"
                    >
                      <span className="font-semibold">Left out of the file.</span> {r.export_problem}
                    </p>
                  ) : null}
                </div>
                <div className="md:text-right">
                  <p className="text-base font-semibold text-slate-900 tabular-nums">
                    {r.foreign_amount ?? formatCents(r.amount_cents)}
                  </p>
                  {r.foreign_amount ? (
                    <p className="text-sm text-slate-700 tabular-nums">
                      {formatCents(r.amount_cents)} + {formatCents(r.fee_cents)} fee
                    </p>
                  ) : null}
                </div>
                <Form method="post">
                  <input type="hidden" name="payment_id" value={r.id} />
                  <Button
                    type="submit"
                    name="intent"
                    value="cancel"
                    variant="secondary"
                    aria-label={`Cancel ${r.reference_number} to ${r.payee}`}
                    isPending={busyWith(navigation, "cancel", String(r.id))}
                    pendingLabel="Cancelling…"
                  >
                    Cancel
                  </Button>
                </Form>
              </li>
            ))}
          </ul>
        </>
      )}
    </QueueSection>
  );
}

export function ExportFiles({ files }: { files: ExportFileRow[] }) {
  const { formatDateTime } = useInstitutionDates();
  return (
    <QueueSection id="files" title="Export files" count={files.length} countLabel="shown">
      {files.length === 0 ? (
        <p className="px-5 py-8 text-center text-sm text-slate-700">No file has been exported yet.</p>
      ) : (
        <ul className="divide-y divide-slate-100">
          {files.map((f) => (
            <li
              key={f.id}
              className="flex flex-wrap items-center justify-between gap-3 px-4 py-3 sm:px-5"
              data-testid="export-file"
            >
              <div className="min-w-0">
                <p className="font-mono text-sm font-semibold break-all text-slate-900">{f.file_name}</p>
                <p className="text-sm text-slate-700">
                  {f.kind === "ach" ? "ACH" : "Wires"} · {f.payment_count}{" "}
                  {f.payment_count === 1 ? "payment" : "payments"} · {formatCents(f.total_cents)} ·{" "}
                  {f.kind === "ach" ? "effective" : "for"} {f.effective_date}
                </p>
                <p className="text-sm text-slate-700">
                  <time dateTime={f.created_at}>{formatDateTime(f.created_at)}</time>
                  {f.created_by_email ? ` by ${f.created_by_email}` : ""}
                </p>
              </div>
              <a
                href={`/admin/queues/files/${f.id}`}
                download
                className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2.5 text-sm font-semibold text-brand-800 shadow-xs hover:bg-slate-50"
                aria-label={`Download ${f.file_name}`}
              >
                <Download className="size-4" aria-hidden="true" /> Download
              </a>
            </li>
          ))}
        </ul>
      )}
    </QueueSection>
  );
}
