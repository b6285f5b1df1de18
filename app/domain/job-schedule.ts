/**
 * A scheduled job's schedule in words for staff (/admin/jobs): its five cron fields (minute hour
 * day-of-month month day-of-week), read in the institution's time zone as the job runner reads
 * them, so "30 0 * * *" is "Every day at 12:30 AM EST". A schedule with no wording here is shown
 * as its cron text.
 */

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** "EST", "MDT", "UTC": the time zone's short name at `at` (summer time or not), as the page's times show it. */
export function timeZoneName(time_zone: string, at: Date): string {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: time_zone, timeZoneName: "short" }).formatToParts(at);
  return parts.find((p) => p.type === "timeZoneName")?.value ?? time_zone;
}

/** 0, 30 -> "12:30 AM"; 18, 5 -> "6:05 PM". */
function clock(hour: number, minute: number): string {
  return `${hour % 12 === 0 ? 12 : hour % 12}:${String(minute).padStart(2, "0")} ${hour < 12 ? "AM" : "PM"}`;
}

/** 1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd". */
function ordinal(day: number): string {
  const tens = day % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : (["th", "st", "nd", "rd"][day % 10] ?? "th");
  return `${day}${suffix}`;
}

/** `zone`: the institution's time zone's short name (timeZoneName). Null: a job run only when queued. */
export function scheduleInWords(cron: string | null, zone: string): string {
  if (!cron) return "When queued";
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return `Cron ${cron}`;
  const [minute, hour, day, month, weekday] = fields as [string, string, string, string, string];
  const number = (field: string, max: number) =>
    /^\d{1,2}$/.test(field) && Number(field) <= max ? Number(field) : null;
  if (minute === "*" && hour === "*" && day === "*" && month === "*" && weekday === "*") return "Every minute";
  const everyMinutes = /^\*\/(\d{1,2})$/.exec(minute);
  if (everyMinutes && hour === "*" && day === "*" && month === "*" && weekday === "*")
    return `Every ${everyMinutes[1]} minutes`;
  const m = number(minute, 59);
  if (m === null || month !== "*") return `Cron ${cron}`;
  if (hour === "*") {
    if (day === "*" && weekday === "*") return `Every hour at minute ${m}`;
    if (day === "*" && weekday === "1-5") return `Every hour at minute ${m}, Monday to Friday`;
    return `Cron ${cron}`;
  }
  const h = number(hour, 23);
  if (h === null) return `Cron ${cron}`;
  const at = `at ${clock(h, m)} ${zone}`;
  if (day === "*" && weekday === "*") return `Every day ${at}`;
  if (day === "*" && weekday === "1-5") return `Monday to Friday ${at}`;
  const d = number(weekday, 7);
  if (day === "*" && d !== null) return `Every ${WEEKDAYS[d % 7]} ${at}`;
  const dayOfMonth = number(day, 31);
  if (dayOfMonth !== null && dayOfMonth >= 1 && weekday === "*")
    return `On the ${ordinal(dayOfMonth)} of every month ${at}`;
  return `Cron ${cron}`;
}
