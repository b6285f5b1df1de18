import { asc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { currencyRates } from "~/server/db/schema";
import { findCurrency, isValidUsdPerUnitRate } from "~/domain/currencies";

/**
 * The back office's currency rates (USD per one unit of the currency, a decimal string). A wire
 * in a currency without a rate cannot be chosen (docs/product.md#international). USD is always 1.
 */
export interface CurrencyRate {
  code: string;
  usd_per_unit: string;
  updated_by: string;
  updated_at: Date;
}

export const USD_RATE: CurrencyRate = { code: "USD", usd_per_unit: "1", updated_by: "system", updated_at: new Date(0) };

export async function listCurrencyRates(db: DbOrTx): Promise<CurrencyRate[]> {
  const rows = await db.select().from(currencyRates).orderBy(asc(currencyRates.code)).limit(400);
  const list = rows.filter((r) => r.code !== "USD");
  return [USD_RATE, ...list];
}

export async function currencyRate(db: DbOrTx, code: string): Promise<CurrencyRate | null> {
  const upper = code.trim().toUpperCase();
  if (upper === "USD") return USD_RATE;
  const [row] = await db.select().from(currencyRates).where(eq(currencyRates.code, upper));
  return row ?? null;
}

/** Staff set a rate (the back-office page calls this). */
export async function setCurrencyRate(
  db: DbOrTx,
  input: { code: string; usd_per_unit: string; updated_by: string },
): Promise<void> {
  const code = input.code.trim().toUpperCase();
  if (!findCurrency(code) || code === "USD") throw new RangeError(`not a settable currency: ${code}`);
  if (!isValidUsdPerUnitRate(input.usd_per_unit)) throw new RangeError(`not a usable rate: ${input.usd_per_unit}`);
  await db
    .insert(currencyRates)
    .values({ code, usd_per_unit: input.usd_per_unit, updated_by: input.updated_by })
    .onConflictDoUpdate({
      target: currencyRates.code,
      set: { usd_per_unit: input.usd_per_unit, updated_by: input.updated_by, updated_at: sql`now()` },
    });
}
