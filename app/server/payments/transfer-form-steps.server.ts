import crypto from "node:crypto";
import type { z } from "zod";
import { institution } from "~/config/institution.server";
import { logger } from "~/server/logger.server";
import { sendStepUpCode, stepUpPasskeyOptions, type StepUpProof } from "./step-up.server";
import { countPasskeys } from "~/server/auth/passkeys.server";
import {
  MESSAGES,
  codeRefused,
  earlierTransfer,
  stepUpTransfer,
  transferRefusal,
  type Member,
  type TransferRefusal,
  type TransferResult,
} from "./transfers.server";
import { memberTransferNeedsCode, reviewMemberTransfer, transferToMember, verifyRecipient } from "./to-member.server";
import {
  reviewUsBankTransfer,
  reviewWire,
  sendUsBankTransfer,
  sendWire,
  type WireQuote,
} from "./to-other-banks.server";
import { transferBetweenAccounts } from "./between-accounts.server";
import { usBankTransferOf } from "./us-bank-payees.server";
import { reviewScheduledTransfer, scheduleTransfer } from "./scheduled-transfers.server";
import { verifyStepUp, stepUpMissing } from "./step-up.server";
import { whenSchema, TRANSFER_NOUN, type TransferSchedule } from "~/domain/scheduled-transfers";
import { describeSeries } from "~/domain/schedule";
import { formatBusinessDate } from "~/domain/calendar-date";
import { businessDate } from "~/domain/ledger-rules";
import {
  betweenAccountsSchema,
  formErrorMessage,
  internationalSchema,
  recipientEmailField,
  toMemberSchema,
  usBankFormSchema,
  TRANSFER_MESSAGES,
  type UsBankFormValue,
} from "~/domain/transfers";
import { formReply, parseSubmission, replyTo, type FormReply, type FormSubmission } from "~/server/http/form.server";
import type { AuditOrigin } from "~/server/audit/audit.server";

/**
 * The steps of the member's transfer forms on /dashboard (docs/product.md#dashboard): each form
 * posts an `intent` naming its step, and this answers it. Between Accounts sends (or schedules)
 * at once; To Another Member above the profile's amount, To US Bank and International go review →
 * emailed code or passkey (step-up.server.ts) → send, the code bound to the one transfer (and
 * schedule) it was asked for. The services it calls decide; this turns their answers into what
 * the form shows next (TransferActionResult). The route's view-model
 * (app/routes/member/dashboard.server.ts) opens the database and passes the signed-in member.
 */

export type TransferTab = "internal" | "member" | "ach" | "wire";
export const TRANSFER_TABS: readonly TransferTab[] = ["internal", "member", "ach", "wire"];

export function transferTab(value: string | null): TransferTab {
  return (TRANSFER_TABS as readonly string[]).includes(value ?? "") ? (value as TransferTab) : "internal";
}

/** What the member is told when a payment is stopped by a possible sanctions match: no list is named. */
export const SCREENING_REVIEW_MESSAGE = "We need to review this payment";

export type TransferActionResult =
  | {
      tab: TransferTab;
      status: "done";
      reference_number: string;
      amount_cents: number;
      message: string;
      /** Held but stopped for review by staff (a possible sanctions match). */
      in_review?: boolean;
      /** International: the receipt page, where the member may cancel within 30 minutes. */
      receipt_path?: string;
      /**
       * The key the form's next transfer sends. The page's data brings a fresh one too, but only
       * once it has reloaded: a transfer sent before that would carry the finished one's key and be
       * answered with it ("Transfer complete", the old reference, nothing sent).
       */
      next_key: string;
    }
  | {
      tab: TransferTab;
      status: "refused";
      /** Why: a refusal code (app/domain/refusals.ts), or the form was invalid, or the server failed. */
      code: TransferRefusal["code"] | "invalid" | "failed";
      title?: string;
      message: string;
      /** The form's field messages and the values it posted (docs/contributing.md#add-a-form). */
      reply: FormReply;
      /** Where a multi-step form stands when refused. */
      step?: "otp" | "confirm" | "notice";
      summary?: string;
      /** At the code step: the member has a passkey, which can confirm instead of the code. */
      passkey?: boolean;
      quote?: WireQuoteView;
    }
  /** Between Accounts, To Another Member or To US Bank set up for a later date or to repeat (docs/product.md#scheduled-transfers). */
  | {
      tab: "internal" | "member" | "ach";
      status: "scheduled";
      amount_cents: number;
      /** "Scheduled for Dec 4, 2026" / "Monthly, 6 transfers, from Dec 4, 2026". */
      message: string;
      next_key: string;
    }
  | { tab: "member"; status: "verified"; name: string; reply: FormReply }
  /** The code step: the transfer to confirm, and the emailed code asked for. */
  | { tab: "member" | "ach" | "wire"; status: "otp"; summary: string; reply: FormReply; passkey?: boolean }
  /** The challenge a passkey signs to confirm this transfer (JSON as @simplewebauthn/browser takes it), or null. */
  | { tab: "member" | "ach" | "wire"; status: "passkey"; options: unknown; reply: FormReply }
  | { tab: "wire"; status: "confirm" | "notice"; quote: WireQuoteView; reply: FormReply };

