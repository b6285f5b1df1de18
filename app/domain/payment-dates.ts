/**
 * Business days for payment files: Monday to Friday. The Federal Reserve's holidays are not
 * counted yet, so a file made the day before a holiday names the holiday as its effective date
 * and the ACH operator moves it to the next settlement day (the rules allow that; the member's
 * money is sent either way).
 */
function parts(date: string): Date {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new Error(`not a YYYY-MM-DD date: ${JSON.stringify(date)}`);
  return new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
}

function format(day: Date): string {
  return day.toISOString().slice(0, 10);
}

export function isBusinessDay(date: string): boolean {
  const weekday = parts(date).getUTCDay();
  return weekday !== 0 && weekday !== 6;
}

/** The first business day after `date`. */
export function nextBusinessDay(date: string): string {
  const day = parts(date);
  do day.setUTCDate(day.getUTCDate() + 1);
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6);
  return format(day);
}

/** `date` itself when it is a business day, else the next one. */
export function businessDayOnOrAfter(date: string): string {
  return isBusinessDay(date) ? date : nextBusinessDay(date);
}
