import { z } from "zod";
import { PASSWORDS_DO_NOT_MATCH, passwordProblem } from "./password";
import { plainText } from "./plain-text";

/**
 * Profile Settings and Account Settings (docs/product.md#settings): the messages, the rules and the
 * Zod schemas the server enforces and the dialogs repeat for quick feedback.
 */
export const SETTINGS_MESSAGES = {
  profile_updated: "Profile updated successfully",
  profile_failed: "Failed to update profile",
  profile_load_failed: "Failed to load profile data",
  image_failed: "Failed to update profile image. Please try again.",
  image_not_image: "Please select an image file",
  image_too_large: "Image size should be less than 5MB",
  account_updated: "Account settings updated successfully",
  account_failed: "Failed to update account settings",
  account_load_failed: "Failed to load account settings",
  passwords_do_not_match: PASSWORDS_DO_NOT_MATCH,
  wrong_current_password: "The current password is not correct.",
  demo_locked:
    "The published demo sign-ins cannot change their password or turn on an authenticator app, so the demo stays open to everyone.",
  try_again: "Please try again in a moment.",
} as const;

/** Status messages clear after 3,000 ms (docs/product.md#settings). */
export const STATUS_MESSAGE_CLEAR_MS = 3_000;

/** Profile image maximum, 5 MB (5,242,880 bytes; docs/product.md#limits). */
export const PROFILE_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const PROFILE_IMAGE_TYPES = ["image/jpeg", "image/png", "image/webp"] as const;

/** The browser's quick check of a chosen file (the server checks the content again). */
export function profileImageProblem(file: { size: number; type: string }): string | null {
  if (!file.type.startsWith("image/") || !(PROFILE_IMAGE_TYPES as readonly string[]).includes(file.type))
    return SETTINGS_MESSAGES.image_not_image;
  if (file.size > PROFILE_IMAGE_MAX_BYTES) return SETTINGS_MESSAGES.image_too_large;
  return null;
}

const PHONE = /^\+?[0-9 ().-]{7,25}$/;

function text(max: number, missing?: string) {
  const base = plainText({ missing }).max(max, `Please use at most ${max} characters`);
  return missing ? base.min(1, missing) : base;
}

export const profileSchema = z.object({
  first_name: text(100, "Please enter your first name"),
  last_name: text(100, "Please enter your last name"),
  phone: text(25).refine(
    (value) => value === "" || (PHONE.test(value) && value.replace(/\D/g, "").length >= 7),
    "Please enter a valid phone number",
  ),
  street: text(200),
  city: text(100),
  state: text(100),
  postal_code: text(20).refine(
    (value) => value === "" || /^[A-Za-z0-9 -]{2,20}$/.test(value),
    "Please enter a valid ZIP or postal code",
  ),
  country: text(100),
});
export type ProfileInput = z.infer<typeof profileSchema>;

/** A checkbox or switch in a posted form: present ("on", "true") means on. */
const flag = z
  .union([z.literal("on"), z.literal("true"), z.literal("false"), z.literal("")])
  .optional()
  .transform((value) => value === "on" || value === "true");

/**
 * The switches Account Settings offers. The old email, SMS and push switches are not offered
 * (push and text messages are chosen per group of notifications instead,
 * docs/product.md#notification-channels), so a post cannot change their stored
 * values either.
 */
export const notificationSchema = z.object({
  login_alerts: flag,
});
export type NotificationInput = z.infer<typeof notificationSchema>;

export const changePasswordSchema = z
  .object({
    current_password: z.string().min(1, "Please enter your current password").max(200),
    new_password: z.string().superRefine((value, ctx) => {
      const problem = passwordProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
    confirm_password: z.string(),
  })
  .superRefine((value, ctx) => {
    if (value.new_password !== value.confirm_password)
      ctx.addIssue({ code: "custom", path: ["confirm_password"], message: PASSWORDS_DO_NOT_MATCH });
  });
export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;

export const passwordOnlySchema = z.object({
  current_password: z.string().min(1, "Please enter your current password").max(200),
});
export const totpCodeSchema = z.object({
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, "Please enter the 6-digit code from your app"),
});

/** Initials for an avatar: "Alex Morgan" -> "AM"; an email -> its first letter. */
export function initialsOf(name: string, email: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length >= 2) return `${words[0]![0]}${words[words.length - 1]![0]}`.toUpperCase();
  if (words.length === 1) return words[0]!.slice(0, 2).toUpperCase();
  return (email[0] ?? "?").toUpperCase();
}
