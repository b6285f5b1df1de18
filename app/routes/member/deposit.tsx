import crypto from "node:crypto";
import { data, Link, useNavigation } from "react-router";
import { ArrowLeft, Camera, Clock } from "lucide-react";
import type { Route } from "./+types/deposit";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { depositCheck, loadDepositPage } from "./deposit.server";
import { parseSubmission, readForm, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import { logger } from "~/server/logger.server";
import { institution } from "~/config/institution.server";
import { UPLOAD_BODY_MAX_BYTES } from "~/server/security/request-guards.server";
import {
  MOBILE_DEPOSIT_IMAGE_MAX_BYTES,
  MOBILE_DEPOSIT_IMAGE_MESSAGES,
  MOBILE_DEPOSIT_MESSAGES,
  mobileDepositMaximumMessage,
  mobileDepositSchema,
} from "~/domain/mobile-deposit";
import { formatCents } from "~/domain/money";
import { pageTitle } from "~/components/site/page-title";
import { Button, FormMessage, SchemaForm, Select, TextField, formMessages, useSchemaForm } from "~/components/ui";
import { FileField } from "~/components/auth/file-field";
import { StatusBadge, formatDate } from "~/components/member/amount";
import { useInstitutionDates } from "~/components/institution-dates";

/**
 * /dashboard/deposit (docs/product.md#mobile-deposit): the member photographs a check front and
 * back and deposits it to one of their accounts. The deposit waits for staff as a pending credit
 * the member cannot spend yet; below the form, each deposit says where it stands (Pending review,
 * Posted with when the money is available, or Rejected with the reason). A plain multipart form:
 * it works without JavaScript.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Mobile Deposit", matches);
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const { accounts, deposits, policy } = await loadDepositPage(user);
  const limits = institution().limits;
  return {
    // Short enough to show whole in a phone's full-width field, as the transfer forms' choices.
    accounts: accounts.map((a) => ({
      value: String(a.id),
      label: `${a.type === "checking" ? "Checking" : "Savings"} ••${a.account_number.slice(-4)} · ${formatCents(a.available_cents)}`,
    })),
    deposits,
    max_cents: limits.mobile_deposit_max_cents,
    policy,
    // A fresh key each time the page loads (after every answer too): the same form posted twice makes one deposit.
    idempotency_key: crypto.randomUUID(),
  };
}

export type DepositActionData = { ok: true; message: string } | { ok: false; reply: FormReply };

/** Two full photos and the form's other fields with their multipart framing. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const info = context.get(requestInfoContext);
  const schema = mobileDepositSchema(institution().limits.mobile_deposit_max_cents);
  // A body that states it is larger than two full photos is refused before it is read.
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > Math.min(UPLOAD_BODY_MAX_BYTES, 2 * MOBILE_DEPOSIT_IMAGE_MAX_BYTES + FORM_OVERHEAD_BYTES)) {
    return data(
      {
        ok: false,
        reply: { status: "error", error: { "": [MOBILE_DEPOSIT_IMAGE_MESSAGES.body_too_large] } },
      } satisfies DepositActionData,
      { status: 413 },
    );
  }
  const form = await readForm(request);
  const submission = parseSubmission(schema, form);
  if (submission.status !== "success")
    return data(
      {
        ok: false,
        reply: replyTo(submission, { hideFields: ["front_image", "back_image"] }),
      } satisfies DepositActionData,
      { status: 400 },
    );
  const file = (name: string) => {
    const value = form.get(name);
    return value instanceof File ? value : null;
  };
  try {
    const result = await depositCheck(
      user,
      { ...submission.value, front: file("front_image"), back: file("back_image") },
      { request_id: info.request_id, ip: info.ip },
    );
    if (!result.ok) {
      const messages = result.field
        ? { fieldErrors: { [result.field]: [result.message] } }
        : { formErrors: [result.message] };
      return data(
        {
          ok: false,
          reply: replyTo(submission, { ...messages, hideFields: ["front_image", "back_image"] }),
        } satisfies DepositActionData,
        { status: refusalStatus(result.kind) },
      );
    }
    return {
      ok: true,
      message: `Your check for ${formatCents(result.amount_cents)} was received and is pending review. It is not available until it is approved.`,
    } satisfies DepositActionData;
  } catch (error) {
    logger.error({ err: error }, "mobile deposit failed");
    return data(
      {
        ok: false,
        reply: replyTo(submission, {
          formErrors: [`${MOBILE_DEPOSIT_MESSAGES.failed} Reference: ${info.request_id}`],
          hideFields: ["front_image", "back_image"],
        }),
      } satisfies DepositActionData,
      { status: 500 },
    );
  }
}

const STATUS = {
  pending_review: { key: "pending", label: "Pending review" },
  approved: { key: "posted", label: "Posted" },
  rejected: { key: "failed", label: "Rejected" },
} as const;

export default function Deposit({ loaderData, actionData }: Route.ComponentProps) {
  const { accounts, deposits, max_cents, policy, idempotency_key } = loaderData;
  const navigation = useNavigation();
  const sending = navigation.state === "submitting" && navigation.formAction?.startsWith("/dashboard/deposit");
  const reply = actionData && !actionData.ok ? actionData.reply : null;
  const form = useSchemaForm(mobileDepositSchema(max_cents), { id: `deposit-${idempotency_key}`, lastResult: reply });
  const { formatDateTime } = useInstitutionDates();
  const problems = formMessages(reply);
  return (
    <div className="mx-auto max-w-4xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard#quick-actions"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Back to Quick Actions
      </Link>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Mobile Deposit</h1>
      <p className="mt-1 text-sm text-slate-700">
        Deposit a check with a photo of its front and back. Sign the back first. The credit union reviews every check;
        until it is approved the deposit shows as pending and is not available.
      </p>

      <section
        aria-labelledby="deposit-form-heading"
        className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
      >
        <h2 id="deposit-form-heading" className="flex items-center gap-2 text-lg font-semibold text-brand-900">
          <Camera className="size-5 text-accent-700" aria-hidden="true" /> Deposit a check
        </h2>
        <p className="mt-2 flex items-start gap-2 rounded-xl bg-accent-50 px-4 py-3 text-sm text-slate-800">
          <Clock className="mt-0.5 size-4 shrink-0 text-accent-700" aria-hidden="true" />
          <span>
            <span className="font-semibold">When your money is available.</span> {policy}
          </span>
        </p>
        {actionData?.ok ? (
          <FormMessage className="mt-4" tone="success">
            {actionData.message}
          </FormMessage>
        ) : null}
        {problems.length > 0 ? (
          <FormMessage className="mt-4" tone="error">
            {problems[0]}
          </FormMessage>
        ) : null}
        {accounts.length === 0 ? (
          <p className="mt-4 text-sm text-slate-700">You have no open checking or savings account to deposit to.</p>
        ) : (
          <SchemaForm
            form={form}
            method="post"
            action="/dashboard/deposit"
            encType="multipart/form-data"
            className="mt-5 grid gap-5 sm:grid-cols-2"
            aria-labelledby="deposit-form-heading"
          >
            <input type="hidden" name="idempotency_key" value={idempotency_key} />
            <Select
              name="account_id"
              label="Deposit to"
              options={accounts}
              defaultValue={accounts[0]!.value}
              isRequired
            />
            <TextField
              name="amount"
              label="Amount"
              type="number"
              inputMode="decimal"
              isRequired
              prefix="$"
              description={`Up to ${formatCents(max_cents)} per check`}
              inputClassName="tabular-nums"
              {...({ min: "0.01", step: "0.01" } as Record<string, string>)}
            />
            <FileField
              name="front_image"
              label="Front of the check"
              accept="image/jpeg,image/png"
              isRequired
              description="JPEG or PNG, at most 10 MB"
            />
            <FileField
              name="back_image"
              label="Back of the check (signed)"
              accept="image/jpeg,image/png"
              isRequired
              description="JPEG or PNG, at most 10 MB"
            />
            <div className="flex justify-end sm:col-span-2">
              <Button type="submit" isPending={sending} pendingLabel="Depositing…">
                Deposit check
              </Button>
            </div>
          </SchemaForm>
        )}
        <p className="mt-4 text-xs text-slate-600">
          {mobileDepositMaximumMessage(max_cents)}. Keep the paper check until the deposit is posted.
        </p>
      </section>

      <section
        aria-labelledby="deposits-heading"
        className="mt-6 rounded-2xl border border-slate-200 bg-white shadow-sm"
      >
        <h2 id="deposits-heading" className="border-b border-slate-100 px-5 py-4 text-lg font-semibold text-brand-900">
          Your deposits
        </h2>
        {deposits.length === 0 ? (
          <p className="px-5 py-8 text-center text-sm text-slate-700">You have not deposited a check yet.</p>
        ) : (
          <ul className="divide-y divide-slate-100" aria-label="Your mobile deposits">
            {deposits.map((d) => (
              <li key={d.id} className="flex items-start justify-between gap-3 px-5 py-4" data-testid="mobile-deposit">
                <div className="min-w-0">
                  <p className="font-semibold text-slate-900">Check to {d.account}</p>
                  <p className="text-sm text-slate-700">
                    <time dateTime={d.created_at}>{formatDateTime(d.created_at)}</time>
                  </p>
                  <p className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-700">
                    <StatusBadge status={STATUS[d.status].key} label={STATUS[d.status].label} />
                    {d.status === "rejected" && d.reject_reason ? <span>Reason: {d.reject_reason}</span> : null}
                  </p>
                  {d.availability.length > 0 ? (
                    <ul className="mt-1 text-sm text-slate-700">
                      {d.availability.map((part) => (
                        <li key={part.available_on}>
                          {formatCents(part.amount_cents)} available on {formatDate(part.available_on)}
                        </li>
                      ))}
                    </ul>
                  ) : null}
                  {d.hold_notice ? (
                    <div
                      className="mt-2 rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-950 ring-1 ring-amber-200 ring-inset"
                      data-testid="hold-notice"
                    >
                      <p className="font-semibold">Notice of hold</p>
                      <p>
                        We are delaying {formatCents(d.hold_notice.amount_cents)} of this deposit (made{" "}
                        {formatDate(d.hold_notice.deposited_on)}) until {formatDate(d.hold_notice.available_on)}.
                      </p>
                      <p>
                        Why: {d.hold_notice.reason} (Regulation CC, {d.hold_notice.rule})
                      </p>
                    </div>
                  ) : null}
                </div>
                <p className="shrink-0 font-semibold text-slate-900 tabular-nums">{formatCents(d.amount_cents)}</p>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
