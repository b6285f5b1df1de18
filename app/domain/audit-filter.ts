import { CALENDAR_DATE_MESSAGE, isCalendarDate } from "./calendar-date";
import { PLAIN_TEXT_MESSAGE, hasControlCharacters } from "./plain-text";

/**
 * The audit log's filters (/admin/audit and its CSV export) as read from the address: actor,
 * member, action (text) and an inclusive day range (YYYY-MM-DD). A value staff must correct
 * (an impossible date, a control character) is reported per field and left out of the filter.
 */
export type AuditFilterField = "actor" | "member" | "action" | "from" | "to";
export type AuditFilterValues = Record<AuditFilterField, string>;
export type AuditFilterProblems = Partial<Record<AuditFilterField, string>>;

const FIELD_MAX_CHARS = 200;
const TEXT_FIELDS = ["actor", "member", "action"] as const;
const DATE_FIELDS = ["from", "to"] as const;

export function parseAuditFilter(params: URLSearchParams): {
  filter: AuditFilterValues;
  problems: AuditFilterProblems | null;
} {
  const get = (name: AuditFilterField) => (params.get(name) ?? "").trim().slice(0, FIELD_MAX_CHARS);
  const filter: AuditFilterValues = {
    actor: get("actor"),
    member: get("member"),
    action: get("action"),
    from: get("from"),
    to: get("to"),
  };
  const problems: AuditFilterProblems = {};
  for (const name of TEXT_FIELDS) {
    if (hasControlCharacters(filter[name])) {
      problems[name] = PLAIN_TEXT_MESSAGE;
      filter[name] = "";
    }
  }
  for (const name of DATE_FIELDS) {
    if (filter[name] && !isCalendarDate(filter[name])) {
      problems[name] = CALENDAR_DATE_MESSAGE;
      filter[name] = "";
    }
  }
  return { filter, problems: Object.keys(problems).length ? problems : null };
}
