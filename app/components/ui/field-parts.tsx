import { AlertCircle } from "lucide-react";
import { FieldError, Label, Text } from "react-aria-components";
import { descriptionClass, errorClass, labelClass, optionalClass } from "./field-styles";

/** A field's label, with "(optional)" for fields that may be left empty. */
export function FieldLabel({ children, optional, elementType }: { children: React.ReactNode; optional?: boolean; elementType?: string }) {
  return (
    <Label className={labelClass} elementType={elementType}>
      {children}
      {optional ? <span className={optionalClass}>(optional)</span> : null}
    </Label>
  );
}

export function FieldDescription({ children }: { children?: React.ReactNode }) {
  if (!children) return null;
  return (
    <Text slot="description" className={descriptionClass}>
      {children}
    </Text>
  );
}

/**
 * The field's error, under it, linked by aria-describedby (React Aria wires the ids). Shows
 * `message`, or React Aria's own validation messages (a `validate` prop) when there is none.
 */
export function FieldErrorMessage({ message }: { message?: string }) {
  return (
    <FieldError className={errorClass}>
      {({ validationErrors }) => (
        <>
          <AlertCircle className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
          <span>{message ?? validationErrors.join(" ")}</span>
        </>
      )}
    </FieldError>
  );
}

/** The same error look for native controls, which wire their own ids. */
export function NativeFieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className={errorClass}>
      <AlertCircle className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <span>{message}</span>
    </p>
  );
}
