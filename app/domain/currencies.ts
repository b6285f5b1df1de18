/**
 * Currencies for wires (docs/product.md#international): the member types the amount in the
 * recipient's currency, in that currency's minor units (yen have none, dinars of Bahrain three),
 * and the back office's rate says how many US dollars one unit costs.
 *
 * Amounts are integers of minor units, never floats; the conversion to USD cents is exact
 * decimal arithmetic on BigInt.
 */
import { searchByCodeAndName } from "./countries";

export interface Currency {
  code: string;
  name: string;
  /** ISO 4217 "minor unit": decimal places of the currency (0 for JPY, 2 for USD, 3 for BHD). */
  minor_units: number;
}

/**
 * ISO 4217 list one, currencies in circulation (2026). Left out on purpose: fund codes (BOV,
 * CHE, CHW, CLF, COU, MXV, USN, UYI, UYW), precious metals, SDR and testing codes (X..), which
 * cannot be wired to a person; and currencies withdrawn since the euro reached Croatia (HRK)
 * and Bulgaria (BGN), the Caribbean guilder replaced ANG, ZWG replaced ZWL, SLE replaced SLL.
 */
export const CURRENCIES: readonly Currency[] = [
  { code: "AED", name: "UAE Dirham", minor_units: 2 },
  { code: "AFN", name: "Afghani", minor_units: 2 },
  { code: "ALL", name: "Lek", minor_units: 2 },
  { code: "AMD", name: "Armenian Dram", minor_units: 2 },
  { code: "AOA", name: "Kwanza", minor_units: 2 },
  { code: "ARS", name: "Argentine Peso", minor_units: 2 },
  { code: "AUD", name: "Australian Dollar", minor_units: 2 },
  { code: "AWG", name: "Aruban Florin", minor_units: 2 },
  { code: "AZN", name: "Azerbaijan Manat", minor_units: 2 },
  { code: "BAM", name: "Convertible Mark", minor_units: 2 },
  { code: "BBD", name: "Barbados Dollar", minor_units: 2 },
  { code: "BDT", name: "Taka", minor_units: 2 },
  { code: "BHD", name: "Bahraini Dinar", minor_units: 3 },
  { code: "BIF", name: "Burundi Franc", minor_units: 0 },
  { code: "BMD", name: "Bermudian Dollar", minor_units: 2 },
  { code: "BND", name: "Brunei Dollar", minor_units: 2 },
  { code: "BOB", name: "Boliviano", minor_units: 2 },
  { code: "BRL", name: "Brazilian Real", minor_units: 2 },
  { code: "BSD", name: "Bahamian Dollar", minor_units: 2 },
  { code: "BTN", name: "Ngultrum", minor_units: 2 },
  { code: "BWP", name: "Pula", minor_units: 2 },
  { code: "BYN", name: "Belarusian Ruble", minor_units: 2 },
  { code: "BZD", name: "Belize Dollar", minor_units: 2 },
  { code: "CAD", name: "Canadian Dollar", minor_units: 2 },
  { code: "CDF", name: "Congolese Franc", minor_units: 2 },
  { code: "CHF", name: "Swiss Franc", minor_units: 2 },
  { code: "CLP", name: "Chilean Peso", minor_units: 0 },
  { code: "CNY", name: "Yuan Renminbi", minor_units: 2 },
  { code: "COP", name: "Colombian Peso", minor_units: 2 },
  { code: "CRC", name: "Costa Rican Colon", minor_units: 2 },
  { code: "CUP", name: "Cuban Peso", minor_units: 2 },
  { code: "CVE", name: "Cabo Verde Escudo", minor_units: 2 },
  { code: "CZK", name: "Czech Koruna", minor_units: 2 },
  { code: "DJF", name: "Djibouti Franc", minor_units: 0 },
  { code: "DKK", name: "Danish Krone", minor_units: 2 },
  { code: "DOP", name: "Dominican Peso", minor_units: 2 },
  { code: "DZD", name: "Algerian Dinar", minor_units: 2 },
  { code: "EGP", name: "Egyptian Pound", minor_units: 2 },
  { code: "ERN", name: "Nakfa", minor_units: 2 },
  { code: "ETB", name: "Ethiopian Birr", minor_units: 2 },
  { code: "EUR", name: "Euro", minor_units: 2 },
  { code: "FJD", name: "Fiji Dollar", minor_units: 2 },
  { code: "FKP", name: "Falkland Islands Pound", minor_units: 2 },
  { code: "GBP", name: "Pound Sterling", minor_units: 2 },
  { code: "GEL", name: "Lari", minor_units: 2 },
  { code: "GHS", name: "Ghana Cedi", minor_units: 2 },
  { code: "GIP", name: "Gibraltar Pound", minor_units: 2 },
  { code: "GMD", name: "Dalasi", minor_units: 2 },
  { code: "GNF", name: "Guinean Franc", minor_units: 0 },
  { code: "GTQ", name: "Quetzal", minor_units: 2 },
  { code: "GYD", name: "Guyana Dollar", minor_units: 2 },
  { code: "HKD", name: "Hong Kong Dollar", minor_units: 2 },
  { code: "HNL", name: "Lempira", minor_units: 2 },
  { code: "HTG", name: "Gourde", minor_units: 2 },
  { code: "HUF", name: "Forint", minor_units: 2 },
  { code: "IDR", name: "Rupiah", minor_units: 2 },
  { code: "ILS", name: "New Israeli Sheqel", minor_units: 2 },
  { code: "INR", name: "Indian Rupee", minor_units: 2 },
  { code: "IQD", name: "Iraqi Dinar", minor_units: 3 },
  { code: "IRR", name: "Iranian Rial", minor_units: 2 },
  { code: "ISK", name: "Iceland Krona", minor_units: 0 },
  { code: "JMD", name: "Jamaican Dollar", minor_units: 2 },
  { code: "JOD", name: "Jordanian Dinar", minor_units: 3 },
  { code: "JPY", name: "Yen", minor_units: 0 },
  { code: "KES", name: "Kenyan Shilling", minor_units: 2 },
  { code: "KGS", name: "Som", minor_units: 2 },
  { code: "KHR", name: "Riel", minor_units: 2 },
  { code: "KMF", name: "Comorian Franc", minor_units: 0 },
  { code: "KPW", name: "North Korean Won", minor_units: 2 },
  { code: "KRW", name: "Won", minor_units: 0 },
  { code: "KWD", name: "Kuwaiti Dinar", minor_units: 3 },
  { code: "KYD", name: "Cayman Islands Dollar", minor_units: 2 },
  { code: "KZT", name: "Tenge", minor_units: 2 },
  { code: "LAK", name: "Lao Kip", minor_units: 2 },
  { code: "LBP", name: "Lebanese Pound", minor_units: 2 },
  { code: "LKR", name: "Sri Lanka Rupee", minor_units: 2 },
  { code: "LRD", name: "Liberian Dollar", minor_units: 2 },
  { code: "LSL", name: "Loti", minor_units: 2 },
  { code: "LYD", name: "Libyan Dinar", minor_units: 3 },
  { code: "MAD", name: "Moroccan Dirham", minor_units: 2 },
  { code: "MDL", name: "Moldovan Leu", minor_units: 2 },
  { code: "MGA", name: "Malagasy Ariary", minor_units: 2 },
  { code: "MKD", name: "Denar", minor_units: 2 },
  { code: "MMK", name: "Kyat", minor_units: 2 },
  { code: "MNT", name: "Tugrik", minor_units: 2 },
  { code: "MOP", name: "Pataca", minor_units: 2 },
  { code: "MRU", name: "Ouguiya", minor_units: 2 },
  { code: "MUR", name: "Mauritius Rupee", minor_units: 2 },
  { code: "MVR", name: "Rufiyaa", minor_units: 2 },
  { code: "MWK", name: "Malawi Kwacha", minor_units: 2 },
  { code: "MXN", name: "Mexican Peso", minor_units: 2 },
  { code: "MYR", name: "Malaysian Ringgit", minor_units: 2 },
  { code: "MZN", name: "Mozambique Metical", minor_units: 2 },
  { code: "NAD", name: "Namibia Dollar", minor_units: 2 },
  { code: "NGN", name: "Naira", minor_units: 2 },
  { code: "NIO", name: "Cordoba Oro", minor_units: 2 },
  { code: "NOK", name: "Norwegian Krone", minor_units: 2 },
  { code: "NPR", name: "Nepalese Rupee", minor_units: 2 },
  { code: "NZD", name: "New Zealand Dollar", minor_units: 2 },
  { code: "OMR", name: "Rial Omani", minor_units: 3 },
  { code: "PAB", name: "Balboa", minor_units: 2 },
  { code: "PEN", name: "Sol", minor_units: 2 },
  { code: "PGK", name: "Kina", minor_units: 2 },
  { code: "PHP", name: "Philippine Peso", minor_units: 2 },
  { code: "PKR", name: "Pakistan Rupee", minor_units: 2 },
  { code: "PLN", name: "Zloty", minor_units: 2 },
  { code: "PYG", name: "Guarani", minor_units: 0 },
  { code: "QAR", name: "Qatari Rial", minor_units: 2 },
  { code: "RON", name: "Romanian Leu", minor_units: 2 },
  { code: "RSD", name: "Serbian Dinar", minor_units: 2 },
  { code: "RUB", name: "Russian Ruble", minor_units: 2 },
  { code: "RWF", name: "Rwanda Franc", minor_units: 0 },
  { code: "SAR", name: "Saudi Riyal", minor_units: 2 },
  { code: "SBD", name: "Solomon Islands Dollar", minor_units: 2 },
  { code: "SCR", name: "Seychelles Rupee", minor_units: 2 },
  { code: "SDG", name: "Sudanese Pound", minor_units: 2 },
  { code: "SEK", name: "Swedish Krona", minor_units: 2 },
  { code: "SGD", name: "Singapore Dollar", minor_units: 2 },
  { code: "SHP", name: "Saint Helena Pound", minor_units: 2 },
  { code: "SLE", name: "Leone", minor_units: 2 },
  { code: "SOS", name: "Somali Shilling", minor_units: 2 },
  { code: "SRD", name: "Surinam Dollar", minor_units: 2 },
  { code: "SSP", name: "South Sudanese Pound", minor_units: 2 },
  { code: "STN", name: "Dobra", minor_units: 2 },
  { code: "SVC", name: "El Salvador Colon", minor_units: 2 },
  { code: "SYP", name: "Syrian Pound", minor_units: 2 },
  { code: "SZL", name: "Lilangeni", minor_units: 2 },
  { code: "THB", name: "Baht", minor_units: 2 },
  { code: "TJS", name: "Somoni", minor_units: 2 },
  { code: "TMT", name: "Turkmenistan New Manat", minor_units: 2 },
  { code: "TND", name: "Tunisian Dinar", minor_units: 3 },
  { code: "TOP", name: "Pa’anga", minor_units: 2 },
  { code: "TRY", name: "Turkish Lira", minor_units: 2 },
  { code: "TTD", name: "Trinidad and Tobago Dollar", minor_units: 2 },
  { code: "TWD", name: "New Taiwan Dollar", minor_units: 2 },
  { code: "TZS", name: "Tanzanian Shilling", minor_units: 2 },
  { code: "UAH", name: "Hryvnia", minor_units: 2 },
  { code: "UGX", name: "Uganda Shilling", minor_units: 0 },
  { code: "USD", name: "US Dollar", minor_units: 2 },
  { code: "UYU", name: "Peso Uruguayo", minor_units: 2 },
  { code: "UZS", name: "Uzbekistan Sum", minor_units: 2 },
  { code: "VED", name: "Bolívar Soberano", minor_units: 2 },
  { code: "VES", name: "Bolívar Soberano", minor_units: 2 },
  { code: "VND", name: "Dong", minor_units: 0 },
  { code: "VUV", name: "Vatu", minor_units: 0 },
  { code: "WST", name: "Tala", minor_units: 2 },
  { code: "XAF", name: "CFA Franc BEAC", minor_units: 0 },
  { code: "XCD", name: "East Caribbean Dollar", minor_units: 2 },
  { code: "XCG", name: "Caribbean Guilder", minor_units: 2 },
  { code: "XOF", name: "CFA Franc BCEAO", minor_units: 0 },
  { code: "XPF", name: "CFP Franc", minor_units: 0 },
  { code: "YER", name: "Yemeni Rial", minor_units: 2 },
  { code: "ZAR", name: "Rand", minor_units: 2 },
  { code: "ZMW", name: "Zambian Kwacha", minor_units: 2 },
  { code: "ZWG", name: "Zimbabwe Gold", minor_units: 2 },
];

