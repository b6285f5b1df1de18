import { describe, expect, it } from "vitest";
import webpush from "web-push";
import { ConfigurationError, parseEnv } from "~/config/env.server";
import { allowedPushEndpoint, pushPayload } from "~/server/notifications/push.server";

/** Web Push's configuration and the rules that need no database (docs/operations.md#web-push). */
describe("VAPID keys in the environment", () => {
  const keys = webpush.generateVAPIDKeys();

  it("takes the pair that npx web-push generate-vapid-keys prints", () => {
    const env = parseEnv({ VAPID_PUBLIC_KEY: keys.publicKey, VAPID_PRIVATE_KEY: keys.privateKey });
    expect(env.VAPID_PUBLIC_KEY).toBe(keys.publicKey);
  });

  it("refuses one key without the other, and keys of the wrong form", () => {
    expect(() => parseEnv({ VAPID_PUBLIC_KEY: keys.publicKey })).toThrow(ConfigurationError);
    expect(() => parseEnv({ VAPID_PRIVATE_KEY: keys.privateKey })).toThrow(/set both/);
    expect(() => parseEnv({ VAPID_PUBLIC_KEY: "short", VAPID_PRIVATE_KEY: keys.privateKey })).toThrow(
      /VAPID_PUBLIC_KEY/,
    );
    expect(() => parseEnv({ WEB_PUSH_EXTRA_ORIGINS: "localhost:9000" })).toThrow(/WEB_PUSH_EXTRA_ORIGINS/);
  });
});

describe("where pushes may go", () => {
  it("the browsers' push services over https, and the extra origins", () => {
    expect(allowedPushEndpoint("https://fcm.googleapis.com/fcm/send/abc", [])).toBe(true);
    expect(allowedPushEndpoint("https://db5p.notify.windows.com/w/?token=x", [])).toBe(true);
    expect(allowedPushEndpoint("http://127.0.0.1:9/push/x", ["http://127.0.0.1:9"])).toBe(true);
    for (const url of [
      "http://fcm.googleapis.com/fcm/send/abc",
      "https://user:pass@fcm.googleapis.com/x",
      "https://notify.windows.com.evil.example/x",
      "https://169.254.169.254/latest",
      "not a url",
    ])
      expect(allowedPushEndpoint(url, []), url).toBe(false);
  });

  it("a push carries the bell's words, the notifications page and the notification's tag only", () => {
    expect(pushPayload({ id: 42, title: "Card locked", body: "Your card ending 1234 is locked." })).toEqual({
      title: "Card locked",
      body: "Your card ending 1234 is locked.",
      url: "/dashboard/notifications",
      tag: "notification-42",
    });
  });
});
