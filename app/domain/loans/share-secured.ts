/**
 * Share-secured loans (docs/product.md#share-secured-loans, issue 33): the member pledges one of
 * their savings accounts; the loan is secured by a hold on it. Pure: no I/O.
 *
 * The rules, stated once:
 * - **How much may be borrowed**: the pledged account's available balance x the product's
 *   `pledge_percent`, rounded down to the cent, and never more than the product's maximum.
 * - **The hold follows the principal**: at booking the hold is the amount borrowed; after each
 *   payment it is lowered to the principal still owed (interest and fees are not secured by it);
 *   it is never raised again (the member may already have spent what a payment freed); at payoff
 *   it is released.
 */

/** The most a member may borrow against savings with `available_cents` available. */
export function pledgeMaximumCents(available_cents: number, pledge_percent: number): number {
  if (!Number.isSafeInteger(available_cents)) throw new Error("pledge: bad available balance");
  if (!Number.isInteger(pledge_percent) || pledge_percent < 1 || pledge_percent > 100)
    throw new Error("pledge: bad percent");
  if (available_cents <= 0) return 0;
  return Math.floor((available_cents * pledge_percent) / 100);
}

/** What may be borrowed against this account under this product: the pledge maximum within the product's own. */
export function shareSecuredMaximumCents(
  available_cents: number,
  product: { pledge_percent?: number; amount_max_cents: number },
): number {
  return Math.min(pledgeMaximumCents(available_cents, product.pledge_percent ?? 100), product.amount_max_cents);
}

/**
 * The hold after a payment: the principal still owed, never more than the hold was, and none once
 * the loan is paid off.
 */
export function pledgeHoldAfterPayment(
  current_hold_cents: number,
  principal_owed_cents: number,
  paid_off: boolean,
): number {
  if (!Number.isSafeInteger(current_hold_cents) || current_hold_cents < 0) throw new Error("pledge: bad hold");
  if (!Number.isSafeInteger(principal_owed_cents)) throw new Error("pledge: bad principal");
  if (paid_off) return 0;
  return Math.min(current_hold_cents, Math.max(0, principal_owed_cents));
}

/** The security interest the Truth in Lending disclosure names (Regulation Z, 12 CFR 1026.18(m)). */
export function securityInterestText(account: { name: string; account_number: string }): string {
  return `You are giving a security interest in your ${account.name} (account ending ${account.account_number.slice(-4)}): the amount you owe in principal is held in it until the loan is paid.`;
}
