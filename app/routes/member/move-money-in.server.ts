import type { Db } from "~/server/db/client.server";
import { withDatabase } from "~/server/db/db.server";
import { formReply, parseSubmission, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import {
  sendStepUpCode,
  stepUpMissing,
  stepUpPasskeyOptions,
  verifyStepUp,
  type StepUpProof,
} from "~/server/payments/step-up.server";
import { countPasskeys } from "~/server/auth/passkeys.server";
import {
  checkPull,
  moneyInPage,
  pullBinding,
  pullNeedsCode,
  requestPull,
  type MoneyInMember,
} from "~/server/linked-accounts/money-in.server";
import { moneyInReviewSchema, moneyInSchema } from "~/domain/money-in";
import { REFUSAL_MESSAGES } from "~/domain/refusals";
import { centsAsDecimal, formatCents } from "~/domain/money";
import { accountLabel } from "~/domain/account-display";

/**
 * Move money in's services (docs/product.md#move-money-in): the page, and its two steps. Review:
 * the form is checked and the authorization's exact words shown (with an emailed code when the
 * amount needs one). Confirm: the member ticked the box under those words (and typed the code);
 * the checks run again, the words must be the ones shown, and the pull is asked for.
 */
export const moneyInPageOf = withDatabase(moneyInPage);
export { returnReason } from "~/domain/nacha/return-file";

export type MoneyInAnswer =
  | { step: "form"; reply: FormReply; message?: string }
  | {
      step: "confirm";
      reply: FormReply;
      authorization_text: string;
      summary: string;
      /** The first step's values, carried by the second step's hidden fields. */
      values: { linked_account_id: string; to_account_id: string; amount: string; idempotency_key: string };
      needs_code: boolean;
      /** With a code to confirm: the member has a passkey, which can confirm instead. */
      passkey: boolean;
      message?: string;
    }
  /** The challenge a passkey signs to confirm this pull (as @simplewebauthn/browser takes it), or null. */
  | { step: "passkey"; options: unknown }
  | { step: "done"; message: string; reference: string };

function summaryOf(amount_cents: number, from: string, to: string): string {
  return `Move ${formatCents(amount_cents)} in from ${from} to ${to}.`;
}

export const moneyInAction = withDatabase(
  async (
    database: Db,
    member: MoneyInMember,
    intent: "review" | "confirm" | "passkey",
    form: FormData,
    origin: AuditOrigin,
  ): Promise<{ status: number; answer: MoneyInAnswer }> => {
    const reviewed = parseSubmission(moneyInReviewSchema, form);
    if (reviewed.status !== "success") return { status: 400, answer: { step: "form", reply: replyTo(reviewed) } };
    const values = reviewed.value;
    const checked = await checkPull(database, member, values);
    if (!checked.ok)
      return {
        status: refusalStatus(checked.kind),
        answer: {
          step: "form",
          reply: replyTo(reviewed, { fieldErrors: { [checked.field ?? "amount"]: [checked.message] } }),
        },
      };
    const summary = summaryOf(
      values.amount_cents,
      `${checked.link.nickname} ${checked.link.masked}`,
      accountLabel(checked.account),
    );
    const needs_code = pullNeedsCode(values.amount_cents);
    if (intent === "passkey")
      return {
        status: 200,
        answer: {
          step: "passkey",
          options: needs_code ? await stepUpPasskeyOptions(database, member, pullBinding(values)) : null,
        },
      };
    const passkey = needs_code && (await countPasskeys(database, member.id)) > 0;
    const confirmStep = (status: number, reply: FormReply, message?: string) => ({
      status,
      answer: {
        step: "confirm" as const,
        reply,
        authorization_text: checked.authorization_text,
        summary,
        values: {
          linked_account_id: String(values.linked_account_id),
          to_account_id: String(values.to_account_id),
          amount: centsAsDecimal(values.amount_cents),
          idempotency_key: values.idempotency_key,
        },
        needs_code,
        passkey,
        ...(message ? { message } : {}),
      },
    });

    if (intent === "review") {
      if (needs_code) {
        const sent = await sendStepUpCode(database, member, summary, pullBinding(values));
        if (!sent.ok)
          return {
            status: refusalStatus(sent.kind),
            answer: { step: "form", reply: formReply(form), message: sent.message },
          };
      }
      return confirmStep(200, formReply(form));
    }

    // Confirm: the words the member read must be the ones that would be stored (a new day changes the date).
    if (String(form.get("authorization_text") ?? "") !== checked.authorization_text)
      return confirmStep(409, formReply(form), "The authorization has changed. Please read it again and confirm.");
    const confirmed = parseSubmission(moneyInSchema, form);
    if (confirmed.status !== "success") return confirmStep(400, replyTo(confirmed));
    if (needs_code) {
      // A passkey's answer when there is one, else the typed code.
      const passkey_response = String(form.get("passkey_response") ?? "");
      const proof: StepUpProof = passkey_response ? { passkey_response } : String(form.get("otp") ?? "").trim();
      if (stepUpMissing(proof))
        return confirmStep(400, formReply(form, { fieldErrors: { otp: [REFUSAL_MESSAGES.otp_missing] } }));
      const check = await verifyStepUp(database, member, {
        proof,
        transfer: pullBinding(values),
        action: "money_in",
        origin,
      });
      if (!check.ok)
        return confirmStep(refusalStatus(check.kind), formReply(form, { fieldErrors: { otp: [check.message] } }));
    }
    const result = await requestPull(database, member, confirmed.value, origin);
    if (!result.ok)
      return {
        status: refusalStatus(result.kind),
        answer: {
          step: "form",
          reply: replyTo(reviewed, { fieldErrors: { [result.field ?? "amount"]: [result.message] } }),
        },
      };
    return {
      status: 200,
      answer: {
        step: "done",
        message: `${formatCents(result.amount_cents)} will be moved in with the next ACH file.`,
        reference: result.reference,
      },
    };
  },
);