/** A wire's quote as the form shows it: the service's quote, without its `ok`. */
export type WireQuoteView = Omit<WireQuote, "ok">;

/** The schema refused the form: each field's message, and the one message the form shows. */
function invalid(tab: TransferTab, submission: FormSubmission<z.ZodType>): TransferActionResult {
  const reply = replyTo(submission);
  const messages = Object.values(reply.error ?? {}).flatMap((list) => list ?? []);
  return { tab, status: "refused", code: "invalid", message: formErrorMessage(messages), reply };
}

function refused(
  tab: TransferTab,
  refusal: TransferRefusal,
  form: FormData,
  extra: Partial<Extract<TransferActionResult, { status: "refused" }>> = {},
): TransferActionResult {
  const title =
    refusal.code === "account_frozen"
      ? MESSAGES.blocked_title
      : refusal.code === "denied"
        ? MESSAGES.denied_title
        : undefined;
  // A wrong or missing code keeps the member on the code step, with the transfer shown again.
  const code_step =
    refusal.code === "otp_missing" || refusal.code === "otp_invalid" || refusal.code === "otp_locked"
      ? { step: "otp" as const, summary: refusal.summary }
      : {};
  const reply = formReply(form, refusal.field ? { fieldErrors: { [refusal.field]: [refusal.message] } } : {});
  return { tab, status: "refused", code: refusal.code, title, message: refusal.message, reply, ...code_step, ...extra };
}

/** Emails the code that confirms this transfer (and only this one), and answers with the code step. */
async function codeStep(
  database: Parameters<typeof sendStepUpCode>[0],
  member: Member,
  request: Parameters<typeof stepUpTransfer>[0],
  summary: string,
  form: FormData,
  schedule: TransferSchedule | null = null,
): Promise<TransferActionResult> {
  const tab = request.kind;
  const sent = await sendStepUpCode(database, member, summary, bindingOf(request, schedule));
  // Locked after too many wrong codes, or too many asked for: no code is sent, and the form says why (and for how long).
  if (!sent.ok) return { tab, status: "refused", code: sent.code, message: sent.message, reply: formReply(form) };
  return { tab, status: "otp", summary, reply: formReply(form) };
}

/**
 * The key after `sent`: derived from it (SHA-256, written as a version-4 UUID), so a retry of the
 * same transfer is answered exactly as the first time, next key included.
 */
