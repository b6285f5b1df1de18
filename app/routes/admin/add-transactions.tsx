import crypto from "node:crypto";
import { data, Link } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/add-transactions";
import { requestInfoContext } from "~/context";
import { pageTitle } from "~/components/site/page-title";
import { AddTransactions, type AddTransactionsResult } from "~/components/admin/add-transactions";
import { requireMoneyStaff } from "~/server/postings/access.server";
import type { AddTransactionsResult as ServiceResult } from "~/server/postings/add-transactions.server";
import { memberForPostings, postTransactions } from "./add-transactions.server";
import { readPostingsCsv, tooLargeMessage } from "~/server/postings/csv.server";
import { readForm, refusalStatus } from "~/server/http/form.server";
import { logger } from "~/server/logger.server";
import { DRAFT_FIELDS, POSTING_CSV_MAX_BYTES, POSTING_ROWS_MAX, type DraftRow } from "~/domain/staff-postings";

/**
 * Add Transactions for one member (docs/product.md#add-transactions): the action behind the
 * detail pane's draft-row table and Upload CSV, and a page of its own that shows the same form
 * and its answer when the browser runs no JavaScript. Staff who may move money only.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Add Transactions", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  await requireMoneyStaff(request, context.get(requestInfoContext));
  const member = await memberForPostings(params.memberId);
  if (!member) throw data({ form_error: "This member was not found." }, { status: 404 });
  return {
    member: {
      user_id: member.user_id,
      email: member.email,
      accounts: member.accounts.map((a) => ({
        id: a.id,
        account_number: a.account_number,
        type: a.type,
        name: a.name,
        status: a.status,
      })),
    },
  };
}

/** Room for the form's other fields and the multipart framing around the file. */
const FORM_OVERHEAD_BYTES = 16 * 1024;
const KEY = /^[A-Za-z0-9-]{16,64}$/;

export async function action({ request, context, params }: Route.ActionArgs) {
  const info = context.get(requestInfoContext);
  const { staff, origin } = await requireMoneyStaff(request, info);
  // A file over the limit is refused from its declared length, before the body is read (the
  // request guards make every post declare it: docs/decisions/0003-request-guards.md).
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > POSTING_CSV_MAX_BYTES + FORM_OVERHEAD_BYTES) {
    return data(
      {
        intent: "upload_csv",
        message: `Failed to parse CSV file: ${tooLargeMessage(declared)}`,
        tone: "error",
      } satisfies AddTransactionsResult,
      { status: 413 },
    );
  }
  const form = await readForm(request);
  const intent =
    form.get("intent") === "upload_csv" ? "upload_csv" : form.get("intent") === "add_rows" ? "add_rows" : null;
  if (!intent)
    return data(
      {
        intent: "add_rows",
        message: "Failed to add transactions: unknown action.",
        tone: "error",
      } satisfies AddTransactionsResult,
      { status: 400 },
    );
  const posted_key = String(form.get("idempotency_key") ?? "");
  const batch_key = KEY.test(posted_key) ? `postings-${posted_key}` : `postings-${crypto.randomUUID()}`;
  const member_id = params.memberId;

  if (intent === "upload_csv") {
    const file = form.get("file");
    if (!(file instanceof File) || file.size === 0)
      return data(
        {
          intent,
          message: "Failed to parse CSV file: please choose a CSV file.",
          tone: "error",
        } satisfies AddTransactionsResult,
        { status: 400 },
      );
    if (file.size > POSTING_CSV_MAX_BYTES)
      return data(
        {
          intent,
          message: `Failed to parse CSV file: ${tooLargeMessage(file.size)}`,
          tone: "error",
        } satisfies AddTransactionsResult,
        { status: 413 },
      );
    const read = readPostingsCsv(new Uint8Array(await file.arrayBuffer()));
    if (!read.ok)
      return data(
        {
          intent,
          message: `Failed to parse CSV file: ${read.message}`,
          tone: "error",
          line_errors: read.line_errors,
          where: "line",
        } satisfies AddTransactionsResult,
        { status: 400 },
      );
    const result = await run(
      () =>
        postTransactions({
          member_id,
          staff,
          rows: read.rows,
          batch_key,
          source: "csv",
          origin,
          file_name: file.name.slice(0, 200),
        }),
      info.request_id,
    );
    return answer(intent, result, batch_key);
  }

  // The table: each field posted once per row, in row order.
  const columns = DRAFT_FIELDS.map((name) => form.getAll(name).map((v) => (typeof v === "string" ? v : "")));
  const count = columns[0]!.length;
  if (count === 0 || count > POSTING_ROWS_MAX || columns.some((c) => c.length !== count)) {
    return data(
      {
        intent,
        message: "Failed to add transactions: the rows could not be read. Please reload the page and try again.",
        tone: "error",
      } satisfies AddTransactionsResult,
      { status: 400 },
    );
  }
  const rows = Array.from(
    { length: count },
    (_, i) =>
      Object.fromEntries(DRAFT_FIELDS.map((name, f) => [name, columns[f]![i]!.slice(0, 1_000)])) as unknown as DraftRow,
  );
  const result = await run(
    () =>
      postTransactions({
        member_id,
        staff,
        rows: rows.map((raw, i) => ({ line: i + 1, raw })),
        batch_key,
        source: "table",
        origin,
      }),
    info.request_id,
  );
  return answer(intent, result, batch_key, rows);
}

