/**
 * The member features that exist and work in this version of Mutual, and the words that name
 * them. Members see the truth, on public pages too: a page may name a feature only once it works.
 * The institution profile is checked against this list when it loads (a profile whose copy names
 * a missing feature stops start-up, naming the field), pages that would mention a feature ask it
 * first, and a browser test reads every public page for the words of the features that are off.
 * Turn a feature on in the change that makes it work.
 */
export const FEATURE_KEYS = [
  "mobile_deposit",
  "bill_pay",
  "card_controls",
  "live_chat",
  "zelle",
  "online_statements",
  "mobile_app",
  "direct_deposit",
  "business_team_sign_ins",
] as const;

export type Feature = (typeof FEATURE_KEYS)[number];

/** On: what members can use today (each with its page and tests); off: still to build. */
export const FEATURES: Readonly<Record<Feature, boolean>> = {
  mobile_deposit: true,
  bill_pay: true,
  card_controls: true,
  live_chat: false,
  zelle: false,
  online_statements: true,
  /** Online banking works in a phone's browser; there is no app to install. */
  mobile_app: false,
  /** Receiving payroll and other ACH credits from outside (the inbound ACH file staff upload). */
  direct_deposit: true,
  /** Several people with their own sign-ins on one business's accounts. */
  business_team_sign_ins: false,
};

/** How a reader would see each feature promised: its name, and the phrases that name it. */
export const FEATURE_WORDS: Readonly<Record<Feature, { name: string; patterns: readonly RegExp[] }>> = {
  mobile_deposit: {
    name: "mobile check deposit",
    patterns: [
      /\bmobile (check )?deposits?\b/i,
      /\b(remote|check) deposits?\b/i,
      /\bdeposit (your |a )?checks?\b/i,
      /\bdeposit checks remotely\b/i,
    ],
  },
  bill_pay: { name: "bill pay", patterns: [/\bbill ?pay(ments?)?\b/i, /\bpay(ing)? (your |all your )?bills\b/i] },
  card_controls: {
    name: "card controls",
    patterns: [
      /\bcard (lock|controls?)\b/i,
      /\block (and unlock )?(your |a |the )?card\b/i,
      /\b(lock|freeze) (it|them) from\b/i,
      /\block and unlock\b/i,
      /\bcard you can lock\b/i,
    ],
  },
  live_chat: { name: "live chat", patterns: [/\bchat\b/i] },
  zelle: { name: "Zelle", patterns: [/\bzelle\b/i] },
  online_statements: {
    name: "online statements",
    patterns: [
      /\be-?statements?\b/i,
      /\b(online|paperless|electronic|pdf) statements?\b/i,
      /\bdownload (your )?statements?\b/i,
    ],
  },
  mobile_app: {
    name: "a mobile app",
    patterns: [/\bmobile app\b/i, /\b(the|our) app\b/i, /\bapp store\b/i, /\bgoogle play\b/i],
  },
  direct_deposit: { name: "direct deposit", patterns: [/\bdirect deposits?\b/i] },
  business_team_sign_ins: {
    name: "team sign-ins for businesses",
    patterns: [/\btheir own sign-ins\b/i, /\b(online banking|sign-ins|logins|users) for your team\b/i],
  },
};

export interface FeaturePromise {
  feature: Feature;
  name: string;
  /** The words of the text that named it, as written. */
  words: string;
}

/** The features that `text` names although they are off, each with the words that named it. */
export function promisesOfMissingFeatures(
  text: string,
  features: Readonly<Record<Feature, boolean>> = FEATURES,
): FeaturePromise[] {
  const found: FeaturePromise[] = [];
  for (const feature of FEATURE_KEYS) {
    if (features[feature]) continue;
    for (const pattern of FEATURE_WORDS[feature].patterns) {
      const match = pattern.exec(text);
      if (match) {
        found.push({ feature, name: FEATURE_WORDS[feature].name, words: match[0] });
        break;
      }
    }
  }
  return found;
}
