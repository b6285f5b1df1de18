import crypto from "node:crypto";
import { data, Link } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/card-transactions";
import { requestInfoContext } from "~/context";
import { pageTitle } from "~/components/site/page-title";
import { CardTransactions } from "~/components/admin/card-transactions";
import { requireMoneyStaff } from "~/server/postings/access.server";
import { readForm } from "~/server/http/form.server";
import { cardTransactionAction, cardTransactionsPage } from "~/server/cards/back-office.server";

/**
 * Post card transaction for one member (docs/product.md#card-transactions-staff): staff who may
 * move money only (a reviewer gets 403), standing in for the card network.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Post card transaction", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  await requireMoneyStaff(request, context.get(requestInfoContext));
  const page = await cardTransactionsPage(params.memberId);
  if (!page) throw data({ form_error: "This member was not found." }, { status: 404 });
  // A new key for each purchase form shown: a double click or a retry posts one purchase.
  return { ...page, request_key: crypto.randomUUID() };
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const info = context.get(requestInfoContext);
  const { staff, origin } = await requireMoneyStaff(request, info);
  const form = await readForm(request);
  const { status, body } = await cardTransactionAction(params.memberId, staff, origin, form);
  return data(body, { status });
}

export default function CardTransactionsPage({ loaderData, actionData }: Route.ComponentProps) {
  const { member } = loaderData;
  return (
    <div className="mx-auto max-w-4xl space-y-5">
      <Link
        to={`/admin?member=${encodeURIComponent(member.user_id)}`}
        className="inline-flex items-center gap-1.5 text-sm font-medium text-brand-700 underline underline-offset-2"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Back to {member.email}
      </Link>
      <h1 className="text-2xl font-semibold tracking-tight text-brand-800">Post card transaction: {member.email}</h1>
      <CardTransactions
        cards={loaderData.cards}
        pending={loaderData.pending}
        requestKey={loaderData.request_key}
        result={actionData}
      />
    </div>
  );
}
