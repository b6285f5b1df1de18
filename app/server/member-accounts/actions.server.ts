import type { StaffRefusal } from "~/domain/member-accounts";
import type { Actor } from "~/domain/actor";
import { data } from "react-router";
import type { DbOrTx } from "~/server/db/client.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import { parseSubmission, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import { mayMoveMoney, NOT_ALLOWED_MESSAGE, type StaffRole } from "~/domain/staff-roles";
import {
  AccountEditSchema,
  AdjustBalanceSchema,
  ApproveAdjustmentSchema,
  DeclineAdjustmentSchema,
  PlaceHoldSchema,
  PostPendingSchema,
  ReleaseHoldSchema,
  ReverseAllSchema,
  ReverseSchema,
} from "~/domain/member-accounts";
import { memberEmail } from "./common.server";
import { editMemberAccount } from "./account-edit.server";
import { decideAdjustment, requestAdjustment } from "./adjustments.server";
import { placeStaffHold, releaseStaffHold } from "./holds.server";
import {
  postPendingMemberTransaction,
  reverseAllMemberTransactions,
  reverseMemberTransaction,
} from "./reversals.server";

/**
 * The back office's money actions (docs/product.md#member-accounts-staff), one intent each, for
 * the /admin action. Every one: staff with money powers only (a reviewer gets 403 and nothing
 * changes), the form checked with its schema (400 with the message next to the field), the
 * member's own account or transaction only (404), then the service, whose refusal is a 409 with
 * its message.
 */
export const MONEY_INTENTS = [
  "account_edit",
  "adjust_balance",
  "place_hold",
  "release_hold",
  "reverse_transaction",
  "post_transaction",
  "reverse_all",
  "approve_adjustment",
  "decline_adjustment",
] as const;
export type MoneyIntent = (typeof MONEY_INTENTS)[number];

export function isMoneyIntent(intent: string): intent is MoneyIntent {
  return (MONEY_INTENTS as readonly string[]).includes(intent);
}

export interface MoneyActionResult {
  intent: MoneyIntent;
  /** Which form of the page answered: the account, transaction or adjustment id. */
  target: string;
  reply: FormReply;
  message: string;
  tone: "success" | "error";
}

const SCHEMAS = {
  account_edit: AccountEditSchema,
  adjust_balance: AdjustBalanceSchema,
  place_hold: PlaceHoldSchema,
  release_hold: ReleaseHoldSchema,
  reverse_transaction: ReverseSchema,
  post_transaction: PostPendingSchema,
  reverse_all: ReverseAllSchema,
  approve_adjustment: ApproveAdjustmentSchema,
  decline_adjustment: DeclineAdjustmentSchema,
} as const;

export async function moneyAction(input: {
  db: DbOrTx;
  staff: Actor;
  role: StaffRole;
  origin: AuditOrigin;
  intent: MoneyIntent;
  form: FormData;
}) {
  const { db, staff, role, origin, intent, form } = input;
  // Refused before the form is even read: a reviewer learns nothing about accounts from the answer.
  if (!mayMoveMoney(role)) throw data({ form_error: NOT_ALLOWED_MESSAGE }, { status: 403 });
  const target = String(
    form.get("account_id") ?? form.get("transaction_id") ?? form.get("adjustment_id") ?? form.get("member_id") ?? "",
  ).slice(0, 40);
  const submission = parseSubmission(SCHEMAS[intent] as (typeof SCHEMAS)["account_edit"], form);
  const answer = (status: number, message: string, tone: "success" | "error", reply: FormReply) =>
    data({ intent, target, reply, message, tone } satisfies MoneyActionResult, { status });
  if (submission.status !== "success") {
    return answer(
      400,
      intent === "account_edit"
        ? "Failed to update account: please check the highlighted fields."
        : "Please check the highlighted fields.",
      "error",
      replyTo(submission),
    );
  }
  const value = submission.value as unknown as Record<string, unknown>;
  const member_id = String(form.get("member_id") ?? "");
  const needsMember = intent !== "approve_adjustment" && intent !== "decline_adjustment";
  if (needsMember && (!/^[A-Za-z0-9_-]{1,64}$/.test(member_id) || !(await memberEmail(db, member_id)))) {
    return answer(404, "User not found", "error", replyTo(submission, { formErrors: ["User not found"] }));
  }
  const base = { staff, origin, member_id };
  let result: { ok: true; message: string } | StaffRefusal;
  switch (intent) {
    case "account_edit":
      result = await editMemberAccount(db, { ...base, edit: submission.value as never });
      break;
    case "adjust_balance":
      result = await requestAdjustment(db, {
        ...base,
        account_id: value.account_id as number,
        target_cents: value.target_balance as number,
        reason: value.reason as string,
      });
      break;
    case "place_hold":
      result = await placeStaffHold(db, {
        ...base,
        account_id: value.account_id as number,
        amount_cents: value.amount as number,
        reason: value.reason as string,
        request_key: value.request_key as string,
      });
      break;
    case "release_hold":
      result = await releaseStaffHold(db, {
        ...base,
        transaction_id: value.transaction_id as number,
        reason: value.reason as string,
      });
      break;
    case "reverse_transaction":
      result = await reverseMemberTransaction(db, { ...base, transaction_id: value.transaction_id as number });
      break;
    case "post_transaction":
      result = await postPendingMemberTransaction(db, { ...base, transaction_id: value.transaction_id as number });
      break;
    case "reverse_all":
      result = await reverseAllMemberTransactions(db, { ...base, confirm_email: value.confirm_email as string });
      break;
    case "approve_adjustment":
    case "decline_adjustment":
      result = await decideAdjustment(db, {
        staff,
        origin,
        adjustment_id: value.adjustment_id as number,
        decision: intent === "approve_adjustment" ? "approve" : "decline",
        reason: value.reason as string | undefined,
        seen_balance_cents: value.seen_balance_cents as number | undefined,
      });
      break;
  }
  if (!result.ok) {
    const refusal = result;
    const messages = refusal.field
      ? { fieldErrors: { [refusal.field]: [refusal.message] } }
      : { formErrors: [refusal.message] };
    return answer(refusalStatus(refusal.kind), refusal.message, "error", replyTo(submission, messages));
  }
  return answer(200, result.message, "success", replyTo(submission));
}
