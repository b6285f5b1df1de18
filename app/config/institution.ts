import { z } from "zod";
import { isValidRoutingNumber } from "~/domain/routing-number";
import { percentToPpm } from "~/domain/percent";
import { formatApy, parseApyPercent } from "~/domain/dividends";
import { DEFAULT_CREDIT_MONITORING } from "~/domain/ach-credit-policy";
import { promisesOfMissingFeatures } from "./features";
import {
  LOAN_KINDS,
  LOAN_KIND_LABELS,
  OFFERED_LOAN_KINDS,
  isOpenEnd,
  parseLoanRatePercent,
} from "~/domain/loans/products";
import { defaultDisclosures } from "./default-disclosures";

/**
 * The institution profile: everything a credit union puts in to make Mutual its own. Loaded
 * from INSTITUTION_CONFIG (JSON) or the demo default, validated once at start-up.
 */
const Markdown = z.string().min(1);

/** One disclosure: its title, version (any text; a change sends members a notice), effective date and text (Markdown). */
const Disclosure = z.object({
  title: z.string().min(1),
  version: z.string().regex(/^[A-Za-z0-9._-]{1,40}$/, "version: letters, digits, dots, dashes (up to 40)"),
  effective_on: z.iso.date(),
  body: Markdown,
});

const Hours = z.array(z.object({ days: z.string().min(1), hours: z.string().min(1) })).min(1);

const Location = z.object({
  id: z.string().regex(/^[a-z0-9-]+$/),
  kind: z.enum(["branch", "atm"]),
  name: z.string().min(1),
  street: z.string().min(1),
  city: z.string().min(1),
  state: z.string().min(2),
  postal_code: z.string().min(3),
  phone: z.string().optional(),
  hours: Hours,
  features: z.array(z.string()).default([]),
});

const Product = z.object({
  slug: z.string().regex(/^[a-z0-9-]+$/),
  segment: z.enum(["personal", "business"]),
  name: z.string().min(1),
  description: z.string().min(1),
  /** Shown as a badge, e.g. "3.50% APY" or "Custom pricing". */
  rate_label: z.string().min(1),
  features: z.array(z.string().min(1)).min(1),
  most_popular: z.boolean().default(false),
  /** Longer text for the product's own page (Markdown). */
  details: Markdown,
  icon: z.enum(["checking", "savings", "card", "home", "investment", "loan", "merchant", "treasury"]),
  /**
   * The members' account type in online banking that this product is, when it is one: its page
   * may then quote only the APY that type really earns (`dividends`), checked below.
   */
  account_type: z.enum(["checking", "savings"]).optional(),
});

/** A loan rate as a percent with at most four decimals ("5.99"), 0 to 18 (the federal credit union ceiling). */
const LoanRatePercent = z
  .string()
  .refine(
    (text) => parseLoanRatePercent(text) !== null,
    'must be a percent from 0 to 18 with at most four decimals, like "5.99"',
  );

/**
 * A loan product members may apply for online (docs/product.md#loans): the range of the note rate
 * staff may set, the terms and amounts a member may ask for, and what the note says about late
 * payments. Payments are monthly in this version.
 */
const LoanProduct = z.object({
  slug: z.string().regex(/^[a-z0-9-]+$/),
  kind: z.enum(LOAN_KINDS),
  name: z.string().min(1),
  rate_min_percent: LoanRatePercent,
  rate_max_percent: LoanRatePercent,
  /** A closed-end loan's terms; a line of credit has none. */
  term_months_min: z.number().int().min(1).max(480).optional(),
  term_months_max: z.number().int().min(1).max(480).optional(),
  /** The amount a member may borrow; for a line of credit, the credit limit. */
  amount_min_cents: z.number().int().min(100_00),
  amount_max_cents: z.number().int().min(100_00).max(10_000_000_00),
  payment_frequency: z.literal("monthly").default("monthly"),
  /** Days after a due date before a payment is late. */
  grace_days: z.number().int().min(0).max(30),
  late_fee_cents: z.number().int().min(0),
  /**
   * A line of credit's monthly minimum payment (docs/product.md#lines-of-credit): the greater of
   * this percent of the balance and the floor amount. Only for a line of credit.
   */
  minimum_payment_percent: z
    .string()
    .refine((text) => {
      const ppm = percentToPpm(text);
      return ppm !== null && ppm >= 10_000 && ppm <= 1_000_000;
    }, 'must be a percent from 1 to 100 with at most four decimals, like "3"')
    .optional(),
  minimum_payment_floor_cents: z.number().int().min(1).optional(),
  /**
   * A share-secured loan (kind `share_secured`, required there and nowhere else): the percent of
   * the pledged savings' available balance a member may borrow (docs/product.md#share-secured-loans).
   */
  pledge_percent: z.number().int().min(1).max(100).optional(),
  /** The public product page (`products[].slug`) that links to this application. */
  product_page: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .optional(),
});

