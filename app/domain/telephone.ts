/**
 * "(555) 010-4400" -> "tel:+15550104400": a link that dials (ten digits are a US number).
 * In a module of its own, without Zod, so a page that only shows telephone numbers (locations)
 * does not load the form schemas' library.
 */
export function telephoneHref(phone: string): string {
  const digits = phone.replace(/\D/g, "");
  return `tel:${digits.length === 10 ? `+1${digits}` : `+${digits}`}`;
}
