import { eq } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { users } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { postTransferChecked, today } from "~/server/ledger/ledger.server";
import { memberAccounts, type AccountView } from "~/server/ledger/accounts.server";
import { textQuery } from "~/server/ledger/session.server";
import { hitRateLimit } from "~/server/rate-limit/rate-limit.server";
import { formatCents } from "~/domain/money";
import { accountLabel } from "~/domain/account-display";
import type { ToMemberTransfer } from "~/domain/transfers";
import { stepUpMissing, verifyStepUp, type StepUpProof } from "./step-up.server";

import {
  initiator,
  refuse,
  codeRefused,
  ownAccount,
  stepUpTransfer,
  earlierTransfer,
  limitsFor,
  overTransferLimit,
  overDailyLimit,
  type Member,
  type TransferRefusal,
  type TransferResult,
  answerOf,
} from "./transfers.server";

/**
 * To Another Member (docs/product.md#transfers): the recipient looked up by email (rate-limited),
 * the review, and the posting, with a code above the profile's amount and the daily limit.
 */

export interface Recipient {
  member_id: string;
  name: string;
  checking: AccountView | null;
}

export async function findRecipient(db: DbOrTx, email: string): Promise<Recipient | null> {
  const [user] = await db
    .select({ id: users.id, name: users.name, role: users.role })
    .from(users)
    .where(eq(users.email, email.trim().toLowerCase()))
    .limit(1);
  if (!user || (user.role !== null && user.role !== "user")) return null;
  const accounts = await memberAccounts(db, user.id);
  const checking = accounts.find((a) => a.type === "checking" && a.status !== "closed") ?? null;
  if (!checking && accounts.length === 0) return null;
  return { member_id: user.id, name: user.name, checking };
}

export type VerifyResult = { ok: true; name: string } | TransferRefusal;

export const RECIPIENT_LOOKUPS_PER_WINDOW = 30;
const RECIPIENT_LOOKUP_WINDOW_MS = 15 * 60 * 1000;

/**
 * Counts one look-up of a recipient by email against the member's limit, and refuses when it is
 * spent. Every look-up counts, the Verify button's and the one a transfer makes when it is sent:
 * a transfer answers differently for a member's email and an unknown one, so an unlimited send
 * would let anyone test addresses against the member directory.
 */
export async function countRecipientLookup(db: DbOrTx, member: Member): Promise<TransferRefusal | null> {
  const limit = await hitRateLimit(
    {
      key: `recipient-lookup:${member.id}`,
      limit: RECIPIENT_LOOKUPS_PER_WINDOW,
      window_ms: RECIPIENT_LOOKUP_WINDOW_MS,
    },
    { database: db },
  );
  return limit.allowed ? null : { ...refuse("rate_limited", "recipient_email"), retry_after_s: limit.retry_after_s };
}

/**
 * "Verify" on the To Another Member form: the recipient's name only, never other data, and
 * rate-limited (30 lookups per 15 minutes per member, shared with sending) so the directory
 * cannot be harvested.
 */
export async function verifyRecipient(db: Db, member: Member, email: string): Promise<VerifyResult> {
  const limited = await countRecipientLookup(db, member);
  if (limited) return limited;
  const address = email.trim().toLowerCase();
  if (address === member.email.trim().toLowerCase()) return refuse("own_account", "recipient_email");
  const recipient = await findRecipient(db, address);
  if (!recipient || !recipient.checking) return refuse("recipient_not_found", "recipient_email");
  return { ok: true, name: recipient.name };
}

/** True when a To Another Member transfer of this amount is confirmed with the emailed code. */
export function memberTransferNeedsCode(amount_cents: number): boolean {
  return amount_cents > institution().limits.member_transfer_code_above_cents;
}

/** The lock that serializes one member's transfers to other members, so two at once cannot both pass the daily limit. */
function memberTransfersLock(member_id: string): string {
  return `member-transfers:${member_id}`;
}

/**
 * What the member sent to other members today (the credit union's business day), from the
 * ledger's daily totals. One statement for both checks: at the review step (`textQuery(db)`) and
 * inside the posting's transaction after the member's lock (the check's own `query`).
 */
async function sentToMembersToday(
  query: (text: string, params?: readonly unknown[]) => Promise<Record<string, unknown>[]>,
  accounts: readonly AccountView[],
): Promise<number> {
  const ids = accounts.filter((a) => a.owner === "member").map((a) => a.id);
  if (ids.length === 0) return 0;
  const [row] = await query(
    `SELECT coalesce(sum(debits_cents), 0)::text AS total FROM ledger_daily_totals
      WHERE account_id IN (SELECT value::bigint FROM jsonb_array_elements_text($1::jsonb)) AND effective_date = $2::date AND kind = 'member_transfer'`,
    [JSON.stringify(ids), today()],
  );
  return Number(row?.total ?? 0);
}

export interface MemberTransferPlan {
  from: AccountView;
  to: AccountView;
  recipient: Recipient;
  accounts: AccountView[];
  summary: string;
}

/**
 * Every check of a To Another Member transfer, before the code is sent and again before it
 * posts. The per-transfer limit comes before the recipient is looked up, so an amount no one may
 * send answers the same for every email; the look-up itself counts against the Verify limit.
 */
