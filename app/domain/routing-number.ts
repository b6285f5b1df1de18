/**
 * ABA routing transit numbers: nine digits whose weighted sum (3, 7, 1 repeating) is a multiple
 * of ten. The checksum catches every single-digit typo and most transpositions.
 */
const WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1] as const;

export function isValidRoutingNumber(value: string): boolean {
  if (!/^\d{9}$/.test(value)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(value[i]) * WEIGHTS[i]!;
  return sum % 10 === 0;
}

/** The ninth digit that makes the first eight a valid routing number. */
export function routingCheckDigit(firstEight: string): number {
  if (!/^\d{8}$/.test(firstEight)) throw new Error("routingCheckDigit needs exactly eight digits");
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(firstEight[i]) * WEIGHTS[i]!;
  return (10 - (sum % 10)) % 10;
}
