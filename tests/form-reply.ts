/**
 * Reading a form action's answer in tests. Every form action answers `{ reply, ... }`, where
 * `reply` is the one FormReply shape (docs/decisions/0009-one-form-pipeline.md); these give the
 * first message per field and the values sent back, as a page shows them.
 */
type Reply = { error?: Record<string, string[] | null> | null; initialValue?: Record<string, unknown> | null };

/** Field name -> its first message ("" is a message about the whole form). */
export function fieldErrors(payload: unknown): Record<string, string> {
  const reply = (payload as { reply?: Reply } | null)?.reply;
  const errors: Record<string, string> = {};
  for (const [name, messages] of Object.entries(reply?.error ?? {})) if (messages?.[0]) errors[name] = messages[0];
  return errors;
}

/** The values the answer sends back to show again (never passwords, codes or tokens). */
export function formValues(payload: unknown): Record<string, unknown> {
  return (payload as { reply?: Reply } | null)?.reply?.initialValue ?? {};
}
