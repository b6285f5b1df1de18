import { Form, useNavigation } from "react-router";
import { Download, Send, Upload } from "lucide-react";
import { Button } from "~/components/ui";
import { formatCents } from "~/domain/money";
import { QUEUE_TITLES } from "~/domain/queues";
import { useInstitutionDates } from "~/components/institution-dates";
import { QueueSection } from "~/components/admin/queues";
import { WaitingList, itemBusy, type AsSent } from "./waiting-list";
import type { InboundFileSummary, ReturnedItem, ReturnFileSummary } from "~/server/rails/inbound-returns.server";
import type { HeldEntry } from "~/server/rails/inbound-held.server";

/**
 * ACH in on /admin/queues (docs/product.md#ach-in): the upload of the Federal Reserve's inbound
 * file with the recent ones, and Returned items: entries that could not post, waiting for the
 * return file, and returns of our own entries staff must look into, with the return files made.
 * Plain forms: everything works without JavaScript.
 */

export type ReturnedRow = AsSent<ReturnedItem>;
export type HeldRow = AsSent<Omit<HeldEntry, "earlier">> & {
  earlier: AsSent<NonNullable<HeldEntry["earlier"]>> | null;
};
export type InboundFileRow = AsSent<InboundFileSummary>;
export type ReturnFileRow = AsSent<ReturnFileSummary>;

const linkButton =
  "inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2.5 text-sm font-semibold text-brand-800 shadow-xs hover:bg-slate-50";

function busy(navigation: ReturnType<typeof useNavigation>, intent: string): boolean {
  return navigation.state !== "idle" && navigation.formData?.get("intent") === intent;
}

export function AchInbound({ files, maxMegabytes }: { files: InboundFileRow[]; maxMegabytes: number }) {
  const navigation = useNavigation();
  const { formatDateTime } = useInstitutionDates();
  return (
    <QueueSection id="ach-in" title="ACH in" count={files.length} countLabel="shown">
      <Form
        method="post"
        encType="multipart/form-data"
        className="flex flex-wrap items-end gap-3 border-b border-slate-100 px-4 py-4 sm:px-5"
      >
        <div className="min-w-0 flex-1 basis-64">
          <label htmlFor="ach-file" className="block text-sm font-semibold text-slate-900">
            Inbound NACHA file from the Federal Reserve
          </label>
          <p id="ach-file-hint" className="text-sm text-slate-700">
            At most {maxMegabytes} MB. A file breaking any NACHA rule is refused whole; the same file is never posted
            twice.
          </p>
          <input
            id="ach-file"
            name="file"
            type="file"
            required
            accept=".ach,.txt,text/plain"
            aria-describedby="ach-file-hint"
            className="mt-2 block w-full text-sm text-slate-800 file:mr-3 file:rounded-lg file:border file:border-slate-300 file:bg-white file:px-3 file:py-2 file:text-sm file:font-semibold file:text-brand-800"
          />
        </div>
        <Button
          type="submit"
          name="intent"
          value="ach_upload"
          isPending={busy(navigation, "ach_upload")}
          pendingLabel="Posting…"
        >
          <Upload className="size-4" aria-hidden="true" /> Upload and post
        </Button>
      </Form>
      {files.length === 0 ? (
        <p className="px-5 py-8 text-center text-sm text-slate-700">No inbound file has been uploaded yet.</p>
      ) : (
        <ul className="divide-y divide-slate-100">
          {files.map((f) => (
            <li
              key={f.id}
              className="flex flex-wrap items-center justify-between gap-x-6 gap-y-1 px-4 py-3 sm:px-5"
              data-testid="inbound-file"
            >
              <div className="min-w-0">
                <p className="font-mono text-sm font-semibold break-all text-slate-900">{f.file_name}</p>
                <p className="text-sm text-slate-700">
                  {f.entry_count.toLocaleString("en-US")} {f.entry_count === 1 ? "entry" : "entries"} ·{" "}
                  {f.posted_count.toLocaleString("en-US")} posted · {f.returned_count.toLocaleString("en-US")} returned
                  {f.status === "posting" ? " · posting not finished: upload the same file again to finish" : ""}
                </p>
                <p className="text-sm text-slate-700">
                  <time dateTime={f.uploaded_at}>{formatDateTime(f.uploaded_at)}</time>
                  {f.uploaded_by_email ? ` by ${f.uploaded_by_email}` : ""}
                </p>
              </div>
              <p className="text-sm text-slate-900 tabular-nums md:text-right">
                {formatCents(f.credit_total_cents)} in
                <br />
                {formatCents(f.debit_total_cents)} out
              </p>
            </li>
          ))}
        </ul>
      )}
    </QueueSection>
  );
}

