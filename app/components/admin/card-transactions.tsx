import { useNavigation } from "react-router";
import { Button, FormMessage, SchemaForm, Select, TextField, formMessages, useSchemaForm } from "~/components/ui";
import { formatCents } from "~/domain/money";
import {
  CARD_AUTHORIZATION_HOLD_DAYS,
  CARD_PURCHASE_CATEGORIES,
  CARD_STATUS_LABELS,
  cardPurchaseSchema,
  pendingPurchaseSchema,
} from "~/domain/cards";
import type { CardTransactionActionData } from "~/server/cards/back-office.server";
import type { cardsOfMember } from "~/server/cards/controls.server";
import { formatDate } from "~/components/member/amount";

type Cards = Awaited<ReturnType<typeof cardsOfMember>>;

/**
 * Post card transaction (docs/product.md#card-transactions-staff): a purchase as the card network
 * would send it, through the one card authorization, and Settle or Release for the authorized ones.
 */
export function CardTransactions({
  cards,
  pending,
  requestKey,
  result,
}: Cards & { requestKey: string; result: CardTransactionActionData | undefined }) {
  const navigation = useNavigation();
  const authorizeResult = result?.intent === "authorize" ? result : undefined;
  const form = useSchemaForm(cardPurchaseSchema, {
    id: "card-purchase",
    lastResult: authorizeResult?.tone === "error" ? authorizeResult.reply : undefined,
  });
  const sending = navigation.state === "submitting" && navigation.formData?.get("intent") === "authorize";
  const submitted = navigation.state === "submitting" ? navigation.formData : undefined;
  const resolving =
    submitted && (submitted.get("intent") === "settle" || submitted.get("intent") === "release")
      ? { id: submitted.get("authorization_id"), intent: submitted.get("intent") }
      : null;
  const settleResult = result?.intent === "settle" || result?.intent === "release" ? result : undefined;
  return (
    <div className="space-y-6">
      <section
        aria-labelledby="purchase-heading"
        className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
      >
        <h2 id="purchase-heading" className="text-lg font-semibold text-brand-800">
          Post a card purchase
        </h2>
        <p className="mt-1 text-sm text-slate-700">
          Sent as the card network would send it: a locked or blocked card, a purchase over the card's daily limit or
          more than the account has available is declined.
        </p>
        {authorizeResult ? (
          <FormMessage tone={authorizeResult.tone} className="mt-3">
            {authorizeResult.tone === "error"
              ? (formMessages(authorizeResult.reply)[0] ?? authorizeResult.message)
              : authorizeResult.message}
          </FormMessage>
        ) : null}
        {cards.length === 0 ? (
          <p className="mt-3 text-sm text-slate-700">This member has no card.</p>
        ) : (
          <SchemaForm
            key={requestKey}
            form={form}
            method="post"
            aria-label="Post a card purchase"
            className="mt-4 grid gap-4 sm:grid-cols-2"
          >
            <input type="hidden" name="request_key" value={requestKey} />
            <Select
              name="card_id"
              label="Card"
              options={cards.map((c) => ({
                value: String(c.id),
                label: `${c.masked_number} · ${CARD_STATUS_LABELS[c.status]} · limit ${formatCents(c.daily_limit_cents)} a day`,
              }))}
              defaultValue={String(cards[0]!.id)}
              isRequired
            />
            <TextField name="merchant" label="Merchant" isRequired />
            <TextField name="amount" label="Amount" prefix="$" inputMode="decimal" isRequired />
            <Select
              name="category"
              label="Category"
              options={CARD_PURCHASE_CATEGORIES.map((c) => ({ value: c, label: c }))}
              defaultValue="Shopping"
              isRequired
            />
            <div className="sm:col-span-2">
              <Button type="submit" name="intent" value="authorize" isPending={sending} pendingLabel="Sending…">
                Authorize purchase
              </Button>
            </div>
          </SchemaForm>
        )}
      </section>
      <section aria-labelledby="pending-heading" className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
        <h2 id="pending-heading" className="text-lg font-semibold text-brand-800">
          Authorized, not yet settled
        </h2>
        <p className="mt-1 text-sm text-slate-700">
          Settle when the network settles the purchase; Release when the merchant cancels it. One the network has not
          settled after {CARD_AUTHORIZATION_HOLD_DAYS} days is released overnight. The member is told of a release in
          the bell.
        </p>
        {settleResult ? (
          <FormMessage tone={settleResult.tone} className="mt-3">
            {settleResult.tone === "error"
              ? (formMessages(settleResult.reply)[0] ?? settleResult.message)
              : settleResult.message}
          </FormMessage>
        ) : null}
        {pending.length === 0 ? (
          <p className="mt-3 text-sm text-slate-700">Nothing waiting to settle.</p>
        ) : (
          <ul className="mt-3 divide-y divide-slate-100">
            {pending.map((p) => (
              <li key={p.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
                <div className="min-w-0 text-sm">
                  <p className="font-medium text-slate-900">
                    {formatCents(p.amount_cents)} at {p.merchant}
                  </p>
                  <p className="text-slate-700">
                    {formatDate(p.business_date)} · card {cards.find((c) => c.id === p.card_id)?.masked_number} ·{" "}
                    <span className="font-mono">{p.reference_number}</span>
                  </p>
                </div>
                <PendingPurchaseForm
                  id={p.id}
                  what={`${formatCents(p.amount_cents)} at ${p.merchant}`}
                  pending={resolving?.id === String(p.id) ? resolving.intent : null}
                />
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function PendingPurchaseForm({
  id,
  what,
  pending,
}: {
  id: number;
  what: string;
  pending: FormDataEntryValue | null | undefined;
}) {
  const form = useSchemaForm(pendingPurchaseSchema, { id: `pending-purchase-${id}` });
  return (
    <SchemaForm form={form} method="post" aria-label={`Settle or release ${what}`} className="flex gap-2">
      <input type="hidden" name="authorization_id" value={id} />
      <Button
        type="submit"
        name="intent"
        value="settle"
        variant="secondary"
        aria-label={`Settle ${what}`}
        isPending={pending === "settle"}
        pendingLabel="Settling…"
      >
        Settle
      </Button>
      <Button
        type="submit"
        name="intent"
        value="release"
        variant="secondary"
        aria-label={`Release ${what}`}
        isPending={pending === "release"}
        pendingLabel="Releasing…"
      >
        Release
      </Button>
    </SchemaForm>
  );
}
