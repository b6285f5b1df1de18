import { data, useNavigation } from "react-router";
import type { Route } from "./+types/entries";
import { requestInfoContext } from "~/context";
import { requireBooksReader } from "~/server/admin/context.server";
import { parseSubmission, readForm, replyTo, refusalStatus, type FormReply } from "~/server/http/form.server";
import { pageTitle } from "~/components/site/page-title";
import { StatusBadge, StatusLine } from "~/components/admin/admin-shell";
import { Button, Select, SchemaForm, TextArea, TextField, useSchemaForm } from "~/components/ui";
import { useInstitutionDates } from "~/components/institution-dates";
import { formatCents } from "~/domain/money";
import {
  ApproveGlEntrySchema,
  GL_ACCOUNTS,
  GL_MEMO_MAX,
  GL_MESSAGES,
  ProposeGlEntrySchema,
  RejectGlEntrySchema,
} from "~/domain/books";
import { INSTITUTION_ACCOUNT_LABELS } from "~/components/books/books-parts";
import { decideGlEntryFor, glEntriesFor, proposeGlEntryFor } from "./books.server";

/**
 * /admin/books/entries (docs/product.md#books): general-ledger entries between institution
 * accounts under dual control. Staff or an accountant propose; another of them approves (the
 * ledger posts it then) or rejects with a reason; never the same person.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("General ledger entries", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const { user } = await requireBooksReader(request, context.get(requestInfoContext));
  return { me: user.id, entries: await glEntriesFor() };
}

type Intent = "propose" | "approve" | "reject";
type ActionResult =
  | { ok: true; intent: Intent; target: string; message: string }
  | { ok: false; intent: Intent; target: string; reply: FormReply; message: string };

export async function action({ request, context }: Route.ActionArgs) {
  const { staff, origin } = await requireBooksReader(request, context.get(requestInfoContext));
  const form = await readForm(request);
  const intent = form.get("intent");
  const target = String(form.get("entry_id") ?? "new");
  if (intent === "propose") {
    const parsed = parseSubmission(ProposeGlEntrySchema, form);
    if (parsed.status !== "success")
      return data(
        {
          ok: false,
          intent,
          target,
          reply: replyTo(parsed),
          message: "Nothing was proposed: please check the form.",
        } satisfies ActionResult,
        { status: 400 },
      );
    await proposeGlEntryFor({
      debit_account: parsed.value.debit_account,
      credit_account: parsed.value.credit_account,
      amount_cents: parsed.value.amount,
      memo: parsed.value.memo,
      staff,
      origin,
    });
    return { ok: true, intent, target, message: GL_MESSAGES.proposed } satisfies ActionResult;
  }
  if (intent === "approve" || intent === "reject") {
    const parsed = parseSubmission(intent === "approve" ? ApproveGlEntrySchema : RejectGlEntrySchema, form);
    if (parsed.status !== "success")
      return data(
        {
          ok: false,
          intent,
          target,
          reply: replyTo(parsed),
          message: "Nothing was decided: please check the form.",
        } satisfies ActionResult,
        { status: 400 },
      );
    const decided = await decideGlEntryFor({
      entry_id: parsed.value.entry_id,
      decision: intent,
      reason: "reason" in parsed.value ? String(parsed.value.reason) : undefined,
      staff,
      origin,
    });
    if (!decided.ok)
      return data(
        {
          ok: false,
          intent,
          target,
          reply: replyTo(parsed, { formErrors: [decided.message] }),
          message: decided.message,
        } satisfies ActionResult,
        { status: refusalStatus(decided.kind) },
      );
    return { ok: true, intent, target, message: decided.message } satisfies ActionResult;
  }
  return data({ form_error: "The form could not be read. Please reload the page and try again." }, { status: 400 });
}

const ACCOUNT_OPTIONS = GL_ACCOUNTS.map((value) => ({ value, label: INSTITUTION_ACCOUNT_LABELS[value] }));

export default function GlEntriesPage({ loaderData, actionData }: Route.ComponentProps) {
  const result = actionData as ActionResult | undefined;
  const navigation = useNavigation();
  const { formatDateTime } = useInstitutionDates();
  const propose = useSchemaForm(ProposeGlEntrySchema, {
    id: "propose-gl-entry",
    lastResult: result && !result.ok && result.intent === "propose" ? result.reply : undefined,
  });
  const waiting = loaderData.entries.filter((e) => e.status === "awaiting_approval");
  const decided = loaderData.entries.filter((e) => e.status !== "awaiting_approval");
  return (
    <div className="space-y-5">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">General ledger entries</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-700">
          Move money between two of the institution&apos;s own accounts (never a member&apos;s). An entry posts only
          when another accountant or staff member approves it.
        </p>
      </div>
      <section aria-labelledby="propose-heading" className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm">
        <h2 id="propose-heading" className="text-base font-semibold text-slate-900">
          Propose an entry
        </h2>
        <SchemaForm form={propose} method="post" className="mt-3 grid gap-4 sm:grid-cols-2">
          <input type="hidden" name="intent" value="propose" />
          <Select
            name="debit_account"
            label="Debit (money out of)"
            options={ACCOUNT_OPTIONS}
            placeholder="Choose an account"
            isRequired
          />
          <Select
            name="credit_account"
            label="Credit (money into)"
            options={ACCOUNT_OPTIONS}
            placeholder="Choose an account"
            isRequired
          />
          <TextField name="amount" label="Amount" prefix="$" inputMode="decimal" autoComplete="off" isRequired />
          <TextField name="memo" label="Description" maxLength={GL_MEMO_MAX} autoComplete="off" isRequired />
          <div className="sm:col-span-2">
            <Button type="submit" isPending={navigation.state === "submitting"} pendingLabel="Proposing…">
              Propose entry
            </Button>
          </div>
        </SchemaForm>
        {result?.intent === "propose" ? (
          <div className="mt-3">
            <StatusLine tone={result.ok ? "notice" : "error"} message={result.message} />
          </div>
        ) : null}
      </section>
      <section aria-labelledby="waiting-heading" className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <h2 id="waiting-heading" className="border-b border-slate-200 px-4 py-3 text-base font-semibold text-slate-900">
          Waiting for approval ({waiting.length})
        </h2>
        {waiting.length === 0 ? (
          <p className="px-4 py-4 text-sm text-slate-700">No entry is waiting.</p>
        ) : (
          <ul className="divide-y divide-slate-100">
            {waiting.map((e) => (
              <WaitingEntry
                key={e.id}
                entry={e}
                mine={e.requested_by === loaderData.me}
                result={result && result.target === String(e.id) ? result : undefined}
                when={formatDateTime(e.requested_at)}
              />
            ))}
          </ul>
        )}
      </section>
      {result && result.intent !== "propose" && result.ok ? (
        <StatusLine tone="success" message={result.message} />
      ) : null}
      <section aria-labelledby="decided-heading" className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <h2 id="decided-heading" className="border-b border-slate-200 px-4 py-3 text-base font-semibold text-slate-900">
          Decided
        </h2>
        {decided.length === 0 ? (
          <p className="px-4 py-4 text-sm text-slate-700">None yet.</p>
        ) : (
          <ul className="divide-y divide-slate-100">
            {decided.map((e) => (
              <li key={e.id} className="space-y-1 px-4 py-3 text-sm">
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <span className="font-medium text-slate-900">
                    Entry {e.id}: {formatCents(e.amount_cents)} from{" "}
                    {INSTITUTION_ACCOUNT_LABELS[e.debit_account as keyof typeof INSTITUTION_ACCOUNT_LABELS]} to{" "}
                    {INSTITUTION_ACCOUNT_LABELS[e.credit_account as keyof typeof INSTITUTION_ACCOUNT_LABELS]}
                  </span>
                  <StatusBadge status={e.status === "posted" ? "approved" : "rejected"} />
                </div>
                <p className="text-slate-700">{e.memo}</p>
                <p className="text-xs text-slate-600">
                  Proposed by {e.requested_by_email}; {e.status === "posted" ? "approved" : "rejected"} by{" "}
                  {e.decided_by_email}
                  {e.decided_at ? ` ${formatDateTime(e.decided_at)}` : ""}
                  {e.transaction_id ? ` · transaction ${e.transaction_id}` : ""}
                  {e.reject_reason ? ` · reason: ${e.reject_reason}` : ""}
                </p>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function WaitingEntry({
  entry,
  mine,
  result,
  when,
}: {
  entry: Route.ComponentProps["loaderData"]["entries"][number];
  mine: boolean;
  result: ActionResult | undefined;
  when: string;
}) {
  const approve = useSchemaForm(ApproveGlEntrySchema, {
    id: `approve-${entry.id}`,
    lastResult: result && !result.ok && result.intent === "approve" ? result.reply : undefined,
  });
  const reject = useSchemaForm(RejectGlEntrySchema, {
    id: `reject-${entry.id}`,
    lastResult: result && !result.ok && result.intent === "reject" ? result.reply : undefined,
  });
  const from = INSTITUTION_ACCOUNT_LABELS[entry.debit_account as keyof typeof INSTITUTION_ACCOUNT_LABELS];
  const to = INSTITUTION_ACCOUNT_LABELS[entry.credit_account as keyof typeof INSTITUTION_ACCOUNT_LABELS];
  return (
    <li className="space-y-3 px-4 py-4 text-sm" aria-label={`Entry ${entry.id}`}>
      <div>
        <p className="font-medium text-slate-900">
          Entry {entry.id}: {formatCents(entry.amount_cents)} from {from} to {to}
        </p>
        <p className="text-slate-700">{entry.memo}</p>
        <p className="text-xs text-slate-600">
          Proposed by {entry.requested_by_email} {when}
        </p>
      </div>
      {result && !result.ok ? <StatusLine tone="error" message={result.message} /> : null}
      {mine ? (
        <p className="text-slate-700">
          You proposed this entry: another accountant or staff member must approve or reject it.
        </p>
      ) : (
        <div className="flex flex-wrap items-end gap-3">
          <SchemaForm form={approve} method="post">
            <input type="hidden" name="intent" value="approve" />
            <input type="hidden" name="entry_id" value={entry.id} />
            <Button type="submit">Approve and post</Button>
          </SchemaForm>
          <SchemaForm form={reject} method="post" className="flex min-w-0 flex-1 flex-wrap items-end gap-3">
            <input type="hidden" name="intent" value="reject" />
            <input type="hidden" name="entry_id" value={entry.id} />
            <TextArea
              name="reason"
              label={`Reason for rejecting entry ${entry.id}`}
              rows={1}
              className="min-w-0 flex-1"
            />
            <Button type="submit" variant="secondary">
              Reject
            </Button>
          </SchemaForm>
        </div>
      )}
    </li>
  );
}
