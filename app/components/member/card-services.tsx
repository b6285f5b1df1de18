import { useState } from "react";
import { useLocation, useNavigation } from "react-router";
import { CreditCard, Eye, KeyRound, Lock, ShieldAlert, SlidersHorizontal, Unlock } from "lucide-react";
import {
  Button,
  Checkbox,
  FormMessage,
  RadioGroup,
  SchemaForm,
  TextField,
  formMessages,
  useSchemaForm,
  useStepFocus,
} from "~/components/ui";
import { cx } from "~/components/ui/field-styles";
import { Amount, StatusBadge, formatDate } from "~/components/member/amount";
import { centsAsDecimal, formatCents } from "~/domain/money";
import {
  CARD_DAILY_LIMIT_MAX_CENTS,
  CARD_DAILY_LIMIT_MIN_CENTS,
  cardSchema,
  changePinSchema,
  reportLostSchema,
  setLimitSchema,
  viewDetailsSchema,
} from "~/domain/cards";
import type { CardActionData } from "~/server/cards/page.server";
import type { MemberCard } from "~/server/cards/controls.server";

/**
 * One debit card on /dashboard/cards (docs/product.md#cards): the card, its account, its limit
 * and what it spent today, its controls (each a plain form posting to the page, so every one
 * works without JavaScript), and its latest transactions from the ledger.
 */

const STATUS_BADGE: Record<MemberCard["status"], string> = { active: "posted", locked: "pending", blocked: "failed" };
// A card purchase's hold fails only when it is released (the merchant cancelled, or it was never settled).
const TX_STATUS: Record<CardTransactionStatus, string> = {
  pending: "Pending",
  posted: "Completed",
  failed: "Released",
  reversed: "Reversed",
};
type CardTransactionStatus = MemberCard["transactions"][number]["status"];

/** The answer of the last post, if it was about this card and one of these controls. */
function answerFor(
  result: CardActionData | undefined,
  card_id: number,
  intents: ReadonlyArray<CardActionData["intent"]>,
): CardActionData | undefined {
  return result && result.card_id === card_id && intents.includes(result.intent) ? result : undefined;
}

export function CardFace({ card, institution_name }: { card: MemberCard; institution_name: string }) {
  return (
    <div
      className={cx(
        "relative flex aspect-[1.586] w-full max-w-sm flex-col justify-between overflow-hidden rounded-2xl p-5 text-white shadow-md",
        card.status === "blocked"
          ? "bg-gradient-to-br from-slate-500 to-slate-700"
          : "bg-gradient-to-br from-brand-700 to-brand-900",
      )}
    >
      <div className="flex items-start justify-between gap-3">
        <p className="text-sm font-semibold">{institution_name}</p>
        <p className="text-xs font-semibold uppercase tracking-wider text-white/85">Debit</p>
      </div>
      <CreditCard className="size-8 text-white/70" aria-hidden="true" />
      <div>
        <p className="font-mono text-lg tracking-widest">
          <span className="sr-only">Card number ending </span>
          {card.masked_number}
        </p>
        <p className="mt-1 text-xs text-white/85">
          Expires <span className="font-mono">{card.expiry}</span>
        </p>
      </div>
    </div>
  );
}

export function CardFacts({ card }: { card: MemberCard }) {
  return (
    <dl className="grid grid-cols-2 gap-x-4 gap-y-3 text-sm">
      <div>
        <dt className="text-slate-600">Status</dt>
        <dd className="mt-0.5">
          <StatusBadge status={STATUS_BADGE[card.status]} label={card.status_label} />
        </dd>
      </div>
      <div>
        <dt className="text-slate-600">Linked account</dt>
        <dd className="mt-0.5 font-medium text-slate-900">
          {card.account.name} <span className="whitespace-nowrap font-mono">{card.account.masked_number}</span>
          {/* A frozen account declines the card's purchases although the card itself is active. */}
          {card.account.status === "frozen" ? (
            <span className="mt-1 block text-sm font-normal text-red-800">
              Frozen: purchases are declined. Please contact us.
            </span>
          ) : null}
        </dd>
      </div>
      <div>
        <dt className="text-slate-600">Daily purchase limit</dt>
        <dd className="mt-0.5 font-semibold tabular-nums text-slate-900">{formatCents(card.daily_limit_cents)}</dd>
      </div>
      <div>
        <dt className="text-slate-600">Spent today</dt>
        <dd className="mt-0.5 font-semibold tabular-nums text-slate-900">{formatCents(card.spent_today_cents)}</dd>
      </div>
    </dl>
  );
}

