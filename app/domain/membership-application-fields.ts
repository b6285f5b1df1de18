/**
 * The membership application "Create your account" (docs/product.md#application-form): its
 * choices, limits, field order and the exact messages, without the schema (./membership-application),
 * so that the form draws without loading Zod.
 */
export const MARITAL_STATUS_OPTIONS = [
  { value: "single", label: "Single" },
  { value: "married", label: "Married" },
  { value: "divorced", label: "Divorced" },
  { value: "widowed", label: "Widowed" },
] as const;

export const ID_TYPE_OPTIONS = [
  { value: "passport", label: "Passport" },
  { value: "national_id", label: "National ID" },
  { value: "drivers_license", label: "Driver's License" },
] as const;

export const INVALID_EMAIL = "Please enter a valid email address";
export const MINIMUM_AGE_YEARS = 18;

/** Server messages (docs/product.md#messages-application). */
export const SIGNUP_EMAIL_TAKEN = "An account with this email already exists.";
export const SIGNUP_EMAIL_REFUSED = "Invalid email format. Please check your email address.";
export const SIGNUP_FAILED = "Failed to create an account. Please try again.";

/**
 * ID document (docs/product.md#application-form): an image or a PDF, checked by content on the
 * server, at most 10 MB.
 */
export const ID_DOCUMENT_MAX_BYTES = 10 * 1024 * 1024;
export const ID_DOCUMENT_TYPES = ["image/jpeg", "image/png", "image/webp", "application/pdf"] as const;
export const ID_DOCUMENT_ACCEPT = ".jpg,.jpeg,.png,.webp,.pdf,image/jpeg,image/png,image/webp,application/pdf";
export const ID_DOCUMENT_MISSING = "Please upload an image or PDF of your ID document";
export const ID_DOCUMENT_TOO_LARGE = "The document must be 10 MB or smaller";
export const ID_DOCUMENT_WRONG_TYPE = "The document must be a JPEG, PNG or WebP image, or a PDF";

/** An applicant's answer to staff's request for more information. */
export const INFO_ANSWER_MAX_CHARS = 2000;

/** The fields in the order the form shows them: the first invalid one gets focus. */
export const APPLICATION_FIELDS = [
  "email",
  "password",
  "confirm_password",
  "first_name",
  "last_name",
  "date_of_birth",
  "nationality",
  "marital_status",
  "street",
  "city",
  "state",
  "postal_code",
  "country",
  "phone",
  "alt_email",
  "emergency_name",
  "emergency_relationship",
  "emergency_phone",
  "id_type",
  "id_number",
  "id_document",
  "tin_type",
  "tin",
  "tin_country",
  "joint_account",
  "joint_name",
  "joint_email",
  "joint_phone",
  "joint_tin_type",
  "joint_tin",
  "joint_tin_country",
] as const;
export type ApplicationField = (typeof APPLICATION_FIELDS)[number];

/** The document rule the browser can check before sending (the server checks the content). */
export function idDocumentProblem(
  file: { size: number; type: string; name: string } | null | undefined,
): string | null {
  if (!file || file.size === 0) return ID_DOCUMENT_MISSING;
  if (file.size > ID_DOCUMENT_MAX_BYTES) return ID_DOCUMENT_TOO_LARGE;
  const byType = (ID_DOCUMENT_TYPES as readonly string[]).includes(file.type);
  const byName = /\.(jpe?g|png|webp|pdf)$/i.test(file.name);
  if (!byType && !byName) return ID_DOCUMENT_WRONG_TYPE;
  return null;
}
