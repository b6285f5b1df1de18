import fs from "node:fs";
import { Reader, type CityResponse } from "maxmind";
import { env } from "~/config/env.server";
import { logger } from "~/server/logger.server";

/**
 * The approximate place of a session's network address (docs/product.md#sessions-and-devices),
 * from the city database the operator configured (CITY_DATABASE_FILE, MaxMind DB format), read
 * on this machine: the address is never sent anywhere. Without the file, or for an address it does
 * not know (a private network, a new range), there is no place, and none is guessed.
 */
let opened: { file: string; reader: Reader<CityResponse> | null } | null = null;

function cityReader(): Reader<CityResponse> | null {
  const file = env().CITY_DATABASE_FILE;
  if (!file) return null;
  if (opened?.file === file) return opened.reader;
  let reader: Reader<CityResponse> | null = null;
  try {
    reader = new Reader<CityResponse>(fs.readFileSync(file));
  } catch (error) {
    // Said once per file; sessions are listed without places until the file is fixed.
    logger.error({ err: error, file }, "CITY_DATABASE_FILE could not be read as a MaxMind DB city database");
  }
  opened = { file, reader };
  return reader;
}

/** "Portsmouth, New Hampshire, United States", or null when the place is not known. */
export function approximatePlace(ip_address: string | null | undefined): string | null {
  if (!ip_address) return null;
  const reader = cityReader();
  if (!reader) return null;
  let found: CityResponse | null;
  try {
    found = reader.get(ip_address);
  } catch {
    return null; // not an address
  }
  const country = found?.country?.names?.en;
  if (!country) return null;
  const parts = [found?.city?.names?.en, found?.subdivisions?.[0]?.names?.en, country];
  return parts.filter((part, i) => part && parts.indexOf(part) === i).join(", ");
}
