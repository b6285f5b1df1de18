import { data } from "react-router";
import type { z } from "zod";

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

/** Field name -> first message, as forms show next to each field. */
export type FieldErrors = Record<string, string>;

/**
 * Validates form fields with a Zod schema (the same schema the browser uses for quick feedback).
 * Only string fields are taken; files are read separately by upload routes.
 */
export function parseForm<S extends z.ZodType>(schema: S, form: FormData):
  | { ok: true; value: z.infer<S> }
  | { ok: false; errors: FieldErrors; values: Record<string, string> } {
  const values: Record<string, string> = {};
  for (const [key, value] of form.entries()) if (typeof value === "string" && !(key in values)) values[key] = value;
  const result = schema.safeParse(values);
  if (result.success) return { ok: true, value: result.data };
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const key = String(issue.path[0] ?? "form");
    errors[key] ??= issue.message;
  }
  return { ok: false, errors, values };
}
