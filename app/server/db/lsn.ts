/**
 * PostgreSQL's write-ahead-log positions (pg_lsn), as the read-your-writes cookie carries them
 * (read-replica.server.ts): pure functions, so that nothing unchecked reaches SQL.
 */

/** A PostgreSQL pg_lsn as text: two hexadecimal halves ("16/B374D848"). */
const LSN = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/;

/** The pg_lsn in a cookie value, or undefined for anything else (nothing unchecked reaches SQL). */
export function parseLsn(value: string | undefined): string | undefined {
  const upper = value?.trim().toUpperCase();
  return upper && LSN.test(upper) ? upper : undefined;
}

/** Whether `a` is at or past `b` (both valid pg_lsn text): compared as the 64-bit numbers they are. */
export function lsnAtOrPast(a: string, b: string): boolean {
  const value = (lsn: string) => {
    const [high, low] = lsn.split("/") as [string, string];
    return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
  };
  return value(a) >= value(b);
}
