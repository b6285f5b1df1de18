import { TextArea as AriaTextArea, TextField as AriaTextField, type TextFieldProps as AriaTextFieldProps } from "react-aria-components";
import { FieldDescription, FieldErrorMessage, FieldLabel } from "./field-parts";
import { controlClass, cx } from "./field-styles";
import { useFieldError } from "./form";

export interface TextAreaProps extends Omit<AriaTextFieldProps, "children" | "className" | "style" | "type"> {
  label: string;
  description?: React.ReactNode;
  error?: string;
  optional?: boolean;
  placeholder?: string;
  rows?: number;
  className?: string;
}

/** A labelled multi-line text input (a native <textarea name>); same validation as TextField. */
export function TextArea({ label, description, error, optional, placeholder, rows = 4, className, validationBehavior = "aria", isInvalid, onChange, ...props }: TextAreaProps) {
  const fromForm = useFieldError(props.name);
  const message = error ?? fromForm.message;
  return (
    <AriaTextField
      {...props}
      defaultValue={props.defaultValue ?? (props.value === undefined ? fromForm.defaultValue : undefined)}
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
      <AriaTextArea rows={rows} placeholder={placeholder} className={cx(controlClass, "mt-1.5 min-h-28 resize-y")} />
      <FieldErrorMessage message={message} />
    </AriaTextField>
  );
}
