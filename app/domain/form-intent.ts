/**
 * A form that does more than one thing says which with its `intent` field. An action acts only
 * on an intent it knows: an unknown or missing one is answered with 400 and changes nothing.
 * (A default is dangerous: Account Settings once read any unknown intent as "save the
 * notification switches" and, with no switch in the post, turned every notification off.)
 */
export const UNKNOWN_INTENT_MESSAGE = "This form could not be processed. Please reload the page and try again.";

export function formIntent<T extends string>(form: { get(name: string): unknown }, intents: readonly T[]): T | null {
  const value = form.get("intent");
  return typeof value === "string" && (intents as readonly string[]).includes(value) ? (value as T) : null;
}
