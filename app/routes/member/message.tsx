import { data, Link, redirect, useNavigation } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/message";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { loadConversation, sendMemberReply } from "./messages.server";
import {
  invalidForm,
  readMessageForm,
  refusedForm,
  refuseOversized,
  type MessageFormReply,
} from "~/server/secure-messages/message-form.server";
import { logger } from "~/server/logger.server";
import { MESSAGE_BODY_MAX_CHARS, ReplySchema } from "~/domain/secure-messages";
import { pageTitle } from "~/components/site/page-title";
import { Button, FormMessage, SchemaForm, TextArea, formMessages, useSchemaForm } from "~/components/ui";
import { Amount, formatDate } from "~/components/member/amount";
import { MessageAttachmentFields } from "~/components/member/message-attachments";
import { MessageThread } from "~/components/member/message-thread";
import { useRootData } from "~/root";

/**
 * /dashboard/messages/:conversationId (docs/product.md#secure-messages): one of the member's
 * conversations, its thread and a reply box; opening it marks staff's replies read. A closed one is
 * read-only, with a way to start a new message. Another member's reads as not found.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Message", matches);
}

const conversationId = (text: string) => (/^[1-9]\d{0,15}$/.test(text) ? Number(text) : 0);

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const id = conversationId(params.conversationId);
  const found = id ? await loadConversation(user, id) : null;
  if (!found) throw data({ message: "We could not find that conversation." }, { status: 404 });
  const search = new URL(request.url).searchParams;
  return { conversation: found, sent: search.get("sent") === "1", replied: search.get("replied") === "1" };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const info = context.get(requestInfoContext);
  const id = conversationId(params.conversationId);
  const oversized = refuseOversized(request);
  if (oversized) return oversized;
  const { submission, files } = await readMessageForm(request, ReplySchema);
  if (submission.status !== "success") return invalidForm(submission);
  try {
    const result = await sendMemberReply(
      { id: user.id, email: user.email },
      id,
      submission.value.body,
      { request_id: info.request_id, ip: info.ip },
      files,
    );
    if (!result.ok) return refusedForm(submission, result);
    return redirect(`/dashboard/messages/${id}?replied=1`);
  } catch (error) {
    logger.error({ err: error }, "secure message reply failed");
    return invalidForm(submission, [`We could not send your reply. Please try again. Reference: ${info.request_id}`]);
  }
}

export default function Conversation({ loaderData, actionData }: Route.ComponentProps) {
  const { conversation: c, sent, replied } = loaderData;
  const root = useRootData();
  const sending = useNavigation().state === "submitting";
  const reply = actionData ? (actionData as MessageFormReply).reply : null;
  const form = useSchemaForm(ReplySchema, { id: `reply-${c.id}-${c.messages.length}`, lastResult: reply });
  const problems = formMessages(reply);
  const base = `/dashboard/messages/${c.id}`;
  return (
    <div className="mx-auto max-w-3xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard/messages"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Messages
      </Link>
      <h1 className="mt-3 break-words text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">{c.subject}</h1>
      <p className="mt-1 text-sm text-slate-700">
        {c.number}
        {c.status === "closed" ? " · Closed" : ""}
      </p>
      {sent ? (
        <FormMessage className="mt-4" tone="success" title="Message sent">
          We answer within one business day and tell you by email when we do.
        </FormMessage>
      ) : replied ? (
        <FormMessage className="mt-4" tone="success">
          Reply sent.
        </FormMessage>
      ) : null}
      {c.transaction ? (
        <p className="mt-4 rounded-xl border border-slate-200 bg-white px-4 py-3 text-sm text-slate-800">
          About {c.transaction.description} · <Amount cents={c.transaction.amount_cents} /> ·{" "}
          {formatDate(c.transaction.effective_date)} ·{" "}
          <span className="font-mono text-xs">{c.transaction.reference_number}</span>
        </p>
      ) : null}
      <section aria-label="Conversation" className="mt-5">
        <MessageThread
          messages={c.messages}
          viewer="member"
          base={base}
          institution={root?.institution.short_name ?? "Staff"}
        />
      </section>
      {c.status === "closed" ? (
        <FormMessage className="mt-6" tone="info">
          This conversation is closed.{" "}
          <Link className="font-semibold underline" to="/dashboard/messages/new">
            Start a new message
          </Link>
          .
        </FormMessage>
      ) : (
        <section
          aria-labelledby="reply-heading"
          className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
        >
          <h2 id="reply-heading" className="text-lg font-semibold text-brand-900">
            Reply
          </h2>
          {problems.length > 0 ? (
            <FormMessage className="mt-4" tone="error">
              {problems[0]}
            </FormMessage>
          ) : null}
          <SchemaForm
            form={form}
            method="post"
            action={base}
            encType="multipart/form-data"
            className="mt-4 grid gap-5"
            aria-labelledby="reply-heading"
          >
            <TextArea name="body" label="Your reply" rows={4} maxLength={MESSAGE_BODY_MAX_CHARS} isRequired />
            <MessageAttachmentFields />
            <div className="flex justify-end">
              <Button type="submit" size="lg" isPending={sending} pendingLabel="Sending…" className="w-full sm:w-auto">
                Send reply
              </Button>
            </div>
          </SchemaForm>
        </section>
      )}
    </div>
  );
}
