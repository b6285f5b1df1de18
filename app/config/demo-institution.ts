import type { z } from "zod";
import type { InstitutionSchema } from "./institution";

/** What the demo's savings accounts are paid, and the one figure its savings product quotes. */
const SAVINGS_APY_PERCENT = "3.50";

const DEMO_NOTE =
  "> **Demo text.** This is the fictional demo credit union that ships with Mutual. A real credit union replaces this page through its institution profile (`pages` in `INSTITUTION_CONFIG`).\n\n";

/**
 * The default profile: a fictional credit union that says so. Its routing number passes the ABA
 * checksum but starts with 50, a prefix the ABA does not assign, so it can never reach a real bank.
 */
export const demoInstitution: z.input<typeof InstitutionSchema> = {
  demo: true,
  name: "Harborview Community Credit Union",
  short_name: "Harborview CU",
  founded_year: 1973,
  time_zone: "America/New_York",
  routing_number: "501234566",
  support_email: "support@harborview.example",
  support_phone: "(555) 010-4400",
  support_hours: "Monday to Friday 8AM to 8PM EST",
  live_chat_hours: "Monday–Friday 9AM–6PM",
  email_reply_time: "within 24 hours",
  address: { street: "100 Harbor Street", city: "Portsmouth", state: "NH", postal_code: "03801" },
  brand: { primary: "#0b2545", accent: "#0f766e" },
  insurance: {
    ncua_insured: true,
    ncua_statement: "Federally insured by NCUA",
    equal_housing_lender: true,
    equal_housing_statement: "Equal Housing Lender",
  },
  market_widget: { enabled: false },
  marketing: {
    members: 100000,
    assets_millions: 2500,
    satisfaction_percent: 98,
    community_impact_millions: 5,
    branches_label: "12 branches",
    volunteer_hours: 18000,
    scholarships: 240,
    mission:
      "To help the people of the Seacoast build secure financial lives, with honest advice, fair rates and banking that puts members, not shareholders, first.",
    core_values: [
      {
        title: "Members first",
        text: "You are an owner, not a customer. Our earnings come back to you as better rates and lower fees.",
        icon: "members",
      },
      {
        title: "Integrity",
        text: "Plain-language terms, no surprise fees and straight answers, even when the answer is no.",
        icon: "integrity",
      },
      {
        title: "Community",
        text: "We lend, volunteer and give where our members live and work, from Portsmouth to Durham.",
        icon: "community",
      },
      {
        title: "Innovation",
        text: "Modern, secure digital banking, with a local person a phone call away.",
        icon: "innovation",
      },
    ],
  },
  timeline: [
    {
      year: 1973,
      title: "Founded by dock workers",
      text: "Twelve harbor workers pooled $1,200 to start a credit union owned by its members.",
    },
    {
      year: 1986,
      title: "Open to the community",
      text: "Membership opened to everyone who lives or works in the county.",
    },
    { year: 1999, title: "First online banking", text: "Members could check balances and move money from home." },
    { year: 2012, title: "Mobile banking", text: "Online banking arrived on members' phones, in any browser." },
    {
      year: 2023,
      title: "Fifty years of members",
      text: "Half a century of serving members, with 100,000 of them and counting.",
    },
  ],
  testimonials: [
    {
      quote:
        "They helped me refinance when the big banks would not return my calls. I felt like a person, not a number.",
      name: "Maria G.",
      detail: "Member since 2009",
    },
    {
      quote:
        "Our bakery's business account and merchant services took one afternoon to set up, with a real person beside us.",
      name: "Devon and Alana P.",
      detail: "Business members since 2017",
    },
    {
      quote: "Online banking does everything I need, and when I call, someone local answers.",
      name: "Sam K.",
      detail: "Member since 2021",
    },
  ],
  locations: [
    {
      id: "harbor-street",
      kind: "branch",
      name: "Harbor Street (main office)",
      street: "100 Harbor Street",
      city: "Portsmouth",
      state: "NH",
      postal_code: "03801",
      phone: "(555) 010-4400",
      hours: [
        { days: "Monday–Friday", hours: "9:00 AM – 5:00 PM" },
        { days: "Saturday", hours: "9:00 AM – 12:00 PM" },
      ],
      features: ["Drive-up", "Safe deposit boxes", "Notary", "24-hour ATM"],
    },
    {
      id: "mill-pond",
      kind: "branch",
      name: "Mill Pond",
      street: "42 Mill Pond Road",
      city: "Dover",
      state: "NH",
      postal_code: "03820",
      phone: "(555) 010-4410",
      hours: [
        { days: "Monday–Friday", hours: "9:00 AM – 5:00 PM" },
        { days: "Saturday", hours: "Closed" },
      ],
      features: ["Drive-up", "Coin counter", "24-hour ATM"],
    },
    {
      id: "north-market",
      kind: "branch",
      name: "North Market",
      street: "7 Market Square",
      city: "Exeter",
      state: "NH",
      postal_code: "03833",
      phone: "(555) 010-4420",
      hours: [
        { days: "Monday–Thursday", hours: "9:00 AM – 5:00 PM" },
        { days: "Friday", hours: "9:00 AM – 6:00 PM" },
      ],
      features: ["Business banking desk", "24-hour ATM"],
    },
    {
      id: "atm-university",
      kind: "atm",
      name: "University Student Center ATM",
      street: "15 College Road",
      city: "Durham",
      state: "NH",
      postal_code: "03824",
      hours: [{ days: "Every day", hours: "6:00 AM – 11:00 PM" }],
      features: ["Deposits accepted"],
    },
    {
      id: "atm-ferry",
      kind: "atm",
      name: "Ferry Landing ATM",
      street: "2 Ferry Landing",
      city: "Portsmouth",
      state: "NH",
      postal_code: "03801",
      hours: [{ days: "Every day", hours: "24 hours" }],
      features: ["Cash only"],
    },
  ],
  products: [
    {
      slug: "premier-checking",
      account_type: "checking",
      segment: "personal",
      name: "Premier Checking",
      description: "Everyday checking with no minimum balance and no monthly fee.",
      rate_label: "No minimum balance",
      features: [
        "No monthly maintenance fee",
        "Free debit card with card controls",
        "Online bill pay and mobile check deposit",
        "Surcharge-free ATMs nationwide",
      ],
      most_popular: true,
      icon: "checking",
      details:
        "Premier Checking is the account most of our members start with. There is no minimum balance and no monthly fee.\n\n- Free debit card: lock and unlock it, set its daily limit, see its number or change its PIN, and report it lost, all in online banking\n- Online banking on a computer or a phone: balances, history and its export, transfers to your savings, to other members, to any US bank and abroad, bill pay, mobile check deposit and monthly PDF statements\n- Direct deposit of your pay: give your employer your account and routing numbers\n- A one-time code protects every sign-in\n\nOpen it as part of your membership application.",
    },
    {
      slug: "high-yield-savings",
      segment: "personal",
      name: "High-Yield Savings",
      description: "Grow your savings with a competitive dividend rate.",
      rate_label: `${SAVINGS_APY_PERCENT}% APY`,
      features: [
        `${SAVINGS_APY_PERCENT}% APY on every balance`,
        "Dividends paid monthly",
        "No monthly fee",
        "Federally insured",
      ],
      icon: "savings",
      account_type: "savings",
      details: `A savings account that works as hard as you do: **${SAVINGS_APY_PERCENT}% APY** on every dollar, dividends paid monthly on the average daily balance.\n\nAPY is the annual percentage yield; rates may change after the account is opened. Dividends are credited on the last day of each month; if you close the account before then, that month's dividends are not paid. Transfers out of savings are limited to six per calendar month.`,
    },
    {
      slug: "rewards-credit-card",
      segment: "personal",
      name: "Rewards Credit Card",
      description: "Earn cash back on every purchase, with an introductory rate.",
      rate_label: "2% cash back",
      features: ["2% cash back on every purchase", "0% intro APR for 15 months", "No annual fee"],
      icon: "card",
      details:
        "Earn **2% cash back** on every purchase, with a **0% introductory APR for 15 months** on purchases and balance transfers. After the introductory period, a variable APR applies based on creditworthiness.",
    },
    {
      slug: "home-mortgages",
      segment: "personal",
      name: "Home Mortgages",
      description: "Fixed and adjustable mortgages with local decisions.",
      rate_label: "From 3.99% APR",
      features: [
        "Fixed and adjustable rates",
        "First-time buyer programs",
        "Local underwriting and servicing",
        "Refinancing",
      ],
      icon: "home",
      details:
        "Buy or refinance with a lender that keeps your loan local. Rates **from 3.99% APR** for qualified borrowers; your rate depends on credit, loan-to-value and term.",
    },
    {
      slug: "investment-solutions",
      segment: "personal",
      name: "Investment Solutions",
      description: "Retirement and investment planning with an advisor.",
      rate_label: "Custom",
      features: ["IRAs and certificates", "Retirement planning", "One-on-one advisor meetings"],
      icon: "investment",
      details:
        "Plan for retirement, education and the goals in between with an advisor who knows you. Certificates and IRAs are federally insured; other investments are not deposits and may lose value.",
    },
    {
      slug: "personal-loans",
      segment: "personal",
      name: "Personal Loans",
      description: "Fixed-rate loans for life's plans and surprises.",
      rate_label: "From 5.99% APR",
      features: ["Fixed monthly payments", "Terms up to 60 months", "No prepayment penalty"],
      icon: "loan",
      details:
        "Borrow for a project, a car repair or consolidating debt with fixed payments. Rates **from 5.99% APR** for qualified borrowers. Try the loan calculator to see your monthly payment.",
    },
    {
      slug: "business-checking",
      segment: "business",
      name: "Business Checking",
      description: "Checking built for small businesses and nonprofits.",
      rate_label: "First year free",
      features: [
        "First year free",
        "500 free transactions a month",
        "Online banking and transfers",
        "Business banking desk at North Market",
      ],
      most_popular: true,
      icon: "checking",
      details:
        "Business Checking is free for the first year and includes **500 free transactions** a month. Check balances and history online, and send transfers to other banks and wires abroad.",
    },
    {
      slug: "merchant-services",
      segment: "business",
      name: "Merchant Services",
      description: "Take cards in store, online and on the go.",
      rate_label: "Custom pricing",
      features: ["Card terminals and online payments", "Next-day deposits", "Transparent pricing"],
      icon: "merchant",
      details:
        "Accept cards in your shop, online and at markets, with deposits into your business checking account the next business day.",
    },
    {
      slug: "business-credit-card",
      segment: "business",
      name: "Business Credit Card",
      description: "Cash back on business spending with no annual fee.",
      rate_label: "2% cash back",
      features: ["2% cash back", "No annual fee", "Employee cards with limits"],
      icon: "card",
      details:
        "Earn **2% cash back** on business purchases with **no annual fee**, and give employees cards with their own limits.",
    },
    {
      slug: "business-loans",
      segment: "business",
      name: "Business Loans",
      description: "Equipment, real estate and lines of credit.",
      rate_label: "From 4.99% APR",
      features: ["Equipment and vehicle loans", "Commercial real estate", "Lines of credit", "Local decisions"],
      icon: "loan",
      details: "Grow with financing decided locally. Rates **from 4.99% APR** for qualified businesses.",
    },
    {
      slug: "treasury-management",
      segment: "business",
      name: "Treasury Management",
      description: "Cash management for growing organizations.",
      rate_label: "Custom",
      // Only what online banking really does: ACH payments, wires, bill pay and statements
      // (positive pay and sweep accounts, once listed here, do not exist in Mutual).
      features: ["ACH payments to other banks", "Domestic and international wires", "Bill pay and online statements"],
      icon: "treasury",
      details:
        "Pay suppliers by ACH, send wires at home and abroad, and pay bills from online banking, with monthly statements online. Our business banking desk at North Market helps you set it up.",
    },
    {
      slug: "business-savings",
      segment: "business",
      name: "Business Savings",
      description: "Put idle cash to work.",
      rate_label: "Up to 2.50% APY",
      features: ["Up to 2.50% APY", "Linked to business checking", "No monthly fee"],
      icon: "savings",
      details: "Earn **up to 2.50% APY** on business balances, linked to your business checking for easy transfers.",
    },
  ],
  loan_products: [
    {
      slug: "personal",
      kind: "personal",
      name: "Personal Loan",
      rate_min_percent: "5.99",
      rate_max_percent: "17.99",
      term_months_min: 12,
      term_months_max: 60,
      amount_min_cents: 1_000_00,
      amount_max_cents: 50_000_00,
      payment_frequency: "monthly",
      grace_days: 10,
      late_fee_cents: 25_00,
      product_page: "personal-loans",
    },
    {
      slug: "auto",
      kind: "auto",
      name: "Auto Loan",
      rate_min_percent: "4.49",
      rate_max_percent: "12.99",
      term_months_min: 24,
      term_months_max: 84,
      amount_min_cents: 5_000_00,
      amount_max_cents: 100_000_00,
      payment_frequency: "monthly",
      grace_days: 10,
      late_fee_cents: 25_00,
    },
    {
      slug: "line-of-credit",
      kind: "line_of_credit",
      name: "Personal Line of Credit",
      rate_min_percent: "9.99",
      rate_max_percent: "17.99",
      amount_min_cents: 1_000_00,
      amount_max_cents: 25_000_00,
      payment_frequency: "monthly",
      minimum_payment_percent: "3",
      minimum_payment_floor_cents: 25_00,
      grace_days: 10,
      late_fee_cents: 25_00,
    },
    {
      slug: "share-secured",
      kind: "share_secured",
      name: "Share-Secured Loan",
      rate_min_percent: "3.00",
      rate_max_percent: "6.00",
      term_months_min: 6,
      term_months_max: 60,
      amount_min_cents: 500_00,
      amount_max_cents: 100_000_00,
      payment_frequency: "monthly",
      grace_days: 10,
      late_fee_cents: 15_00,
      pledge_percent: 90,
    },
  ],
  pages: {
    security:
      DEMO_NOTE +
      "## How we protect you\n\n- Every sign-in needs your password and a one-time code.\n- Your session ends after 15 minutes without activity.\n- Identification numbers are encrypted and shown masked.\n\n## How to protect yourself\n\n- We will **never** ask for your password or a one-time code by phone, text or email.\n- If your card is lost or stolen, call us right away.\n- Report anything suspicious to support right away.",
    privacy:
      DEMO_NOTE +
      "## What we collect\n\nThe information you give us when you apply and bank with us, and records of your transactions.\n\n## How we use it\n\nTo provide your accounts, meet our legal obligations and protect you from fraud. We do not sell your personal information.\n\n## Your choices\n\nContact us to see or correct the information we hold about you.",
    terms:
      DEMO_NOTE +
      "## Using online banking\n\nBy using online banking you agree to keep your sign-in details private and to tell us promptly about any transaction you did not make.\n\n## Transfers\n\nTransfers between your accounts post at once. Payments to other banks are sent on business days.",
    accessibility:
      DEMO_NOTE +
      "We want everyone to be able to bank with us. This site aims to meet the **Web Content Accessibility Guidelines (WCAG) 2.1 level AA**: it works with a keyboard alone and with screen readers, respects reduced motion and keeps text readable.\n\nIf something is hard to use, please tell us through the contact page and we will help.",
    careers:
      DEMO_NOTE +
      "## Work with us\n\nWe are a member-owned credit union, and our people are the reason members stay. We offer fair pay, a pension plan and paid volunteer days.\n\nOpen positions are posted at our branches; ask at any branch or write to us through the contact page.",
    community:
      DEMO_NOTE +
      "## Giving back\n\nEvery year our staff volunteer thousands of hours, we fund scholarships for local students and we teach free financial education classes at libraries and schools.\n\n## Apply for a community grant\n\nLocal nonprofits can apply for small grants twice a year. Write to us through the contact page.",
  },
  us_banks: [
    { name: "JPMorgan Chase Bank", routing_number: "021000021" },
    { name: "Bank of America", routing_number: "026009593" },
    { name: "Wells Fargo Bank", routing_number: "121000248" },
    { name: "Citibank", routing_number: "021000089" },
    { name: "U.S. Bank", routing_number: "091000022" },
    { name: "PNC Bank", routing_number: "043000096" },
    { name: "Truist Bank", routing_number: "061000104" },
    { name: "Capital One", routing_number: "051405515" },
    { name: "TD Bank", routing_number: "031101266" },
    { name: "Citizens Bank", routing_number: "011500120" },
    { name: "Fifth Third Bank", routing_number: "042000314" },
    { name: "KeyBank", routing_number: "041001039" },
    { name: "Huntington National Bank", routing_number: "044000024" },
    { name: "Regions Bank", routing_number: "062000019" },
    { name: "M&T Bank", routing_number: "022000046" },
    { name: "BMO Bank", routing_number: "071000288" },
    { name: "Santander Bank", routing_number: "231372691" },
    { name: "Ally Bank", routing_number: "124003116" },
    { name: "Navy Federal Credit Union", routing_number: "256074974" },
    { name: "Charles Schwab Bank", routing_number: "121202211" },
  ],
  bill_pay_quick_picks: [
    "Electric Company",
    "Water Utility",
    "Internet Provider",
    "Mobile Phone",
    "Credit Card",
    "Insurance",
  ],
  // Files go to the Federal Reserve Bank of Boston (New Hampshire is in its district). The company
  // identification is "1" and a made-up EIN: the demo's files are never sent.
  ach: {
    destination_routing_number: "011000015",
    destination_name: "FEDERAL RESERVE BANK",
    company_name: "HARBORVIEW CU",
    company_identification: "1990000001",
  },
  // Made up, like the rest of the demo: a real credit union puts the number Intuit gave it.
  intuit_bank_id: "99999",
  // The demo's chart of accounts (made up): assets 1xxx, liabilities and shares 2xxx, income 4xxx, expense 5xxx.
  gl_account_codes: {
    cash: "1010",
    ach_settlement: "1120",
    wire_settlement: "1130",
    bill_pay_settlement: "1140",
    card_settlement: "1150",
    deposits_in_transit: "1160",
    adjustments: "1990",
    members_checking: "2110",
    members_savings: "2120",
    members_credit_card: "1310",
    loan_receivable: "1410",
    interest_receivable: "1420",
    interest_income: "4110",
    fees_income: "4410",
    dividends_paid: "5110",
  },
  dividends: { savings_apy_percent: SAVINGS_APY_PERCENT, checking_apy_percent: "0" },
  limits: {
    savings_transfers_per_month: 6,
    external_transfer_max_cents: 2_500_000,
    external_daily_max_cents: 5_000_000,
    wire_transfer_max_cents: 5_000_000,
    wire_daily_max_cents: 10_000_000,
    wire_fee_cents: 4_500,
    member_transfer_max_cents: 500_000,
    member_daily_max_cents: 1_000_000,
    member_transfer_code_above_cents: 100_000,
    mobile_deposit_max_cents: 1_000_000,
    adjustment_second_approval_above_cents: 1_000_000,
    staff_credit_request_above_cents: 1_000_000,
    staff_credit_member_24h_above_cents: 1_000_000,
    staff_credit_business_day_above_cents: 5_000_000,
  },
};
