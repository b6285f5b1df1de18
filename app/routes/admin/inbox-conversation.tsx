import { data, Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/inbox-conversation";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { assignTo, changeStatus, loadStaffConversation, sendStaffReply } from "./inbox.server";
import {
  invalidForm,
  readMessageForm,
  refusedForm,
  refuseOversized,
  type MessageFormReply,
} from "~/server/secure-messages/message-form.server";
import { refusalStatus } from "~/server/http/form.server";
import { logger } from "~/server/logger.server";
import { MESSAGE_BODY_MAX_CHARS, ReplySchema } from "~/domain/secure-messages";
import { formatCents } from "~/domain/money";
import { pageTitle } from "~/components/site/page-title";
import { StatusLine } from "~/components/admin/admin-shell";
import { Button, FormMessage, SchemaForm, TextArea, formMessages, useSchemaForm } from "~/components/ui";
import { MessageAttachmentFields } from "~/components/member/message-attachments";
import { MessageThread } from "~/components/member/message-thread";
import { useInstitutionDates } from "~/components/institution-dates";

/**
 * /admin/inbox/:conversationId (docs/product.md#secure-messages-inbox): one member's conversation
 * for staff and reviewers: the member named, the thread with its files, assign (to oneself or a
 * colleague), reply, close and reopen. Opening it is audited (`secure_message.view`) before
 * anything is shown.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Conversation", matches), { name: "robots", content: "noindex" }];
}

const conversationId = (text: string) => (/^[1-9]\d{0,15}$/.test(text) ? Number(text) : 0);

const DONE: Record<string, string> = {
  replied: "Reply sent. The member was told they have a new message.",
  assigned: "Assignment saved.",
  closed: "Conversation closed.",
  reopened: "Conversation reopened.",
};

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const id = conversationId(params.conversationId);
  const found = id ? await loadStaffConversation(staff, id, origin) : null;
  if (!found) throw data({ message: "We could not find that conversation." }, { status: 404 });
  const done = new URL(request.url).searchParams.get("done") ?? "";
  return { ...found, staff_id: staff.id, done: DONE[done] ?? null };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const id = conversationId(params.conversationId);
  const oversized = refuseOversized(request);
  if (oversized) return oversized;
  const { form, submission, files } = await readMessageForm(request, ReplySchema);
  const intent = form.get("intent");
  const back = (done: string) => redirect(`/admin/inbox/${id}?done=${done}`);
  const step = (
    result: { ok: true } | { ok: false; kind: Parameters<typeof refusalStatus>[0]; message: string },
    done: string,
  ) => (result.ok ? back(done) : data({ step_error: result.message }, { status: refusalStatus(result.kind) }));
  if (intent === "assign") {
    const assignee = String(form.get("assignee") ?? "");
    return step(await assignTo(staff, id, assignee === "me" ? staff.id : assignee, origin), "assigned");
  }
  if (intent === "close") return step(await changeStatus(staff, id, "closed", origin), "closed");
  if (intent === "reopen") return step(await changeStatus(staff, id, "open", origin), "reopened");
  if (intent !== "reply") return data({ step_error: "That request could not be understood." }, { status: 400 });
  if (submission.status !== "success") return invalidForm(submission);
  try {
    const result = await sendStaffReply(staff, id, submission.value.body, origin, files);
    if (!result.ok) return refusedForm(submission, result);
    return back("replied");
  } catch (error) {
    logger.error({ err: error }, "staff secure message reply failed");
    return invalidForm(submission, [`The reply could not be sent. Please try again. Reference: ${origin.request_id}`]);
  }
}

const secondary =
  "rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm font-semibold text-brand-800 hover:bg-slate-50";

export default function StaffConversation({ loaderData, actionData }: Route.ComponentProps) {
  const { conversation: c, colleagues, staff_id, done } = loaderData;
  const { formatDateTime } = useInstitutionDates();
  const sending = useNavigation().state === "submitting";
  const stepError = actionData && "step_error" in actionData ? String(actionData.step_error) : null;
  const reply = actionData && "reply" in actionData ? (actionData as MessageFormReply).reply : null;
  const form = useSchemaForm(ReplySchema, { id: `staff-reply-${c.id}-${c.messages.length}`, lastResult: reply });
  const problems = formMessages(reply);
  const base = `/admin/inbox/${c.id}`;
  return (
    <div className="space-y-5">
      <Link to="/admin/inbox" className="text-sm font-semibold text-brand-700 underline underline-offset-2">
        Inbox
      </Link>
      <div>
        <h1 className="break-words text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">{c.subject}</h1>
        <p className="mt-1 text-sm text-slate-700">
          {c.number} · started {formatDateTime(c.created_at)} · {c.status === "open" ? "Open" : "Closed"}
          {c.closed_by_email && c.closed_at ? ` by ${c.closed_by_email} on ${formatDateTime(c.closed_at)}` : ""}
        </p>
      </div>
      {done ? <StatusLine message={done} tone="success" /> : null}
      {stepError ? <StatusLine message={stepError} tone="error" /> : null}
      <section
        aria-label="Member and assignment"
        className="grid gap-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-2"
      >
        <dl className="space-y-2 text-sm">
          <div>
            <dt className="text-slate-600">Member</dt>
            <dd className="font-semibold text-slate-900">
              <Link to={`/admin?member=${encodeURIComponent(c.member_id)}`} className="underline underline-offset-2">
                {c.member_name}
              </Link>{" "}
              <span className="break-all font-normal text-slate-700">· {c.member_email}</span>
            </dd>
          </div>
          {c.transaction ? (
            <div>
              <dt className="text-slate-600">About</dt>
              <dd className="text-slate-900">
                {c.transaction.description} · {formatCents(c.transaction.amount_cents)} · {c.transaction.effective_date}{" "}
                · {c.transaction.account_label} ·{" "}
                <span className="font-mono text-xs">{c.transaction.reference_number}</span>
              </dd>
            </div>
          ) : null}
          <div>
            <dt className="text-slate-600">Assigned to</dt>
            <dd className="text-slate-900">{c.assigned_email ?? "Nobody yet"}</dd>
          </div>
        </dl>
        <div className="space-y-3">
          <Form method="post" className="flex flex-wrap items-end gap-2">
            <input type="hidden" name="intent" value="assign" />
            <label className="grid gap-1 text-sm font-semibold text-slate-900">
              Assign to
              <select
                name="assignee"
                defaultValue={c.assigned_to ?? staff_id}
                className="h-10 rounded-lg border border-slate-400 bg-white px-2 text-sm font-normal"
              >
                {colleagues.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.id === staff_id ? `Me (${p.name})` : p.name}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" className={secondary}>
              Assign
            </button>
          </Form>
          {c.assigned_to !== staff_id ? (
            <Form method="post">
              <input type="hidden" name="intent" value="assign" />
              <input type="hidden" name="assignee" value="me" />
              <button type="submit" className={secondary}>
                Assign to me
              </button>
            </Form>
          ) : null}
          <Form method="post">
            <input type="hidden" name="intent" value={c.status === "open" ? "close" : "reopen"} />
            <button type="submit" className={secondary}>
              {c.status === "open" ? "Close conversation" : "Reopen conversation"}
            </button>
          </Form>
        </div>
      </section>
      <section aria-label="Conversation">
        <MessageThread messages={c.messages} viewer="staff" base={base} institution="Staff" />
      </section>
      {c.status === "open" ? (
        <section
          aria-labelledby="reply-heading"
          className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6"
        >
          <h2 id="reply-heading" className="text-lg font-semibold text-brand-800">
            Reply to the member
          </h2>
          <p className="mt-1 text-sm text-slate-700">
            The member is told by email and in the app that they have a new message; the text stays here.
          </p>
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
            <input type="hidden" name="intent" value="reply" />
            <TextArea name="body" label="Reply" rows={5} maxLength={MESSAGE_BODY_MAX_CHARS} isRequired />
            <MessageAttachmentFields />
            <div className="flex justify-end">
              <Button type="submit" isPending={sending} pendingLabel="Sending…">
                Send reply
              </Button>
            </div>
          </SchemaForm>
        </section>
      ) : (
        <FormMessage tone="info">This conversation is closed. Reopen it to reply.</FormMessage>
      )}
    </div>
  );
}
