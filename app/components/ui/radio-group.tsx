import { Radio, RadioGroup as AriaRadioGroup, type RadioGroupProps as AriaRadioGroupProps } from "react-aria-components";
import { FieldDescription, FieldErrorMessage, FieldLabel } from "./field-parts";
import { cx } from "./field-styles";
import { useFieldError } from "./form";

export interface RadioOption {
  value: string;
  label: string;
  description?: string;
}

export interface RadioGroupProps extends Omit<AriaRadioGroupProps, "children" | "className" | "style"> {
  label: string;
  options: readonly RadioOption[];
  description?: React.ReactNode;
  error?: string;
  className?: string;
}

/**
 * One choice from a few, as cards with a native radio inside each (visually hidden, so the
 * whole card is the target). The checked look comes from CSS `:has(:checked)`, not from React
 * state, so a click before JavaScript loads shows at once and the native value is submitted.
 */
export function RadioGroup({ label, options, description, error, className, validationBehavior = "aria", orientation = "horizontal", isInvalid, onChange, ...props }: RadioGroupProps) {
  const fromForm = useFieldError(props.name);
  const message = error ?? fromForm.message;
  return (
    <AriaRadioGroup
      {...props}
      defaultValue={props.defaultValue ?? (props.value === undefined ? fromForm.defaultValue : undefined)}
      onChange={(value) => {
        fromForm.clear();
        onChange?.(value);
      }}
      orientation={orientation}
      validationBehavior={validationBehavior}
      isInvalid={message ? true : isInvalid}
      className={cx("flex scroll-mt-28 flex-col", className)}
    >
      <FieldLabel>{label}</FieldLabel>
      <FieldDescription>{description}</FieldDescription>
      <div className={cx("mt-2 grid gap-3", orientation === "horizontal" ? "grid-cols-[repeat(auto-fit,minmax(8rem,1fr))]" : "grid-cols-1")}>
        {options.map((option) => (
          <Radio
            key={option.value}
            value={option.value}
            className={cx(
              "group flex scroll-mt-28 cursor-pointer items-start gap-3 rounded-lg border border-slate-300 bg-white px-4 py-3 text-slate-900 transition-colors",
              "hover:border-slate-400 has-[:checked]:border-accent-600 has-[:checked]:bg-accent-50",
              "has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-accent-600",
              "data-[invalid]:border-red-600",
            )}
          >
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
          </Radio>
        ))}
      </div>
      <FieldErrorMessage message={message} />
    </AriaRadioGroup>
  );
}
