import { AlertCircle } from "lucide-react";

/**
 * The list of a form's problems, each linking to its field. It takes focus when it appears
 * (the `autofocus` attribute, so also in a page the server rendered after a post without
 * JavaScript); with JavaScript the form then moves focus on to the first invalid field.
 */
export function ErrorSummary({
  errors,
  order,
  idFor,
}: {
  errors: Record<string, string>;
  order: readonly string[];
  idFor: (name: string) => string;
}) {
  const names = order.filter((name) => errors[name]);
  for (const name of Object.keys(errors)) if (!names.includes(name)) names.push(name);
  if (!names.length) return null;
  return (
    <div
      role="alert"
      tabIndex={-1}
      autoFocus
      className="mt-6 rounded-xl border border-red-200 bg-red-50 p-4 text-sm text-red-900 focus:outline-none"
    >
      <p className="flex items-center gap-2 font-semibold">
        <AlertCircle className="size-5 shrink-0" aria-hidden="true" />
        {names.length === 1
          ? "Please check the highlighted field:"
          : `Please check the ${names.length} highlighted fields:`}
      </p>
      <ul className="mt-2 list-disc space-y-1 pl-10 md:columns-2 md:gap-10">
        {names.map((name) => (
          <li key={name}>
            <a href={`#${idFor(name)}`} className="underline underline-offset-2 hover:text-red-950">
              {errors[name]}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}