const BY_CODE = new Map(CURRENCIES.map((currency) => [currency.code, currency]));

/** The currency for a code in any case ("eur"), or undefined. */
export function findCurrency(code: string): Currency | undefined {
  return BY_CODE.get(code.trim().toUpperCase());
}

/** Currencies whose code or name matches, case- and accent-insensitive, best matches first. */
export function searchCurrencies(query: string, limit_max = CURRENCIES.length): Currency[] {
  return searchByCodeAndName(CURRENCIES, query, limit_max);
}

/** The `step` (and `min`) of the amount input for a currency: "1" for JPY, "0.01" for EUR, "0.001" for BHD. */
export function currencyInputStep(currency_code: string): string {
  const minor_units = requireCurrency(currency_code).minor_units;
  return minor_units === 0 ? "1" : `0.${"1".padStart(minor_units, "0")}`;
}

/**
 * What a person typed ("1,234.5", "1000") as an integer of the currency's minor units. Null for
 * anything that is not a plain non-negative amount, and for more decimals than the currency has:
 * a fraction of a yen is refused, never rounded. Null also for an unknown currency code.
 */
export function parseCurrencyAmount(text: string, currency_code: string): number | null {
  const currency = findCurrency(currency_code);
  if (!currency) return null;
  const match = /^(\d{1,13})(?:\.(\d+))?$/.exec(text.trim().replace(/,/g, ""));
  if (!match) return null;
  const fraction = match[2] ?? "";
  if (fraction.length > currency.minor_units) return null;
  const amount_minor_units =
    BigInt(match[1]!) * 10n ** BigInt(currency.minor_units) + BigInt(fraction.padEnd(currency.minor_units, "0") || "0");
  return amount_minor_units <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(amount_minor_units) : null;
}