type Outcome = ServiceResult | { ok: false; code: "failed"; reference: string };

/** An unexpected failure (the database went away) posts nothing: said, logged, never a bare 500 page. */
async function run(work: () => Promise<ServiceResult>, request_id: string): Promise<Outcome> {
  try {
    return await work();
  } catch (error) {
    logger.error({ err: error }, "add transactions failed");
    return { ok: false, code: "failed", reference: request_id };
  }
}

function answer(intent: AddTransactionsResult["intent"], result: Outcome, batch: string, rows?: DraftRow[]) {
  const where = intent === "upload_csv" ? "line" : "row";
  if (result.ok && result.status === "added")
    return {
      intent,
      message: "Transactions added successfully!",
      tone: "success",
      batch,
    } satisfies AddTransactionsResult;
  // Accepted as one request (docs/security.md#dual-control): the form starts afresh like after a success.
  if (result.ok) return { intent, message: result.message, tone: "notice", batch } satisfies AddTransactionsResult;
  if (result.code === "failed")
    return data(
      {
        intent,
        message: `Failed to add transactions: something went wrong and nothing was posted. Please try again (reference ${result.reference}).`,
        tone: "error",
        rows,
      } satisfies AddTransactionsResult,
      { status: 500 },
    );
  if (result.code === "invalid")
    return data(
      {
        intent,
        message:
          intent === "upload_csv"
            ? `Failed to parse CSV file: ${result.message}`
            : `Failed to add transactions: ${result.message}`,
        tone: "error",
        line_errors: result.line_errors,
        where,
        rows,
      } satisfies AddTransactionsResult,
      { status: refusalStatus(result.kind) },
    );
  if (result.code === "member_not_found")
    return data(
      {
        intent,
        message: "Failed to add transactions: this member was not found.",
        tone: "error",
      } satisfies AddTransactionsResult,
      { status: refusalStatus(result.kind) },
    );
  return data(
    {
      intent,
      message: `Failed to add transactions: ${result.message}. Nothing was posted.`,
      tone: "error",
      rows,
    } satisfies AddTransactionsResult,
    { status: refusalStatus(result.kind) },
  );
}

export default function AddTransactionsPage({ loaderData, actionData }: Route.ComponentProps) {
  const { member } = loaderData;
  return (
    <div className="mx-auto max-w-5xl space-y-5">
      <Link
        to={`/admin?member=${encodeURIComponent(member.user_id)}`}
        className="inline-flex items-center gap-1.5 text-sm font-medium text-brand-700 underline underline-offset-2"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Back to {member.email}
      </Link>
      <h1 className="text-2xl font-semibold tracking-tight text-brand-800">Add Transactions: {member.email}</h1>
      <div className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
        <AddTransactions member={member} result={actionData as AddTransactionsResult | undefined} />
      </div>
    </div>
  );
}
