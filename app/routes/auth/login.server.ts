import { withDatabase } from "~/server/db/db.server";
import {
  endSignInStep as endSignInStepIn,
  getSignInStep as getSignInStepIn,
  startSignIn as startSignInIn,
  verifySignInCode as verifySignInCodeIn,
} from "~/server/auth/sign-in.server";
import {
  passkeySignInOptions as passkeySignInOptionsIn,
  signInWithPasskey as signInWithPasskeyIn,
} from "~/server/auth/sign-in-passkey.server";

/** Whether the code step may say the code was emailed (no mail relay, or a drill copy: it was not). */
export { emailLeaves as codesAreEmailed } from "~/server/mail/outbox.server";

/** What /login (both sign-in steps) calls (its view-model): each function opens the database itself, so the route holds no handle. */
export const endSignInStep = withDatabase(endSignInStepIn);
export const getSignInStep = withDatabase(getSignInStepIn);
export const startSignIn = withDatabase(startSignInIn);
export const verifySignInCode = withDatabase(verifySignInCodeIn);

/** Signing in with a passkey (docs/product.md#passkeys): the challenge, then the assertion. */
export const passkeySignInOptions = withDatabase(passkeySignInOptionsIn);
export const signInWithPasskey = withDatabase(signInWithPasskeyIn);
