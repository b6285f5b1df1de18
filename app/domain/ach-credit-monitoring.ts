import { nameSimilarity, prepareName } from "./sanctions/match";
import type { CreditMonitoringPolicy } from "./ach-credit-policy";
import { formatCents } from "./money";

export {
  CREDIT_RETURN_CODES,
  DEFAULT_CREDIT_MONITORING,
  isCreditReturnCode,
  type CreditMonitoringPolicy,
  type CreditReturnCode,
} from "./ach-credit-policy";

/**
 * Monitoring of incoming ACH credits (Nacha Operating Rules, risk-based monitoring of credit
 * entries by the RDFI, in force for every RDFI from June 22, 2026; docs/product.md#ach-credit-review).
 * One pure function decides, for one credit about to post, which of the credit union's rules it
 * meets. A credit meeting any of them still posts, but its money is held until staff review it.
 * The server gathers the facts (the account's holders, opening date, last changes, the day's
 * earlier credits) in the posting's transaction; nothing here reads the database or the clock.
 */

/**
 * The entry's name agrees with a holder's at this score or more (the sanctions matcher's
 * token-by-token comparison, app/domain/sanctions/match.ts). Lower than a sanctions match (0.90):
 * here a near miss ("JORDON MORGAN" for Jordan Morgan, a middle name left out, an initial for the
 * given name) is the same person, and only a different name is a sign of a misdirected credit.
 */
export const NAME_AGREEMENT = 0.8;

export type CreditReviewRule = "name_mismatch" | "new_account" | "velocity" | "recent_change" | "recently_unfrozen";

export interface CreditReviewReason {
  rule: CreditReviewRule;
  /** What staff read in the queue. */
  detail: string;
}

export interface IncomingCredit {
  /** The receiver's name as the entry gives it (columns 55-76 of a PPD entry), possibly blank. */
  individual_name: string;
  amount_cents: number;
  /** The originator: the batch's company identification (or its name when blank). */
  originator: string;
  originator_name: string;
}

export interface CreditAccountFacts {
  /** The account holders' names: the member and any joint owner. */
  holder_names: readonly string[];
  /** YYYY-MM-DD the account was opened, and today's business date. */
  opened_on: string;
  today: string;
  /** Whether the account already received an ACH credit of `new_account_large_cents` or more. */
  had_large_credit: boolean;
  /** The originators of the account's earlier credits this business day (this file and earlier files). */
  originators_today: readonly string[];
  /** YYYY-MM-DD of the last change to the account or its holder's profile or sign-in, if any. */
  last_change_on: string | null;
  /** YYYY-MM-DD the account was last made active again after a freeze, if ever. */
  unfrozen_on: string | null;
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** How alike the entry's name is to the closest holder's, 0 to 1 (either order of first and last name). */
export function holderNameScore(entry_name: string, holder_names: readonly string[]): number {
  const entry = prepareName(entry_name);
  let best = 0;
  for (const holder of holder_names) {
    const prepared = prepareName(holder);
    // Both ways: the entry may leave out a middle name, or the holder's record may.
    best = Math.max(best, nameSimilarity(entry, prepared), nameSimilarity(prepared, entry));
    if (best === 1) break;
  }
  return best;
}

/**
 * The rules the credit meets, in a fixed order; none: it posts and is available as usual.
 * - name_mismatch: a named credit of `review_min_cents` or more whose name is no holder's;
 * - new_account: the first credit of `new_account_large_cents` or more to an account younger than `new_account_days`;
 * - velocity: the account's `velocity_originators`-th different originator of the business day (or more);
 * - recent_change / recently_unfrozen: a credit of `review_min_cents` or more within
 *   `recent_change_days` of a change to the account or its holder's profile or sign-in, or of an unfreeze.
 */
export function creditReviewReasons(
  credit: IncomingCredit,
  facts: CreditAccountFacts,
  policy: CreditMonitoringPolicy,
): CreditReviewReason[] {
  const reasons: CreditReviewReason[] = [];
  const reviewed = credit.amount_cents >= policy.review_min_cents;
  const name = credit.individual_name.trim();
  if (reviewed && name && facts.holder_names.length > 0) {
    const score = holderNameScore(name, facts.holder_names);
    if (score < NAME_AGREEMENT)
      reasons.push({
        rule: "name_mismatch",
        detail: `The name on the entry, ${name}, is not the account holder's (closest ${Math.round(score * 100)} %).`,
      });
  }
  const age = daysBetween(facts.opened_on, facts.today);
  if (age < policy.new_account_days && credit.amount_cents >= policy.new_account_large_cents && !facts.had_large_credit)
    reasons.push({
      rule: "new_account",
      detail: `First credit of ${formatCents(policy.new_account_large_cents)} or more to an account opened ${age} ${age === 1 ? "day" : "days"} ago.`,
    });
  const originators = new Set([...facts.originators_today, credit.originator]);
  if (originators.size >= policy.velocity_originators)
    reasons.push({
      rule: "velocity",
      detail: `Credits from ${originators.size} different originators to this account today.`,
    });
  const recent = (on: string | null) => on !== null && daysBetween(on, facts.today) < policy.recent_change_days;
  if (reviewed && recent(facts.unfrozen_on))
    reasons.push({
      rule: "recently_unfrozen",
      detail: `The account was unfrozen on ${facts.unfrozen_on}.`,
    });
  if (reviewed && recent(facts.last_change_on))
    reasons.push({
      rule: "recent_change",
      detail: `The account or its holder's details or sign-in were changed on ${facts.last_change_on}.`,
    });
  return reasons;
}
