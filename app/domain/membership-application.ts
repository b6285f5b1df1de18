import { z } from "zod";
import { PASSWORDS_DO_NOT_MATCH, PASSWORD_TOO_SHORT, passwordProblem } from "./password";
import { parseCalendarDate } from "./calendar-date";
import { plainText } from "./plain-text";
import { INVALID_EMAIL, MINIMUM_AGE_YEARS, idDocumentProblem } from "./membership-application-fields";
import { checkTaxpayerId, type TaxpayerId } from "./taxpayer-id";

/**
 * The membership application "Create your account" (docs/product.md#application-form): one schema
 * for the server action and for the browser's quick feedback. Messages are the ones the form shows
 * next to each field (./membership-application-fields, with the choices and limits).
 */
export {
  MARITAL_STATUS_OPTIONS,
  ID_TYPE_OPTIONS,
  INVALID_EMAIL,
  MINIMUM_AGE_YEARS,
  SIGNUP_EMAIL_TAKEN,
  SIGNUP_EMAIL_REFUSED,
  SIGNUP_FAILED,
  ID_DOCUMENT_MAX_BYTES,
  ID_DOCUMENT_TYPES,
  ID_DOCUMENT_ACCEPT,
  ID_DOCUMENT_MISSING,
  ID_DOCUMENT_TOO_LARGE,
  ID_DOCUMENT_WRONG_TYPE,
  INFO_ANSWER_MAX_CHARS,
  APPLICATION_FIELDS,
  idDocumentProblem,
  type ApplicationField,
} from "./membership-application-fields";

const MAXIMUM_AGE_YEARS = 120;
const EMAIL_MAX_CHARS = 254;

function required(message: string, max = 100) {
  return plainText({ missing: message }).min(1, message).max(max, `Please use at most ${max} characters`);
}

const email = z
  .string(INVALID_EMAIL)
  .trim()
  .max(EMAIL_MAX_CHARS, INVALID_EMAIL)
  .pipe(z.email(INVALID_EMAIL))
  .transform((value) => value.toLowerCase());

const PHONE = /^\+?[0-9 ().-]{7,25}$/;
function phone(missing: string) {
  return required(missing, 25).refine(
    (value) => PHONE.test(value) && value.replace(/\D/g, "").length >= 7,
    "Please enter a valid phone number",
  );
}

/** `YYYY-MM-DD` -> whole years between that date and `today`, or null when it is not a real date. */
export function ageInYears(date_of_birth: string, today: Date): number | null {
  const date = parseCalendarDate(date_of_birth);
  if (!date) return null;
  const { year, month, day } = date;
  const todayYear = today.getUTCFullYear();
  const beforeBirthday =
    today.getUTCMonth() < month - 1 || (today.getUTCMonth() === month - 1 && today.getUTCDate() < day);
  return todayYear - year - (beforeBirthday ? 1 : 0);
}

/** The latest date of birth an applicant can have today (for the date field's `max`). */
export function latestDateOfBirth(today: Date): string {
  const d = new Date(Date.UTC(today.getUTCFullYear() - MINIMUM_AGE_YEARS, today.getUTCMonth(), today.getUTCDate()));
  return d.toISOString().slice(0, 10);
}

