import { useEffect, useState } from "react";
import { Link, useFetcher } from "react-router";
import { Download, Plus, Trash2, Upload } from "lucide-react";
import { Button } from "~/components/ui";
import { StatusLine } from "./admin-shell";
import { groupAccountNumber } from "~/domain/account-display";
import {
  MEMBER_ACCOUNT_TYPE_LABELS,
  POSTING_CATEGORIES,
  POSTING_CSV_MAX_BYTES,
  POSTING_LIMITS_TEXT,
  type DraftRow,
  type LineError,
} from "~/domain/staff-postings";

/** What the Add Transactions action answers (app/routes/admin/add-transactions.tsx). */
export interface AddTransactionsResult {
  intent: "add_rows" | "upload_csv";
  message: string;
  /** "notice": accepted, but waiting for a second staff member's approval (stays until dismissed by the next answer). */
  tone: "success" | "error" | "notice";
  line_errors?: LineError[];
  where?: "line" | "row";
  /** The rows as sent, given back after a refusal so nothing typed is lost. */
  rows?: DraftRow[];
  /** After a success: the batch's key, so the form is drawn afresh for the next one. */
  batch?: string;
}

export interface AddTransactionsMember {
  user_id: string;
  email: string;
  accounts: { id: number; account_number: string; type: string; name: string; status: string }[];
}

const SUCCESS_CLEARS_AFTER_MS = 3_000;

function blankRow(account: string): DraftRow {
  return { account, type: "debit", amount: "", description: "", category: "", date: "", time: "", status: "Completed" };
}

const input =
  "block w-full min-w-0 rounded-lg border border-slate-300 bg-white px-2.5 py-2 text-sm focus:border-accent-600 focus:outline-2 focus:outline-accent-600";

/**
 * Add Transactions in the member's detail pane (docs/product.md#add-transactions): a table of draft
 * rows (add and remove; the last row stays), Download Template, and Upload CSV. Both post to
 * /admin/members/:id/transactions, which checks every row and posts all of them or none. With
 * JavaScript the answer shows here; without it the browser goes to that page, which shows it.
 */
