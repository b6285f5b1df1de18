import { Loader2 } from "lucide-react";
import { cx } from "./field-styles";

export type ButtonVariant = "primary" | "secondary" | "ghost" | "danger";

const VARIANTS: Record<ButtonVariant, string> = {
  primary: "bg-brand-700 text-white shadow-sm hover:bg-brand-800 active:bg-brand-900",
  secondary: "border border-slate-300 bg-white text-brand-800 shadow-xs hover:bg-slate-50 active:bg-slate-100",
  ghost: "text-brand-800 hover:bg-brand-50 active:bg-brand-100",
  danger: "bg-red-700 text-white shadow-sm hover:bg-red-800 active:bg-red-900",
};

type NativeButtonAttributes = Omit<
  React.ButtonHTMLAttributes<HTMLButtonElement>,
  "className" | "children" | "disabled" | "onClick"
>;

export interface ButtonProps extends NativeButtonAttributes {
  /** Work is under way (a form is being sent): shows a spinner and `pendingLabel`, ignores presses. */
  isPending?: boolean;
  isDisabled?: boolean;
  /** Called when the button is pressed (click, Enter or Space). */
  onPress?: () => void;
  variant?: ButtonVariant;
  size?: "md" | "lg";
  className?: string;
  children: React.ReactNode;
  /** Text shown (and announced) while `isPending`, e.g. "Sending…". */
  pendingLabel?: string;
}

/**
 * A native <button> (type="button" unless told otherwise; use type="submit" in forms, which
 * submits without JavaScript, and needs no script to draw). While `isPending` it shows a spinner
 * and `pendingLabel`, stays focusable, says aria-disabled, and stops being a submit button, so a
 * second click cannot send twice.
 */
export function Button({
  variant = "primary",
  size = "md",
  className,
  children,
  pendingLabel,
  isPending,
  isDisabled,
  type = "button",
  onPress,
  ...props
}: ButtonProps) {
  return (
    <button
      {...props}
      type={isPending ? "button" : type}
      disabled={isDisabled}
      onClick={isPending || !onPress ? undefined : () => onPress()}
      aria-disabled={isPending || undefined}
      data-pending={isPending || undefined}
      className={cx(
        "inline-flex items-center justify-center gap-2 rounded-lg font-semibold transition-colors",
        "disabled:cursor-not-allowed disabled:opacity-60 data-[pending]:cursor-wait",
        size === "lg" ? "px-6 py-3 text-base" : "px-4 py-2.5 text-sm",
        VARIANTS[variant],
        className,
      )}
    >
      {isPending ? (
        <>
          <Loader2 className="size-4 animate-spin motion-reduce:animate-none" aria-hidden="true" />
          <span>{pendingLabel ?? children}</span>
        </>
      ) : (
        children
      )}
    </button>
  );
}
