// The kinds of taxpayer number, apart from their rules (taxpayer-id.ts): the sign-up page shows the
// choice before its first paint, and the rules' Zod schemas load only after it (page-weight.spec.ts).
export const TIN_TYPES = ["ssn", "itin", "foreign"] as const;
export type TinType = (typeof TIN_TYPES)[number];

export const TIN_TYPE_OPTIONS = [
  { value: "ssn", label: "Social Security number (SSN)" },
  { value: "itin", label: "Individual Taxpayer Identification Number (ITIN)" },
  { value: "foreign", label: "Not a US person: passport or other government ID" },
] as const satisfies readonly { value: TinType; label: string }[];
