/**
 * The thresholds of the monitoring of incoming ACH credits (app/domain/ach-credit-monitoring.ts),
 * in a module of their own so that the institution profile's schema reads the defaults without
 * the name matcher.
 */

/** The profile's thresholds (`limits.ach_credit_monitoring`); each default is stated with its reason. */
export interface CreditMonitoringPolicy {
  /**
   * The name and recent-change rules look at credits of this amount or more: below it, the loss a
   * false-pretenses credit can cause is smaller than the harm of holding every small credit.
   * Default $1,000.00: the credit union's risk assessment (Nacha leaves amounts to the RDFI).
   */
  review_min_cents: number;
  /** An account younger than this many days is new (default 30: Regulation CC's new-account period, 12 CFR 229.13(a)). */
  new_account_days: number;
  /** A new account's first credit of this amount or more is held (default $5,000.00). */
  new_account_large_cents: number;
  /** Credits from this many different originators to one account in a business day are held (default 3). */
  velocity_originators: number;
  /** A credit within this many days of a change to the account or its holder's sign-in, or of an unfreeze, is held (default 14). */
  recent_change_days: number;
}

export const DEFAULT_CREDIT_MONITORING: CreditMonitoringPolicy = {
  review_min_cents: 100_000,
  new_account_days: 30,
  new_account_large_cents: 500_000,
  velocity_originators: 3,
  recent_change_days: 14,
};

/** The return codes staff may choose for a reviewed credit, with when each fits. */
export const CREDIT_RETURN_CODES = {
  /** The credit union believes the credit was sent under false pretenses (Nacha: R17 with QUESTIONABLE). */
  R17: "Questionable: we believe it was sent by fraud (R17)",
  /** The member, asked, refuses the credit as not theirs. */
  R23: "Refused by the member (R23)",
} as const;
export type CreditReturnCode = keyof typeof CREDIT_RETURN_CODES;

export function isCreditReturnCode(value: unknown): value is CreditReturnCode {
  return value === "R17" || value === "R23";
}
