import { memo, useId } from "react";
import { Upload } from "lucide-react";
import { NativeFieldError } from "~/components/ui/field-parts";
import { cx, descriptionClass, labelClass, optionalClass } from "~/components/ui/field-styles";
import { useFieldError } from "~/components/ui";

export interface FileFieldProps {
  id?: string;
  name: string;
  label: string;
  accept: string;
  description?: React.ReactNode;
  error?: string;
  optional?: boolean;
  isRequired?: boolean;
  className?: string;
  inputRef?: React.Ref<HTMLInputElement>;
  onChange?: (file: File | null) => void;
}

/**
 * A labelled native file input (it uploads with a plain multipart form, before JavaScript), styled
 * like the other fields, with its message from `error` or the nearest SchemaForm by name. Memoized,
 * as TextField is.
 */
export const FileField = memo(function FileField({
  id: givenId,
  name,
  label,
  accept,
  description,
  error,
  optional,
  isRequired,
  className,
  inputRef,
  onChange,
}: FileFieldProps) {
  const generated = `file-${useId()}`;
  const id = givenId ?? generated;
  const descriptionId = description ? `${id}-description` : undefined;
  const errorId = `${id}-error`;
  const fieldError = useFieldError(name);
  const message = error ?? fieldError.message;
  const describedBy = [descriptionId, message ? errorId : undefined].filter(Boolean).join(" ") || undefined;
  return (
    <div className={cx("flex flex-col", className)}>
      <label htmlFor={id} className={labelClass}>
        {label}
        {optional ? <span className={optionalClass}>(optional)</span> : null}
      </label>
      {description ? (
        <span id={descriptionId} className={descriptionClass}>
          {description}
        </span>
      ) : null}
      <div
        className={cx(
          "relative mt-1.5 flex items-center gap-3 rounded-lg border border-dashed bg-slate-50 px-3.5 py-3 transition-colors",
          "focus-within:border-accent-600 hover:border-slate-400",
          message ? "border-red-600" : "border-slate-300",
        )}
      >
        <Upload className="size-5 shrink-0 text-slate-600" aria-hidden="true" />
        <input
          ref={inputRef}
          id={id}
          name={name}
          type="file"
          accept={accept}
          aria-required={isRequired || undefined}
          aria-invalid={message ? true : undefined}
          aria-describedby={describedBy}
          onChange={(event) => {
            fieldError.clear();
            onChange?.(event.currentTarget.files?.[0] ?? null);
          }}
          className="block w-full min-w-0 text-sm text-slate-700 file:mr-4 file:cursor-pointer file:rounded-md file:border-0 file:bg-brand-700 file:px-3 file:py-2 file:text-sm file:font-semibold file:text-white hover:file:bg-brand-800"
        />
      </div>
      <NativeFieldError id={errorId} message={message} />
    </div>
  );
});
