import { data } from "react-router";
import type { Route } from "./+types/payments";
import { requestInfoContext } from "~/context";
import { pageTitle } from "~/components/site/page-title";
import { PaymentControls, type PaymentsActionResult } from "~/components/admin/payment-controls";
import { CurrencyRates } from "~/components/admin/currency-rates";
import { requireMoneyStaff } from "~/server/postings/access.server";
import { pauseOrResumePayments, paymentControls, saveCurrencyRate } from "./payments.server";
import { parseSubmission, readForm, refusalStatus, replyTo } from "~/server/http/form.server";
import { PauseSchema, RateSchema } from "~/domain/payment-controls";
import { CURRENCIES } from "~/domain/currencies";

/**
 * Payments for the whole credit union (docs/product.md#payment-controls): the pause switch for
 * outgoing payments and the currency rates for wires. Staff who may move money only.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Payments", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireMoneyStaff(request, context.get(requestInfoContext));
  const page = await paymentControls();
  return {
    ...page,
    currencies: CURRENCIES.filter((c) => c.code !== "USD").map((c) => ({ code: c.code, name: c.name })),
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const { staff, origin } = await requireMoneyStaff(request, context.get(requestInfoContext));
  const form = await readForm(request);
  const intent = form.get("intent");
  if (intent === "pause") {
    const submission = parseSubmission(PauseSchema, form);
    if (submission.status !== "success")
      return data(
        {
          intent,
          message: "Failed: please give the reason.",
          tone: "error",
          reply: replyTo(submission),
        } satisfies PaymentsActionResult,
        { status: 400 },
      );
    const paused = submission.value.paused === "on";
    const result = await pauseOrResumePayments({ staff, paused, reason: submission.value.reason, origin });
    if (!result.ok)
      return data(
        {
          intent,
          message: `Failed: ${result.message}.`,
          tone: "error",
          reply: replyTo(submission, { fieldErrors: { reason: [result.message] } }),
        } satisfies PaymentsActionResult,
        { status: refusalStatus(result.kind) },
      );
    const message = !result.changed
      ? paused
        ? "Outgoing payments were already paused."
        : "Outgoing payments were already running."
      : paused
        ? "Outgoing payments paused: To US Bank and International transfers are refused until you resume them."
        : "Outgoing payments resumed.";
    return { intent, message, tone: "success" } satisfies PaymentsActionResult;
  }
  if (intent === "set_rate") {
    const submission = parseSubmission(RateSchema, form);
    if (submission.status !== "success")
      return data(
        {
          intent,
          message: "Failed: please check the highlighted fields.",
          tone: "error",
          reply: replyTo(submission),
        } satisfies PaymentsActionResult,
        { status: 400 },
      );
    const result = await saveCurrencyRate({ staff, ...submission.value, origin });
    if (!result.ok)
      return data(
        {
          intent,
          message: `Failed: ${result.message}.`,
          tone: "error",
          reply: replyTo(submission, { fieldErrors: { [result.field ?? "code"]: [result.message] } }),
        } satisfies PaymentsActionResult,
        { status: refusalStatus(result.kind) },
      );
    return { intent, message: `Rate for ${result.code} saved.`, tone: "success" } satisfies PaymentsActionResult;
  }
  return data({ intent: "pause", message: "Failed: unknown action.", tone: "error" } satisfies PaymentsActionResult, {
    status: 400,
  });
}

export default function PaymentsPage({ loaderData, actionData }: Route.ComponentProps) {
  const result = actionData as PaymentsActionResult | undefined;
  return (
    <div className="space-y-5">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Payments</h1>
        <p className="mt-1 text-sm text-slate-700">Controls for every member&apos;s outgoing payments.</p>
      </div>
      <div className="grid gap-5 xl:grid-cols-2">
        <PaymentControls controls={loaderData.controls} result={result} />
        <CurrencyRates rates={loaderData.rates} currencies={loaderData.currencies} result={result} />
      </div>
    </div>
  );
}