function Panel({
  title,
  icon: Icon,
  open,
  children,
}: {
  title: string;
  icon: typeof Eye;
  open: boolean;
  children: React.ReactNode;
}) {
  return (
    <details open={open} className="group rounded-xl border border-slate-200 bg-white open:shadow-sm">
      <summary className="flex min-h-11 cursor-pointer list-none items-center gap-2 rounded-xl px-4 py-3 text-sm font-semibold text-slate-900 hover:bg-slate-50 [&::-webkit-details-marker]:hidden">
        <Icon className="size-4 text-accent-700" aria-hidden="true" />
        {title}
        <span aria-hidden="true" className="ml-auto text-slate-500 transition-transform group-open:rotate-90">
          ›
        </span>
      </summary>
      <div className="border-t border-slate-100 px-4 py-4">{children}</div>
    </details>
  );
}

function Answer({ answer }: { answer: CardActionData | undefined }) {
  if (!answer) return null;
  const message = answer.tone === "error" ? (formMessages(answer.reply)[0] ?? null) : answer.message;
  return message ? (
    <FormMessage tone={answer.tone} className="mb-3">
      {message}
    </FormMessage>
  ) : null;
}

function useSending(intent: string, card_id: number): boolean {
  const navigation = useNavigation();
  return (
    navigation.state === "submitting" &&
    navigation.formData?.get("intent") === intent &&
    navigation.formData?.get("card_id") === String(card_id)
  );
}

function CardIdField({ card_id }: { card_id: number }) {
  return <input type="hidden" name="card_id" value={card_id} />;
}

export function LockControl({ card, result }: { card: MemberCard; result: CardActionData | undefined }) {
  const answer = answerFor(result, card.id, ["lock", "unlock"]);
  const form = useSchemaForm(cardSchema, { id: `card-${card.id}-lock`, lastResult: answer?.reply });
  const locked = card.status === "locked";
  const intent = locked ? "unlock" : "lock";
  const sending = useSending(intent, card.id);
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-4">
      <Answer answer={answer} />
      <SchemaForm
        form={form}
        method="post"
        aria-label={locked ? "Unlock card" : "Lock card"}
        className="flex flex-wrap items-center justify-between gap-3"
      >
        <CardIdField card_id={card.id} />
        <p className="min-w-0 flex-1 text-sm text-slate-700">
          {locked
            ? "This card is locked: every purchase is declined until you unlock it."
            : "Lock the card at once if you misplaced it; unlock it when you find it."}
        </p>
        <Button
          type="submit"
          name="intent"
          value={intent}
          variant={locked ? "primary" : "secondary"}
          isPending={sending}
          pendingLabel={locked ? "Unlocking…" : "Locking…"}
        >
          {locked ? <Unlock className="size-4" aria-hidden="true" /> : <Lock className="size-4" aria-hidden="true" />}
          {locked ? "Unlock card" : "Lock card"}
        </Button>
      </SchemaForm>
    </div>
  );
}

export function LimitControl({ card, result }: { card: MemberCard; result: CardActionData | undefined }) {
  const answer = answerFor(result, card.id, ["set_limit"]);
  const form = useSchemaForm(setLimitSchema, { id: `card-${card.id}-limit`, lastResult: answer?.reply });
  const sending = useSending("set_limit", card.id);
  return (
    <Panel title="Set Transaction Limits" icon={SlidersHorizontal} open={Boolean(answer)}>
      <Answer answer={answer} />
      <SchemaForm form={form} method="post" aria-label="Set the daily purchase limit" className="flex flex-col gap-3">
        <CardIdField card_id={card.id} />
        <TextField
          name="daily_limit"
          label="Daily purchase limit"
          description={`From ${formatCents(CARD_DAILY_LIMIT_MIN_CENTS)} to ${formatCents(CARD_DAILY_LIMIT_MAX_CENTS)}, counted over the credit union's business day.`}
          prefix="$"
          inputMode="decimal"
          defaultValue={centsAsDecimal(card.daily_limit_cents)}
          isRequired
        />
        <div>
          <Button type="submit" name="intent" value="set_limit" isPending={sending} pendingLabel="Saving…">
            Save limit
          </Button>
        </div>
      </SchemaForm>
    </Panel>
  );
}

