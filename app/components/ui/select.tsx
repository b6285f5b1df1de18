import { memo, useId } from "react";
import { ChevronDown } from "lucide-react";
import { NativeFieldError } from "./field-parts";
import { controlClass, cx, descriptionClass, labelClass, optionalClass } from "./field-styles";
import { useFieldError } from "./form";

export interface SelectOption {
  value: string;
  label: string;
}

export interface SelectProps {
  name: string;
  label: string;
  options: readonly SelectOption[];
  /** A first, empty choice such as "Select a subject"; choosing nothing submits "". */
  placeholder?: string;
  defaultValue?: string;
  description?: React.ReactNode;
  error?: string;
  isRequired?: boolean;
  optional?: boolean;
  isDisabled?: boolean;
  className?: string;
  id?: string;
  onChange?: (value: string) => void;
}

/**
 * A labelled choice from a short list, built on the native <select>. React Aria's Select is a
 * button and popover that only work once JavaScript runs (its hidden <select> carries the value
 * but cannot be operated), so the native element is the one that works in a server-rendered form
 * before hydration, with every keyboard and screen reader, and gives phones their own picker.
 * It reads its message from the nearest SchemaForm like the React Aria fields do. Memoized, as
 * TextField is.
 */
export const Select = memo(function Select({
  name,
  label,
  options,
  placeholder,
  defaultValue,
  description,
  error,
  isRequired,
  optional,
  isDisabled,
  className,
  id,
  onChange,
}: SelectProps) {
  const generated = useId();
  const selectId = id ?? `select-${generated}`;
  const descriptionId = description ? `${selectId}-description` : undefined;
  const errorId = `${selectId}-error`;
  const fieldError = useFieldError(name);
  const message = error ?? fieldError.message;
  const describedBy = [descriptionId, message ? errorId : undefined].filter(Boolean).join(" ") || undefined;
  return (
    <div className={cx("flex flex-col", className)}>
      <label htmlFor={selectId} className={labelClass}>
        {label}
        {optional ? <span className={optionalClass}>(optional)</span> : null}
      </label>
      {description ? (
        <span id={descriptionId} className={descriptionClass}>
          {description}
        </span>
      ) : null}
      <div className="relative mt-1.5">
        <select
          id={selectId}
          name={name}
          defaultValue={defaultValue ?? fieldError.defaultValue ?? ""}
          disabled={isDisabled}
          aria-required={isRequired || undefined}
          aria-invalid={message ? true : undefined}
          aria-describedby={describedBy}
          onChange={(event) => {
            fieldError.clear();
            onChange?.(event.currentTarget.value);
          }}
          className={cx(controlClass, "appearance-none pr-10")}
        >
          {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
        <ChevronDown
          className="pointer-events-none absolute top-1/2 right-3 size-5 -translate-y-1/2 text-slate-600"
          aria-hidden="true"
        />
      </div>
      <NativeFieldError id={errorId} message={message} />
    </div>
  );
});
