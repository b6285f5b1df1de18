import { z } from "zod";
import { PASSWORD_MAX_CHARS, passwordProblem } from "./password";
import { plainText } from "./plain-text";

/**
 * Staff review of a membership application (docs/product.md#staff-review) and staff creating a
 * member (docs/product.md#create-new-user): one set of rules for the server action and for the
 * dialog's quick feedback.
 */
export const CHECKLIST_GROUPS = [
  {
    id: "personal",
    title: "Personal information",
    items: [
      { id: "email", label: "Email address" },
      { id: "date_of_birth", label: "Date of birth" },
      { id: "nationality", label: "Nationality" },
      { id: "address_complete", label: "Address complete" },
      { id: "marital_status", label: "Marital status" },
    ],
  },
  {
    id: "contact",
    title: "Contact",
    items: [
      { id: "phone", label: "Phone number" },
      { id: "emergency_contact", label: "Emergency contact" },
    ],
  },
  {
    id: "documents",
    title: "Documents",
    items: [
      { id: "id_present", label: "ID document present" },
      { id: "id_clear", label: "ID document clear and readable" },
      { id: "id_valid", label: "ID document valid (not expired, matches the applicant)" },
    ],
  },
] as const;

export type ChecklistItemId = (typeof CHECKLIST_GROUPS)[number]["items"][number]["id"];
export const CHECKLIST_ITEM_IDS: readonly ChecklistItemId[] = CHECKLIST_GROUPS.flatMap((g) => g.items.map((i) => i.id));
export type Checklist = Record<ChecklistItemId, boolean>;

/** The checklist as ticked in a form: a ticked box posts `check_<id>=on`. */
export function checklistFromForm(read: (name: string) => unknown): Checklist {
  const result = {} as Checklist;
  for (const id of CHECKLIST_ITEM_IDS) {
    const value = read(`check_${id}`);
    result[id] = value === "on" || value === "true" || value === "1";
  }
  return result;
}

export function checklistComplete(checklist: Checklist): boolean {
  return CHECKLIST_ITEM_IDS.every((id) => checklist[id] === true);
}

export const REVIEW_DECISIONS = ["approve", "reject", "request_info"] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];

export const REVIEW_NOTE_MAX_CHARS = 2000;
export const APPROVE_NEEDS_CHECKLIST = "Tick every item of the checklist before approving.";
export const REJECT_NEEDS_REASON = "Please give the reason for the rejection";
export const REQUEST_NEEDS_DESCRIPTION = "Please describe the information you need";

/** The decision part of the review form (the checklist is read with `checklistFromForm`). */
export const ReviewDecisionSchema = z.discriminatedUnion("decision", [
  z.object({ decision: z.literal("approve") }),
  z.object({
    decision: z.literal("reject"),
    reason: plainText({ missing: REJECT_NEEDS_REASON, multiline: true })
      .min(1, REJECT_NEEDS_REASON)
      .max(REVIEW_NOTE_MAX_CHARS, `Please use at most ${REVIEW_NOTE_MAX_CHARS} characters`),
  }),
  z.object({
    decision: z.literal("request_info"),
    message: plainText({ missing: REQUEST_NEEDS_DESCRIPTION, multiline: true })
      .min(1, REQUEST_NEEDS_DESCRIPTION)
      .max(REVIEW_NOTE_MAX_CHARS, `Please use at most ${REVIEW_NOTE_MAX_CHARS} characters`),
  }),
]);

/** A typed code must be exactly 6 digits (docs/product.md#one-time-code-panel). */
export const STAFF_CODE_FORMAT_MESSAGE = "Invalid OTP format. Please enter a 6-digit number.";
export const STAFF_CODE_TRIVIAL_MESSAGE =
  "This code is too easy to guess. Please choose one that is not one digit six times or a run like 123456, or leave it empty to generate one.";

/**
 * A code anyone would try first: one digit six times (000000, 777777) or a run up or down, also
 * across 9 to 0 (123456, 654321, 890123). A staff code works for 24 hours, so it must not be
 * among the first guesses.
 */
export function isTrivialCode(code: string): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  const steps = new Set<number>();
  for (let i = 1; i < code.length; i++) steps.add((Number(code[i]) - Number(code[i - 1]) + 10) % 10);
  return steps.size === 1 && [0, 1, 9].includes([...steps][0]!);
}

const required = (message: string, max = 200) =>
  plainText({ missing: message }).min(1, message).max(max, `Please use at most ${max} characters`);
const email = z
  .string("Please enter a valid email address")
  .trim()
  .toLowerCase()
  .pipe(z.email("Please enter a valid email address").max(254));
const phone = z
  .string("Please enter a phone number")
  .trim()
  .regex(/^[+() \d.-]{7,25}$/, "Please enter a valid phone number");

/** Create New User (docs/product.md#create-new-user). */
export const CreateMemberSchema = z
  .object({
    email,
    /** A member's temporary password; staff and reviewers choose their own (docs/product.md#staff-role-grants). */
    password: z.string().max(PASSWORD_MAX_CHARS).optional(),
    first_name: required("Please enter the first name", 100),
    last_name: required("Please enter the last name", 100),
    phone,
    street: required("Please enter the street"),
    city: required("Please enter the city", 100),
    state: required("Please enter the state", 50),
    postal_code: z
      .string("Please enter the ZIP code")
      .trim()
      .regex(/^\d{5}(-\d{4})?$/, "Please enter a 5-digit ZIP code"),
    role: z.enum(["user", "admin", "reviewer"], "Please choose a role").default("user"),
    joint_account: z
      .string()
      .optional()
      .transform((v) => v === "on" || v === "true"),
    joint_name: plainText().max(200).optional(),
    joint_email: z.string().trim().max(254).optional(),
    joint_phone: z.string().trim().max(25).optional(),
  })
  .superRefine((value, ctx) => {
    if (value.role === "user") {
      const problem = value.password ? passwordProblem(value.password) : "Please enter a temporary password";
      if (problem) ctx.addIssue({ code: "custom", path: ["password"], message: problem });
    }
    if (value.joint_account) {
      if (!value.joint_name)
        ctx.addIssue({ code: "custom", path: ["joint_name"], message: "Please enter the joint owner's name" });
      if (!value.joint_email || !z.email().safeParse(value.joint_email).success)
        ctx.addIssue({
          code: "custom",
          path: ["joint_email"],
          message: "Please enter the joint owner's email address",
        });
      if (!value.joint_phone || !/^[+() \d.-]{7,25}$/.test(value.joint_phone))
        ctx.addIssue({ code: "custom", path: ["joint_phone"], message: "Please enter the joint owner's phone number" });
    }
  });

export type CreateMemberInput = z.output<typeof CreateMemberSchema>;

/**
 * Messages containing "Error" or "Failed" show in red, others in green
 * (docs/product.md#back-office).
 */
export function messageTone(message: string): "error" | "success" {
  return /error|failed/i.test(message) ? "error" : "success";
}
