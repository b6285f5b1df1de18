import { memo, useId, useState } from "react";
import { FieldDescription, FieldLabel, NativeFieldError, describedBy } from "./field-parts";
import { controlClass, cx } from "./field-styles";
import { useFieldError } from "./form";

type InputAttributes = Omit<
  React.InputHTMLAttributes<HTMLInputElement>,
  | "className"
  | "style"
  | "children"
  | "onChange"
  | "value"
  | "defaultValue"
  | "prefix"
  | "disabled"
  | "readOnly"
  | "required"
>;

/** What a text control (TextField, TextArea) takes besides its element's own attributes. */
export interface TextControlProps {
  label: string;
  /** Hint under the label, read with the field. */
  description?: React.ReactNode;
  /** An explicit message; otherwise the message for `name` from the nearest SchemaForm (hidden once edited). */
  error?: string;
  /** Marks the label "(optional)". */
  optional?: boolean;
  className?: string;
  value?: string;
  defaultValue?: string;
  /** Called with the field's new text. */
  onChange?: (value: string) => void;
  isRequired?: boolean;
  isDisabled?: boolean;
  isReadOnly?: boolean;
  isInvalid?: boolean;
}

export interface TextFieldProps extends InputAttributes, TextControlProps {
  /** Shown inside the field before the text, e.g. "$" (decorative: say the unit in the label). */
  prefix?: React.ReactNode;
  /** Shown inside the field after the text, e.g. "%" or "months". */
  suffix?: React.ReactNode;
  inputClassName?: string;
}

/**
 * A labelled single-line text input: a native <input name>, so a server-rendered
 * <Form method="post"> carries its value without JavaScript, and the page needs no script to
 * draw it. Required fields say aria-required rather than `required`, so the browser's own
 * bubbles never replace our messages (shown the same way with and without JavaScript). The
 * message is linked by aria-describedby after the hint, and the field says aria-invalid.
 *
 * Memoized, like the other fields: a field is drawn again only when its own props, its message
 * or its value to show again change, not each time the page around it re-renders (React
 * Router's state changes right after hydration and while a form is sent, and a long form such as
 * the membership application drew all its fields again each time).
 */
export const TextField = memo(function TextField({
  label,
  description,
  error,
  optional,
  prefix,
  suffix,
  className,
  inputClassName,
  isRequired,
  isDisabled,
  isReadOnly,
  isInvalid,
  onChange,
  defaultValue,
  value,
  id,
  ...props
}: TextFieldProps) {
  const { inputId, errorId, message, invalid, control } = useTextControl<HTMLInputElement>({
    id,
    name: props.name,
    description,
    error,
    value,
    defaultValue,
    onChange,
    isRequired,
    isDisabled,
    isReadOnly,
    isInvalid,
    describedBy: props["aria-describedby"],
  });
  return (
    <div className={cx("flex flex-col", className)} data-invalid={invalid || undefined}>
      <FieldLabel htmlFor={inputId} optional={optional}>
        {label}
      </FieldLabel>
      <FieldDescription id={`${inputId}-description`}>{description}</FieldDescription>
      <div className="relative mt-1.5">
        {prefix ? (
          <span
            aria-hidden="true"
            className="pointer-events-none absolute inset-y-0 left-0 flex items-center pl-3.5 text-slate-600"
          >
            {prefix}
          </span>
        ) : null}
        <input
          type="text"
          {...props}
          {...control}
          className={cx(controlClass, Boolean(prefix) && "pl-8", Boolean(suffix) && "pr-20", inputClassName)}
        />
        {suffix ? (
          <span
            aria-hidden="true"
            className="pointer-events-none absolute inset-y-0 right-0 flex items-center pr-3.5 text-sm text-slate-600"
          >
            {suffix}
          </span>
        ) : null}
      </div>
      <NativeFieldError id={errorId} message={message} />
    </div>
  );
});

/**
 * What TextField and TextArea share: the control's id (given or generated), its message (from
 * `error` or the nearest SchemaForm, by name) and the native control's props (its value, the
 * form's message cleared on typing, the aria states, aria-describedby: hint, message, then the
 * caller's own).
 */
export function useTextControl<E extends HTMLInputElement | HTMLTextAreaElement>(
  field: Omit<TextControlProps, "label" | "optional" | "className"> & {
    id?: string;
    name?: string;
    describedBy?: string;
  },
) {
  const generated = useId();
  const inputId = field.id ?? `field-${generated}`;
  const descriptionId = field.description ? `${inputId}-description` : undefined;
  const errorId = `${inputId}-error`;
  const fromForm = useFieldError(field.name);
  const message = field.error ?? fromForm.message;
  const invalid = Boolean(message) || Boolean(field.isInvalid);
  // The starting text, kept once: the form's values change with each answer, and a field that
  // is not remounted keeps what the person typed (as an uncontrolled input does).
  const [initial] = useState(
    () => field.defaultValue ?? (field.value === undefined ? fromForm.defaultValue : undefined),
  );
  const control = {
    id: inputId,
    ...(field.value === undefined ? { defaultValue: initial } : { value: field.value }),
    onChange: (event: React.ChangeEvent<E>) => {
      fromForm.clear();
      field.onChange?.(event.currentTarget.value);
    },
    disabled: field.isDisabled,
    readOnly: field.isReadOnly,
    "aria-required": field.isRequired || undefined,
    "aria-invalid": invalid || undefined,
    "aria-describedby": describedBy(descriptionId, message ? errorId : undefined, field.describedBy),
  };
  return { inputId, errorId, message, invalid, control };
}

/**
 * The password a signed-in person types again to confirm a security change (a new password, an
 * authenticator app, a passkey): one field, named `current_password` as every action reads it,
 * filled by password managers as the current password.
 */
export function CurrentPasswordField({
  label = "Current password",
  error,
  autoFocus,
}: {
  label?: string;
  error?: string;
  autoFocus?: boolean;
}) {
  return (
    <TextField
      name="current_password"
      label={label}
      type="password"
      autoComplete="current-password"
      isRequired
      error={error}
      autoFocus={autoFocus}
    />
  );
}
