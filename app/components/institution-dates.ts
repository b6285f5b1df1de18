import { useRootData } from "~/root";

/**
 * Dates and times as the credit union keeps them: in the time zone of its institution profile
 * (`time_zone`), so a credit union in Denver shows Denver time in the back office and on the
 * dashboard. Formatters are built once per time zone (building an Intl.DateTimeFormat costs far
 * more than using one).
 */
export interface InstitutionDates {
  /** "Nov 22, 2026" */
  formatDate(value: Date | string): string;
  /** "Nov 22" */
  formatMonthDay(value: Date | string): string;
  /** "November 22, 2026", for sentences */
  formatProseDate(value: Date | string): string;
  /** "Nov 22, 2026, 9:05 AM EST" */
  formatDateTime(value: Date | string): string;
  /** "Sunday, November 22, 2026" */
  formatLongDate(value: Date | string): string;
  /** "9:05 AM EST" */
  formatClock(value: Date | string): string;
}

const byTimeZone = new Map<string, InstitutionDates>();

export function institutionDates(time_zone: string): InstitutionDates {
  let dates = byTimeZone.get(time_zone);
  if (!dates) {
    const formatter = (options: Intl.DateTimeFormatOptions) => {
      const format = new Intl.DateTimeFormat("en-US", { ...options, timeZone: time_zone });
      return (value: Date | string) => format.format(new Date(value));
    };
    dates = {
      formatDate: formatter({ year: "numeric", month: "short", day: "numeric" }),
      formatMonthDay: formatter({ month: "short", day: "numeric" }),
      formatProseDate: formatter({ dateStyle: "long" }),
      formatDateTime: formatter({
        year: "numeric",
        month: "short",
        day: "numeric",
        hour: "numeric",
        minute: "2-digit",
        timeZoneName: "short",
      }),
      formatLongDate: formatter({ weekday: "long", month: "long", day: "numeric", year: "numeric" }),
      formatClock: formatter({ hour: "numeric", minute: "2-digit", timeZoneName: "short" }),
    };
    byTimeZone.set(time_zone, dates);
  }
  return dates;
}

/** The institution's formatters, for components under the root route. */
export function useInstitutionDates(): InstitutionDates {
  return institutionDates(useRootData()?.institution.time_zone ?? "UTC");
}
