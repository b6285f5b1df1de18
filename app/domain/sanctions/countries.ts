import { COUNTRIES } from "../countries";
import { foldName } from "./normalize";

/**
 * OFAC's country names (ADD.CSV's country column, "nationality X" and "citizen X" in remarks) to
 * ISO 3166-1 alpha-2 codes. OFAC writes short common names ("Iran", "Korea, North", "Burma"),
 * which are not always ISO's ("Iran, Islamic Republic of"): those are listed here; every other
 * name is looked up among the ISO names and aliases of app/domain/countries.ts. An unknown name
 * ("undetermined", "Region: Gaza") gives no code.
 */
const OFAC_NAMES: Record<string, string> = {
  iran: "IR",
  "korea north": "KP",
  "north korea": "KP",
  "korea south": "KR",
  "south korea": "KR",
  burma: "MM",
  syria: "SY",
  russia: "RU",
  venezuela: "VE",
  bolivia: "BO",
  tanzania: "TZ",
  vietnam: "VN",
  laos: "LA",
  moldova: "MD",
  "west bank": "PS",
  "gaza strip": "PS",
  palestinian: "PS",
  "congo democratic republic of the": "CD",
  "democratic republic of the congo": "CD",
  "congo republic of the": "CG",
  "cote d ivoire": "CI",
  "cote divoire": "CI",
  turkey: "TR",
  turkiye: "TR",
  "united kingdom": "GB",
  "united states": "US",
  "czech republic": "CZ",
  macau: "MO",
  "hong kong": "HK",
  taiwan: "TW",
  kosovo: "XK",
  "the gambia": "GM",
  gambia: "GM",
  "the bahamas": "BS",
  brunei: "BN",
  "micronesia federated states of": "FM",
  "saint kitts and nevis": "KN",
  "saint vincent and the grenadines": "VC",
  "british virgin islands": "VG",
};

const BY_NAME = new Map<string, string>();
for (const country of COUNTRIES) {
  BY_NAME.set(foldName(country.name), country.code);
  for (const alias of country.aliases ?? []) BY_NAME.set(foldName(alias), country.code);
}
for (const [name, code] of Object.entries(OFAC_NAMES)) BY_NAME.set(name, code);

/** The ISO code for one of OFAC's country names, or null. */
export function ofacCountryCode(name: string): string | null {
  const folded = foldName(name);
  if (folded === "") return null;
  return BY_NAME.get(folded) ?? null;
}
