import { data } from "react-router";
import type { RefusalKind } from "~/domain/refusals";
import { z } from "zod";
import { parseWithZod } from "@conform-to/zod/v4";
import type { Submission, SubmissionResult } from "@conform-to/react";

/**
 * Reads a posted form. A body that is not a well-formed form (broken multipart, wrong type that
 * slipped past the request guards) is the client's fault: 400 with a clear message, never a 500.
 */
export async function readForm(request: Request): Promise<FormData> {
  try {
    return await request.formData();
  } catch {
    throw data({ form_error: "The form could not be read. Please reload the page and try again." }, { status: 400 });
  }
}

/**
 * What every form action answers about its form (docs/decisions/0009-one-form-pipeline.md):
 * Conform's reply, with each field's messages, the form's own messages and the values to show
 * again. The page hands it to useSchemaForm({ lastResult }) in ~/components/ui.
 */
export type FormReply = SubmissionResult<string[]>;

/** A parsed form: `status === "success"` with `value`, or the messages to send back with replyTo. */
export type FormSubmission<S extends z.ZodType> = Submission<z.input<S>, string[], z.output<S>>;

/**
 * Validates a posted form with its Zod schema, the same schema the browser runs before it posts
 * (useSchemaForm). The schemas are written over the posted strings, so "" reaches them as "".
 * A body Conform cannot read (a forged `__state__` or `__intent__`) is a 400, never a 500.
 */
export function parseSubmission<S extends z.ZodType>(schema: S, form: FormData): FormSubmission<S> {
  try {
    return parseWithZod(form, { schema, disableAutoCoercion: true });
  } catch {
    throw data({ form_error: "The form could not be read. Please reload the page and try again." }, { status: 400 });
  }
}

/** Fields whose values never go back to the browser (passwords, codes, tokens). */
const SECRET_FIELD = /password|otp|code|token|secret/i;

/**
 * The reply for a submission: the schema's messages, plus any the action adds after it checked
 * the facts (`fieldErrors: { email: ["An account with this email already exists."] }`), or a
 * message about the whole form (`formErrors`). Secret fields are never sent back, nor `hideFields`.
 */
export function replyTo(
  submission: { payload: Record<string, unknown>; reply: Submission<unknown>["reply"] },
  messages: { fieldErrors?: Record<string, string[]>; formErrors?: string[]; hideFields?: string[] } = {},
): FormReply {
  const hideFields = [
    ...Object.keys(submission.payload).filter((name) => SECRET_FIELD.test(name)),
    ...(messages.hideFields ?? []),
  ];
  return submission.reply({ ...messages, hideFields });
}

/** Any posted form, for a reply that is not about a schema. */
const ANY_FORM = z.record(z.string(), z.unknown());

/**
 * A reply for a form the action refused without a schema's help (an unknown step, a failure):
 * the posted values to show again (secret fields left out) and the given messages.
 */
export function formReply(
  form: FormData,
  messages: { fieldErrors?: Record<string, string[]>; formErrors?: string[]; hideFields?: string[] } = {},
): FormReply {
  return replyTo(parseSubmission(ANY_FORM, form), messages);
}

/** The HTTP status a route answers a service's refusal with: the route's choice, by the kind of "no". */
export function refusalStatus(kind: RefusalKind): 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 503 {
  return REFUSAL_STATUS[kind];
}

/** The headers a refusal's answer carries: `Retry-After` when it says how long to wait. */
export function refusalHeaders(refusal: { retry_after_s?: number }): Record<string, string> {
  return refusal.retry_after_s === undefined ? {} : { "Retry-After": String(refusal.retry_after_s) };
}

const REFUSAL_STATUS = {
  bad_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  too_large: 413,
  too_many: 429,
  unavailable: 503,
} as const satisfies Record<RefusalKind, number>;
