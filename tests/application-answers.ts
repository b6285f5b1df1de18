/**
 * A membership application that passes every rule of the form (docs/product.md#applications-and-review),
 * named as the form's fields are, without the email and passwords each test chooses. The browser
 * tests type or post these; the integration tests' factories (factories.ts) parse them. Plain data
 * with no imports, so both kinds of test can share it.
 */
export const APPLICATION_ANSWERS = {
  first_name: "Jamie",
  last_name: "Rivera",
  date_of_birth: "1988-04-17",
  nationality: "American",
  marital_status: "single",
  street: "12 Elm Street",
  city: "Portsmouth",
  state: "NH",
  postal_code: "03801",
  country: "United States",
  phone: "(555) 010-1234",
  alt_email: "",
  emergency_name: "Casey Rivera",
  emergency_relationship: "Sister",
  emergency_phone: "(555) 010-9876",
  id_type: "passport",
  id_number: "P1234567890",
  // A made-up SSN, valid in form only (docs/product.md#taxpayer-identification): never a real one.
  tin_type: "ssn",
  tin: "555-01-2468",
  tin_country: "",
} as const;

/** The answers with `email` and `password` typed twice, as the form asks. */
export function applicationAnswers(
  email: string,
  password: string,
  overrides: Partial<Record<string, string>> = {},
): Record<string, string> {
  return { email, password, confirm_password: password, ...APPLICATION_ANSWERS, ...overrides } as Record<
    string,
    string
  >;
}
