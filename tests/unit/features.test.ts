import { describe, expect, it } from "vitest";
import { FEATURES, FEATURE_KEYS, promisesOfMissingFeatures } from "~/config/features";
import { parseInstitution } from "~/config/institution.server";
import { demoInstitution } from "~/config/demo-institution";

/**
 * Public pages may name a feature only once it works. The institution profile is public copy:
 * a profile that promises a missing feature is refused at start-up, naming the field.
 */
describe("features that exist", () => {
  it("the features that work are on, the ones still to build are off", () => {
    expect(FEATURE_KEYS.filter((f) => FEATURES[f]).sort()).toEqual([
      "bill_pay",
      "card_controls",
      "direct_deposit",
      "mobile_deposit",
      "online_statements",
    ]);
  });

  it("finds the promises the public pages used to make", () => {
    const promises = [
      ["Mobile deposit and bill pay", ["mobile_deposit", "bill_pay"]],
      ["Online bill pay and mobile check deposit", ["mobile_deposit", "bill_pay"]],
      ["Free debit card with card controls", ["card_controls"]],
      ["Free debit card you can lock from the app", ["card_controls", "mobile_app"]],
      ["Lock and unlock from the app", ["card_controls", "mobile_app"]],
      ["Misplaced your card? Lock it from the app right away.", ["card_controls", "mobile_app"]],
      ["Lock your card from the app if you misplace it.", ["card_controls", "mobile_app"]],
      ["Check balances, move money and pay bills whenever you need to.", ["bill_pay"]],
      ["Sign in to online banking to chat with a member service specialist.", ["live_chat"]],
      ["Email, call or chat with our member service team", ["live_chat"]],
      [
        "Add team members with their own sign-ins, deposit checks remotely and pay bills online.",
        ["mobile_deposit", "bill_pay", "business_team_sign_ins"],
      ],
      ["Remote deposit", ["mobile_deposit"]],
      ["Direct deposit, with payroll available the day it arrives", ["direct_deposit"]],
      ["Everyday accounts, cards and loans, with a mobile app that does it all.", ["mobile_app"]],
      ["Send money with Zelle", ["zelle"]],
      ["Download your eStatements", ["online_statements"]],
    ] as const;
    // Read as if nothing were built, so every phrase is still recognised.
    const noneBuilt = Object.fromEntries(FEATURE_KEYS.map((f) => [f, false])) as Record<
      (typeof FEATURE_KEYS)[number],
      boolean
    >;
    for (const [text, features] of promises)
      expect(
        promisesOfMissingFeatures(text, noneBuilt)
          .map((p) => p.feature)
          .sort(),
        text,
      ).toEqual([...features].sort());
  });

  it("leaves alone what the platform does and the institution's own services", () => {
    for (const text of [
      "Online and mobile banking whenever you need it, day or night.",
      "Transfers between accounts post at once. Payments to other banks are sent on business days.",
      "Deposits accepted",
      "Apply online in about ten minutes.",
      "Free debit card",
      "Card terminals and online payments",
      "A one-time code protects every sign-in to online banking.",
      "If your card is lost or stolen, call us right away.",
    ]) {
      expect(promisesOfMissingFeatures(text), text).toEqual([]);
    }
  });

  it("lets a feature's words through once it is on", () => {
    expect(promisesOfMissingFeatures("Online bill pay", { ...FEATURES, bill_pay: true })).toEqual([]);
  });
});

describe("the institution profile promises only features that work", () => {
  it("the demo profile and the default home-page claims pass", () => {
    const { innovation_stats: _defaults, ...marketing } = demoInstitution.marketing;
    expect(() => parseInstitution(demoInstitution, "demo")).not.toThrow();
    expect(() => parseInstitution({ ...demoInstitution, marketing }, "demo without claims")).not.toThrow();
  });

  it("refuses a profile whose copy names a missing feature, naming the field and the words", () => {
    const products = demoInstitution.products.map((p, i) =>
      i === 0 ? { ...p, features: [...p.features, "Send money with Zelle or chat with us"] } : p,
    );
    const pages = { ...demoInstitution.pages, security: "## Stay safe\n\nGet our mobile app for alerts." };
    let message = "";
    try {
      parseInstitution({ ...demoInstitution, products, pages }, "test.json");
    } catch (error) {
      message = (error as Error).message;
    }
    // The features still to build (the built ones' words are allowed now).
    expect(message).toContain('products.0.features.4: names Zelle ("Zelle")');
    expect(message).toContain('products.0.features.4: names live chat ("chat")');
    expect(message).toContain('pages.security: names a mobile app ("mobile app")');
  });
});