export function ReturnedItems({ count, rows, files }: { count: number; rows: ReturnedRow[]; files: ReturnFileRow[] }) {
  const navigation = useNavigation();
  const { formatDateTime } = useInstitutionDates();
  const waiting = rows.filter((r) => r.status === "returned");
  const action =
    waiting.length > 0 ? (
      <Form method="post">
        <Button
          type="submit"
          name="intent"
          value="ach_returns_export"
          isPending={busy(navigation, "ach_returns_export")}
          pendingLabel="Exporting…"
        >
          <Send className="size-4" aria-hidden="true" /> Export return file
        </Button>
      </Form>
    ) : null;
  return (
    <QueueSection id="returns" title={QUEUE_TITLES.returns} count={count} action={action}>
      <WaitingList count={count} shown={rows.length}>
        {rows.map((r) => (
          <li
            key={r.id}
            className="grid gap-x-6 gap-y-1 px-4 py-4 sm:px-5 md:grid-cols-[minmax(0,1.2fr)_minmax(0,1.6fr)_auto] md:items-center"
            data-testid="returned-item"
          >
            <div className="min-w-0">
              <p className="font-semibold text-slate-900">
                {r.company_name}{" "}
                <span className="font-normal text-slate-700">to {r.individual_name || "(no name)"}</span>
              </p>
              <p className="text-sm text-slate-700">
                {r.kind === "debit" ? "Debit" : r.kind === "credit" ? "Credit" : "Return"} · account {r.account}
              </p>
            </div>
            <div className="min-w-0">
              <p className="text-sm text-slate-900">
                <span
                  className={`mr-2 rounded-full px-2 py-0.5 text-xs font-semibold ${r.status === "unmatched" ? "bg-amber-100 text-amber-900" : "bg-red-100 text-red-900"}`}
                >
                  {r.return_code}
                </span>
                {r.status === "unmatched" ? "Look into it: " : ""}
                {r.reason}
              </p>
              <p className="text-sm break-words text-slate-700">
                Trace <span className="font-mono text-xs">{r.trace_number}</span> · {r.file_name} line {r.line} ·{" "}
                <time dateTime={r.received_at}>{formatDateTime(r.received_at)}</time>
              </p>
            </div>
            <p className="text-base font-semibold text-slate-900 tabular-nums md:text-right">
              {formatCents(r.amount_cents)}
            </p>
            {r.status === "unmatched" ? (
              <Form method="post" className="flex flex-wrap items-end gap-3 md:col-span-3">
                <input type="hidden" name="entry_id" value={r.id} />
                <div className="min-w-0 flex-1 basis-64">
                  <label htmlFor={`handled-${r.id}`} className="block text-sm font-semibold text-slate-900">
                    What was done
                  </label>
                  <input
                    id={`handled-${r.id}`}
                    name="note"
                    required
                    maxLength={500}
                    className="mt-1 block w-full rounded-lg border border-slate-300 px-3 py-2 text-sm text-slate-900"
                  />
                </div>
                <Button
                  type="submit"
                  name="intent"
                  value="ach_return_handled"
                  variant="secondary"
                  isPending={busy(navigation, "ach_return_handled")}
                  pendingLabel="Saving…"
                >
                  Mark as handled
                </Button>
              </Form>
            ) : null}
          </li>
        ))}
      </WaitingList>
      {files.length > 0 ? (
        <div className="border-t border-slate-100">
          <h3 className="px-4 pt-3 text-sm font-semibold text-slate-900 sm:px-5">Return files</h3>
          <ul className="divide-y divide-slate-100">
            {files.map((f) => (
              <li
                key={f.id}
                className="flex flex-wrap items-center justify-between gap-3 px-4 py-3 sm:px-5"
                data-testid="return-file"
              >
                <div className="min-w-0">
                  <p className="font-mono text-sm font-semibold break-all text-slate-900">{f.file_name}</p>
                  <p className="text-sm text-slate-700">
                    {f.entry_count} {f.entry_count === 1 ? "return" : "returns"} ·{" "}
                    {formatCents(f.credit_total_cents + f.debit_total_cents)} ·{" "}
                    <time dateTime={f.created_at}>{formatDateTime(f.created_at)}</time>
                    {f.created_by_email ? ` by ${f.created_by_email}` : ""}
                  </p>
                </div>
                <a
                  href={`/admin/queues/returns/${f.id}`}
                  download
                  className={linkButton}
                  aria-label={`Download ${f.file_name}`}
                >
                  <Download className="size-4" aria-hidden="true" /> Download
                </a>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </QueueSection>
  );
}

/**
 * Possible duplicates: entries repeating one received in the last few business days (same trace
 * number, amount, effective date and account), held with no money moved. Post if the company
 * really sent two; Return sends it back as R24 (Duplicate entry) in the next return file.
 */
export function PossibleDuplicates({
  count,
  rows,
  windowDays,
}: {
  count: number;
  rows: HeldRow[];
  windowDays: number;
}) {
  const navigation = useNavigation();
  const { formatDateTime } = useInstitutionDates();
  return (
    <QueueSection id="duplicates" title={QUEUE_TITLES.duplicates} count={count}>
      {rows.length > 0 ? (
        <p className="px-4 pt-3 text-sm text-slate-700 sm:px-5">
          Each repeats an entry received in the last {windowDays} business days with the same trace number, amount,
          effective date and account. Nothing has moved: Post it if the company really sent it twice, Return it as a
          duplicate otherwise.
        </p>
      ) : null}
      <WaitingList count={count} shown={rows.length}>
        {rows.map((r) => (
          <li
            key={r.id}
            className="grid gap-x-6 gap-y-1 px-4 py-4 sm:px-5 md:grid-cols-[minmax(0,1.2fr)_minmax(0,1.6fr)_auto_auto] md:items-center"
            data-testid="held-entry"
          >
            <div className="min-w-0">
              <p className="font-semibold text-slate-900">
                {r.company_name} {r.entry_description}{" "}
                <span className="font-normal text-slate-700">to {r.individual_name || "(no name)"}</span>
              </p>
              <p className="text-sm text-slate-700">
                {r.kind === "debit" ? "Debit" : "Credit"} · account {r.account} · effective {r.effective_date}
              </p>
            </div>
            <div className="min-w-0">
              <p className="text-sm text-slate-900">
                <span className="rounded-full bg-amber-100 px-2 py-0.5 text-xs font-semibold text-amber-900">
                  Possible duplicate
                </span>{" "}
                {r.earlier ? (
                  <>
                    of {r.earlier.file_name} line {r.earlier.line} ({r.earlier.status},{" "}
                    <time dateTime={r.earlier.received_at}>{formatDateTime(r.earlier.received_at)}</time>)
                  </>
                ) : null}
              </p>
              <p className="text-sm break-words text-slate-700">
                Trace <span className="font-mono text-xs">{r.trace_number}</span> · {r.file_name} line {r.line} ·{" "}
                <time dateTime={r.received_at}>{formatDateTime(r.received_at)}</time>
              </p>
            </div>
            <p className="text-base font-semibold text-slate-900 tabular-nums md:text-right">
              {formatCents(r.amount_cents)}
            </p>
            <Form method="post" className="flex flex-wrap gap-2">
              <input type="hidden" name="entry_id" value={r.id} />
              <Button
                type="submit"
                name="intent"
                value="ach_duplicate_post"
                variant="secondary"
                aria-label={`Post the ${r.kind} of ${formatCents(r.amount_cents)} from ${r.company_name}, trace ${r.trace_number}`}
                isPending={itemBusy(navigation, "ach_duplicate_post", "entry_id", r.id)}
                pendingLabel="Posting…"
              >
                Post
              </Button>
              <Button
                type="submit"
                name="intent"
                value="ach_duplicate_return"
                variant="secondary"
                aria-label={`Return the ${r.kind} of ${formatCents(r.amount_cents)} from ${r.company_name}, trace ${r.trace_number}, as a duplicate`}
                isPending={itemBusy(navigation, "ach_duplicate_return", "entry_id", r.id)}
                pendingLabel="Returning…"
              >
                Return
              </Button>
            </Form>
          </li>
        ))}
      </WaitingList>
    </QueueSection>
  );
}
