import { z } from "zod";
import { findCurrency, isValidUsdPerUnitRate } from "./currencies";
import { hasControlCharacters, PLAIN_TEXT_MESSAGE } from "./plain-text";

/**
 * The back office's payment controls (docs/product.md#payment-controls): the forms' schemas, run
 * in the browser before posting and again by the action (one form pipeline,
 * docs/contributing.md#add-a-form).
 */
export const PAUSE_REASON_MAX_CHARS = 300;

export const PAYMENT_CONTROL_MESSAGES = {
  pause_reason: "Please give the reason for pausing payments",
  resume_reason: "Please give the reason for resuming payments",
  reason_too_long: `The reason must be at most ${PAUSE_REASON_MAX_CHARS} characters`,
  code: "Please choose a currency other than USD",
  usd_per_unit: "Please enter the US dollars for one unit, a number above 0 with at most 12 decimals (such as 1.08375)",
} as const;

export const PauseSchema = z
  .object({
    intent: z.literal("pause"),
    /** What the button does: "on" pauses, "off" resumes. */
    paused: z.enum(["on", "off"]),
    reason: z.string().transform((text) => text.replace(/\s+/g, " ").trim()),
  })
  .superRefine((value, ctx) => {
    if (!value.reason)
      ctx.addIssue({
        code: "custom",
        path: ["reason"],
        message: value.paused === "on" ? PAYMENT_CONTROL_MESSAGES.pause_reason : PAYMENT_CONTROL_MESSAGES.resume_reason,
      });
    else if (value.reason.length > PAUSE_REASON_MAX_CHARS)
      ctx.addIssue({ code: "custom", path: ["reason"], message: PAYMENT_CONTROL_MESSAGES.reason_too_long });
    else if (hasControlCharacters(value.reason))
      ctx.addIssue({ code: "custom", path: ["reason"], message: PLAIN_TEXT_MESSAGE });
  });

export const RateSchema = z.object({
  intent: z.literal("set_rate"),
  code: z
    .string()
    .transform((text) => text.trim().toUpperCase())
    .refine((code) => /^[A-Z]{3}$/.test(code) && code !== "USD" && Boolean(findCurrency(code)), {
      message: PAYMENT_CONTROL_MESSAGES.code,
    }),
  usd_per_unit: z
    .string()
    .transform((text) => text.trim())
    .refine(isValidUsdPerUnitRate, { message: PAYMENT_CONTROL_MESSAGES.usd_per_unit }),
});
