import { z } from "zod";
import { INVALID_EMAIL } from "./membership-application";
import { PASSWORDS_DO_NOT_MATCH, PASSWORD_TOO_SHORT, passwordProblem } from "./password";
import { OTP_NEEDS_SIX_DIGITS, SIGN_IN_FAILED } from "./sign-in-messages";

/** Sign-in, codes and password reset (docs/product.md#sign-in): schemas, and the exact messages (./sign-in-messages). */
export {
  FORGOT_PASSWORD_SENT,
  OTP_FAILED,
  OTP_INVALID,
  OTP_NEEDS_SIX_DIGITS,
  OTP_TOO_MANY,
  SIGN_IN_EXPIRED,
  SIGN_IN_FAILED,
  keepCodeDigits,
  lockedMessage,
  rateLimitedMessage,
} from "./sign-in-messages";

/**
 * A sign-in email address: trimmed, at most 254 characters, lower-cased. Every form that names a
 * person by the address they sign in with uses this one rule (sign-in, forgot password, the back
 * office's sign-in code for a member).
 */
export const signInEmailField = z
  .string(INVALID_EMAIL)
  .trim()
  .max(254, INVALID_EMAIL)
  .pipe(z.email(INVALID_EMAIL))
  .transform((value) => value.toLowerCase());

export const signInSchema = z.object({
  email: signInEmailField,
  password: z.string("Please enter your password").min(1, "Please enter your password").max(1024, SIGN_IN_FAILED),
  remember: z
    .string()
    .optional()
    .transform((value) => value === "on" || value === "true"),
  redirectTo: z.string().max(2048).optional(),
});

/** Digits only, exactly six. The field itself keeps only digits and at most six of them. */
export const codeSchema = z.object({
  code: z
    .string(OTP_NEEDS_SIX_DIGITS)
    .trim()
    .regex(/^\d{6}$/, OTP_NEEDS_SIX_DIGITS),
  redirectTo: z.string().max(2048).optional(),
});

export const forgotPasswordSchema = z.object({ email: signInEmailField });

export const RESET_LINK_INVALID =
  "This reset link is invalid, has already been used, or has expired. Please ask for a new one.";
export const RESET_DONE = "Your password has been changed. Please sign in with your new password.";

export const resetPasswordSchema = z
  .object({
    token: z.string().min(1, RESET_LINK_INVALID).max(200, RESET_LINK_INVALID),
    password: z.string(PASSWORD_TOO_SHORT).superRefine((value, ctx) => {
      const problem = passwordProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
    confirm_password: z.string().optional(),
  })
  .superRefine(
    (value, ctx) => {
      if (typeof value.password === "string" && value.password !== (value.confirm_password ?? "")) {
        ctx.addIssue({ code: "custom", path: ["confirm_password"], message: PASSWORDS_DO_NOT_MATCH });
      }
    },
    { when: () => true },
  );

/** "j•••@example.com": enough for a person to recognise their own address, not to learn it. */
export function maskEmail(address: string): string {
  const [local = "", domain = ""] = address.split("@");
  const shown = local.slice(0, 1);
  return `${shown}${"•".repeat(Math.max(3, Math.min(local.length - 1, 6)))}@${domain}`;
}
