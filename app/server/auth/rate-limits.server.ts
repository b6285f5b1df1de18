/**
 * Per-IP limits of the identity area (docs/product.md#sign-in-protection). Generous enough for a
 * household or an office behind one address, tight enough to stop guessing and mail bombing.
 * Counted in the database (`hitRateLimit`), so every app process shares them.
 */
const MINUTE_MS = 60 * 1000;

export const RATE_LIMITS = {
  /** Step 1 of sign-in (email and password). */
  sign_in: { limit: 30, window_ms: 15 * MINUTE_MS },
  /** Step 2 of sign-in (codes). */
  sign_in_code: { limit: 30, window_ms: 15 * MINUTE_MS },
  /** Membership applications sent. */
  application: { limit: 20, window_ms: 60 * MINUTE_MS },
  /** Password reset requests, per address of the requester... */
  password_reset: { limit: 10, window_ms: 60 * MINUTE_MS },
  /** ...and per email address asked for, so nobody's inbox can be flooded. */
  password_reset_per_email: { limit: 3, window_ms: 60 * MINUTE_MS },
  /** Setting a new password with a reset link. */
  password_reset_complete: { limit: 10, window_ms: 15 * MINUTE_MS },
  /** Current-password checks of one signed-in person (password change, authenticator app), per person. */
  current_password: { limit: 10, window_ms: 15 * MINUTE_MS },
  /** Answers to staff's requests for information. */
  info_answer: { limit: 20, window_ms: 60 * MINUTE_MS },
} as const;
