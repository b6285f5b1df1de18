/** Form primitives shared by every form (public site, sign-up, sign-in, banking). */
export { Button, type ButtonProps, type ButtonVariant } from "./button";
export { Checkbox, type CheckboxProps } from "./checkbox";
export {
  SchemaForm,
  anyForm,
  fieldErrorCount,
  fieldMessages,
  focusFirstInvalid,
  formMessages,
  useFieldError,
  useSchemaForm,
  type FieldMessages,
  type FormReply,
  type SchemaFormMetadata,
  type SchemaFormOptions,
  type SchemaFormProps,
  type SchemaSource,
} from "./form";
export { FormMessage, type FormMessageProps, type FormMessageTone } from "./form-message";
export { RadioGroup, type RadioGroupProps, type RadioOption } from "./radio-group";
export { Select, type SelectOption, type SelectProps } from "./select";
export { TextArea, type TextAreaProps } from "./text-area";
export { CurrentPasswordField, TextField, type TextFieldProps } from "./text-field";
export { useReturnFocus, useStepFocus } from "./use-step-focus";