export function AddTransactions({
  member,
  result: pageResult,
}: {
  member: AddTransactionsMember;
  result?: AddTransactionsResult;
}) {
  // One fetcher for the table and the file: its data is the answer to the latest of the two.
  const fetcher = useFetcher<AddTransactionsResult>();
  const result = fetcher.data ?? pageResult;
  const [dismissed, setDismissed] = useState<AddTransactionsResult | undefined>(undefined);
  useEffect(() => {
    if (result?.tone !== "success") return;
    const timer = setTimeout(() => setDismissed(result), SUCCESS_CLEARS_AFTER_MS);
    return () => clearTimeout(timer);
  }, [result]);
  const shown = result && result !== dismissed ? result : undefined;
  // After a success the table and the file field start afresh, with a new key for the next batch.
  const generation = result?.tone === "success" || result?.tone === "notice" ? (result.batch ?? "done") : "draft";
  const action = `/admin/members/${encodeURIComponent(member.user_id)}/transactions`;
  const open = member.accounts.filter((a) => a.status !== "closed");
  const busy = fetcher.state !== "idle";
  const busyIntent = fetcher.formData?.get("intent");
  const [fileProblem, setFileProblem] = useState<string | null>(null);
  const form = { Form: fetcher.Form, action };

  return (
    <section aria-labelledby="add-transactions-title" className="space-y-4">
      <div>
        <h3 id="add-transactions-title" className="text-base font-semibold text-brand-800">
          Add Transactions
        </h3>
        <p className="mt-1 text-sm text-slate-700">
          Each row posts to one of this member&apos;s accounts; nothing is posted unless every row is valid. Pending
          rows place a hold. Empty date and time mean now. A file holds at most {POSTING_LIMITS_TEXT}. Credits above the
          dual-control limits wait, whole, for a second staff member&apos;s approval in Payment queues.
        </p>
      </div>

      {open.length === 0 ? (
        <p className="text-sm text-slate-700">This member has no open account to post to.</p>
      ) : (
        <>
          {shown?.intent === "add_rows" ? <Result result={shown} /> : null}
          <DraftTable
            key={`table-${generation}`}
            form={form}
            accounts={open}
            initialRows={pageResult?.intent === "add_rows" ? pageResult.rows : undefined}
            busy={busy && busyIntent === "add_rows"}
          />
        </>
      )}

      <div className="flex flex-wrap items-end gap-3 border-t border-slate-200 pt-4">
        <a
          href="/admin/transactions-template.csv"
          download
          className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2.5 text-sm font-semibold text-brand-800 shadow-xs hover:bg-slate-50"
        >
          <Download className="size-4" aria-hidden="true" /> Download Template
        </a>
        <fetcher.Form
          key={`upload-${generation}`}
          method="post"
          action={action}
          encType="multipart/form-data"
          aria-label="Upload a CSV of transactions"
          className="flex w-full flex-wrap items-end gap-2 sm:w-auto"
          onSubmit={(e) => withBatchKey(e.currentTarget)}
        >
          <input type="hidden" name="intent" value="upload_csv" />
          <input type="hidden" name="idempotency_key" defaultValue="" />
          {/* On a phone the field takes the row and its input shrinks with it: at 320 px the label wraps
              and the page does not scroll sideways (a file input is about 250 px wide on its own). */}
          <div className="w-full min-w-0 sm:w-auto">
            <label htmlFor={`csv-file-${member.user_id}`} className="block text-xs font-medium text-slate-700">
              CSV file (at most {POSTING_LIMITS_TEXT})
            </label>
            <input
              id={`csv-file-${member.user_id}`}
              name="file"
              type="file"
              accept=".csv,text/csv"
              required
              aria-describedby={fileProblem ? `csv-file-problem-${member.user_id}` : undefined}
              onChange={(e) => {
                const file = e.target.files?.[0];
                // The server refuses it too, before reading it; this only says so at once.
                setFileProblem(
                  file && file.size > POSTING_CSV_MAX_BYTES
                    ? `Failed to parse CSV file: the file is ${(file.size / 1024 / 1024).toFixed(1)} MB; the limit is ${POSTING_LIMITS_TEXT} per file (split it into smaller files)`
                    : null,
                );
              }}
              className="mt-1 block w-full max-w-full text-sm sm:w-auto file:mr-3 file:rounded-lg file:border file:border-slate-300 file:bg-white file:px-3 file:py-2 file:text-sm file:font-semibold file:text-brand-800"
            />
          </div>
          <Button
            type="submit"
            variant="secondary"
            isPending={busy && busyIntent === "upload_csv"}
            pendingLabel="Uploading…"
            isDisabled={Boolean(fileProblem)}
          >
            <Upload className="size-4" aria-hidden="true" /> Upload CSV
          </Button>
          {fileProblem ? (
            <p
              id={`csv-file-problem-${member.user_id}`}
              role="alert"
              className="w-full text-sm font-medium text-red-800"
            >
              {fileProblem}
            </p>
          ) : null}
        </fetcher.Form>
        {shown?.intent === "upload_csv" ? (
          <div className="w-full">
            <Result result={shown} />
          </div>
        ) : null}
      </div>
    </section>
  );
}

/**
 * A new idempotency key for the form's batch, made in the browser on its first send and kept for
 * its repeats (a double click, a retry), so the same batch never posts twice; the form is drawn
 * afresh after a success. Without JavaScript the server makes one.
 */
function withBatchKey(form: HTMLFormElement) {
  const field = form.elements.namedItem("idempotency_key");
  if (field instanceof HTMLInputElement && !field.value) field.value = crypto.randomUUID();
}

type FetcherForm = { Form: ReturnType<typeof useFetcher>["Form"]; action: string };

