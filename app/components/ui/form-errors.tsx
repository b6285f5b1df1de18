import { createContext, useContext, useEffect, useState } from "react";

/** Field name -> message, as actions return them (see parseForm in ~/server/http/form.server). */
export type FieldErrors = Record<string, string>;

const NO_ERRORS: FieldErrors = {};
const FieldErrorsContext = createContext<FieldErrors>(NO_ERRORS);

/**
 * Hands field messages (from the server, or from the same schema run in the browser) to every
 * field below it, matched by the field's `name`. A field hides its message as soon as the person
 * edits it (not when they leave it: a message vanishing on blur would move the button they are
 * clicking). A new errors object (a new submission) shows the messages again.
 */
export function FormErrors({ errors, children }: { errors: FieldErrors | null | undefined; children: React.ReactNode }) {
  return <FieldErrorsContext.Provider value={errors ?? NO_ERRORS}>{children}</FieldErrorsContext.Provider>;
}

/** The message for one field from the nearest FormErrors; call `clear` when the field is edited. */
export function useLegacyFieldError(name: string | undefined): { message: string | undefined; clear: () => void } {
  const errors = useContext(FieldErrorsContext);
  const [cleared, setCleared] = useState(false);
  const [seen, setSeen] = useState(errors);
  if (errors !== seen) {
    // A new submission's errors: show them again (React's "adjust state while rendering" pattern).
    setSeen(errors);
    setCleared(false);
  }
  const message = cleared || !name ? undefined : errors[name] || undefined;
  return { message, clear: () => setCleared(true) };
}

/**
 * Moves focus to the first field marked invalid in `form` (DOM order = reading order). Groups
 * (radio groups) carry aria-invalid on their container: focus goes to their checked or first
 * input. Returns whether something was focused.
 */
export function focusFirstInvalid(form: HTMLFormElement | null): boolean {
  const invalid = form?.querySelector<HTMLElement>('[aria-invalid="true"]');
  if (!invalid) return false;
  const target = invalid.matches("input, select, textarea, button")
    ? invalid
    : (invalid.querySelector<HTMLElement>("input:checked") ?? invalid.querySelector<HTMLElement>("input, select, textarea, button"));
  target?.focus();
  return Boolean(target);
}

/** Moves focus to the first invalid field each time a new set of field errors arrives. */
export function useFocusFirstInvalid(formRef: React.RefObject<HTMLFormElement | null>, errors: FieldErrors | null | undefined): void {
  useEffect(() => {
    if (errors && Object.keys(errors).length) focusFirstInvalid(formRef.current);
  }, [errors, formRef]);
}

/** Zod issues -> first message per top-level field, as the server's parseForm gives them. */
export function issuesToFieldErrors(issues: readonly { path: readonly PropertyKey[]; message: string }[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const key = String(issue.path[0] ?? "form");
    errors[key] ??= issue.message;
  }
  return errors;
}
