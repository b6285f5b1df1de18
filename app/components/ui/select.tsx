import { memo, useEffect, useId, useRef } from "react";
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
  const initial = defaultValue ?? fieldError.defaultValue ?? "";
  const ref = useRestoredChoice(initial);
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
          ref={ref}
          id={selectId}
          name={name}
          defaultValue={initial}
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

/**
 * Puts the select's starting choice back when the form's library empties it. A SchemaForm that
 * starts again under a new id (a transfer form after its transfer went through) is reset by
 * Conform, which sets every field to its own default; a native <select> has no `defaultValue`
 * property, so Conform unselects it (no option shown, "" posted) instead of leaving the choice
 * React gave it: the next transfer's From would be blank. Conform marks each field it set with
 * `data-conform`; on that mark an unselected select gets its starting choice again.
 */
function useRestoredChoice(initial: string) {
  const ref = useRef<HTMLSelectElement>(null);
  useEffect(() => {
    const select = ref.current;
    if (!select) return;
    const observer = new MutationObserver(() => {
      if (select.selectedIndex === -1) select.value = initial;
    });
    observer.observe(select, { attributes: true, attributeFilter: ["data-conform"] });
    return () => observer.disconnect();
  }, [initial]);
  return ref;
}
