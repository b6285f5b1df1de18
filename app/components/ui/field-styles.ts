/**
 * Shared looks for form fields, so every form in the app (public site, sign-up, sign-in,
 * banking) reads the same. Colours are theme tokens; errors are never shown by colour alone
 * (an icon and a message accompany the red border).
 */
export const labelClass = "block text-sm font-medium text-slate-800";
export const optionalClass = "ml-1 font-normal text-slate-600";
export const descriptionClass = "mt-1 block text-sm text-slate-600";
export const errorClass = "mt-1.5 flex items-start gap-1.5 text-sm font-medium text-red-700";

/** Text inputs, text areas and selects. `data-invalid` comes from React Aria; `aria-invalid` from the native select. */
export const controlClass = [
  // scroll-mt: a field focused by script (first invalid) lands clear of the sticky top bar.
  "block w-full scroll-mt-28 rounded-lg border border-slate-300 bg-white px-3.5 py-2.5 text-base text-slate-900 shadow-xs",
  "placeholder:text-slate-500 transition-colors",
  "hover:border-slate-400",
  "focus:border-accent-600 focus:outline-2 focus:outline-offset-0 focus:outline-accent-600 [--focus-ring-offset:0px]",
  "data-[invalid]:border-red-600 aria-[invalid=true]:border-red-600",
  "disabled:cursor-not-allowed disabled:bg-slate-100 disabled:text-slate-500",
].join(" ");

export function cx(...classes: (string | false | null | undefined)[]): string {
  return classes.filter(Boolean).join(" ");
}
