import { Check } from "lucide-react";
import { Checkbox as AriaCheckbox, type CheckboxProps as AriaCheckboxProps } from "react-aria-components";
import { NativeFieldError } from "./field-parts";
import { cx } from "./field-styles";
import { useFieldError } from "./form";
import { useId } from "react";

export interface CheckboxProps extends Omit<AriaCheckboxProps, "children" | "className" | "style"> {
  children: React.ReactNode;
  /** Extra text under the label. */
  description?: React.ReactNode;
  error?: string;
  className?: string;
}

/**
 * A native checkbox (visually hidden) with a drawn box; checked looks come from CSS
 * `:has(:checked)` so it works before JavaScript. Its message comes from `error` or the nearest SchemaForm by
 * name, under the box, linked by aria-describedby.
 */
export function Checkbox({ children, description, error, className, name, validationBehavior = "aria", isInvalid, ...props }: CheckboxProps) {
  const id = useId();
  const errorId = `checkbox-${id}-error`;
  const descriptionId = description ? `checkbox-${id}-description` : undefined;
  const fieldError = useFieldError(name);
  const message = error ?? fieldError.message;
  const describedBy = [descriptionId, message ? errorId : undefined].filter(Boolean).join(" ") || undefined;
  return (
    <div className={cx("flex flex-col", className)}>
      <AriaCheckbox
        {...props}
        name={name}
        validationBehavior={validationBehavior}
        isInvalid={message ? true : isInvalid}
        aria-describedby={describedBy}
        onChange={(selected) => {
          fieldError.clear();
          props.onChange?.(selected);
        }}
        className="group flex cursor-pointer items-start gap-3 text-sm text-slate-900"
      >
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
      </AriaCheckbox>
      <NativeFieldError id={errorId} message={message} />
    </div>
  );
}
