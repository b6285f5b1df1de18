import { describe, expect, it } from "vitest";
import { CREDENTIAL_NAMES, ConfigurationError, parseEnv } from "~/config/env.server";
import { InstitutionSchema } from "~/config/institution";
import { demoInstitution } from "~/config/demo-institution";

/** The SMS provider's configuration (docs/operations.md#text-messages-sms). */
describe("the SMS provider's secrets", () => {
  it("takes both, or neither; the token may be a systemd credential", () => {
    expect(parseEnv({ SMS_ACCOUNT_SID: "AC123", SMS_AUTH_TOKEN: "token-0123456789" }).SMS_ACCOUNT_SID).toBe("AC123");
    expect(() => parseEnv({ SMS_ACCOUNT_SID: "AC123" })).toThrow(ConfigurationError);
    expect(() => parseEnv({ SMS_AUTH_TOKEN: "token-0123456789" })).toThrow(/set both/);
    expect(() => parseEnv({ SMS_ACCOUNT_SID: "AC 123", SMS_AUTH_TOKEN: "token-0123456789" })).toThrow(
      /SMS_ACCOUNT_SID/,
    );
    expect(CREDENTIAL_NAMES).toContain("SMS_AUTH_TOKEN");
  });
});

describe("the profile's sms section", () => {
  const withSms = (sms: object) => InstitutionSchema.safeParse({ ...demoInstitution, sms });
  const twilio = {
    kind: "twilio-messages",
    name: "Twilio",
    api_url: "https://api.twilio.com",
    from_number: "+12025550100",
  };

  it("is optional, and takes Twilio's Messages API with an E.164 sending number", () => {
    expect(InstitutionSchema.parse(demoInstitution).sms).toBeUndefined();
    expect(withSms(twilio).success).toBe(true);
    expect(withSms({ ...twilio, api_url: "http://127.0.0.1:6624" }).success).toBe(true);
  });

  it("refuses another kind, plain http elsewhere than this machine, and a sending number not in E.164", () => {
    expect(withSms({ ...twilio, kind: "vonage" }).success).toBe(false);
    expect(withSms({ ...twilio, api_url: "http://api.twilio.com" }).success).toBe(false);
    expect(withSms({ ...twilio, from_number: "202 555 0100" }).success).toBe(false);
  });
});
