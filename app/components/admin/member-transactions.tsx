import { Form, Link, useNavigation } from "react-router";
import { CheckCheck, Undo2 } from "lucide-react";
import { Button, FormMessage, SchemaForm, TextField, useSchemaForm, useStepFocus } from "~/components/ui";
import { formatCents } from "~/domain/money";
import {
  PENDING_OWNERS,
  ReverseAllSchema,
  TRANSACTION_STATUS_LABELS,
  type PendingOwner,
} from "~/domain/member-accounts";
import type { MemberTransactionRow, MemberTransactionsPage } from "~/server/member-accounts/transactions.server";
import { useInstitutionDates } from "~/components/institution-dates";
import { StatusLine } from "./admin-shell";
import { adminActionUrl, withParams } from "./format";
import { resultFor } from "./money-result";

const STATUS_STYLES: Record<MemberTransactionRow["status"], string> = {
  posted: "bg-emerald-100 text-emerald-900",
  pending: "bg-amber-100 text-amber-900",
  failed: "bg-slate-200 text-slate-800",
  reversed: "bg-red-100 text-red-900",
};

/**
 * User Transactions (docs/product.md#member-accounts-staff): the member's ledger transactions,
 * newest first, in pages (`tx_before`). Reverse asks first (`?reverse=<id>` shows the confirm
 * step, so it works before JavaScript); a pending one is released instead, and a pending row of
 * Add Transactions may be posted (`?post=<id>`) once it completes.
 */
export function MemberTransactions({
  member_id,
  page,
  before,
  search,
  result,
}: {
  member_id: string;
  page: MemberTransactionsPage;
  before: string | null;
  search: string;
  result: unknown;
}) {
  const { formatDateTime } = useInstitutionDates();
  const params = new URLSearchParams(search);
  const confirming = { reverse: Number(params.get("reverse") ?? "0"), post: Number(params.get("post") ?? "0") };
  const answer = resultFor(result, ["reverse_transaction", "post_transaction"]);
  return (
    <section aria-labelledby="transactions-title" className="space-y-3">
      <h3 id="transactions-title" className="text-base font-semibold text-brand-800">
        User Transactions
      </h3>
      {answer ? <StatusLine message={answer.message} tone={answer.tone} /> : null}
      {page.rows.length === 0 ? (
        <p className="text-sm text-slate-700">{before ? "No older transactions." : "No transactions yet."}</p>
      ) : (
        <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200">
          {page.rows.map((t) => (
            <li key={t.id} className="p-3 text-sm">
              {/* On a phone the amounts go under the description, so neither is squeezed. */}
              <div className="flex flex-col gap-x-4 gap-y-2 sm:flex-row sm:items-start sm:justify-between">
                <div className="min-w-0 flex-1">
                  <p className="flex flex-wrap items-center gap-2 font-medium text-slate-900">
                    <span className="break-words">{t.memo ?? kindLabel(t.kind)}</span>
                    <span
                      className={`inline-flex rounded-full px-2.5 py-0.5 text-xs font-semibold ${STATUS_STYLES[t.status]}`}
                    >
                      {TRANSACTION_STATUS_LABELS[t.status]}
                    </span>
                  </p>
                  <p className="text-slate-700">
                    #{t.id} · {formatDateTime(t.created_at)} · effective {t.effective_date} · {kindLabel(t.kind)}
                    {t.category ? ` · ${t.category}` : ""}
                  </p>
                  <p className="text-slate-700">
                    {t.reference ? <>Reference {t.reference} · </> : null}Posted by {t.created_by_email ?? t.created_by}
                    {t.reverses_id ? ` · reverses #${t.reverses_id}` : ""}
                  </p>
                </div>
                <ul className="tabular sm:text-right">
                  {t.legs.map((leg) => (
                    <li key={leg.account_id} className={leg.amount_cents < 0 ? "text-slate-900" : "text-emerald-800"}>
                      <span className="text-slate-700">
                        {leg.account_name} ••{leg.account_number.slice(-4)}{" "}
                      </span>
                      <span className="font-semibold whitespace-nowrap">
                        {leg.amount_cents > 0 ? "+" : ""}
                        {formatCents(leg.amount_cents)}
                      </span>
                    </li>
                  ))}
                </ul>
              </div>
              <RowAction
                row={t}
                member_id={member_id}
                confirming={confirming.post === t.id ? "post" : confirming.reverse === t.id ? "reverse" : null}
                search={search}
              />
            </li>
          ))}
        </ul>
      )}
      <nav aria-label="Transaction pages" className="flex flex-wrap gap-2">
        {before ? (
          <Link
            to={withParams(search, { tx_before: null, reverse: null, post: null })}
            preventScrollReset
            className="rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm font-semibold text-brand-800 hover:bg-slate-50"
          >
            Newest
          </Link>
        ) : null}
        {page.next_before ? (
          <Link
            to={withParams(search, { tx_before: page.next_before, reverse: null, post: null })}
            preventScrollReset
            className="rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm font-semibold text-brand-800 hover:bg-slate-50"
          >
            Older transactions
          </Link>
        ) : null}
      </nav>
    </section>
  );
}

