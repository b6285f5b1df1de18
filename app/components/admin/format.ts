/** Dates in the back office: short, unambiguous, in the credit union's time zone. */
const TIME_ZONE = "America/New_York";

export function formatDate(value: Date | string): string {
  return new Date(value).toLocaleDateString("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: TIME_ZONE });
}

export function formatDateTime(value: Date | string): string {
  return new Date(value).toLocaleString("en-US", { year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit", timeZone: TIME_ZONE, timeZoneName: "short" });
}

export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return ((parts[0]?.[0] ?? "") + (parts.length > 1 ? (parts[parts.length - 1]?.[0] ?? "") : "")).toUpperCase() || "?";
}

/** Builds an /admin URL from the current search params with some changed (null removes). */
export function withParams(search: URLSearchParams | string, changes: Record<string, string | number | null | undefined>, path = "/admin"): string {
  const params = new URLSearchParams(search);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === undefined || value === "") params.delete(key);
    else params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}