function SendCodeForm({
  card,
  purpose,
  label,
  again,
  buttonId,
}: {
  card: MemberCard;
  purpose: "details" | "pin";
  label: string;
  again?: boolean;
  buttonId?: string;
}) {
  const intent = purpose === "details" ? "send_details_code" : "send_pin_code";
  const form = useSchemaForm(cardSchema, { id: `card-${card.id}-${intent}${again ? "-again" : ""}` });
  const sending = useSending(intent, card.id);
  return (
    <SchemaForm form={form} method="post" aria-label={label}>
      <CardIdField card_id={card.id} />
      <Button
        id={buttonId}
        type="submit"
        name="intent"
        value={intent}
        variant={again ? "ghost" : "secondary"}
        isPending={sending}
        pendingLabel="Sending…"
      >
        {label}
      </Button>
    </SchemaForm>
  );
}

/**
 * A code step ("Email me a code", then the code field) that replaces the button that opened it:
 * focus moves to the code field when it opens and back to the button on Cancel (useStepFocus).
 * Cancel puts the panel back as it was before the code was sent; without JavaScript it is a link
 * to the page itself, which shows the panel closed.
 */
function useCodeStep(raw: CardActionData | undefined, card_id: number, purpose: "details" | "pin") {
  const [dismissed, setDismissed] = useState<CardActionData>();
  const answer = raw !== undefined && raw === dismissed ? undefined : raw;
  const opener = `card-${card_id}-${purpose}-send-code`;
  const step = useStepFocus<HTMLDivElement>(answer?.code_step === purpose ? purpose : null, { [purpose]: opener });
  return { answer, step, opener, cancel: () => setDismissed(raw) };
}

function CancelCodeStep({ onCancel }: { onCancel: () => void }) {
  const location = useLocation();
  return (
    <a
      href={`${location.pathname}${location.search}`}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        onCancel();
      }}
      className="inline-flex items-center justify-center rounded-lg border border-slate-300 bg-white px-4 py-2.5 text-sm font-semibold text-brand-800 shadow-xs hover:bg-slate-50"
    >
      Cancel
    </a>
  );
}

export function DetailsControl({ card, result }: { card: MemberCard; result: CardActionData | undefined }) {
  const raw = answerFor(result, card.id, ["send_details_code", "view_details"]);
  const { answer, step, opener, cancel } = useCodeStep(raw, card.id, "details");
  const form = useSchemaForm(viewDetailsSchema, {
    id: `card-${card.id}-details`,
    lastResult: answer?.intent === "view_details" ? answer.reply : undefined,
  });
  const sending = useSending("view_details", card.id);
  const details = answer?.details;
  return (
    <Panel title="View Card Details" icon={Eye} open={Boolean(raw)}>
      <Answer answer={answer} />
      {details ? (
        <dl className="grid gap-3 rounded-lg bg-slate-50 p-4 text-sm sm:grid-cols-3" aria-label="Card details">
          <div className="sm:col-span-3">
            <dt className="text-slate-600">Card number</dt>
            <dd className="mt-0.5 font-mono text-lg tracking-wider text-slate-900">{details.number}</dd>
          </div>
          <div>
            <dt className="text-slate-600">Expiry</dt>
            <dd className="mt-0.5 font-mono text-slate-900">{details.expiry}</dd>
          </div>
          <div className="sm:col-span-2">
            <dt className="text-slate-600">Name on card</dt>
            <dd className="mt-0.5 text-slate-900">{details.name_on_card}</dd>
          </div>
        </dl>
      ) : answer?.code_step === "details" ? (
        <div ref={step} className="flex flex-col gap-3">
          <SchemaForm
            form={form}
            method="post"
            aria-label="Enter the code to view card details"
            className="flex flex-col gap-3"
          >
            <CardIdField card_id={card.id} />
            <TextField
              name="otp"
              label="One-time code"
              description="The code we emailed you (digits only)."
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              isRequired
            />
            <div className="flex flex-wrap gap-2">
              <Button type="submit" name="intent" value="view_details" isPending={sending} pendingLabel="Checking…">
                Show card details
              </Button>
              <CancelCodeStep onCancel={cancel} />
            </div>
          </SchemaForm>
          <SendCodeForm card={card} purpose="details" label="Send a new code" again />
        </div>
      ) : (
        <div className="flex flex-col gap-3">
          <p className="text-sm text-slate-700">
            To see the full card number and expiry, we email you a one-time code first.
          </p>
          <div>
            <SendCodeForm card={card} purpose="details" label="Email me a code" buttonId={opener} />
          </div>
        </div>
      )}
    </Panel>
  );
}