/** Where staff resolve a pending transaction that is not released here (a bill payment is the member's to cancel). */
const RESOLVED_AT: Partial<Record<PendingOwner, (member_id: string) => { to: string; label: string }>> = {
  payment: () => ({ to: "/admin/queues", label: "Open the payment queues" }),
  card_purchase: (member_id) => ({
    to: `/admin/members/${encodeURIComponent(member_id)}/cards`,
    label: "Open Post card transaction",
  }),
  mobile_deposit: () => ({ to: "/admin/queues#deposits-title", label: "Open the deposit queue" }),
};

function RowAction({
  row,
  member_id,
  confirming,
  search,
}: {
  row: MemberTransactionRow;
  member_id: string;
  confirming: "reverse" | "post" | null;
  search: string;
}) {
  const navigation = useNavigation();
  // The confirm step replaces the row's Post and Reverse links: focus moves to its question, and
  // on Cancel back to the link that opened it.
  const confirmStep = useStepFocus<HTMLFormElement>(confirming, {
    post: `transaction-${row.id}-post`,
    reverse: `transaction-${row.id}-reverse`,
  });
  const reversible = row.status === "posted" && row.kind !== "reversal";
  const releasable = row.status === "pending";
  if (!reversible && !releasable) return null;
  if (releasable && row.pending_owner) {
    const place = RESOLVED_AT[row.pending_owner]?.(member_id);
    return (
      <p className="mt-2 text-sm text-slate-700">
        This is {PENDING_OWNERS[row.pending_owner]}.{" "}
        {place ? (
          <Link to={place.to} className="font-medium text-brand-700 underline underline-offset-2">
            {place.label}
          </Link>
        ) : null}
      </p>
    );
  }
  // Reverse a posted transaction, Release a pending one; a pending Add Transactions row may also be Posted.
  const verb = releasable ? "Release" : "Reverse";
  if (!confirming) {
    const linkClass =
      "inline-flex items-center gap-1.5 rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm font-semibold text-brand-800 hover:bg-slate-50";
    return (
      <p className="mt-2 flex flex-wrap gap-2">
        {row.postable ? (
          <Link
            id={`transaction-${row.id}-post`}
            to={withParams(search, { post: row.id, reverse: null })}
            preventScrollReset
            aria-label={`Post transaction ${row.id}`}
            className={linkClass}
          >
            <CheckCheck className="size-4" aria-hidden="true" /> Post
          </Link>
        ) : null}
        <Link
          id={`transaction-${row.id}-reverse`}
          to={withParams(search, { reverse: row.id, post: null })}
          preventScrollReset
          aria-label={`${verb} transaction ${row.id}`}
          className={linkClass}
        >
          <Undo2 className="size-4" aria-hidden="true" /> {verb}
        </Link>
      </p>
    );
  }
  const posting = confirming === "post";
  const action = posting ? "Post" : verb;
  const busy = navigation.state === "submitting" && navigation.formData?.get("transaction_id") === String(row.id);
  const question = posting
    ? `Post pending transaction #${row.id}? It completes now and the balance moves.`
    : releasable
      ? `Release pending transaction #${row.id}? The held money becomes available again.`
      : `Reverse transaction #${row.id}? A reversing transaction posts now; this cannot be undone.`;
  return (
    <Form
      ref={confirmStep}
      method="post"
      action={adminActionUrl(search, { reverse: null, post: null })}
      preventScrollReset
      aria-label={`Confirm: ${action.toLowerCase()} transaction ${row.id}`}
      className="mt-2 flex flex-wrap items-center gap-2 rounded-lg border border-amber-300 bg-amber-50 p-3"
    >
      <input type="hidden" name="intent" value={posting ? "post_transaction" : "reverse_transaction"} />
      <input type="hidden" name="member_id" value={member_id} />
      <input type="hidden" name="transaction_id" value={row.id} />
      <p data-step-focus tabIndex={-1} className="w-full text-sm text-amber-950 focus:outline-none sm:w-auto sm:flex-1">
        {question}
      </p>
      <Link
        to={withParams(search, { reverse: null, post: null })}
        preventScrollReset
        className="rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-100"
      >
        Cancel
      </Link>
      <Button
        type="submit"
        variant={posting ? "primary" : "danger"}
        isPending={busy}
        pendingLabel={posting ? "Posting…" : releasable ? "Releasing…" : "Reversing…"}
      >
        {`Confirm ${action.toLowerCase()}`}
      </Button>
    </Form>
  );
}

