/**
 * Sign-in, codes and password reset (docs/product.md#sign-in): the exact messages, without the
 * schemas (./sign-in), so that the sign-in page draws without loading Zod.
 */
export const SIGN_IN_FAILED = "Failed to sign in. Please check your credentials.";
/** A sign-in that was right but could not be finished (the session could not be made). */
export const SIGN_IN_FAILED_LATER = "Failed to sign in. Please try again in a moment.";
export const OTP_INVALID = "Invalid OTP. Please try again.";
export const OTP_FAILED = "Failed to verify OTP. Please try again.";
export const OTP_NEEDS_SIX_DIGITS = "Please enter the 6-digit code.";
export const OTP_TOO_MANY = "Too many invalid codes. For your security, please sign in again to get a new code.";
export const PASSKEY_SIGN_IN_FAILED =
  "That passkey could not sign you in. Please try again, or sign in with your email and password.";
export const PASSKEY_CANCELLED = "The passkey prompt was closed or timed out. Please try again.";
export const STAFF_PASSKEY_REQUIRED = 'Staff sign in with a passkey. Please use "Sign in with a passkey" below.';
export const SIGN_IN_EXPIRED = "Your sign-in attempt has expired. Please sign in again.";
export const FORGOT_PASSWORD_SENT =
  "If an account uses that email address, we have sent it a link to reset the password. The link works once and expires in 30 minutes.";

export function lockedMessage(retry_after_s: number): string {
  const minutes = Math.max(1, Math.ceil(retry_after_s / 60));
  return `Too many failed sign-in attempts. For your security, sign-in to this account is locked for ${minutes} ${minutes === 1 ? "minute" : "minutes"}. We have emailed the account holder.`;
}

export function rateLimitedMessage(retry_after_s: number): string {
  const minutes = Math.max(1, Math.ceil(retry_after_s / 60));
  return `Too many attempts from your network. Please wait ${minutes} ${minutes === 1 ? "minute" : "minutes"} and try again.`;
}

/** What the code field keeps of what is typed or pasted: digits, at most six. */
export function keepCodeDigits(input: string): string {
  return input.replace(/\D/g, "").slice(0, 6);
}
