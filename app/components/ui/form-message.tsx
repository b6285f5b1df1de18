import { AlertCircle, CheckCircle2, Info, TriangleAlert } from "lucide-react";
import { cx } from "./field-styles";

export type FormMessageTone = "error" | "success" | "info" | "warning";

const TONES: Record<FormMessageTone, { box: string; icon: typeof Info }> = {
  error: { box: "border-red-200 bg-red-50 text-red-900", icon: AlertCircle },
  success: { box: "border-emerald-200 bg-emerald-50 text-emerald-900", icon: CheckCircle2 },
  info: { box: "border-brand-200 bg-brand-50 text-brand-900", icon: Info },
  warning: { box: "border-amber-200 bg-amber-50 text-amber-950", icon: TriangleAlert },
};

export interface FormMessageProps {
  tone: FormMessageTone;
  title?: string;
  children?: React.ReactNode;
  className?: string;
  id?: string;
  /**
   * Errors are announced at once (role="alert"), other tones politely (role="status"). Pass
   * false for a message that is part of the page from the start (nothing to announce).
   */
  announce?: boolean;
  ref?: React.Ref<HTMLDivElement>;
}

/**
 * A message about the whole form (sent, refused, please check the fields), with an icon and
 * words so the tone never depends on colour. Focusable by script (tabIndex -1) so a form can move
 * focus to it.
 */
export function FormMessage({ tone, title, children, className, id, announce = true, ref }: FormMessageProps) {
  const { box, icon: Icon } = TONES[tone];
  const role = announce ? (tone === "error" ? "alert" : "status") : undefined;
  return (
    <div
      ref={ref}
      id={id}
      role={role}
      tabIndex={-1}
      className={cx("flex scroll-mt-28 gap-3 rounded-xl border p-4 focus:outline-none", box, className)}
    >
      <Icon className="mt-0.5 size-5 shrink-0" aria-hidden="true" />
      <div className="text-sm">
        {title ? <p className="font-semibold">{title}</p> : null}
        {children ? <div className={cx(title && "mt-1")}>{children}</div> : null}
      </div>
    </div>
  );
}
