import { Check } from "lucide-react";
import { NativeFieldError, describedBy } from "./field-parts";
import { cx } from "./field-styles";
import { useFieldError } from "./form";
import { memo, useId } from "react";

export interface CheckboxProps {
  name?: string;
  /** What is posted when ticked ("on" when not given, as a native checkbox). */
  value?: string;
  children: React.ReactNode;
  /** Extra text under the label. */
  description?: React.ReactNode;
  error?: string;
  className?: string;
  id?: string;
  isSelected?: boolean;
  defaultSelected?: boolean;
  /** Called with whether the box is now ticked. */
  onChange?: (selected: boolean) => void;
  isRequired?: boolean;
  isDisabled?: boolean;
  isInvalid?: boolean;
}

/**
 * A native checkbox (visually hidden) inside its label, with a drawn box; the checked look comes
 * from CSS `:has(:checked)`, so it works before JavaScript. Its message comes from `error` or the
 * nearest SchemaForm by name, under the box, linked by aria-describedby. Memoized, as TextField is.
 */
export const Checkbox = memo(function Checkbox({
  children,
  description,
  error,
  className,
  name,
  value,
  id,
  isSelected,
  defaultSelected,
  onChange,
  isRequired,
  isDisabled,
  isInvalid,
}: CheckboxProps) {
  const generated = useId();
  const errorId = `checkbox-${generated}-error`;
  const descriptionId = description ? `checkbox-${generated}-description` : undefined;
  const fieldError = useFieldError(name);
  const message = error ?? fieldError.message;
  const invalid = Boolean(message) || Boolean(isInvalid);
  return (
    <div className={cx("flex flex-col", className)}>
      <label
        data-invalid={invalid || undefined}
        className="group flex cursor-pointer items-start gap-3 text-sm text-slate-900"
      >
        <input
          type="checkbox"
          id={id}
          name={name}
          value={value}
          {...(isSelected === undefined ? { defaultChecked: defaultSelected } : { checked: isSelected })}
          onChange={(event) => {
            fieldError.clear();
            onChange?.(event.currentTarget.checked);
          }}
          disabled={isDisabled}
          aria-required={isRequired || undefined}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy(descriptionId, message ? errorId : undefined)}
          className="sr-only"
        />
        <span
          aria-hidden="true"
          className={cx(
            "mt-0.5 flex size-5 shrink-0 items-center justify-center rounded border-2 border-slate-400 bg-white text-white transition-colors",
            "group-has-[:checked]:border-accent-600 group-has-[:checked]:bg-accent-600",
            "group-has-[:focus-visible]:outline-2 group-has-[:focus-visible]:outline-offset-2 group-has-[:focus-visible]:outline-accent-600",
            "group-data-[invalid]:border-red-600",
          )}
        >
          <Check className="size-3.5 opacity-0 group-has-[:checked]:opacity-100" strokeWidth={3} />
        </span>
        <span className="flex flex-col">
          <span className="font-medium">{children}</span>
          {description ? (
            <span id={descriptionId} className="text-slate-600">
              {description}
            </span>
          ) : null}
        </span>
      </label>
      <NativeFieldError id={errorId} message={message} />
    </div>
  );
});