export async function checkMemberTransfer(
  db: DbOrTx,
  member: Member,
  form: ToMemberTransfer,
  // A scheduled transfer's run looks up the recipient it was set up for: not a member's probe.
  { count_lookup = true }: { count_lookup?: boolean } = {},
): Promise<TransferRefusal | MemberTransferPlan> {
  const accounts = await memberAccounts(db, member.id);
  const from = ownAccount(accounts, form.from_account_id);
  if (!from) return refuse("not_your_account", "from_account_id");
  if (form.recipient_email === member.email.trim().toLowerCase()) return refuse("own_account", "recipient_email");
  const limits = limitsFor("member");
  const too_large = overTransferLimit(limits, form.amount_cents);
  if (too_large) return too_large;
  if (from.status === "frozen") return refuse("account_frozen");
  if (from.status === "closed") return refuse("account_closed");
  if (count_lookup) {
    const limited = await countRecipientLookup(db, member);
    if (limited) return limited;
  }
  const recipient = await findRecipient(db, form.recipient_email);
  if (!recipient || !recipient.checking) return refuse("recipient_not_found", "recipient_email");
  if (recipient.member_id === member.id) return refuse("own_account", "recipient_email");
  const over_daily = overDailyLimit(limits, form.amount_cents, await sentToMembersToday(textQuery(db), accounts));
  if (over_daily) return over_daily;
  if (form.amount_cents > from.available_cents + from.overdraft_limit_cents)
    return refuse("insufficient_funds", "amount");
  const summary = `${formatCents(form.amount_cents)} from ${accountLabel(from)} to ${recipient.name} (${form.recipient_email}).`;
  return { from, to: recipient.checking, recipient, accounts, summary };
}

/** The step before the code: everything is checked, and the summary the code step shows. */
export async function reviewMemberTransfer(
  db: Db,
  member: Member,
  form: ToMemberTransfer,
): Promise<TransferRefusal | { ok: true; summary: string }> {
  const plan = await checkMemberTransfer(db, member, form);
  if ("ok" in plan) return plan;
  return { ok: true, summary: plan.summary };
}

/**
 * Posts a To Another Member transfer. Above `member_transfer_code_above_cents` it needs the code
 * emailed by `sendStepUpCode`, or a passkey's answer to a challenge bound to this transfer (`otp`),
 * whatever form or request asks for it.
 */
export async function transferToMember(
  db: Db,
  member: Member,
  form: ToMemberTransfer,
  otp: StepUpProof = "",
): Promise<TransferResult> {
  const earlier = await earlierTransfer(db, member, { kind: "member", form });
  if (earlier) return earlier;
  const plan = await checkMemberTransfer(db, member, form);
  if ("ok" in plan) return plan;
  if (memberTransferNeedsCode(form.amount_cents)) {
    if (stepUpMissing(otp)) return { ...refuse("otp_missing", "otp"), summary: plan.summary };
    const checked = await verifyStepUp(db, member, {
      proof: otp,
      transfer: stepUpTransfer({ kind: "member", form }),
      action: "transfer_to_member",
    });
    if (!checked.ok) return { ...codeRefused(checked), summary: plan.summary };
  }
  return postMemberTransfer(db, member, form, plan);
}

/**
 * The posting of a checked To Another Member transfer: the daily limit again under the member's
 * lock, the ledger, both notifications. A scheduled transfer's run posts through here too, its
 * code having been given when it was set up.
 */
export async function postMemberTransfer(
  db: Db,
  member: Member,
  form: ToMemberTransfer,
  plan: MemberTransferPlan,
): Promise<TransferResult> {
  const { from, to, recipient } = plan;
  const entries = [
    { account_id: from.id, amount_cents: -form.amount_cents },
    { account_id: to.id, amount_cents: form.amount_cents },
  ];
  const result = await postTransferChecked<TransferRefusal>(
    db,
    {
      kind: "member_transfer",
      initiator: initiator(member),
      idempotency_key: form.idempotency_key,
      created_by: member.id,
      entries,
      memo: `Transfer between members: ${member.name} to ${recipient.name}`,
      reference: form.reference,
      category: "Transfers",
    },
    async (_accounts, query) => {
      // Under the accounts' locks, then the member's own lock: a transfer of the member's that
      // committed meanwhile is in today's total (a repeat of this key is the ledger's to answer).
      await query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [memberTransfersLock(member.id)]);
      const over_daily = overDailyLimit(
        limitsFor("member"),
        form.amount_cents,
        await sentToMembersToday(query, plan.accounts),
      );
      if (over_daily) return { ok: false, refusal: over_daily };
      const amount = formatCents(form.amount_cents);
      return {
        ok: true,
        notifications: [
          {
            member_id: member.id,
            kind: "transfer_sent",
            title: `You sent ${amount} to ${recipient.name}`,
            body: (reference) => `From ${accountLabel(from)}. Reference ${reference}.`,
          },
          {
            member_id: recipient.member_id,
            kind: "transfer_received",
            title: `You received ${amount} from ${member.name}`,
            body: (reference) => `Into ${accountLabel(to)}: "${form.reference}". Reference ${reference}.`,
          },
        ],
      };
    },
  );
  return answerOf(result, "member", entries, form.amount_cents, from.id);
}
