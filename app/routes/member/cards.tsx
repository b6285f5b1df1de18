import { data, Link } from "react-router";
import { ArrowLeft, CreditCard } from "lucide-react";
import type { Route } from "./+types/cards";
import { requestInfoContext } from "~/context";
import { requireUser } from "~/server/auth/session.server";
import { readForm } from "~/server/http/form.server";
import { cardsAction, loadCardsPage, type CardActionData } from "~/server/cards/page.server";
import { institution } from "~/config/institution.server";
import { pageTitle } from "~/components/site/page-title";
import { useInstitutionDates } from "~/components/institution-dates";
import { FormMessage, formMessages } from "~/components/ui";
import { cardWorks } from "~/domain/cards";
import {
  CardFace,
  CardFacts,
  CardTransactions,
  DetailsControl,
  LimitControl,
  LockControl,
  PinControl,
  ReportLostControl,
} from "~/components/member/card-services";

/**
 * /dashboard/cards (docs/product.md#cards): the member's debit cards, each with Lock / Unlock,
 * Set Transaction Limits, View Card Details and Change PIN (after an emailed one-time code),
 * Report lost or stolen, and its latest transactions. Every control is a form posting here.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Cards", matches);
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request, { roles: ["user"] });
  return { ...(await loadCardsPage(user)), institution_name: institution().short_name };
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireUser(request, { roles: ["user"] });
  const form = await readForm(request);
  const info = context.get(requestInfoContext);
  const { status, body } = await cardsAction(user, form, { request_id: info.request_id, ip: info.ip });
  return data(body, { status });
}

export default function Cards({ loaderData, actionData }: Route.ComponentProps) {
  const { cards, institution_name } = loaderData;
  const result = actionData as CardActionData | undefined;
  const { formatDateTime } = useInstitutionDates();
  const usable = cards.filter(cardWorks);
  const blocked = cards.filter((c) => !cardWorks(c));
  // An answer about no card with controls on the page: an unknown step, another member's card,
  // or the card just reported lost (its controls are gone; the answer names its replacement).
  const stray =
    result && !usable.some((c) => c.id === result.card_id)
      ? {
          tone: result.tone,
          text: result.tone === "error" ? (formMessages(result.reply)[0] ?? result.message) : result.message,
        }
      : null;
  return (
    <div className="mx-auto max-w-6xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard#quick-actions"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Back to Quick Actions
      </Link>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Cards</h1>
      <p className="mt-1 max-w-3xl text-sm text-slate-700">
        Your debit cards and their controls. A change works at once: a locked card is declined at the next purchase, and
        a card reported lost or stolen never works again.
      </p>
      {stray ? (
        <FormMessage tone={stray.tone} className="mt-4">
          {stray.text}
        </FormMessage>
      ) : null}
      {usable.length === 0 ? (
        <p className="mt-6 rounded-2xl border border-dashed border-slate-300 bg-white p-8 text-center text-sm text-slate-700">
          You have no debit card yet. Each checking account gets one when it opens.
        </p>
      ) : null}
      {usable.map((card) => (
        <section
          key={card.id}
          aria-labelledby={`card-${card.id}-heading`}
          className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
        >
          <h2 id={`card-${card.id}-heading`} className="flex items-center gap-2 text-lg font-semibold text-brand-900">
            <CreditCard className="size-5 text-accent-700" aria-hidden="true" /> Debit card {card.masked_number}
          </h2>
          {card.renews_last4 ? (
            <p className="mt-1 text-sm text-slate-700">
              The renewal of your card ending {card.renews_last4}, which works until it expires.
            </p>
          ) : null}
          {card.renewed_by_last4 ? (
            <p className="mt-1 text-sm text-slate-700">
              Expires at the end of {card.expiry}: its renewal, the card ending {card.renewed_by_last4}, works now.
            </p>
          ) : null}
          <div className="mt-4 grid gap-6 lg:grid-cols-2">
            <div className="min-w-0 space-y-5">
              <CardFace card={card} institution_name={institution_name} />
              <CardFacts card={card} />
              <div>
                <h3 className="text-base font-semibold text-slate-900">Latest transactions</h3>
                <CardTransactions card={card} formatDateTime={formatDateTime} />
              </div>
            </div>
            <div className="min-w-0 space-y-3">
              <h3 className="text-base font-semibold text-slate-900">Card controls</h3>
              <LockControl card={card} result={result} />
              <LimitControl card={card} result={result} />
              <DetailsControl card={card} result={result} />
              <PinControl card={card} result={result} />
              <ReportLostControl card={card} result={result} />
            </div>
          </div>
        </section>
      ))}
      {blocked.length > 0 ? (
        <section aria-labelledby="blocked-heading" className="mt-8">
          <h2 id="blocked-heading" className="text-lg font-semibold text-brand-900">
            Cards that no longer work
          </h2>
          <ul className="mt-3 space-y-3">
            {blocked.map((card) => (
              <li key={card.id} className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
                <p className="font-semibold text-slate-900">
                  Debit card <span className="font-mono">{card.masked_number}</span>
                </p>
                <p className="mt-1 text-sm text-slate-700">
                  {card.status !== "blocked"
                    ? `Expired at the end of ${card.expiry}.`
                    : `${card.blocked_reason === "account_closed" ? "Its account was closed" : `Reported ${card.blocked_reason ?? "lost"}`}; blocked for good.`}
                  {card.replaced_by_last4 ? ` Replaced by the card ending ${card.replaced_by_last4}.` : ""}
                  {card.renewed_by_last4 ? ` Renewed by the card ending ${card.renewed_by_last4}.` : ""}
                </p>
                <div className="mt-3">
                  <CardTransactions card={card} formatDateTime={formatDateTime} />
                </div>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
