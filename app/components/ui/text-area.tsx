import { FieldDescription, FieldLabel, NativeFieldError } from "./field-parts";
import { controlClass, cx } from "./field-styles";
import { useTextControl, type TextControlProps } from "./text-field";

type TextAreaAttributes = Omit<
  React.TextareaHTMLAttributes<HTMLTextAreaElement>,
  "className" | "style" | "children" | "onChange" | "value" | "defaultValue" | "disabled" | "readOnly" | "required"
>;

export interface TextAreaProps extends TextAreaAttributes, TextControlProps {}

/** A labelled multi-line text input (a native <textarea name>); same labels, messages and checks as TextField. */
export function TextArea({
  label,
  description,
  error,
  optional,
  rows = 4,
  className,
  isRequired,
  isDisabled,
  isReadOnly,
  isInvalid,
  onChange,
  defaultValue,
  value,
  id,
  ...props
}: TextAreaProps) {
  const { inputId, errorId, message, invalid, control } = useTextControl<HTMLTextAreaElement>({
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
      <textarea {...props} rows={rows} {...control} className={cx(controlClass, "mt-1.5 min-h-28 resize-y")} />
      <NativeFieldError id={errorId} message={message} />
    </div>
  );
}
