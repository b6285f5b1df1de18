import type { SessionUser } from "~/server/auth/session.server";
import { db } from "~/server/db/db.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import { formReply, parseSubmission, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import { formIntent, UNKNOWN_INTENT_MESSAGE } from "~/domain/form-intent";
import {
  cardSchema,
  cardWorks,
  changePinSchema,
  reportLostSchema,
  setLimitSchema,
  viewDetailsSchema,
  CARD_MESSAGES,
} from "~/domain/cards";
import { memberStatementAccounts } from "~/server/statements/member-statements.server";
import {
  changeCardPin,
  memberCardsView,
  reportCardLost,
  revealCardDetails,
  sendCardCode,
  setCardDailyLimit,
  setCardLocked,
  type CardCodePurpose,
  type CardControlAnswer,
  type CardDetailsAnswer,
} from "./controls.server";

/**
 * /dashboard/cards (docs/product.md#cards): the page's data and its one action, one intent per
 * control. The route only authorizes (`requireMember`) and hands over; every answer carries the
 * form pipeline's `reply` (messages next to their field, the values to show again, never a code
 * or a PIN).
 */

export const CARD_INTENTS = [
  "lock",
  "unlock",
  "set_limit",
  "send_details_code",
  "view_details",
  "send_pin_code",
  "change_pin",
  "report_lost",
] as const;
export type CardIntent = (typeof CARD_INTENTS)[number];

export interface CardActionData {
  intent: CardIntent | null;
  card_id: number | null;
  reply: FormReply;
  message: string;
  tone: "success" | "error";
  /** The code step to show for this card (a code was sent, or the code entered was refused). */
  code_step?: CardCodePurpose;
  details?: { number: string; expiry: string; name_on_card: string };
}

export async function loadCardsPage(user: SessionUser) {
  return { cards: await memberCardsView(await db(), user.id) };
}

/**
 * The dashboard's Card Services (views Overview and Statements; the statements themselves are on
 * /dashboard/statements) and its Cards quick action: the cards (with their last transaction only) for the Overview and
 * the Cards quick action, and the accounts' statements only when the Statements view is the one
 * shown (`view`; it is in the URL, so switching views, with or without JavaScript, loads the page
 * again and builds it then).
 */
export async function cardServicesSummary(
  user: Pick<SessionUser, "id">,
  view: "overview" | "statements" = "overview",
  now: Date = new Date(),
) {
  const database = await db();
  const [all_cards, accounts] = await Promise.all([
    memberCardsView(database, user.id, now, 1),
    view === "statements" ? memberStatementAccounts(database, user.id, now) : null,
  ]);
  const cards = all_cards.filter(cardWorks);
  return {
    cards: cards.map((c) => ({
      id: c.id,
      masked_number: c.masked_number,
      expiry: c.expiry,
      status: c.status,
      status_label: c.status_label,
      daily_limit_cents: c.daily_limit_cents,
      spent_today_cents: c.spent_today_cents,
      account: c.account,
      last_transaction: c.transactions[0] ?? null,
    })),
    /** Null while the Statements view is not shown. */
    statements:
      accounts?.map((a) => ({
        id: a.id,
        name: a.name,
        masked_number: a.masked_number,
        latest: a.months[0] ?? null,
        months: a.months.length,
      })) ?? null,
  };
}

export type CardServicesSummary = Awaited<ReturnType<typeof cardServicesSummary>>;

export async function cardsAction(
  user: SessionUser,
  form: FormData,
  origin: AuditOrigin,
): Promise<{ status: number; body: CardActionData }> {
  const intent = formIntent(form, CARD_INTENTS);
  const raw_card = Number(form.get("card_id"));
  const card_id = Number.isSafeInteger(raw_card) && raw_card > 0 ? raw_card : null;
  if (!intent)
    return {
      status: 400,
      body: {
        intent: null,
        card_id,
        reply: formReply(form, { formErrors: [UNKNOWN_INTENT_MESSAGE] }),
        message: UNKNOWN_INTENT_MESSAGE,
        tone: "error",
      },
    };
  const database = await db();
  const member = { id: user.id, email: user.email, name: user.name };
  const code_step: CardCodePurpose | undefined =
    intent === "send_details_code" || intent === "view_details"
      ? "details"
      : intent === "send_pin_code" || intent === "change_pin"
        ? "pin"
        : undefined;

  const schema =
    intent === "set_limit"
      ? setLimitSchema
      : intent === "view_details"
        ? viewDetailsSchema
        : intent === "change_pin"
          ? changePinSchema
          : intent === "report_lost"
            ? reportLostSchema
            : cardSchema;
  const submission = parseSubmission(schema as typeof cardSchema, form);
  if (submission.status !== "success") {
    // A step that failed its own checks stays on screen (the code step keeps asking for the code).
    const stay = intent === "view_details" || intent === "change_pin" ? code_step : undefined;
    return {
      status: 400,
      body: {
        intent,
        card_id,
        reply: replyTo(submission),
        message: "Please check the highlighted fields.",
        tone: "error",
        ...(stay ? { code_step: stay } : {}),
      },
    };
  }
  const value = submission.value as Record<string, unknown> & { card_id: number };

  let answer: CardControlAnswer | CardDetailsAnswer;
  switch (intent) {
    case "lock":
    case "unlock":
      answer = await setCardLocked(database, member, value.card_id, intent === "lock", origin);
      break;
    case "set_limit":
      answer = await setCardDailyLimit(database, member, value.card_id, value.daily_limit as number, origin);
      break;
    case "send_details_code":
    case "send_pin_code":
      answer = await sendCardCode(database, member, value.card_id, code_step!);
      break;
    case "view_details":
      answer = await revealCardDetails(database, member, value.card_id, value.otp as string, origin);
      break;
    case "change_pin":
      answer = await changeCardPin(
        database,
        member,
        value.card_id,
        { otp: value.otp as string, pin: value.pin_code as string, pin_confirm: value.pin_code_confirm as string },
        origin,
      );
      break;
    case "report_lost":
      answer = await reportCardLost(database, member, value.card_id, value.reason as "lost" | "stolen", origin);
      break;
  }
  if (!answer.ok) {
    const messages = answer.field
      ? { fieldErrors: { [answer.field]: [answer.message] } }
      : { formErrors: [answer.message] };
    const stay = answer.field ? code_step : undefined;
    return {
      status: refusalStatus(answer.kind),
      body: {
        intent,
        card_id: value.card_id,
        reply: replyTo(submission, messages),
        message: answer.message,
        tone: "error",
        ...(stay ? { code_step: stay } : {}),
      },
    };
  }
  const sent = intent === "send_details_code" || intent === "send_pin_code";
  return {
    status: 200,
    body: {
      intent,
      card_id: value.card_id,
      reply: replyTo(submission),
      message: answer.message,
      tone: "success",
      ...(sent ? { code_step } : {}),
      ...("details" in answer ? { details: answer.details } : {}),
    },
  };
}

export { CARD_MESSAGES };