/** An APY as a percent with at most four decimals ("3.50"), held exactly; never a float. */
const ApyPercent = z
  .string()
  .refine(
    (text) => parseApyPercent(text) !== null,
    'must be a percent from 0 to 25 with at most four decimals, like "3.50"',
  );

/** Icons a core value may use on the About page. */
export const valueIcons = ["members", "integrity", "community", "innovation", "security", "growth"] as const;

const CoreValue = z.object({ title: z.string().min(1), text: z.string().min(1), icon: z.enum(valueIcons) });

/** A short claim with a headline value, e.g. "24/7" / "Online and mobile banking". */
const InnovationStat = z.object({
  value: z.string().min(1).max(12),
  label: z.string().min(1),
  text: z.string().min(1),
});

/** Defaults for the optional marketing text, true of any credit union running Mutual. */
const defaultMission =
  "To help our members and our community thrive, with honest advice, fair rates and everyday banking that is simple and secure.";

const defaultValues: z.output<typeof CoreValue>[] = [
  {
    title: "Members first",
    text: "We are owned by our members, so every decision starts with what is best for them.",
    icon: "members",
  },
  { title: "Integrity", text: "Clear terms, fair fees and straight answers, every time.", icon: "integrity" },
  { title: "Community", text: "We invest in the neighborhoods where our members live and work.", icon: "community" },
  { title: "Innovation", text: "Modern, secure tools that make everyday banking simple.", icon: "innovation" },
];

/**
 * What the banking platform itself does today, so the defaults never overstate: only features
 * that work (app/config/features.ts; the profile check below holds these to it too).
 */
const defaultInnovationStats: z.output<typeof InnovationStat>[] = [
  {
    value: "24/7",
    label: "Online and mobile banking",
    text: "Check balances, see your history and move money whenever you need to, on a computer or a phone.",
  },
  { value: "2-step", label: "Secure sign-in", text: "A one-time code protects every sign-in to online banking." },
  {
    value: "Instant",
    label: "Transfers between accounts",
    text: "Money moves between your own accounts the moment you ask.",
  },
  {
    value: "4 ways",
    label: "To send money",
    text: "To your other accounts, to another member, to any US bank and abroad by wire.",
  },
];

const UsBank = z.object({
  name: z.string().min(1),
  routing_number: z.string().refine(isValidRoutingNumber, "routing number fails the ABA checksum"),
});