function kindLabel(kind: string): string {
  const text = kind.replace(/_/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Reverse All Transactions: the member's email typed, then a second step that repeats it
 * (`?reverse_all=<typed>`); the server checks the email again and reverses everything in one go.
 */
export function ReverseAllBox({ member_id, search, result }: { member_id: string; search: string; result: unknown }) {
  const navigation = useNavigation();
  const typed = new URLSearchParams(search).get("reverse_all");
  const answer = resultFor(result, "reverse_all");
  const form = useSchemaForm(ReverseAllSchema, { id: "reverse-all" });
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "reverse_all";
  const hidden = [...new URLSearchParams(search).entries()].filter(([key]) => key !== "reverse_all" && key !== "index");
  return (
    <section
      aria-labelledby="reverse-all-title"
      className="space-y-3 rounded-xl border border-red-200 bg-red-50/40 p-4"
    >
      <h3 id="reverse-all-title" className="text-base font-semibold text-red-900">
        Reverse All Transactions
      </h3>
      <p className="text-sm text-slate-800">
        Reverses every posted transaction of this member that is not yet reversed, in one batch. Type the member&apos;s
        email to confirm.
      </p>
      {answer ? <StatusLine message={answer.message} tone={answer.tone} /> : null}
      {typed !== null && !answer ? (
        <SchemaForm
          form={form}
          method="post"
          action={adminActionUrl(search, { reverse_all: null })}
          preventScrollReset
          aria-label="Confirm reverse all"
          className="space-y-3"
        >
          <input type="hidden" name="intent" value="reverse_all" />
          <input type="hidden" name="member_id" value={member_id} />
          <input type="hidden" name="confirm_email" value={typed} />
          <p className="text-sm font-medium text-red-900">
            Reverse every posted transaction of <span className="break-all">{typed || "(no email typed)"}</span>? This
            cannot be undone.
          </p>
          {form.allErrors.confirm_email?.[0] ? (
            <FormMessage tone="error">{form.allErrors.confirm_email[0]}</FormMessage>
          ) : null}
          <div className="flex flex-wrap gap-2">
            <Link
              to={withParams(search, { reverse_all: null })}
              preventScrollReset
              className="rounded-lg border border-slate-300 bg-white px-4 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-100"
            >
              Cancel
            </Link>
            <Button type="submit" variant="danger" isPending={busy} pendingLabel="Reversing…">
              {`Yes, reverse all for ${typed}`}
            </Button>
          </div>
        </SchemaForm>
      ) : (
        <Form method="get" action="/admin" preventScrollReset className="flex flex-col gap-3 sm:flex-row sm:items-end">
          {hidden.map(([key, value]) => (
            <input key={key} type="hidden" name={key} value={value} />
          ))}
          <TextField
            name="reverse_all"
            label="Member's email"
            type="email"
            autoComplete="off"
            isRequired
            className="min-w-0 flex-1"
          />
          <Button type="submit" variant="danger">
            Reverse Transactions
          </Button>
        </Form>
      )}
    </section>
  );
}
