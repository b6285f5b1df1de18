/**
 * The demo institution's sign-ins (demo mode only). Published on /login and in the README: they
 * are the keys to a public demo, never to a real bank. The addresses are in the reserved
 * `.example` domain (RFC 2606), so no real person can receive their mail.
 */
export interface DemoSignIn {
  kind: "staff" | "accountant" | "member" | "applicant";
  label: string;
  first_name: string;
  last_name: string;
  email: string;
  password: string;
}

export const DEMO_SIGNINS: readonly DemoSignIn[] = [
  {
    kind: "staff",
    label: "Staff (back office)",
    first_name: "Dana",
    last_name: "Whitfield",
    email: "staff@harborview.example",
    password: "Staff-Demo-Pass-1",
  },
  // A second admin, so that what needs two people can be tried: a staff role or a large
  // adjustment one asks for and the other approves (docs/product.md#staff-role-grants).
  {
    kind: "staff",
    label: "Staff, second approver",
    first_name: "Morgan",
    last_name: "Alvarez",
    email: "approver@harborview.example",
    password: "Staff-Demo-Pass-2",
  },
  // Two accountants (docs/product.md#books): the institution's books only, no member powers.
  {
    kind: "accountant",
    label: "Accountant (the books)",
    first_name: "Avery",
    last_name: "Chen",
    email: "accountant@harborview.example",
    password: "Books-Demo-Pass-1",
  },
  {
    kind: "accountant",
    label: "Controller (the books)",
    first_name: "Jamie",
    last_name: "Ortiz",
    email: "controller@harborview.example",
    password: "Books-Demo-Pass-2",
  },
  {
    kind: "member",
    label: "Member, joint account",
    first_name: "Alex",
    last_name: "Morgan",
    email: "alex.morgan@harborview.example",
    password: "Member-Demo-Pass-1",
  },
  {
    kind: "member",
    label: "Member",
    first_name: "Priya",
    last_name: "Shah",
    email: "priya.shah@harborview.example",
    password: "Member-Demo-Pass-2",
  },
  {
    kind: "member",
    label: "Member",
    first_name: "Sam",
    last_name: "Okafor",
    email: "sam.okafor@harborview.example",
    password: "Member-Demo-Pass-3",
  },
  {
    kind: "applicant",
    label: "Applicant, information requested",
    first_name: "Taylor",
    last_name: "Reed",
    email: "taylor.reed@harborview.example",
    password: "Applicant-Demo-Pass-1",
  },
  {
    kind: "applicant",
    label: "Applicant, under review",
    first_name: "Chris",
    last_name: "Lee",
    email: "chris.lee@harborview.example",
    password: "Applicant-Demo-Pass-2",
  },
];

export function isDemoSignIn(email: string): boolean {
  const address = email.trim().toLowerCase();
  return DEMO_SIGNINS.some((signIn) => signIn.email === address);
}

/**
 * Domains reserved for documentation and testing (RFC 2606, RFC 6761): mail to them can never
 * reach a real person, so the demo inbox may show it. Everything else stays private.
 */
export const RESERVED_EMAIL_DOMAINS = [
  "example",
  "example.com",
  "example.net",
  "example.org",
  "test",
  "invalid",
  "localhost",
] as const;

export function isReservedEmailAddress(email: string): boolean {
  const domain = email.trim().toLowerCase().split("@")[1] ?? "";
  return RESERVED_EMAIL_DOMAINS.some((reserved) => domain === reserved || domain.endsWith(`.${reserved}`));
}
