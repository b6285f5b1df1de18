import { createContext, useContext, useState } from "react";
import { Form as RouterForm, type FetcherWithComponents, type FormProps as RouterFormProps } from "react-router";
import { FormProvider, getFormProps, useForm, useFormMetadata, type FormMetadata, type Submission } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { z } from "zod";
import type { FormReply } from "~/server/http/form.server";

/**
 * The one form pipeline (docs/decisions/0009-one-form-pipeline.md): Conform runs the form's Zod
 * schema in the browser on submit and, as the same schema on the server (parseSubmission in
 * ~/server/http/form.server), answers with a FormReply. Fields from ~/components/ui read their
 * message and their value to show again from the nearest SchemaForm, by `name`.
 */

export type { FormReply };

/** The Conform form a SchemaForm renders (what useSchemaForm returns). */
export type SchemaFormMetadata = FormMetadata<Record<string, unknown>, string[]>;

export interface SchemaFormOptions {
  /** The action's FormReply for this form, if the last answer was about it. */
  lastResult?: FormReply | null;
  /** A fixed id when a page has several forms or a test needs one; otherwise generated. */
  id?: string;
  /** Starting values by field name (the last answer's values replace them). */
  defaultValue?: Record<string, string | undefined>;
  /** Told each time the browser's check stops a submit, with the messages by field. */
  onInvalid?: (errors: Record<string, string[] | null>) => void;
}

/**
 * A schema with no rules: for a form whose fields the server alone can check (an emailed code),
 * so that SchemaForm still shows the answer's messages. Also what a button with formNoValidate (a
 * Cancel that posts) is checked against.
 */
export const anyForm = z.record(z.string(), z.unknown());

/**
 * Runs `schema` on submit in the browser (the same schema the action parses): a failing check
 * stops the submit, shows each message next to its field and focuses the first. Without
 * JavaScript the form posts as usual and the server's FormReply shows the same messages.
 */
export function useSchemaForm<S extends z.ZodType>(schema: S, options: SchemaFormOptions = {}): SchemaFormMetadata {
  const [form] = useForm<Record<string, unknown>, Record<string, unknown>, string[]>({
    id: options.id,
    lastResult: options.lastResult ?? undefined,
    defaultValue: options.defaultValue,
    // Checked on submit only; a field hides its message as soon as the person edits it
    // (useFieldError), not when they leave it: a message vanishing on blur would move the
    // button they are clicking.
    shouldValidate: "onSubmit",
    shouldRevalidate: "onSubmit",
    // The schemas are written over the posted strings ("" is an empty field, with its own
    // message), so Conform's coercion of "" to undefined is off.
    onValidate: ({ formData, submitter }) => {
      if (submitter?.formNoValidate) return parseWithZod(formData, { schema: anyForm, disableAutoCoercion: true });
      const submission = parseWithZod(formData, { schema, disableAutoCoercion: true }) as Submission<Record<string, unknown>>;
      if (submission.status === "error" && submission.error) options.onInvalid?.(submission.error);
      return submission;
    },
  });
  return form;
}

export type SchemaFormProps = Omit<RouterFormProps, "id" | "noValidate"> & {
  form: SchemaFormMetadata;
  /** Post through this fetcher (the page stays as it is) instead of navigating. */
  fetcher?: FetcherWithComponents<unknown>;
  ref?: React.Ref<HTMLFormElement>;
};

/**
 * React Router's <Form> wired to a useSchemaForm form: the browser check on submit, and the
 * messages and values for the fields inside. `onSubmit` runs after the check passes.
 */
export function SchemaForm({ form, fetcher, onSubmit, children, ...props }: SchemaFormProps) {
  const { onSubmit: check, ...formProps } = getFormProps(form);
  const FormElement = fetcher ? fetcher.Form : RouterForm;
  return (
    <FormProvider context={form.context}>
      <FormElement
        {...props}
        {...formProps}
        onSubmit={(event) => {
          check(event);
          if (!event.defaultPrevented) onSubmit?.(event);
        }}
      >
        <FieldMessages formId={form.id}>{children}</FieldMessages>
      </FormElement>
    </FormProvider>
  );
}

interface FieldState {
  errors: Record<string, readonly string[] | null | undefined>;
  values: Record<string, unknown>;
}

const NO_FIELDS: FieldState = { errors: {}, values: {} };
const FieldStateContext = createContext<FieldState>(NO_FIELDS);

function FieldMessages({ formId, children }: { formId: string; children: React.ReactNode }) {
  const form = useFormMetadata(formId);
  const state: FieldState = { errors: form.allErrors, values: (form.initialValue ?? {}) as Record<string, unknown> };
  return <FieldStateContext.Provider value={state}>{children}</FieldStateContext.Provider>;
}

/**
 * The message for one field from the nearest SchemaForm (call `clear` when the field is edited:
 * it hides the message until the next submit), and the value the last answer sent back for it.
 */
export function useFieldError(name: string | undefined): { message: string | undefined; clear: () => void; defaultValue: string | undefined } {
  const { errors, values } = useContext(FieldStateContext);
  const current = name ? errors[name] : undefined;
  const [cleared, setCleared] = useState<readonly string[] | null | undefined>(undefined);
  // Each check makes new message arrays, so a cleared message shows again after the next submit.
  const message = current && current !== cleared ? current[0] : undefined;
  const value = name ? values[name] : undefined;
  return { message, clear: () => setCleared(current), defaultValue: typeof value === "string" ? value : undefined };
}

/**
 * The messages about the whole form (not one field) in a reply, e.g. a refusal the server added
 * with replyTo's formErrors. Read from the reply itself, so they show in the same render as the
 * answer arrives (a message to focus exists when the effect runs).
 */
export function formMessages(reply: FormReply | null | undefined): string[] {
  return reply?.error?.[""] ?? [];
}

/** Field name -> its first message. */
export type FieldMessages = Record<string, string>;

function firstMessages(errors: Record<string, readonly string[] | null | undefined> | null | undefined): FieldMessages {
  const messages: FieldMessages = {};
  for (const [name, list] of Object.entries(errors ?? {})) if (name !== "" && list?.[0]) messages[name] = list[0];
  return messages;
}

/** Field name -> its first message, for a summary of the form's problems (ErrorSummary). */
export function fieldMessages(form: SchemaFormMetadata): FieldMessages {
  return firstMessages(form.allErrors);
}

/**
 * Checks plain values the way a posted form is checked (the same Conform parse), for forms that
 * check as the person types and are never posted: the calculators' GET forms.
 */
export function checkValues<S extends z.ZodType>(schema: S, values: Record<string, string>): { value: z.output<S> | null; messages: FieldMessages } {
  const submission = parseWithZod(new URLSearchParams(values), { schema, disableAutoCoercion: true });
  return submission.status === "success" ? { value: submission.value, messages: {} } : { value: null, messages: firstMessages(submission.error) };
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

/** How many fields have a message, for a summary such as "Please check the 2 highlighted fields." */
export function fieldErrorCount(form: SchemaFormMetadata): number {
  return Object.keys(fieldMessages(form)).length;
}