/** Text a NACHA record field carries: printable ASCII, at most the field's length. */
function nachaField(max: number) {
  return z
    .string()
    .trim()
    .min(1)
    .max(max, `must be at most ${max} characters (the NACHA field's length)`)
    .regex(
      /^[A-Za-z0-9 .,&'()/-]+$/,
      "must be letters, digits, spaces and . , & ' ( ) / - only (what a NACHA file carries)",
    );
}

/**
 * What an outgoing ACH file says about where it goes and who sends it
 * (docs/product.md#payment-queues): the ACH operator or correspondent that receives the file
 * (its routing number and name, the file header's immediate destination) and the originator the
 * members' payees see (company name and identification in each batch header).
 */
const AchSettings = z.object({
  destination_routing_number: z
    .string()
    .refine(isValidRoutingNumber, "routing number must be 9 digits that pass the ABA checksum"),
  destination_name: nachaField(23),
  company_name: nachaField(16),
  /** Usually "1" followed by the credit union's 9-digit EIN; the ODFI may assign another. */
  company_identification: z
    .string()
    .regex(/^[A-Za-z0-9]{10}$/, "must be 10 letters or digits, usually 1 followed by the credit union's 9-digit EIN"),
  /** What the payee's bank shows for the entry, e.g. TRANSFER. */
  company_entry_description: nachaField(10).default("TRANSFER"),
});

export const InstitutionSchema = z
  .object({
    demo: z.boolean(),
    name: z.string().min(1),
    short_name: z.string().min(1),
    founded_year: z.number().int().min(1800).max(2100),
    /**
     * The IANA time zone the credit union keeps its books in: it decides the business date of a
     * transaction, and so the month a savings transfer counts against and this month's figures.
     */
    time_zone: z.string().refine(isTimeZone, "time zone must be an IANA name such as America/New_York"),
    routing_number: z
      .string()
      .refine(isValidRoutingNumber, "routing number must be 9 digits that pass the ABA checksum"),
    support_email: z.email(),
    support_phone: z.string().min(7),
    support_hours: z.string().min(1),
    /** Kept for when live chat exists (app/config/features.ts); no page shows it before then. */
    live_chat_hours: z.string().min(1).optional(),
    email_reply_time: z.string().min(1),
    address: z.object({
      street: z.string().min(1),
      city: z.string().min(1),
      state: z.string().min(2),
      postal_code: z.string().min(3),
    }),
    brand: z.object({
      /** Hex colours; the UI derives its palette from these so a credit union re-brands here. */
      primary: z.string().regex(/^#[0-9a-fA-F]{6}$/),
      accent: z.string().regex(/^#[0-9a-fA-F]{6}$/),
    }),
    insurance: z.object({
      ncua_insured: z.boolean(),
      ncua_statement: z.string().min(1),
      equal_housing_lender: z.boolean(),
      equal_housing_statement: z.string().min(1),
    }),
    market_widget: z.object({
      enabled: z.boolean(),
      /** An https URL whose origin the Content-Security-Policy will allow as a frame source. */
      url: z
        .url()
        .refine((u) => u.startsWith("https://"), "must be an https URL")
        .optional(),
      /** The query parameter the widget reads its symbol from, and the symbol behind each tab. */
      symbol_param: z
        .string()
        .regex(/^[A-Za-z_-]+$/)
        .default("symbol"),
      symbols: z
        .object({
          sp500: z.string().min(1),
          us100: z.string().min(1),
          eurusd: z.string().min(1),
          bitcoin: z.string().min(1),
        })
        .default({ sp500: "SPX", us100: "NDX", eurusd: "EURUSD", bitcoin: "BTCUSD" }),
    }),
    marketing: z.object({
      members: z.number().int().min(0),
      assets_millions: z.number().int().min(0),
      satisfaction_percent: z.number().int().min(0).max(100),
      community_impact_millions: z.number().min(0),
      branches_label: z.string().min(1),
      volunteer_hours: z.number().int().min(0),
      scholarships: z.number().int().min(0),
      /** About page: one or two sentences. */
      mission: z.string().min(1).default(defaultMission),
      core_values: z.array(CoreValue).min(1).max(6).default(defaultValues),
      /** Home page: four short claims about the digital experience. */
      innovation_stats: z.array(InnovationStat).min(1).max(4).default(defaultInnovationStats),
    }),
    timeline: z.array(z.object({ year: z.number().int(), title: z.string().min(1), text: z.string().min(1) })).min(1),
    testimonials: z.array(z.object({ quote: z.string().min(1), name: z.string().min(1), detail: z.string().min(1) })),
    locations: z.array(Location).min(1),
    products: z.array(Product).min(1),
    /** Loans members may apply for online; none: no application is offered (docs/product.md#loans). */
    loan_products: z.array(LoanProduct).default([]),
    pages: z.object({
      security: Markdown,
      privacy: Markdown,
      terms: Markdown,
      accessibility: Markdown,
      careers: Markdown,
      community: Markdown,
    }),
    /**
     * Disclosures as versioned documents (docs/product.md#disclosures): members agree to a version,
     * and a new version sends a change-in-terms notice ahead of `effective_on` (YYYY-MM-DD).
     */
    disclosures: z
      .object({
        esign: Disclosure,
        account_agreement: Disclosure,
        truth_in_savings: Disclosure,
        funds_availability: Disclosure,
        reg_e: Disclosure,
        privacy: Disclosure,
      })
      .default(defaultDisclosures),
    /**
     * Electronic delivery (E-SIGN, docs/product.md#electronic-delivery): what withdrawing consent
     * and a paper copy cost, in cents (0: free). Stated on the consent page.
     */
    electronic_delivery: z
      .object({
        withdrawal_fee_cents: z.number().int().min(0).default(0),
        paper_copy_fee_cents: z.number().int().min(0).default(0),
      })
      .default({ withdrawal_fee_cents: 0, paper_copy_fee_cents: 0 }),
    /**
     * Text messages (docs/operations.md#text-messages-sms): the SMS provider. One kind is
     * supported, Twilio's Messages API (POST {api_url}/2010-04-01/Accounts/{account id}/Messages.json,
     * form-encoded To, From and Body, basic authentication with the account id and auth token from
     * SMS_ACCOUNT_SID and SMS_AUTH_TOKEN). Without this section (or those secrets) members are not
     * offered text messages.
     */
    sms: z
      .object({
        kind: z.literal("twilio-messages"),
        /** Named to staff and in the docs: "Twilio". */
        name: z.string().min(1).max(100),
        /** The API's origin: https://api.twilio.com (http only for a test's local provider on this machine). */
        api_url: z
          .string()
          .url()
          .refine(
            (value) => /^https:\/\//.test(value) || /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?(\/|$)/.test(value),
            "must start with https:// (http:// only for a local test provider on 127.0.0.1)",
          ),
        /** The number texts come from, in E.164 (+12025550143). */
        from_number: z.string().regex(/^\+[1-9]\d{7,14}$/, "must be a number in E.164 form, such as +12025550143"),
      })
      .optional(),
    us_banks: z.array(UsBank).min(1),
    bill_pay_quick_picks: z.array(z.string().min(1)).length(6),
    ach: AchSettings,
    /**
     * The bank id Intuit assigned the credit union (INTU.BID), which Quicken and QuickBooks need to
     * import a .qfx or .qbo file. Without it those two file types are not offered
     * (docs/product.md#statements); .ofx and CSV always are.
     */
    intuit_bank_id: z
      .string()
      .regex(/^\d{1,10}$/, "must be the digits Intuit assigned (INTU.BID)")
      .optional(),
    /**
     * Dividends (docs/product.md#dividends): the annual percentage yield each member account type
     * earns, paid monthly on the average daily balance. An account type not named earns nothing.
     */
    dividends: z
      .object({ savings_apy_percent: ApyPercent.default("0"), checking_apy_percent: ApyPercent.default("0") })
      .default({ savings_apy_percent: "0", checking_apy_percent: "0" }),
    /**
     * The institution's ledger account on the other side of transactions staff add by hand or
     * from a CSV (docs/product.md#add-transactions): a credit to a member comes out of it, a
     * debit goes into it.
     */
    staff_postings_counterpart: z
      .enum([
        "cash",
        "ach_settlement",
        "wire_settlement",
        "bill_pay_settlement",
        "deposits_in_transit",
        "adjustments",
        "fees_income",
      ])
      .default("cash"),
    /**
     * Remittance transfers (Regulation E subpart B; docs/product.md#remittance-transfers) for
     * members' international wires. `exempt`: the credit union sends 500 or fewer remittance
     * transfers a year, so under 12 CFR 1005.30(f)(2) it is not a remittance transfer provider; the
     * disclosure and receipt are still shown, but the 30-minute cancellation right and the export's
     * wait do not apply (the member cancels until the wire is sent, as before).
     * `availability_business_days`: business days after the payment date by which the recipient
     * has the money (the date of availability the disclosure states). `covered_third_party_fees_minor`:
     * fees the recipient's bank or an intermediary takes, per currency in its minor units, when the
     * credit union knows them (1005.31(b)(1)(vi)); none by default.
     */
    /**
     * Staff sign in with a passkey (phishing-resistant, docs/product.md#passkeys): staff without one
     * are led to Account Settings to add one before any back-office page opens, and once a staff
     * member has a passkey, signing in with the password and a code is refused for them.
     */
    staff_passkeys_required: z.boolean().default(false),
    /**
     * The credit union's own general-ledger account codes (docs/product.md#books), by the books'
     * line codes (an institution account's kind, or members_checking / members_savings /
     * members_credit_card): the day's GL export writes them. Without a code for every line the
     * export is not made (the page says which are missing): a code is never guessed.
     */
    gl_account_codes: z
      .partialRecord(
        z.enum([
          "cash",
          "ach_settlement",
          "wire_settlement",
          "bill_pay_settlement",
          "deposits_in_transit",
          "adjustments",
          "fees_income",
          "card_settlement",
          "dividends_paid",
          "interest_receivable",
          "interest_income",
          "members_checking",
          "members_savings",
          "members_credit_card",
          "loan_receivable",
        ]),
        z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,19}$/, "a GL account code is 1 to 20 letters, digits, . _ -"),
      )
      .optional(),
    remittance_transfers: z
      .object({
        exempt: z.boolean().default(false),
        availability_business_days: z.number().int().min(0).max(10).default(2),
        covered_third_party_fees_minor: z.record(z.string(), z.number().int().min(0)).default({}),
      })
      .default({ exempt: false, availability_business_days: 2, covered_third_party_fees_minor: {} }),
    limits: z.object({
      savings_transfers_per_month: z.number().int().min(0),
      external_transfer_max_cents: z.number().int().positive(),
      external_daily_max_cents: z.number().int().positive(),
      wire_transfer_max_cents: z.number().int().positive(),
      wire_daily_max_cents: z.number().int().positive(),
      wire_fee_cents: z.number().int().min(0),
      /**
       * To Another Member: the most in one transfer, the most one member sends to other members in
       * a business day (`time_zone`), and the amount above which the member confirms the transfer
       * with a code emailed to them (0: every transfer). Wires always need the code.
       */
      member_transfer_max_cents: z.number().int().positive().default(500_000),
      member_daily_max_cents: z.number().int().positive().default(1_000_000),
      member_transfer_code_above_cents: z.number().int().min(0).default(100_000),
      mobile_deposit_max_cents: z.number().int().positive(),
      /**
       * Funds availability of a deposited check (Regulation CC; docs/product.md#funds-availability,
       * the rule's amounts in app/domain/funds-availability.ts). `next_day_cents`: a next-day amount
       * more generous than 12 CFR 229.10(c)(1)(vii)'s ($275 since July 1, 2025), or 0 for the rule's;
       * a lower figure never applies. `remaining_after_business_days`: the rest of a check is
       * available this many business days after the banking day of deposit, at most 2 (229.12(b)).
       * `new_account_hold_business_days`: a check to a new account (229.13(a)) is available this
       * many business days after its banking day of deposit (at most 9).
       */
      mobile_deposit_availability: z
        .object({
          next_day_cents: z.number().int().min(0).default(0),
          remaining_after_business_days: z
            .number()
            .int()
            .min(1)
            .max(2, "at most 2: 12 CFR 229.12(b) makes a check available by the second business day after deposit"),
          new_account_hold_business_days: z.number().int().min(1).max(9).default(7),
        })
        .default({ next_day_cents: 0, remaining_after_business_days: 2, new_account_hold_business_days: 7 }),
      /**
       * Move money in from a verified linked account (docs/product.md#move-money-in): an ACH debit
       * the credit union originates. `daily_max_cents` / `monthly_max_cents`: the most a member
       * pulls in a business day / calendar month (the institution's time zone). `hold_business_days`:
       * the money is available this many business days after the file's settlement date (the time
       * the other bank has to return it as R01, R02, R03...; Regulation CC's schedule is for checks
       * and received credits, not debits we originate). `code_above_cents`: above this a pull is
       * confirmed with an emailed code or a passkey, as To Another Member is (0: every pull).
       */
      money_in: z
        .object({
          daily_max_cents: z.number().int().positive().default(500_000),
          monthly_max_cents: z.number().int().positive().default(2_000_000),
          hold_business_days: z.number().int().min(0).max(10).default(3),
          code_above_cents: z.number().int().min(0).default(100_000),
        })
        .default({
          daily_max_cents: 500_000,
          monthly_max_cents: 2_000_000,
          hold_business_days: 3,
          code_above_cents: 100_000,
        }),
      /**
       * Monitoring of incoming ACH credits (Nacha's risk-based monitoring of credit entries, 2026;
       * docs/product.md#incoming-credits-to-review; the rules and each default's reason in
       * app/domain/ach-credit-monitoring.ts). A credit meeting a rule posts with its money held
       * until staff release or return it.
       */
      ach_credit_monitoring: z
        .object({
          review_min_cents: z.number().int().min(0).default(DEFAULT_CREDIT_MONITORING.review_min_cents),
          new_account_days: z.number().int().min(0).max(365).default(DEFAULT_CREDIT_MONITORING.new_account_days),
          new_account_large_cents: z
            .number()
            .int()
            .positive()
            .default(DEFAULT_CREDIT_MONITORING.new_account_large_cents),
          velocity_originators: z
            .number()
            .int()
            .min(2)
            .max(100)
            .default(DEFAULT_CREDIT_MONITORING.velocity_originators),
          recent_change_days: z.number().int().min(0).max(365).default(DEFAULT_CREDIT_MONITORING.recent_change_days),
        })
        .default(DEFAULT_CREDIT_MONITORING),
      /**
       * Dual control of money staff create for a member (docs/security.md#dual-control, the rule in
       * app/domain/dual-control.ts): a balance adjustment, or one credit row of Add Transactions,
       * above this waits for a second staff member (an adjustment down too).
       */
      adjustment_second_approval_above_cents: z.number().int().positive(),
      /** The credits of one Add Transactions table or file together: above this the whole file waits. */
      staff_credit_request_above_cents: z.number().int().positive().default(1_000_000),
      /** What one staff member credits to one member over a rolling 24 hours: a request that would pass it waits. */
      staff_credit_member_24h_above_cents: z.number().int().positive().default(1_000_000),
      /** What one staff member credits to all members in a business day (`time_zone`): a request that would pass it waits. */
      staff_credit_business_day_above_cents: z.number().int().positive().default(5_000_000),
    }),
  })
  .superRefine((value, ctx) => {
    const slugs = new Set<string>();
    value.products.forEach((p, i) => {
      if (slugs.has(p.slug))
        ctx.addIssue({ code: "custom", path: ["products", i, "slug"], message: "duplicate product slug" });
      slugs.add(p.slug);
    });
    // A product that is a member account type quotes the APY that type is paid, and no other.
    value.products.forEach((p, i) => {
      if (!p.account_type) return;
      const apy_ppm = parseApyPercent(value.dividends[`${p.account_type}_apy_percent`]) ?? 0;
      const texts = [
        { path: ["rate_label"], text: p.rate_label },
        ...p.features.map((text, f) => ({ path: ["features", f], text })),
        { path: ["details"], text: p.details },
      ];
      for (const { path, text } of texts) {
        for (const quoted of text.matchAll(/(\d+(?:\.\d+)?)\s*%\s*APY/gi)) {
          if (parseApyPercent(quoted[1]!) === apy_ppm) continue;
          ctx.addIssue({
            code: "custom",
            path: ["products", i, ...path],
            message: `quotes ${quoted[0]} but ${p.account_type} accounts are paid ${formatApy(apy_ppm)} APY (dividends.${p.account_type}_apy_percent): the rate shown must be the rate paid`,
          });
        }
      }
    });
    // Loan products (docs/product.md#loans): ranges that make sense, kinds this version books.
    const loanSlugs = new Set<string>();
    value.loan_products.forEach((p, i) => {
      const issue = (field: string, message: string) =>
        ctx.addIssue({ code: "custom", path: ["loan_products", i, field], message });
      if (loanSlugs.has(p.slug)) issue("slug", "duplicate loan product slug");
      loanSlugs.add(p.slug);
      if (!OFFERED_LOAN_KINDS.includes(p.kind))
        issue(
          "kind",
          `${LOAN_KIND_LABELS[p.kind]}: not offered by this version of Mutual (personal, auto and share-secured loans and lines of credit are)`,
        );
      if ((p.kind === "share_secured") !== (p.pledge_percent !== undefined))
        issue(
          "pledge_percent",
          p.kind === "share_secured"
            ? "a share-secured loan needs pledge_percent (the percent of the pledged savings that may be borrowed)"
            : "only a share-secured loan has pledge_percent",
        );
      if (parseLoanRatePercent(p.rate_min_percent)! > parseLoanRatePercent(p.rate_max_percent)!)
        issue("rate_max_percent", "must be at least rate_min_percent");
      if (isOpenEnd(p.kind)) {
        // A line of credit: a limit and a minimum payment, no term (docs/product.md#lines-of-credit).
        if (p.term_months_min !== undefined || p.term_months_max !== undefined)
          issue("term_months_min", "a line of credit has no term: leave term_months_min and term_months_max out");
        if (p.minimum_payment_percent === undefined)
          issue("minimum_payment_percent", 'a line of credit needs its minimum payment percent, like "3"');
        if (p.minimum_payment_floor_cents === undefined)
          issue("minimum_payment_floor_cents", "a line of credit needs its minimum payment floor, like 2500 ($25)");
      } else {
        if (p.term_months_min === undefined) issue("term_months_min", "required for a loan with a term");
        if (p.term_months_max === undefined) issue("term_months_max", "required for a loan with a term");
        if (p.term_months_min !== undefined && p.term_months_max !== undefined && p.term_months_min > p.term_months_max)
          issue("term_months_max", "must be at least term_months_min");
        if (p.minimum_payment_percent !== undefined || p.minimum_payment_floor_cents !== undefined)
          issue("minimum_payment_percent", "only a line of credit has a minimum payment: leave it out");
      }
      if (p.amount_min_cents > p.amount_max_cents) issue("amount_max_cents", "must be at least amount_min_cents");
      if (p.product_page && !value.products.some((page) => page.slug === p.product_page))
        issue("product_page", `no product page has the slug "${p.product_page}"`);
    });
    // Dual control (docs/product.md#limits): a total below one posting's amount would be the real
    // per-posting limit under another name, and a day for all members below one member's 24 hours
    // would make the member's total meaningless; both are refused as a likely typo.
    const limits = value.limits;
    for (const name of [
      "staff_credit_request_above_cents",
      "staff_credit_member_24h_above_cents",
      "staff_credit_business_day_above_cents",
    ] as const) {
      if (limits[name] < limits.adjustment_second_approval_above_cents) {
        ctx.addIssue({
          code: "custom",
          path: ["limits", name],
          message: `must be at least adjustment_second_approval_above_cents (${limits.adjustment_second_approval_above_cents}), the amount one posting may be`,
        });
      }
    }
    if (limits.staff_credit_business_day_above_cents < limits.staff_credit_member_24h_above_cents) {
      ctx.addIssue({
        code: "custom",
        path: ["limits", "staff_credit_business_day_above_cents"],
        message: `must be at least staff_credit_member_24h_above_cents (${limits.staff_credit_member_24h_above_cents}): it counts every member`,
      });
    }
    if (value.market_widget.enabled && !value.market_widget.url) {
      ctx.addIssue({ code: "custom", path: ["market_widget", "url"], message: "required when the widget is enabled" });
    }
    // Public pages show the profile's words; they may name a feature only once it works.
    for (const { path, text } of textsOf(value)) {
      for (const promise of promisesOfMissingFeatures(text)) {
        ctx.addIssue({
          code: "custom",
          path,
          message: `names ${promise.name} ("${promise.words}"), which this version of Mutual does not offer: public pages may promise only features that work (app/config/features.ts)`,
        });
      }
    }
  });

/** Every piece of text in a profile, with where it is. */
function textsOf(value: unknown, path: (string | number)[] = []): { path: (string | number)[]; text: string }[] {
  if (typeof value === "string") return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => textsOf(item, [...path, i]));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([key, item]) => textsOf(item, [...path, key]));
  return [];
}

export type Institution = z.infer<typeof InstitutionSchema>;
export type Product = Institution["products"][number];
export type Location = Institution["locations"][number];
export type LoanProductProfile = Institution["loan_products"][number];

/** What the browser may see of the profile (all of it today; kept as one seam for later). */
export type PublicInstitution = Institution;

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return name.includes("/") || name === "UTC";
  } catch {
    return false;
  }
}
