import crypto from "node:crypto";
import { data, Form, Link, redirect, useNavigation } from "react-router";
import { ArrowLeft, Search } from "lucide-react";
import type { Route } from "./+types/dispute-new";
import { requestInfoContext } from "~/context";
import { requireMoneyStaff } from "~/server/admin/context.server";
import { businessToday, enterReport, findMemberForReport } from "./disputes.server";
import { parseSubmission, readForm, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import { logger } from "~/server/logger.server";
import {
  DISPUTE_DETAILS_MAX_CHARS,
  DISPUTE_KIND_LABELS,
  DISPUTE_KINDS,
  StaffDisputeReportSchema,
  isDisputable,
} from "~/domain/disputes";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { pageTitle } from "~/components/site/page-title";
import {
  Button,
  FormMessage,
  RadioGroup,
  SchemaForm,
  Select,
  TextArea,
  TextField,
  formMessages,
  useSchemaForm,
} from "~/components/ui";

/**
 * /admin/disputes/new (docs/product.md#disputes): a member told us of a problem by phone, in person
 * or by mail (Regulation E, 12 CFR 1005.11(b)(1): notice may be oral or written), and staff enter it
 * for them: find the member by email, choose the transaction, what is wrong, what the member said,
 * how and when they told us. The case runs on the same clocks, from that day. Staff who may move
 * money (the member's transactions and amounts are shown); the step is audited as theirs.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Enter a reported problem", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireMoneyStaff(request, context.get(requestInfoContext));
  const email = (new URL(request.url).searchParams.get("email") ?? "").trim().slice(0, 254);
  const found = email ? await findMemberForReport(email) : null;
  return {
    email,
    found: found
      ? {
          member: found.member,
          transactions: found.transactions
            .filter((t) => isDisputable(t.kind, t.status))
            .map((t) => ({
              value: String(t.transaction_id),
              label: `${formatBusinessDate(t.effective_date)} · ${t.description} · ${formatCents(t.amount_cents)} · ${t.account_label} · ${t.reference_number}`,
            })),
        }
      : null,
    today: businessToday(),
    idempotency_key: crypto.randomUUID(),
  };
}

export type EnterActionData = { ok: false; reply: FormReply };

export async function action({ request, context }: Route.ActionArgs) {
  const { staff, origin } = await requireMoneyStaff(request, context.get(requestInfoContext));
  const form = await readForm(request);
  const submission = parseSubmission(StaffDisputeReportSchema, form);
  if (submission.status !== "success")
    return data({ ok: false, reply: replyTo(submission) } satisfies EnterActionData, { status: 400 });
  const key = String(form.get("idempotency_key") ?? "");
  if (!/^[0-9a-f-]{36}$/.test(key))
    return data(
      { ok: false, reply: replyTo(submission, { formErrors: ["Please reload the page and enter the report again."] }) },
      { status: 400 },
    );
  try {
    const result = await enterReport(staff, { ...submission.value, idempotency_key: key }, origin);
    if (!result.ok)
      return data(
        {
          ok: false,
          reply: replyTo(
            submission,
            result.field === "received_on"
              ? { fieldErrors: { received_on: [result.message] } }
              : { formErrors: [result.message] },
          ),
        } satisfies EnterActionData,
        { status: refusalStatus(result.kind) },
      );
    return redirect(`/admin/disputes/${result.case_id}?entered=1`);
  } catch (error) {
    logger.error({ err: error }, "staff dispute entry failed");
    return data(
      {
        ok: false,
        reply: replyTo(submission, {
          formErrors: [`The report could not be saved. Please try again. Reference: ${origin.request_id}`],
        }),
      } satisfies EnterActionData,
      { status: 500 },
    );
  }
}

const KIND_OPTIONS = DISPUTE_KINDS.map((value) => ({ value, label: DISPUTE_KIND_LABELS[value] }));
const CHANNEL_OPTIONS = [
  { value: "phone", label: "By phone" },
  { value: "in_person", label: "In person" },
  { value: "mail", label: "By mail" },
];

export default function EnterDispute({ loaderData, actionData }: Route.ComponentProps) {
  const { email, found, today, idempotency_key } = loaderData;
  const navigation = useNavigation();
  const sending = navigation.state === "submitting";
  const reply = actionData && !actionData.ok ? actionData.reply : null;
  const form = useSchemaForm(StaffDisputeReportSchema, { id: `enter-${idempotency_key}`, lastResult: reply });
  const problems = formMessages(reply);
  return (
    <div className="space-y-5">
      <Link to="/admin/disputes" className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700">
        <ArrowLeft className="size-4" aria-hidden="true" /> Disputes
      </Link>
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Enter a reported problem</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-700">
          For a member who told us of a problem by phone, in person or by mail (Regulation E, 12 CFR 1005.11(b)(1)). The
          case runs on the same clocks as a report made online, counted from the day the member told us. The member is
          sent the case number by notification and email; the entry is recorded as yours.
        </p>
      </div>
      <section
        aria-labelledby="find-heading"
        className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
      >
        <h2 id="find-heading" className="text-lg font-semibold text-brand-900">
          1. Find the member
        </h2>
        <Form method="get" className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-end" aria-labelledby="find-heading">
          <TextField
            name="email"
            label="Member's email"
            type="email"
            defaultValue={email}
            className="sm:w-96"
            autoComplete="off"
          />
          <Button type="submit" variant="secondary">
            <Search className="size-4" aria-hidden="true" /> Find
          </Button>
        </Form>
        {email && !found ? (
          <FormMessage className="mt-3" tone="error">
            No member has that email.
          </FormMessage>
        ) : null}
      </section>
      {found ? (
        <section
          aria-labelledby="report-heading"
          className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
        >
          <h2 id="report-heading" className="text-lg font-semibold text-brand-900">
            2. The problem {found.member.name} reported
          </h2>
          {problems.length > 0 ? (
            <FormMessage className="mt-4" tone="error">
              {problems[0]}
            </FormMessage>
          ) : null}
          {found.transactions.length === 0 ? (
            <p className="mt-3 text-sm text-slate-700">This member has no completed electronic transactions.</p>
          ) : (
            <SchemaForm
              form={form}
              method="post"
              action={`/admin/disputes/new?email=${encodeURIComponent(found.member.email)}`}
              className="mt-4 grid gap-5"
              aria-labelledby="report-heading"
            >
              <input type="hidden" name="idempotency_key" value={idempotency_key} />
              <input type="hidden" name="member_id" value={found.member.id} />
              <Select
                name="transaction_id"
                label="Transaction"
                options={found.transactions}
                placeholder="Choose the transaction"
                description="The member's completed electronic transactions, newest first."
              />
              <RadioGroup name="kind" label="The problem" options={KIND_OPTIONS} orientation="vertical" />
              <TextArea
                name="details"
                label="What the member told us"
                rows={5}
                maxLength={DISPUTE_DETAILS_MAX_CHARS}
                isRequired
              />
              <div className="grid gap-5 sm:grid-cols-2">
                <RadioGroup name="reported_via" label="How the member told us" options={CHANNEL_OPTIONS} />
                <TextField
                  name="received_on"
                  label="The day the member told us"
                  type="date"
                  defaultValue={today}
                  description="The clocks run from this day. Not after today, nor before the transaction."
                  isRequired
                />
              </div>
              <div className="flex justify-end">
                <Button type="submit" isPending={sending} pendingLabel="Saving…" className="w-full sm:w-auto">
                  Open the case
                </Button>
              </div>
            </SchemaForm>
          )}
        </section>
      ) : null}
    </div>
  );
}