/** The draft rows: add and remove (the last row stays), each row's fields posted in row order. */
function DraftTable({
  form,
  accounts,
  initialRows,
  busy,
}: {
  form: FetcherForm;
  accounts: AddTransactionsMember["accounts"];
  initialRows?: DraftRow[];
  busy: boolean;
}) {
  const firstAccount = accounts[0]?.account_number ?? "";
  const [rows, setRows] = useState<{ id: number; row: DraftRow }[]>(() =>
    (initialRows?.length ? initialRows : [blankRow(firstAccount)]).map((row, id) => ({ id, row })),
  );
  const [nextId, setNextId] = useState(rows.length);
  const update = (id: number, field: keyof DraftRow, value: string) =>
    setRows((list) => list.map((r) => (r.id === id ? { ...r, row: { ...r.row, [field]: value } } : r)));
  const addRow = () => {
    setRows((list) => [...list, { id: nextId, row: blankRow(firstAccount) }]);
    setNextId(nextId + 1);
  };
  const removeRow = (id: number) => setRows((list) => (list.length > 1 ? list.filter((r) => r.id !== id) : list));
  const Form = form.Form;
  return (
    <Form
      method="post"
      action={form.action}
      aria-label="Add transactions by hand"
      className="space-y-3"
      onSubmit={(e) => withBatchKey(e.currentTarget)}
    >
      <input type="hidden" name="intent" value="add_rows" />
      <input type="hidden" name="idempotency_key" defaultValue="" />
      <ol className="space-y-3">
        {rows.map(({ id, row }, index) => {
          const n = index + 1;
          const field = (name: keyof DraftRow) => ({
            id: `draft-${id}-${name}`,
            name,
            value: row[name],
            onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => update(id, name, e.target.value),
          });
          const label = "block text-xs font-medium text-slate-700";
          return (
            <li key={id} aria-label={`Row ${n}`} className="rounded-lg border border-slate-200 p-3">
              <div className="grid grid-cols-2 gap-2 sm:grid-cols-4">
                <div className="col-span-2">
                  <label htmlFor={`draft-${id}-account`} className={label}>
                    Row {n}: account
                  </label>
                  <select {...field("account")} className={input}>
                    {accounts.map((a) => (
                      <option key={a.id} value={a.account_number}>
                        {MEMBER_ACCOUNT_TYPE_LABELS[a.type as keyof typeof MEMBER_ACCOUNT_TYPE_LABELS] ?? a.name}{" "}
                        {groupAccountNumber(a.account_number)}
                      </option>
                    ))}
                  </select>
                </div>
                <div>
                  <label htmlFor={`draft-${id}-type`} className={label}>
                    Type
                  </label>
                  <select {...field("type")} className={input}>
                    <option value="debit">Debit</option>
                    <option value="credit">Credit</option>
                  </select>
                </div>
                <div>
                  <label htmlFor={`draft-${id}-amount`} className={label}>
                    Amount ($)
                  </label>
                  <input
                    {...field("amount")}
                    type="number"
                    inputMode="decimal"
                    min="0.01"
                    step="0.01"
                    max="1000000"
                    required
                    className={input}
                  />
                </div>
                <div className="col-span-2">
                  <label htmlFor={`draft-${id}-description`} className={label}>
                    Description
                  </label>
                  <input {...field("description")} maxLength={200} required className={input} />
                </div>
                <div>
                  <label htmlFor={`draft-${id}-category`} className={label}>
                    Category
                  </label>
                  <select {...field("category")} required className={input}>
                    <option value="">Choose…</option>
                    {POSTING_CATEGORIES.map((c) => (
                      <option key={c} value={c}>
                        {c}
                      </option>
                    ))}
                  </select>
                </div>
                <div>
                  <label htmlFor={`draft-${id}-status`} className={label}>
                    Status
                  </label>
                  <select {...field("status")} className={input}>
                    <option value="Completed">Completed</option>
                    <option value="Pending">Pending</option>
                  </select>
                </div>
                <div>
                  <label htmlFor={`draft-${id}-date`} className={label}>
                    Date
                  </label>
                  <input {...field("date")} type="date" className={input} />
                </div>
                <div>
                  <label htmlFor={`draft-${id}-time`} className={label}>
                    Time
                  </label>
                  <input {...field("time")} type="time" className={input} />
                </div>
                <div className="col-span-2 flex items-end justify-end">
                  <Button
                    type="button"
                    variant="ghost"
                    onPress={() => removeRow(id)}
                    isDisabled={rows.length === 1}
                    aria-label={`Remove row ${n}`}
                  >
                    <Trash2 className="size-4" aria-hidden="true" /> Remove
                  </Button>
                </div>
              </div>
            </li>
          );
        })}
      </ol>
      <div className="flex flex-wrap gap-2">
        <Button type="button" variant="secondary" onPress={addRow}>
          <Plus className="size-4" aria-hidden="true" /> Add row
        </Button>
        <Button type="submit" isPending={busy} pendingLabel="Adding…">
          Add Transactions
        </Button>
      </div>
    </Form>
  );
}

/** The answer: the message (red for a failure), then each line's error. */
function Result({ result }: { result: AddTransactionsResult }) {
  return (
    // A header line quoted back has no spaces to break at: it may break anywhere.
    <div className="space-y-2 [overflow-wrap:anywhere]">
      <StatusLine message={result.message} tone={result.tone} />
      {result.tone === "notice" ? (
        <p className="text-sm">
          <Link
            to="/admin/queues#adjustments-title"
            className="font-medium text-brand-700 underline underline-offset-2"
          >
            See it in Payment queues
          </Link>
        </p>
      ) : null}
      {result.line_errors?.length ? (
        <ul
          aria-label="Errors by line"
          className="max-h-64 list-disc space-y-1 overflow-y-auto pl-5 text-sm text-red-800"
        >
          {result.line_errors.map((e) => (
            <li key={`${e.line}-${e.message}`}>
              {result.where === "row" ? "Row" : "Line"} {e.line}: {e.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