/** `123456, "EUR"` -> "EUR 1,234.56"; `1000, "JPY"` -> "JPY 1,000"; negative -> "-EUR 0.05". */
export function formatCurrencyAmount(amount_minor_units: number | bigint, currency_code: string): string {
  const { code, minor_units } = requireCurrency(currency_code);
  if (typeof amount_minor_units === "number" && !Number.isSafeInteger(amount_minor_units)) {
    throw new RangeError(`formatCurrencyAmount needs whole minor units, got ${amount_minor_units}`);
  }
  const amount = BigInt(amount_minor_units);
  const negative = amount < 0n;
  const digits = (negative ? -amount : amount).toString().padStart(minor_units + 1, "0");
  const whole = digits.slice(0, digits.length - minor_units).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const fraction = minor_units === 0 ? "" : `.${digits.slice(digits.length - minor_units)}`;
  return `${negative ? "-" : ""}${code} ${whole}${fraction}`;
}

/** A rate as staff type it: a positive plain decimal ("1.08375", "0.0067"), at most 12 decimals. */
export function isValidUsdPerUnitRate(text: string): boolean {
  return /^\d{1,9}(\.\d{1,12})?$/.test(text) && /[1-9]/.test(text);
}

/**
 * USD cents to debit for a foreign amount, exactly: amount (in minor units) / 10^exponent ×
 * rate (USD per whole unit, a decimal string such as "1.08375") × 100, rounded half up to the
 * cent. Exact because the rate stays a decimal: "1.08375" is taken as 108375 / 10^5 and the whole
 * computation is one BigInt division, where a float would turn 1.08375 into 1.0837499999...
 * Half up (a tie costs the member the half cent) is the usual rule for a bank's conversion and
 * makes the result monotonic in both the amount and the rate.
 */