export function applicationSchema(today: Date = new Date()) {
  return (
    z
      .object({
        email,
        password: z.string(PASSWORD_TOO_SHORT).superRefine((value, ctx) => {
          const problem = passwordProblem(value);
          if (problem) ctx.addIssue({ code: "custom", message: problem });
        }),
        confirm_password: z.string().optional(),
        first_name: required("Please enter your first name"),
        last_name: required("Please enter your last name"),
        date_of_birth: z
          .string("Please enter your date of birth")
          .trim()
          .min(1, "Please enter your date of birth")
          .superRefine((value, ctx) => {
            const age = ageInYears(value, today);
            if (age === null || age > MAXIMUM_AGE_YEARS || age < 0)
              ctx.addIssue({ code: "custom", message: "Please enter a valid date of birth" });
            else if (age < MINIMUM_AGE_YEARS)
              ctx.addIssue({ code: "custom", message: "You must be at least 18 years old to apply" });
          }),
        nationality: required("Please enter your nationality"),
        marital_status: z.enum(["single", "married", "divorced", "widowed"], "Please select your marital status"),
        street: required("Please enter your street address", 200),
        city: required("Please enter your city"),
        state: required("Please enter your state or region"),
        postal_code: required("Please enter your postal code", 20),
        country: required("Please enter your country"),
        phone: phone("Please enter your phone number"),
        alt_email: z
          .string()
          .trim()
          .optional()
          .superRefine((value, ctx) => {
            if (value && (value.length > EMAIL_MAX_CHARS || !z.email().safeParse(value).success))
              ctx.addIssue({ code: "custom", message: INVALID_EMAIL });
          })
          .transform((value) => (value ? value.toLowerCase() : undefined)),
        emergency_name: required("Please enter your emergency contact's name"),
        emergency_relationship: required("Please enter your emergency contact's relationship to you", 50),
        emergency_phone: phone("Please enter your emergency contact's phone number"),
        id_type: z.enum(["passport", "national_id", "drivers_license"], "Please select an ID type"),
        id_number: required("Please enter your ID number", 40).refine(
          (value) => /^[A-Za-z0-9][A-Za-z0-9 -]{2,39}$/.test(value),
          "Please enter a valid ID number (letters, digits, spaces and dashes)",
        ),
        // The taxpayer number (31 CFR 1020.220, ./taxpayer-id), checked with the joint owner's below.
        tin_type: z.string().optional(),
        tin: z.string().optional(),
        tin_country: z.string().optional(),
        joint_account: z
          .string()
          .optional()
          .transform((value) => value === "on" || value === "true"),
        joint_name: plainText().max(100, "Please use at most 100 characters").optional(),
        joint_email: z.string().trim().optional(),
        joint_phone: z.string().trim().optional(),
        joint_tin_type: z.string().optional(),
        joint_tin: z.string().optional(),
        joint_tin_country: z.string().optional(),
      })
      // Cross-field rules run even when other fields are invalid (`when`), so every message shows
      // on the first attempt. Values may then be missing, hence the type checks.
      .superRefine(
        (value, ctx) => {
          const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");
          if (typeof value.password === "string" && value.password !== (value.confirm_password ?? "")) {
            ctx.addIssue({ code: "custom", path: ["confirm_password"], message: PASSWORDS_DO_NOT_MATCH });
          }
          taxpayerIdIssues(ctx, "", value);
          if (!value.joint_account) return;
          taxpayerIdIssues(ctx, "joint_", value);
          if (!text(value.joint_name))
            ctx.addIssue({ code: "custom", path: ["joint_name"], message: "Please enter the joint owner's name" });
          const jointEmail = text(value.joint_email).toLowerCase();
          if (!jointEmail || jointEmail.length > EMAIL_MAX_CHARS || !z.email().safeParse(jointEmail).success) {
            ctx.addIssue({ code: "custom", path: ["joint_email"], message: INVALID_EMAIL });
          } else if (typeof value.email === "string" && jointEmail === value.email.toLowerCase()) {
            ctx.addIssue({
              code: "custom",
              path: ["joint_email"],
              message: "The joint owner needs their own email address",
            });
          }
          const jointPhone = text(value.joint_phone);
          if (!jointPhone)
            ctx.addIssue({
              code: "custom",
              path: ["joint_phone"],
              message: "Please enter the joint owner's phone number",
            });
          else if (!PHONE.test(jointPhone) || jointPhone.length > 25)
            ctx.addIssue({ code: "custom", path: ["joint_phone"], message: "Please enter a valid phone number" });
        },
        { when: () => true },
      )
      .transform(({ tin_type, tin, tin_country, joint_tin_type, joint_tin, joint_tin_country, ...value }) => ({
        ...value,
        confirm_password: undefined,
        joint_name: value.joint_account ? value.joint_name! : null,
        joint_email: value.joint_account ? value.joint_email!.toLowerCase() : null,
        joint_phone: value.joint_account ? value.joint_phone! : null,
        taxpayer_id: taxpayerIdOf({ type: tin_type, number: tin, country: tin_country }),
        joint_taxpayer_id: value.joint_account
          ? taxpayerIdOf({ type: joint_tin_type, number: joint_tin, country: joint_tin_country })
          : null,
      }))
  );
}

/** The taxpayer-number fields with this prefix ("" or "joint_"): each problem next to its field. */
function taxpayerIdIssues(ctx: z.RefinementCtx, prefix: "" | "joint_", value: Record<string, unknown>): void {
  const checked = checkTaxpayerId({
    type: value[`${prefix}tin_type`],
    number: value[`${prefix}tin`],
    country: value[`${prefix}tin_country`],
  });
  if (checked.ok) return;
  const field = { type: "tin_type", number: "tin", country: "tin_country" } as const;
  for (const problem of checked.problems)
    ctx.addIssue({ code: "custom", path: [`${prefix}${field[problem.field]}`], message: problem.message });
}

/** Only called once the checks above passed. */
function taxpayerIdOf(input: { type: unknown; number: unknown; country: unknown }): TaxpayerId {
  const checked = checkTaxpayerId(input);
  if (!checked.ok) throw new Error("a taxpayer number that failed its checks");
  return checked.value;
}

export type Application = z.output<ReturnType<typeof applicationSchema>>;

/**
 * The application as the form posts it: its fields, and the ID document's size and type, which
 * the browser can check before sending (the server checks the content again when it stores it).
 */
export function applicationFormSchema(today: Date = new Date()) {
  const document = z.object({
    id_document: z.unknown().superRefine((file, ctx) => {
      const problem = idDocumentProblem(file instanceof File ? file : null);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
  });
  return z.intersection(applicationSchema(today), document);
}

/** "••••••1234": only the last four characters of an ID number are ever shown. */
export function maskIdNumber(id_number: string): string {
  const compact = id_number.replace(/[\s-]/g, "");
  const visible = compact.slice(-4);
  return `${"•".repeat(Math.max(compact.length - 4, 4))}${visible}`;
}

/** "••/••/1990": the year of birth only. */
export function maskDateOfBirth(date_of_birth: string): string {
  const year = date_of_birth.slice(0, 4);
  return `••/••/${year}`;
}
