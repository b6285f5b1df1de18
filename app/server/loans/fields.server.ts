/**
 * Associated data binding a loan applicant's encrypted income or employer to its column and member
 * (app/server/security/crypto.server.ts): a value copied to another row or column does not decrypt.
 */
export function loanFieldContext(column: "income" | "employer", member_id: string): string {
  return `loan_applications.${column}:${member_id}`;
}
