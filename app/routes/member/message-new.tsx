import crypto from "node:crypto";
import { data, Link, redirect, useNavigation } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/message-new";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { loadTransaction, sendNewConversation } from "./messages.server";
import {
  invalidForm,
  readMessageForm,
  refusedForm,
  refuseOversized,
  type MessageFormReply,
} from "~/server/secure-messages/message-form.server";
import { logger } from "~/server/logger.server";
import { MESSAGE_BODY_MAX_CHARS, MESSAGE_SUBJECT_MAX_CHARS, NewConversationSchema } from "~/domain/secure-messages";
import { pageTitle } from "~/components/site/page-title";
import { Button, FormMessage, SchemaForm, TextArea, TextField, formMessages, useSchemaForm } from "~/components/ui";
import { Amount, formatDate } from "~/components/member/amount";
import { MessageAttachmentFields } from "~/components/member/message-attachments";

/**
 * /dashboard/messages/new (docs/product.md#secure-messages): a new secure message (subject, text,
 * up to two files). With ?transaction=ID ("Ask about this" in the history) it is about that
 * transaction of the member's own; another member's reads as not found.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("New message", matches);
}

function transactionParam(request: Request): number | null {
  const value = new URL(request.url).searchParams.get("transaction");
  if (value === null) return null;
  return /^[1-9]\d{0,15}$/.test(value) ? Number(value) : 0;
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const id = transactionParam(request);
  const transaction = id === null ? null : id ? await loadTransaction(user, id) : null;
  if (id !== null && !transaction)
    throw data({ message: "We could not find that transaction in your accounts." }, { status: 404 });
  return {
    transaction,
    idempotency_key: crypto.randomUUID(),
    subject: transaction ? `About ${transaction.description} on ${formatDate(transaction.effective_date)}` : "",
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const info = context.get(requestInfoContext);
  const oversized = refuseOversized(request);
  if (oversized) return oversized;
  const { form, submission, files } = await readMessageForm(request, NewConversationSchema);
  if (submission.status !== "success") return invalidForm(submission);
  const key = String(form.get("idempotency_key") ?? "");
  if (!/^[0-9a-f-]{36}$/.test(key))
    return invalidForm(submission, ["Please reload the page and send the message again."]);
  try {
    const result = await sendNewConversation(
      { id: user.id, email: user.email },
      { ...submission.value, idempotency_key: key },
      { request_id: info.request_id, ip: info.ip },
      files,
    );
    if (!result.ok) return refusedForm(submission, result);
    return redirect(`/dashboard/messages/${result.conversation_id}?sent=1`);
  } catch (error) {
    logger.error({ err: error }, "secure message could not be started");
    return invalidForm(submission, [`We could not send your message. Please try again. Reference: ${info.request_id}`]);
  }
}

export default function NewMessage({ loaderData, actionData }: Route.ComponentProps) {
  const { transaction, idempotency_key, subject } = loaderData;
  const sending = useNavigation().state === "submitting";
  const reply = actionData ? (actionData as MessageFormReply).reply : null;
  const form = useSchemaForm(NewConversationSchema, {
    id: `message-${idempotency_key}`,
    lastResult: reply,
    defaultValue: { subject },
  });
  const problems = formMessages(reply);
  return (
    <div className="mx-auto max-w-3xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard/messages"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Messages
      </Link>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">New message</h1>
      <p className="mt-1 text-sm text-slate-700">
        Write to our staff securely. We tell you by email when we reply; the reply itself stays here.
      </p>
      {transaction ? (
        <section
          aria-label="The transaction"
          className="mt-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
        >
          <dl className="grid gap-3 text-sm sm:grid-cols-3">
            <div>
              <dt className="text-slate-600">Transaction</dt>
              <dd className="font-semibold text-slate-900">{transaction.description}</dd>
            </div>
            <div>
              <dt className="text-slate-600">Amount · date</dt>
              <dd>
                <Amount cents={transaction.amount_cents} /> · {formatDate(transaction.effective_date)}
              </dd>
            </div>
            <div>
              <dt className="text-slate-600">Reference</dt>
              <dd className="font-mono text-xs text-slate-900">{transaction.reference_number}</dd>
            </div>
          </dl>
        </section>
      ) : null}
      <section
        aria-labelledby="compose-heading"
        className="mt-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
      >
        <h2 id="compose-heading" className="sr-only">
          Your message
        </h2>
        {problems.length > 0 ? (
          <FormMessage className="mb-4" tone="error">
            {problems[0]}
          </FormMessage>
        ) : null}
        <SchemaForm
          form={form}
          method="post"
          action={`/dashboard/messages/new${transaction ? `?transaction=${transaction.id}` : ""}`}
          encType="multipart/form-data"
          className="grid gap-5"
          aria-labelledby="compose-heading"
        >
          <input type="hidden" name="idempotency_key" value={idempotency_key} />
          {transaction ? <input type="hidden" name="transaction_id" value={transaction.id} /> : null}
          <TextField name="subject" label="Subject" maxLength={MESSAGE_SUBJECT_MAX_CHARS} isRequired />
          <TextArea name="body" label="Message" rows={6} maxLength={MESSAGE_BODY_MAX_CHARS} isRequired />
          <MessageAttachmentFields />
          <div className="flex justify-end">
            <Button type="submit" size="lg" isPending={sending} pendingLabel="Sending…" className="w-full sm:w-auto">
              Send message
            </Button>
          </div>
        </SchemaForm>
      </section>
    </div>
  );
}
