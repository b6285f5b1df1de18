import { parseWithZod } from "@conform-to/zod/v4";
import { z } from "zod";
import { firstMessages, type FieldMessages } from "./form";

/**
 * The Zod side of the form pipeline (docs/decisions/0009-one-form-pipeline.md), in a module of
 * its own: a page's fields and buttons draw and work without it, so the browser loads it (with
 * Zod) once the page is up rather than before its first paint
 * (docs/decisions/0012-form-checks-after-first-paint.md). The server imports it directly.
 */

/** Conform's parse of a posted form with a form's schema, over the posted strings ("" stays "", no coercion). */
export function checkSubmission(schema: z.ZodType, formData: FormData | URLSearchParams) {
  return parseWithZod(formData, { schema, disableAutoCoercion: true });
}

/** A schema with no rules (anyForm in ./form). */
export const anyFormSchema = z.record(z.string(), z.unknown());

/**
 * Checks plain values the way a posted form is checked (the same Conform parse), for forms that
 * check as the person types and are never posted: the calculators' GET forms.
 */
export function checkValues<S extends z.ZodType>(
  schema: S,
  values: Record<string, string>,
): { value: z.output<S> | null; messages: FieldMessages } {
  const submission = checkSubmission(schema, new URLSearchParams(values));
  return submission.status === "success"
    ? { value: submission.value as z.output<S>, messages: {} }
    : { value: null, messages: firstMessages(submission.error) };
}
