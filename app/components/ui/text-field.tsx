import { Input, TextField as AriaTextField, type TextFieldProps as AriaTextFieldProps } from "react-aria-components";
import { FieldDescription, FieldErrorMessage, FieldLabel } from "./field-parts";
import { controlClass, cx } from "./field-styles";
import { useFieldError } from "./form";

export interface TextFieldProps extends Omit<AriaTextFieldProps, "children" | "className" | "style"> {
  label: string;
  /** Hint under the label, read with the field. */
  description?: React.ReactNode;
  /** An explicit message; otherwise the message for `name` from the nearest SchemaForm (hidden once edited). */
  error?: string;
  /** Marks the label "(optional)". */
  optional?: boolean;
  placeholder?: string;
  /** Shown inside the field before the text, e.g. "$" (decorative: say the unit in the label). */
  prefix?: React.ReactNode;
  /** Shown inside the field after the text, e.g. "%" or "months". */
  suffix?: React.ReactNode;
  className?: string;
  inputClassName?: string;
}

/**
 * A labelled single-line text input. Renders a native <input name> so a server-rendered
 * <Form method="post"> carries its value without JavaScript. Validation is shown the same way
 * with and without JavaScript: "aria" behaviour, so the browser's own bubbles never replace our
 * messages.
 */
export function TextField({ label, description, error, optional, placeholder, prefix, suffix, className, inputClassName, validationBehavior = "aria", isInvalid, onChange, defaultValue, ...props }: TextFieldProps) {
  const fromForm = useFieldError(props.name);
  const message = error ?? fromForm.message;
  return (
    <AriaTextField
      {...props}
      defaultValue={defaultValue ?? (props.value === undefined ? fromForm.defaultValue : undefined)}
      onChange={(value) => {
        fromForm.clear();
        onChange?.(value);
      }}
      validationBehavior={validationBehavior}
      isInvalid={message ? true : isInvalid}
      className={cx("flex flex-col", className)}
    >
      <FieldLabel optional={optional}>{label}</FieldLabel>
      <FieldDescription>{description}</FieldDescription>
      <div className="relative mt-1.5">
        {prefix ? (
          <span aria-hidden="true" className="pointer-events-none absolute inset-y-0 left-0 flex items-center pl-3.5 text-slate-600">
            {prefix}
          </span>
        ) : null}
        <Input placeholder={placeholder} className={cx(controlClass, Boolean(prefix) && "pl-8", Boolean(suffix) && "pr-20", inputClassName)} />
        {suffix ? (
          <span aria-hidden="true" className="pointer-events-none absolute inset-y-0 right-0 flex items-center pr-3.5 text-sm text-slate-600">
            {suffix}
          </span>
        ) : null}
      </div>
      <FieldErrorMessage message={message} />
    </AriaTextField>
  );
}
