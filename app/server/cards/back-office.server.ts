import { eq } from "drizzle-orm";
import { db } from "~/server/db/db.server";
import { cardAuthorizations, users } from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { formReply, parseSubmission, replyTo, type FormReply } from "~/server/http/form.server";
import { formIntent, UNKNOWN_INTENT_MESSAGE } from "~/domain/form-intent";
import { cardPurchaseSchema, pendingPurchaseSchema } from "~/domain/cards";
import { formatCents } from "~/domain/money";
import { authorizeCardPurchase, releaseCardPurchase, settleCardPurchase } from "./authorization.server";
import { cardsOfMember } from "./controls.server";

/**
 * The back office's Post card transaction (docs/product.md#card-transactions-staff): staff who
 * may move money stand in for the card network, for one member's cards. Authorize sends a
 * purchase through `authorizeCardPurchase`, the same function every card purchase goes through
 * (so a locked card is declined here exactly as it would be at a till); Settle posts an
 * authorized purchase; Release gives its hold back (the merchant cancelled it). Each attempt,
 * declined or not, is in the audit log.
 */

export interface StaffActor {
  id: string;
  email: string;
}

export const CARD_TRANSACTION_INTENTS = ["authorize", "settle", "release"] as const;

export interface CardTransactionActionData {
  intent: (typeof CARD_TRANSACTION_INTENTS)[number] | null;
  reply: FormReply;
  message: string;
  tone: "success" | "error";
}

/** The member (a member only, by id) and their cards with pending purchases, or null. */
export async function cardTransactionsPage(member_id: string) {
  const database = await db();
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(member_id)) return null;
  const [member] = await database
    .select({ id: users.id, email: users.email, role: users.role })
    .from(users)
    .where(eq(users.id, member_id));
  if (!member || (member.role ?? "user") !== "user") return null;
  return { member: { user_id: member.id, email: member.email }, ...(await cardsOfMember(database, member.id)) };
}

export async function cardTransactionAction(
  member_id: string,
  staff: StaffActor,
  origin: AuditOrigin,
  form: FormData,
): Promise<{ status: number; body: CardTransactionActionData }> {
  const intent = formIntent(form, CARD_TRANSACTION_INTENTS);
  if (!intent)
    return {
      status: 400,
      body: {
        intent: null,
        reply: formReply(form, { formErrors: [UNKNOWN_INTENT_MESSAGE] }),
        message: UNKNOWN_INTENT_MESSAGE,
        tone: "error",
      },
    };
  const database = await db();
  const page = await cardTransactionsPage(member_id);
  if (!page)
    return {
      status: 404,
      body: {
        intent,
        reply: formReply(form, { formErrors: ["This member was not found."] }),
        message: "This member was not found.",
        tone: "error",
      },
    };
  const refuse = (status: number, reply: FormReply, message: string) => ({
    status,
    body: { intent, reply, message, tone: "error" as const },
  });

  if (intent === "settle" || intent === "release") {
    const submission = parseSubmission(pendingPurchaseSchema, form);
    if (submission.status !== "success")
      return refuse(400, replyTo(submission), "Please reload the page and try again.");
    const [row] = await database
      .select({ card_id: cardAuthorizations.card_id })
      .from(cardAuthorizations)
      .where(eq(cardAuthorizations.id, submission.value.authorization_id));
    if (!row || !page.cards.some((c) => c.id === Number(row.card_id)))
      return refuse(404, replyTo(submission, { formErrors: ["Transaction not found"] }), "Transaction not found");
    const target = { authorization_id: submission.value.authorization_id, resolved_by: staff.id };
    const answer =
      intent === "settle"
        ? await settleCardPurchase(database, target)
        : await releaseCardPurchase(database, { ...target, reason: "cancelled" });
    if (!answer.ok) return refuse(409, replyTo(submission, { formErrors: [answer.message] }), answer.message);
    const { authorization } = answer;
    if (!answer.replayed) {
      await audit(
        staff,
        origin,
        member_id,
        intent === "settle" ? "card.purchase_settled" : "card.purchase_released",
        authorization.card_id,
        { authorization_id: authorization.id, amount_cents: authorization.amount_cents },
      );
    }
    const amount = `${formatCents(authorization.amount_cents)} at ${authorization.merchant}`;
    const message =
      intent === "settle"
        ? `Settled: ${amount} is posted.`
        : `Released: ${amount} is no longer held; the member was told.`;
    return { status: 200, body: { intent, reply: replyTo(submission), message, tone: "success" } };
  }

  const submission = parseSubmission(cardPurchaseSchema, form);
  if (submission.status !== "success") return refuse(400, replyTo(submission), "Please check the highlighted fields.");
  const purchase = submission.value;
  const card = page.cards.find((c) => c.id === purchase.card_id);
  if (!card)
    return refuse(
      404,
      replyTo(submission, { fieldErrors: { card_id: ["Please choose one of this member's cards"] } }),
      "Please choose one of this member's cards",
    );
  const answer = await authorizeCardPurchase(database, {
    card_id: card.id,
    merchant: purchase.merchant,
    amount_cents: purchase.amount,
    category: purchase.category,
    idempotency_key: purchase.request_key,
    initiator: `staff:${staff.id}`,
    created_by: staff.id,
  });
  const what = {
    card_id: card.id,
    merchant: purchase.merchant,
    amount_cents: purchase.amount,
    category: purchase.category,
  };
  if (!answer.ok) {
    await audit(staff, origin, member_id, "card.purchase_declined", card.id, { ...what, code: answer.code });
    const message = `Declined: ${answer.message}.`;
    return refuse(409, replyTo(submission, { formErrors: [message] }), message);
  }
  if (!answer.replayed)
    await audit(staff, origin, member_id, "card.purchase_authorized", card.id, {
      ...what,
      authorization_id: answer.authorization.id,
      transaction_id: answer.authorization.transaction_id,
    });
  return {
    status: 200,
    body: {
      intent,
      reply: replyTo(submission),
      message: `Authorized: ${formatCents(purchase.amount)} at ${purchase.merchant} is held on the card's account until it settles.`,
      tone: "success",
    },
  };
}

async function audit(
  staff: StaffActor,
  origin: AuditOrigin,
  member_id: string,
  action: string,
  card_id: number,
  after: unknown,
) {
  await recordAudit(await db(), {
    actor_id: staff.id,
    actor_email: staff.email,
    action,
    subject_type: "debit_card",
    subject_id: card_id,
    member_id,
    after,
    request_id: origin.request_id,
    ip: origin.ip,
  });
}
