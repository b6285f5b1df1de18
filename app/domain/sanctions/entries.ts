/**
 * One sanctions list entry as Mutual keeps it, whatever format it was read from
 * (docs/product.md#sanctions-screening). Dates of birth are kept as OFAC states them: a day, a
 * month, a year, or a range of years ("DOB 1960 to 1962", "DOB circa 1965").
 */
export type SanctionsSource = "sdn" | "consolidated";

export const SANCTIONS_SOURCE_NAMES: Record<SanctionsSource, string> = {
  sdn: "Specially Designated Nationals (SDN) list",
  consolidated: "Consolidated (non-SDN) sanctions list",
};

export type SanctionsEntryType = "individual" | "entity" | "vessel" | "aircraft";

export interface SanctionsAlias {
  name: string;
  /** OFAC's type: "aka", "fka" (formerly known as), "nka" (now known as). */
  type: string;
  /** A weak alias (OFAC: a broad or general name; a hit on it alone is not a match). */
  weak: boolean;
}

export interface BirthDate {
  /** The first and last year it may be (equal for a stated year). */
  from_year: number;
  to_year: number;
  /** 1–12 when stated. */
  month: number | null;
  /** 1–31 when stated. */
  day: number | null;
  /** "circa": OFAC's approximate year, read as one year either side. */
  approximate: boolean;
}

export interface SanctionsEntry {
  source: SanctionsSource;
  /** OFAC's unique entry number (ent_num / uid), as text. */
  uid: string;
  name: string;
  type: SanctionsEntryType;
  programs: string[];
  aliases: SanctionsAlias[];
  birth_dates: BirthDate[];
  /** ISO 3166-1 alpha-2 codes of the address countries, nationalities and citizenships stated. */
  countries: string[];
  remarks: string | null;
}

/** A birth date in words, as staff see it: "12 Mar 1971", "1960 to 1962", "circa 1965". */
export function birthDateText(date: BirthDate): string {
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  if (date.approximate) return `circa ${(date.from_year + date.to_year) / 2}`;
  if (date.from_year !== date.to_year) return `${date.from_year} to ${date.to_year}`;
  const parts = [date.day, date.month ? months[date.month - 1] : null, date.from_year].filter((p) => p !== null);
  return parts.join(" ");
}
