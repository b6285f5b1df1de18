import crypto from "node:crypto";
import { data, Link, redirect } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/loan-apply";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { loanApplicationsOpen, loanProduct } from "~/server/loans/products.server";
import { loadPledgeableAccounts, submitApplication } from "./loans.server";
import { parseSubmission, readForm, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import { logger } from "~/server/logger.server";
import { LineOfCreditApplicationSchema, LoanApplicationSchema } from "~/domain/loans/forms";
import { LineApplyForm } from "~/components/member/line-of-credit";
import { LoanApplyForm } from "~/components/member/loan-application-form";
import { formatCents } from "~/domain/money";
import { shareSecuredMaximumCents } from "~/domain/loans/share-secured";
import { pageTitle } from "~/components/site/page-title";

/**
 * /dashboard/loans/apply/:product (docs/product.md#loans): the member asks for an amount and term
 * within the product, says what it is for, and gives their yearly income and employer (kept
 * encrypted). Sent, the application is under review and the member is told by notification and
 * email.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Apply for a loan", matches);
}

function productOf(slug: string) {
  const product = loanApplicationsOpen() ? loanProduct(slug) : null;
  if (!product) throw data({ message: "We do not offer that loan." }, { status: 404 });
  return product;
}

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const product = productOf(params.product);
  // A share-secured loan: the member's savings to pledge, each with what may be borrowed against it.
  const pledgeable =
    product.kind === "share_secured"
      ? (await loadPledgeableAccounts(user)).map((a) => ({
          value: String(a.id),
          label: `${a.name} ••${a.account_number.slice(-4)}: ${formatCents(a.available_cents)} available, borrow up to ${formatCents(shareSecuredMaximumCents(a.available_cents, product))}`,
        }))
      : null;
  return { product, pledgeable, idempotency_key: crypto.randomUUID() };
}

export type ApplyActionData = { ok: false; reply: FormReply };

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const product = productOf(params.product);
  const info = context.get(requestInfoContext);
  const form = await readForm(request);
  // A line of credit asks for a credit limit in place of an amount and term (docs/product.md#lines-of-credit).
  const open_end = product.minimum_payment !== null;
  const submission = open_end
    ? parseSubmission(LineOfCreditApplicationSchema, form)
    : parseSubmission(LoanApplicationSchema, form);
  if (submission.status !== "success")
    return data({ ok: false, reply: replyTo(submission) } satisfies ApplyActionData, { status: 400 });
  const key = String(form.get("idempotency_key") ?? "");
  if (!/^[0-9a-f-]{36}$/.test(key))
    return data(
      {
        ok: false,
        reply: replyTo(submission, { formErrors: ["Please reload the page and send the application again."] }),
      },
      { status: 400 },
    );
  try {
    const v = submission.value;
    const answer = await submitApplication(
      { id: user.id, email: user.email },
      {
        product_slug: product.slug,
        amount_cents: "credit_limit" in v ? v.credit_limit : v.amount,
        term_months: "credit_limit" in v ? null : v.term_months,
        purpose: v.purpose,
        annual_income_cents: v.annual_income,
        employer: v.employer,
        idempotency_key: key,
        pledged_account_id: v.pledged_account,
      },
      { request_id: info.request_id, ip: info.ip },
    );
    if (!answer.ok)
      return data(
        {
          ok: false,
          reply: replyTo(
            submission,
            answer.field
              ? {
                  fieldErrors: {
                    [open_end && answer.field === "amount" ? "credit_limit" : answer.field]: [answer.message],
                  },
                }
              : { formErrors: [answer.message] },
          ),
        } satisfies ApplyActionData,
        { status: refusalStatus(answer.kind) },
      );
    return redirect(`/dashboard/loans/applications/${answer.application_id}?sent=1`);
  } catch (error) {
    logger.error({ err: error }, "loan application failed");
    return data(
      {
        ok: false,
        reply: replyTo(submission, {
          formErrors: [`We could not send your application. Please try again. Reference: ${info.request_id}`],
        }),
      } satisfies ApplyActionData,
      { status: 500 },
    );
  }
}

export default function ApplyForLoan({ loaderData, actionData }: Route.ComponentProps) {
  const { product, pledgeable, idempotency_key } = loaderData;
  const reply = actionData && !actionData.ok ? actionData.reply : null;
  return (
    <div className="mx-auto max-w-3xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard/loans"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Loans
      </Link>
      {product.minimum_payment ? (
        <LineApplyForm product={product} idempotency_key={idempotency_key} reply={reply} />
      ) : (
        <LoanApplyForm product={product} pledgeable={pledgeable} idempotency_key={idempotency_key} reply={reply} />
      )}
    </div>
  );
}
