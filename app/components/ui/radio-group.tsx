import { useId } from "react";
import { FieldDescription, FieldLabel, NativeFieldError, describedBy } from "./field-parts";
import { cx } from "./field-styles";
import { useFieldError } from "./form";

export interface RadioOption {
  value: string;
  label: string;
  description?: string;
}

export interface RadioGroupProps {
  name: string;
  label: string;
  options: readonly RadioOption[];
  description?: React.ReactNode;
  error?: string;
  className?: string;
  value?: string;
  defaultValue?: string;
  /** Called with the value of the option chosen. */
  onChange?: (value: string) => void;
  isRequired?: boolean;
  isDisabled?: boolean;
  isInvalid?: boolean;
  orientation?: "horizontal" | "vertical";
}

/**
 * One choice from a few, as cards with a native radio inside each (visually hidden, so the
 * whole card is the target), in a group named by its label. Native radios sharing a name are one
 * stop for Tab and move with the arrow keys, as a radio group should. The checked look comes from
 * CSS `:has(:checked)`, not from React state, so a click before JavaScript loads shows at once
 * and the native value is submitted.
 */
export function RadioGroup({
  name,
  label,
  options,
  description,
  error,
  className,
  value,
  defaultValue,
  onChange,
  isRequired,
  isDisabled,
  isInvalid,
  orientation = "horizontal",
}: RadioGroupProps) {
  const id = useId();
  const labelId = `radio-group-${id}-label`;
  const descriptionId = description ? `radio-group-${id}-description` : undefined;
  const errorId = `radio-group-${id}-error`;
  const fromForm = useFieldError(name);
  const message = error ?? fromForm.message;
  const invalid = Boolean(message) || Boolean(isInvalid);
  const initial = defaultValue ?? (value === undefined ? fromForm.defaultValue : undefined);
  return (
    <div
      role="radiogroup"
      aria-labelledby={labelId}
      aria-describedby={describedBy(descriptionId, message ? errorId : undefined)}
      aria-required={isRequired || undefined}
      aria-invalid={invalid || undefined}
      aria-disabled={isDisabled || undefined}
      aria-orientation={orientation}
      data-invalid={invalid || undefined}
      className={cx("flex scroll-mt-28 flex-col", className)}
    >
      <FieldLabel id={labelId}>{label}</FieldLabel>
      <FieldDescription id={`radio-group-${id}-description`}>{description}</FieldDescription>
      <div
        className={cx(
          "mt-2 grid gap-3",
          orientation === "horizontal" ? "grid-cols-[repeat(auto-fit,minmax(8rem,1fr))]" : "grid-cols-1",
        )}
      >
        {options.map((option) => (
          <label
            key={option.value}
            data-invalid={invalid || undefined}
            className={cx(
              "group flex scroll-mt-28 cursor-pointer items-start gap-3 rounded-lg border border-slate-300 bg-white px-4 py-3 text-slate-900 transition-colors",
              "hover:border-slate-400 has-[:checked]:border-accent-600 has-[:checked]:bg-accent-50",
              "has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-accent-600",
              "data-[invalid]:border-red-600",
            )}
          >
            <input
              type="radio"
              name={name}
              value={option.value}
              {...(value === undefined
                ? { defaultChecked: initial === option.value }
                : { checked: value === option.value })}
              onChange={(event) => {
                if (!event.currentTarget.checked) return;
                fromForm.clear();
                onChange?.(option.value);
              }}
              disabled={isDisabled}
              className="sr-only"
            />
            <span
              aria-hidden="true"
              className="mt-0.5 flex size-5 shrink-0 items-center justify-center rounded-full border-2 border-slate-400 bg-white group-has-[:checked]:border-accent-600"
            >
              <span className="size-2.5 rounded-full bg-accent-600 opacity-0 group-has-[:checked]:opacity-100" />
            </span>
            <span className="flex flex-col">
              <span className="text-sm font-medium">{option.label}</span>
              {option.description ? <span className="text-sm text-slate-600">{option.description}</span> : null}
            </span>
          </label>
        ))}
      </div>
      <NativeFieldError id={errorId} message={message} />
    </div>
  );
}