function nextKeyAfter(sent: string): string {
  const h = crypto.createHash("sha256").update(`next-transfer:${sent}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function finished(tab: TransferTab, result: TransferResult, form: FormData, message: string): TransferActionResult {
  if (!result.ok) return refused(tab, result, form);
  return {
    tab,
    status: "done",
    reference_number: result.reference_number,
    amount_cents: result.amount_cents,
    // A possible sanctions match: held, waiting for staff; no list is named (docs/product.md#screening-queue).
    message: result.in_review ? SCREENING_REVIEW_MESSAGE : message,
    ...(result.in_review ? { in_review: true } : {}),
    // An international wire's receipt (Regulation E 1005.31(b)(2)), with its 30-minute cancel.
    ...(tab === "wire" && result.payment_id !== undefined
      ? { receipt_path: `/dashboard/payments/${result.payment_id}` }
      : {}),
    next_key: nextKeyAfter(String(form.get("idempotency_key") ?? "")),
  };
}

/**
 * What a code or passkey confirms: the transfer (stepUpTransfer) and, for one set up to send later,
 * its schedule, so a code given for one date or series cannot set up another.
 */
function bindingOf(request: Parameters<typeof stepUpTransfer>[0], schedule: TransferSchedule | null): string {
  const transfer = stepUpTransfer(request);
  return schedule ? JSON.stringify([transfer, "scheduled", schedule]) : transfer;
}

/** The When fields of a Between Accounts or To Another Member form: null to send now. */
function scheduleOf(form: FormData): FormSubmission<ReturnType<typeof whenSchema>> {
  return parseSubmission(whenSchema(businessDate(institution().time_zone)), form);
}

/** "Scheduled for Dec 4, 2026" or "Monthly, 6 transfers, from Dec 4, 2026". */
function scheduledMessage(schedule: TransferSchedule): string {
  const from = formatBusinessDate(schedule.first_date);
  return schedule.rule
    ? `${describeSeries(schedule.rule, formatBusinessDate, TRANSFER_NOUN)}, from ${from}`
    : `Scheduled for ${from}`;
}

/** Sets up a scheduled transfer (its code, when asked, already checked) and answers the form. */
async function scheduled(
  database: Parameters<typeof scheduleTransfer>[0],
  member: Member,
  request: Parameters<typeof scheduleTransfer>[2],
  schedule: TransferSchedule,
  form: FormData,
  origin: AuditOrigin,
): Promise<TransferActionResult> {
  const tab = request.kind;
  const set = await scheduleTransfer(database, member, request, schedule, origin);
  if (!set.ok) return refused(tab, set, form);
  return {
    tab,
    status: "scheduled",
    amount_cents: request.form.amount_cents,
    message: scheduledMessage(schedule),
    next_key: nextKeyAfter(String(form.get("idempotency_key") ?? "")),
  };
}

/**
 * The send step of a transfer set up for later that asks for a code (To Another Member above the
 * profile's amount, To US Bank always): every set-up check, the code or passkey bound to the
 * transfer and its schedule, then the set-up.
 */
async function scheduledWithCode(
  database: Parameters<typeof scheduleTransfer>[0],
  member: Member,
  request: Extract<Parameters<typeof scheduleTransfer>[2], { kind: "member" | "ach" }>,
  schedule: TransferSchedule,
  form: FormData,
  origin: AuditOrigin,
): Promise<TransferActionResult> {
  const tab = request.kind;
  const review = await reviewScheduledTransfer(database, member, request, schedule);
  if (!review.ok) return refused(tab, review, form);
  const proof = proofOf(form);
  const code_step = { step: "otp" as const, summary: review.summary };
  if (stepUpMissing(proof)) return refused(tab, transferRefusal("otp_missing", "otp"), form, code_step);
  const checked = await verifyStepUp(database, member, {
    proof,
    transfer: bindingOf(request, schedule),
    action: request.kind === "ach" ? "transfer_to_us_bank" : "transfer_to_member",
  });
  if (!checked.ok) return refused(tab, codeRefused(checked), form, code_step);
  return scheduled(database, member, request, schedule, form, origin);
}

/** Every step of every transfer form; an action with another `intent` is a bad request (400). */
export const TRANSFER_INTENTS = [
  "internal",
  "member-verify",
  "member",
  "member-send",
  "ach-review",
  "ach-send",
  "wire-review",
  "wire-confirm",
  "wire-code",
  "wire-send",
  // The challenge for confirming with a passkey instead of the code (docs/product.md#step-up-codes).
  "member-passkey",
  "ach-passkey",
  "wire-passkey",
] as const;

/** What the send step was given: a passkey's answer when there is one, else the typed code. */
function proofOf(form: FormData): StepUpProof {
  const passkey_response = String(form.get("passkey_response") ?? "");
  return passkey_response ? { passkey_response } : String(form.get("otp") ?? "");
}

/** At the code step, whether a passkey can confirm instead (the form then offers it). */
async function withPasskeyOffer(
  database: Parameters<typeof countPasskeys>[0],
  member: Member,
  result: TransferActionResult,
): Promise<TransferActionResult> {
  const at_code_step = result.status === "otp" || (result.status === "refused" && result.step === "otp");
  if (!at_code_step) return result;
  return { ...result, passkey: (await countPasskeys(database, member.id)) > 0 };
}

/** The dashboard's transfer forms: one action, the form's `intent` says which step of which form. */
export async function transferFormStep(
  database: Parameters<typeof countPasskeys>[0],
  member: Member,
  form: FormData,
  origin: AuditOrigin,
): Promise<TransferActionResult> {
  const result = await transferStep(database, member, form, origin);
  return withPasskeyOffer(database, member, result);
}

async function transferStep(
  database: Parameters<typeof countPasskeys>[0],
  member: Member,
  form: FormData,
  origin: AuditOrigin,
): Promise<TransferActionResult> {
  const intent = String(form.get("intent") ?? "");
  const tab = transferTab(intent.split("-")[0] ?? null);
  try {
    switch (intent) {
      case "internal": {
        const parsed = parseSubmission(betweenAccountsSchema, form);
        if (parsed.status !== "success") return invalid(tab, parsed);
        const when = scheduleOf(form);
        if (when.status !== "success") return invalid(tab, when);
        if (when.value)
          return scheduled(database, member, { kind: "internal", form: parsed.value }, when.value, form, origin);
        return finished(tab, await transferBetweenAccounts(database, member, parsed.value), form, "Transfer complete");
      }
      case "member-verify": {
        const email = recipientEmailField.safeParse(String(form.get("recipient_email") ?? ""));
        if (!email.success)
          return {
            tab,
            status: "refused",
            code: "invalid",
            message: TRANSFER_MESSAGES.recipient,
            reply: formReply(form, { fieldErrors: { recipient_email: [TRANSFER_MESSAGES.recipient] } }),
          };
        const found = await verifyRecipient(database, member, email.data);
        return found.ok
          ? { tab: "member", status: "verified", name: found.name, reply: formReply(form) }
          : refused(tab, found, form);
      }
      case "member": {
        const parsed = parseSubmission(toMemberSchema, form);
        if (parsed.status !== "success") return invalid(tab, parsed);
        const when = scheduleOf(form);
        if (when.status !== "success") return invalid(tab, when);
        if (when.value) {
          const request = { kind: "member" as const, form: parsed.value };
          if (!memberTransferNeedsCode(parsed.value.amount_cents))
            return scheduled(database, member, request, when.value, form, origin);
          // Above the profile's amount, set-up asks for the code as a transfer sent now does.
          const review = await reviewScheduledTransfer(database, member, request, when.value);
          if (!review.ok) return refused(tab, review, form);
          return codeStep(database, member, request, review.summary, form, when.value);
        }
        if (memberTransferNeedsCode(parsed.value.amount_cents)) {
          // A retry of a transfer that went through answers with it, without another code.
          const earlier = await earlierTransfer(database, member, { kind: "member", form: parsed.value });
          if (earlier) return finished(tab, earlier, form, "Transfer sent");
          const review = await reviewMemberTransfer(database, member, parsed.value);
          if (!review.ok) return refused(tab, review, form);
          return codeStep(database, member, { kind: "member", form: parsed.value }, review.summary, form);
        }
        return finished(tab, await transferToMember(database, member, parsed.value), form, "Transfer sent");
      }
      case "member-send": {
        const parsed = parseSubmission(toMemberSchema, form);
        if (parsed.status !== "success") return invalid(tab, parsed);
        const when = scheduleOf(form);
        if (when.status !== "success") return invalid(tab, when);
        if (when.value) {
          const request = { kind: "member" as const, form: parsed.value };
          if (memberTransferNeedsCode(parsed.value.amount_cents))
            return scheduledWithCode(database, member, request, when.value, form, origin);
          const review = await reviewScheduledTransfer(database, member, request, when.value);
          if (!review.ok) return refused(tab, review, form);
          return scheduled(database, member, request, when.value, form, origin);
        }
        return finished(
          tab,
          await transferToMember(database, member, parsed.value, proofOf(form)),
          form,
          "Transfer sent",
        );
      }
      case "ach-review": {
        const parsed = parseSubmission(usBankFormSchema, form);
        if (parsed.status !== "success") return invalid(tab, parsed);
        const payment = await usBankTransferOf(database, member, parsed.value);
        if ("ok" in payment) return refused(tab, payment, form);
        const when = scheduleOf(form);
        if (when.status !== "success") return invalid(tab, when);
        if (when.value) {
          // Set up for later: the code confirms the payment and its schedule, as To Another Member's.
          const request = { kind: "ach" as const, form: payment };
          const review = await reviewScheduledTransfer(database, member, request, when.value);
          if (!review.ok) return refused(tab, review, form);
          return codeStep(database, member, request, review.summary, form, when.value);
        }
        const earlier = await earlierTransfer(database, member, { kind: "ach", form: payment });
        if (earlier) return finished(tab, earlier, form, "Transfer scheduled");
        const review = await reviewUsBankTransfer(database, member, payment);
        if (!review.ok) return refused(tab, review, form);
        return codeStep(database, member, { kind: "ach", form: payment }, review.summary, form);
      }
      case "ach-send": {
        const parsed = parseSubmission(usBankFormSchema, form);
        if (parsed.status !== "success") return invalid(tab, parsed);
        const payment = await usBankTransferOf(database, member, parsed.value);
        if ("ok" in payment) return refused(tab, payment, form);
        const when = scheduleOf(form);
        if (when.status !== "success") return invalid(tab, when);
        if (when.value)
          return scheduledWithCode(database, member, { kind: "ach", form: payment }, when.value, form, origin);
        const result = await sendUsBankTransfer(database, member, payment, proofOf(form));
        if (!result.ok && (result.code === "otp_missing" || result.code === "otp_invalid")) {
          const review = await reviewUsBankTransfer(database, member, payment);
          return refused(tab, result, form, { step: "otp", summary: review.ok ? review.summary : undefined });
        }
        return finished(tab, result, form, "Transfer scheduled");
      }
      case "wire-review":
      case "wire-confirm": {
        const parsed = parseSubmission(internationalSchema, form);
        if (parsed.status !== "success") return invalid(tab, parsed);
        const earlier = await earlierTransfer(database, member, { kind: "wire", form: parsed.value });
        if (earlier) return finished(tab, earlier, form, "International transfer submitted");
        const quote = await reviewWire(database, member, parsed.value);
        if (!quote.ok) return refused(tab, quote, form);
        return {
          tab: "wire",
          status: intent === "wire-review" ? "confirm" : "notice",
          quote: stripOk(quote),
          reply: formReply(form),
        };
      }
      case "wire-code": {
        const parsed = parseSubmission(internationalSchema, form);
        if (parsed.status !== "success") return invalid(tab, parsed);
        const earlier = await earlierTransfer(database, member, { kind: "wire", form: parsed.value });
        if (earlier) return finished(tab, earlier, form, "International transfer submitted");
        const review = await reviewWire(database, member, parsed.value);
        if (!review.ok) return refused(tab, review, form);
        return codeStep(database, member, { kind: "wire", form: parsed.value }, review.summary, form);
      }
      case "wire-send": {
        const parsed = parseSubmission(internationalSchema, form);
        if (parsed.status !== "success") return invalid(tab, parsed);
        return finished(
          tab,
          await sendWire(database, member, parsed.value, proofOf(form)),
          form,
          "International transfer submitted",
        );
      }
      case "member-passkey":
      case "ach-passkey":
      case "wire-passkey": {
        // The same transfer the code was sent for: the challenge is bound to it.
        const request =
          intent === "member-passkey"
            ? parseSubmission(toMemberSchema, form)
            : intent === "ach-passkey"
              ? parseSubmission(usBankFormSchema, form)
              : parseSubmission(internationalSchema, form);
        if (request.status !== "success") return invalid(tab, request);
        const kind = tab as "member" | "ach" | "wire";
        // A linked account's payment is bound to its numbers, read from the member's own link.
        let value: unknown = request.value;
        if (kind === "ach") {
          const payment = await usBankTransferOf(database, member, request.value as UsBankFormValue);
          if ("ok" in payment) return refused(tab, payment, form);
          value = payment;
        }
        // A To Another Member or To US Bank transfer set up for later: the challenge is bound to its schedule too.
        const when = kind === "member" || kind === "ach" ? scheduleOf(form) : null;
        const options = await stepUpPasskeyOptions(
          database,
          member,
          bindingOf(
            { kind, form: value } as Parameters<typeof stepUpTransfer>[0],
            when?.status === "success" ? when.value : null,
          ),
        );
        return { tab: kind, status: "passkey", options, reply: formReply(form) };
      }
      default:
        return { tab, status: "refused", code: "failed", message: TRANSFER_MESSAGES.failed, reply: formReply(form) };
    }
  } catch (error) {
    logger.error({ err: error, intent }, "transfer failed");
    return { tab, status: "refused", code: "failed", message: TRANSFER_MESSAGES.failed, reply: formReply(form) };
  }
}

function stripOk<T extends { ok: true }>(value: T): Omit<T, "ok"> {
  const { ok: _ok, ...rest } = value;
  return rest;
}