export function usdCentsForForeignAmount(
  amount_minor_units: number | bigint,
  minor_units_exponent: number,
  usd_per_unit_rate: string,
): number {
  if (typeof amount_minor_units === "number" && !Number.isSafeInteger(amount_minor_units)) {
    throw new RangeError(`usdCentsForForeignAmount needs whole minor units, got ${amount_minor_units}`);
  }
  const amount = BigInt(amount_minor_units);
  if (amount < 0n) throw new RangeError("usdCentsForForeignAmount needs a non-negative amount");
  if (!Number.isInteger(minor_units_exponent) || minor_units_exponent < 0 || minor_units_exponent > 4) {
    throw new RangeError(`ISO 4217 minor units are 0 to 4, got ${minor_units_exponent}`);
  }
  if (!isValidUsdPerUnitRate(usd_per_unit_rate)) throw new RangeError(`Not a usable rate: "${usd_per_unit_rate}"`);
  const [whole = "", fraction = ""] = usd_per_unit_rate.split(".");
  const rate_numerator = BigInt(whole + fraction);
  const numerator = amount * rate_numerator * 100n;
  const denominator = 10n ** BigInt(minor_units_exponent + fraction.length);
  // floor(n / d + 1/2) = floor((2n + d) / 2d): half up, in integers only.
  const cents = (2n * numerator + denominator) / (2n * denominator);
  if (cents > BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError("usdCentsForForeignAmount: result beyond safe integer cents");
  return Number(cents);
}

function requireCurrency(currency_code: string): Currency {
  const currency = findCurrency(currency_code);
  if (!currency) throw new Error(`Unknown currency code: ${currency_code}`);
  return currency;
}