export function PinControl({ card, result }: { card: MemberCard; result: CardActionData | undefined }) {
  const raw = answerFor(result, card.id, ["send_pin_code", "change_pin"]);
  const { answer, step, opener, cancel } = useCodeStep(raw, card.id, "pin");
  const form = useSchemaForm(changePinSchema, {
    id: `card-${card.id}-pin`,
    lastResult: answer?.intent === "change_pin" ? answer.reply : undefined,
  });
  const sending = useSending("change_pin", card.id);
  return (
    <Panel title="Change PIN" icon={KeyRound} open={Boolean(raw)}>
      <Answer answer={answer} />
      {answer?.code_step === "pin" ? (
        <div ref={step} className="flex flex-col gap-3">
          <SchemaForm form={form} method="post" aria-label="Choose a new PIN" className="flex flex-col gap-3">
            <CardIdField card_id={card.id} />
            <TextField
              name="otp"
              label="One-time code"
              description="The code we emailed you (digits only)."
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              isRequired
            />
            <div className="grid gap-3 sm:grid-cols-2">
              <TextField
                name="pin_code"
                label="New PIN"
                description="4 digits, not a sequence such as 1234 or one digit repeated."
                type="password"
                inputMode="numeric"
                autoComplete="off"
                maxLength={4}
                isRequired
              />
              <TextField
                name="pin_code_confirm"
                label="New PIN again"
                type="password"
                inputMode="numeric"
                autoComplete="off"
                maxLength={4}
                isRequired
              />
            </div>
            <div className="flex flex-wrap gap-2">
              <Button type="submit" name="intent" value="change_pin" isPending={sending} pendingLabel="Saving…">
                Change PIN
              </Button>
              <CancelCodeStep onCancel={cancel} />
            </div>
          </SchemaForm>
          <SendCodeForm card={card} purpose="pin" label="Send a new code" again />
        </div>
      ) : (
        <div className="flex flex-col gap-3">
          <p className="text-sm text-slate-700">
            {card.has_pin ? "Choose a new 4-digit PIN." : "This card has no PIN yet: choose one."} We email you a
            one-time code first.
          </p>
          <div>
            <SendCodeForm card={card} purpose="pin" label="Email me a code" buttonId={opener} />
          </div>
        </div>
      )}
    </Panel>
  );
}

export function ReportLostControl({ card, result }: { card: MemberCard; result: CardActionData | undefined }) {
  const answer = answerFor(result, card.id, ["report_lost"]);
  const form = useSchemaForm(reportLostSchema, { id: `card-${card.id}-report`, lastResult: answer?.reply });
  const sending = useSending("report_lost", card.id);
  return (
    <Panel title="Report lost or stolen" icon={ShieldAlert} open={Boolean(answer)}>
      <Answer answer={answer} />
      <SchemaForm form={form} method="post" aria-label="Report the card lost or stolen" className="flex flex-col gap-4">
        <CardIdField card_id={card.id} />
        <p className="text-sm text-slate-700">
          The card stops working for good and we issue a new card with a new number on the same account. Purchases
          already made stay as they are.
        </p>
        <RadioGroup
          name="reason"
          label="What happened?"
          options={[
            { value: "lost", label: "Lost" },
            { value: "stolen", label: "Stolen" },
          ]}
          isRequired
        />
        <Checkbox name="confirm" value="on">
          Block card {card.masked_number} for good
        </Checkbox>
        <div>
          <Button
            type="submit"
            name="intent"
            value="report_lost"
            variant="danger"
            isPending={sending}
            pendingLabel="Reporting…"
          >
            Report and replace card
          </Button>
        </div>
      </SchemaForm>
    </Panel>
  );
}

export function CardTransactions({
  card,
  formatDateTime,
}: {
  card: MemberCard;
  formatDateTime: (iso: string) => string;
}) {
  if (card.transactions.length === 0) return <p className="text-sm text-slate-700">No purchases with this card yet.</p>;
  return (
    <ul className="divide-y divide-slate-100" aria-label={`Latest transactions of card ${card.masked_number}`}>
      {card.transactions.map((t) => (
        <li key={t.transaction_id} className="flex items-start justify-between gap-3 py-3">
          <div className="min-w-0">
            <p className="truncate text-sm font-medium text-slate-900">{t.merchant}</p>
            <p className="text-xs text-slate-700">
              <time dateTime={t.created_at} title={formatDateTime(t.created_at)}>
                {formatDate(t.effective_date)}
              </time>{" "}
              · {t.category} · <span className="font-mono">{t.reference_number}</span>
            </p>
          </div>
          <div className="flex shrink-0 flex-col items-end gap-1">
            <Amount cents={t.amount_cents} showIcon={false} className="text-sm" />
            <StatusBadge status={t.status} label={TX_STATUS[t.status]} />
          </div>
        </li>
      ))}
    </ul>
  );
}
