import { AlertCircle } from "lucide-react";
import { descriptionClass, errorClass, labelClass, optionalClass } from "./field-styles";

/**
 * A field's label, with "(optional)" for fields that may be left empty: a <label for> when it
 * names one control, a <span id> that a group (a radio group) points at with aria-labelledby.
 */
export function FieldLabel({
  children,
  optional,
  htmlFor,
  id,
}: {
  children: React.ReactNode;
  optional?: boolean;
  htmlFor?: string;
  id?: string;
}) {
  const content = (
    <>
      {children}
      {optional ? <span className={optionalClass}>(optional)</span> : null}
    </>
  );
  return htmlFor ? (
    <label id={id} htmlFor={htmlFor} className={labelClass}>
      {content}
    </label>
  ) : (
    <span id={id} className={labelClass}>
      {content}
    </span>
  );
}

/** A hint under the label; the control points at `id` with aria-describedby. */
export function FieldDescription({ id, children }: { id: string; children?: React.ReactNode }) {
  if (!children) return null;
  return (
    <span id={id} className={descriptionClass}>
      {children}
    </span>
  );
}

/** The field's error, under it, linked by the control's aria-describedby (`id`). Nothing when there is no message. */
export function NativeFieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className={errorClass}>
      <AlertCircle className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <span>{message}</span>
    </p>
  );
}

/** The ids a control lists in aria-describedby: its hint, then its message (the order screen readers read them). */
export function describedBy(...ids: (string | false | null | undefined)[]): string | undefined {
  return ids.filter(Boolean).join(" ") || undefined;
}
