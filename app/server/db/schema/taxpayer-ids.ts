import { sql } from "drizzle-orm";
import { check, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./auth";

/**
 * Taxpayer identification numbers of the Customer Identification Program
 * (docs/product.md#taxpayer-identification; 31 CFR 1020.220): the member's and, on a joint
 * application, the joint owner's. The number is encrypted at rest (AES-256-GCM,
 * `~/server/security/crypto.server`, bound to its user and party); its last four characters are
 * kept apart for the masked display, so showing "•••-••-1234" decrypts nothing. Nothing is deleted
 * (the user row's cascade aside, which only an applicant's failed sign-up uses).
 */
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const TAXPAYER_ID_TYPES = ["ssn", "itin", "foreign"] as const;
export const TAXPAYER_ID_PARTIES = ["member", "joint"] as const;
export type TaxpayerIdParty = (typeof TAXPAYER_ID_PARTIES)[number];

export const taxpayerIds = pgTable(
  "taxpayer_ids",
  {
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Whose number: the member's own, or the joint owner's on the same application. */
    party: text("party", { enum: TAXPAYER_ID_PARTIES }).notNull(),
    tin_type: text("tin_type", { enum: TAXPAYER_ID_TYPES }).notNull(),
    /** `encryptField(number, "taxpayer_ids.number:<user id>:<party>")`: 9 digits, or a foreign document's number. */
    number_enc: text("number_enc").notNull(),
    /** The number's last four characters, for "•••-••-1234". */
    last_four: text("last_four").notNull(),
    /** A foreign document's issuing country (ISO 3166-1 alpha-2); null for an SSN or ITIN. */
    country: text("country"),
    created_at: timestamptz("created_at").defaultNow().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.user_id, t.party] }),
    check("taxpayer_ids_party_valid", sql`${t.party} in ('member', 'joint')`),
    check("taxpayer_ids_type_valid", sql`${t.tin_type} in ('ssn', 'itin', 'foreign')`),
    check("taxpayer_ids_last_four", sql`length(${t.last_four}) = 4`),
    check("taxpayer_ids_country_for_foreign", sql`(${t.tin_type} = 'foreign') = (${t.country} is not null)`),
  ],
);
