import { useId, useState } from "react";
import { FieldDescription, FieldLabel, NativeFieldError, describedBy } from "./field-parts";
import { controlClass, cx } from "./field-styles";
import { useFieldError } from "./form";

type TextAreaAttributes = Omit<React.TextareaHTMLAttributes<HTMLTextAreaElement>, "className" | "style" | "children" | "onChange" | "value" | "defaultValue" | "disabled" | "readOnly" | "required">;

export interface TextAreaProps extends TextAreaAttributes {
  label: string;
  description?: React.ReactNode;
  error?: string;
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

/** A labelled multi-line text input (a native <textarea name>); same labels, messages and checks as TextField. */
export function TextArea({ label, description, error, optional, rows = 4, className, isRequired, isDisabled, isReadOnly, isInvalid, onChange, defaultValue, value, id, ...props }: TextAreaProps) {
  const generated = useId();
  const inputId = id ?? `field-${generated}`;
  const descriptionId = description ? `${inputId}-description` : undefined;
  const errorId = `${inputId}-error`;
  const fromForm = useFieldError(props.name);
  const message = error ?? fromForm.message;
  const invalid = Boolean(message) || Boolean(isInvalid);
  // The starting text, kept once (see TextField).
  const [initial] = useState(() => defaultValue ?? (value === undefined ? fromForm.defaultValue : undefined));
  return (
    <div className={cx("flex flex-col", className)} data-invalid={invalid || undefined}>
      <FieldLabel htmlFor={inputId} optional={optional}>
        {label}
      </FieldLabel>
      <FieldDescription id={`${inputId}-description`}>{description}</FieldDescription>
      <textarea
        {...props}
        id={inputId}
        rows={rows}
        {...(value === undefined ? { defaultValue: initial } : { value })}
        onChange={(event) => {
          fromForm.clear();
          onChange?.(event.currentTarget.value);
        }}
        disabled={isDisabled}
        readOnly={isReadOnly}
        aria-required={isRequired || undefined}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy(descriptionId, message ? errorId : undefined, props["aria-describedby"])}
        className={cx(controlClass, "mt-1.5 min-h-28 resize-y")}
      />
      <NativeFieldError id={errorId} message={message} />
    </div>
  );
}
