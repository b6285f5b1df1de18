import { createContext, useContext, useEffect, useMemo, useRef, useState } from "react";
import { Form as RouterForm, type FetcherWithComponents, type FormProps as RouterFormProps } from "react-router";
import {
  FormProvider,
  getFormProps,
  parse,
  useForm,
  useFormMetadata,
  type FormMetadata,
  type Submission,
} from "@conform-to/react";
import type { z } from "zod";
import type { FormReply } from "~/server/http/form.server";
import type * as FormCheckModule from "./form-check";

/**
 * The one form pipeline (docs/decisions/0009-one-form-pipeline.md): Conform runs the form's Zod
 * schema in the browser on submit and, as the same schema on the server (parseSubmission in
 * ~/server/http/form.server), answers with a FormReply. Fields from ~/components/ui read their
 * message and their value to show again from the nearest SchemaForm, by `name`.
 *
 * Zod and the parse (./form-check) are not part of this module: the browser loads them once the
 * page is up, so that a page's first paint does not wait for them (the fields and buttons work
 * without them). A submit before they have arrived waits for them, then is checked as usual
 * (docs/decisions/0012-form-checks-after-first-paint.md).
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
 * A form's schema, or a function that loads it (`() => import("~/domain/x").then((m) => m.xSchema)`):
 * a page whose first paint should not wait for Zod passes the function, and imports from the
 * schema's module nothing else the page needs to draw.
 */
export type SchemaSource = z.ZodType | (() => Promise<z.ZodType>);

type FormChecks = typeof FormCheckModule;
let formChecks: FormChecks | undefined;
let formChecksLoading: Promise<FormChecks> | undefined;
const loadFormChecks = () => (formChecksLoading ??= import("./form-check").then((module) => (formChecks = module)));

/** Forms whose schema or parse is still on its way, by form id: a submit waits for it. */
const checksArriving = new Map<string, Promise<unknown>>();

/** What a form without a browser check posts: everything, for the server to check. */
const serverChecks = (formData: FormData | URLSearchParams) =>
  parse(formData, { resolve: (value) => ({ value }) }) as Submission<Record<string, unknown>>;

/**
 * A form for fields the server alone can check (an emailed code), so that SchemaForm still shows
 * the answer's messages. (A button with formNoValidate, such as a Cancel that posts, is not
 * checked either.)
 */
export const anyForm: SchemaSource = () => loadFormChecks().then((checks) => checks.anyFormSchema);

/**
 * Runs the form's schema on submit in the browser (the same schema the action parses): a failing
 * check stops the submit, shows each message next to its field and focuses the first. Without
 * JavaScript the form posts as usual and the server's FormReply shows the same messages.
 */
export function useSchemaForm(source: SchemaSource, options: SchemaFormOptions = {}): SchemaFormMetadata {
  const schema = useRef<z.ZodType | undefined>(typeof source === "function" ? undefined : source);
  const [form] = useForm<Record<string, unknown>, Record<string, unknown>, string[]>({
    id: options.id,
    lastResult: options.lastResult ?? undefined,
    defaultValue: options.defaultValue,
    // Checked on submit only; a field hides its message as soon as the person edits it
    // (useFieldError), not when they leave it: a message vanishing on blur would move the
    // button they are clicking.
    shouldValidate: "onSubmit",
    shouldRevalidate: "onSubmit",
    onValidate: ({ formData, submitter }) => {
      // Only when loading the checks failed (SchemaForm waits for them otherwise): the server checks.
      if (submitter?.formNoValidate || !formChecks || !schema.current) return serverChecks(formData);
      const submission = formChecks.checkSubmission(schema.current, formData) as Submission<Record<string, unknown>>;
      if (submission.status === "error" && submission.error) options.onInvalid?.(submission.error);
      return submission;
    },
  });
  const formId = form.id;
  const [loadSchema] = useState(() => source);
  useEffect(() => {
    if (formChecks && schema.current) return;
    const arriving = Promise.all([loadFormChecks(), typeof loadSchema === "function" ? loadSchema() : loadSchema]).then(
      ([, loaded]) => {
        schema.current = loaded;
      },
    );
    checksArriving.set(formId, arriving);
    // Failed to load (offline): the submit goes to the server, which checks it.
    void arriving.catch(() => undefined).finally(() => checksArriving.delete(formId));
  }, [formId, loadSchema]);
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
          const arriving = checksArriving.get(form.id);
          if (arriving) {
            // Sent in the moment between the page showing and its checks arriving: sent again,
            // checked, once they are here.
            event.preventDefault();
            const element = event.currentTarget;
            const submitter = (event.nativeEvent as SubmitEvent).submitter;
            void arriving
              .catch(() => undefined)
              .finally(() => {
                try {
                  element.requestSubmit(submitter);
                } catch {
                  // The button that sent it is gone or belongs elsewhere: sent as by Enter.
                  element.requestSubmit();
                }
              });
            return;
          }
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

const NO_VALUES: Record<string, unknown> = {};

function FieldMessages({ formId, children }: { formId: string; children: React.ReactNode }) {
  const form = useFormMetadata(formId);
  // The same value until Conform's state changes (a check or an answer), so that the fields
  // (memoized) are not drawn again when the page re-renders for another reason, such as React
  // Router's state changing right after hydration or while a form is sent.
  const errors = form.allErrors;
  const values = (form.initialValue ?? NO_VALUES) as Record<string, unknown>;
  const state = useMemo<FieldState>(() => ({ errors, values }), [errors, values]);
  return <FieldStateContext.Provider value={state}>{children}</FieldStateContext.Provider>;
}

/**
 * The message for one field from the nearest SchemaForm (call `clear` when the field is edited:
 * it hides the message until the next submit), and the value the last answer sent back for it.
 */
export function useFieldError(name: string | undefined): {
  message: string | undefined;
  clear: () => void;
  defaultValue: string | undefined;
} {
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

export function firstMessages(
  errors: Record<string, readonly string[] | null | undefined> | null | undefined,
): FieldMessages {
  const messages: FieldMessages = {};
  for (const [name, list] of Object.entries(errors ?? {})) if (name !== "" && list?.[0]) messages[name] = list[0];
  return messages;
}

/** Field name -> its first message, for a summary of the form's problems (ErrorSummary). */
export function fieldMessages(form: SchemaFormMetadata): FieldMessages {
  return firstMessages(form.allErrors);
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
    : (invalid.querySelector<HTMLElement>("input:checked") ??
      invalid.querySelector<HTMLElement>("input, select, textarea, button"));
  target?.focus();
  return Boolean(target);
}

/** How many fields have a message, for a summary such as "Please check the 2 highlighted fields." */
export function fieldErrorCount(form: SchemaFormMetadata): number {
  return Object.keys(fieldMessages(form)).length;
}
