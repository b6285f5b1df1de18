import { describe, expect, it } from "vitest";
import { verifyRegistrationResponse, type RegistrationResponseJSON } from "@simplewebauthn/server";
import recorded from "../fixtures/webauthn/recorded.json";
import { challengeOf, checkPasskeyName, parseAssertion, verifyAssertionSignature } from "~/server/auth/passkeys.server";
import { describeUserAgent } from "~/server/auth/devices.server";

/**
 * WebAuthn checks on recorded bytes (tests/fixtures/webauthn/recorded.json, made once by
 * record.ts beside it): a passkey registered at https://bank.example and assertions it signed.
 */
const rp = { rp_id: recorded.rp_id, origin: recorded.origin };

async function storedCredential() {
  const verified = await verifyRegistrationResponse({
    response: recorded.registration as RegistrationResponseJSON,
    expectedChallenge: recorded.registration_challenge,
    expectedOrigin: recorded.origin,
    expectedRPID: recorded.rp_id,
    requireUserVerification: true,
  });
  expect(verified.verified).toBe(true);
  const credential = verified.registrationInfo!.credential;
  return { public_key: Buffer.from(credential.publicKey).toString("base64url"), counter: 0, transports: ["internal"] };
}

function recordedAssertion(value: unknown) {
  const parsed = parseAssertion(JSON.stringify(value));
  expect(parsed).not.toBeNull();
  return parsed!;
}

describe("recorded assertions", () => {
  it("accepts the right assertion, and reports the counter it moved to", async () => {
    const stored = await storedCredential();
    const result = await verifyAssertionSignature(
      recordedAssertion(recorded.good),
      recorded.sign_in_challenge,
      stored,
      rp,
    );
    expect(result).toEqual({ ok: true, new_counter: 1 });
  });

  it("refuses the same assertion replayed: the stored counter already reached its count", async () => {
    const stored = { ...(await storedCredential()), counter: 1 };
    const result = await verifyAssertionSignature(
      recordedAssertion(recorded.good),
      recorded.sign_in_challenge,
      stored,
      rp,
    );
    expect(result.ok).toBe(false);
  });

  it("refuses an assertion made on another origin (a lookalike site)", async () => {
    const stored = await storedCredential();
    const result = await verifyAssertionSignature(
      recordedAssertion(recorded.foreign),
      recorded.foreign_challenge,
      stored,
      rp,
    );
    expect(result).toMatchObject({ ok: false });
    if (!result.ok) expect(result.error).toMatch(/origin/i);
  });

  it("refuses an assertion over another challenge than the one expected", async () => {
    const stored = await storedCredential();
    const result = await verifyAssertionSignature(
      recordedAssertion(recorded.good),
      "YW5vdGhlci1jaGFsbGVuZ2U",
      stored,
      rp,
    );
    expect(result).toMatchObject({ ok: false });
    if (!result.ok) expect(result.error).toMatch(/challenge/i);
  });

  it("refuses an assertion for another RP ID", async () => {
    const stored = await storedCredential();
    const result = await verifyAssertionSignature(
      recordedAssertion(recorded.good),
      recorded.sign_in_challenge,
      stored,
      {
        rp_id: "other.example",
        origin: recorded.origin,
      },
    );
    expect(result.ok).toBe(false);
  });

  it("refuses an assertion without user verification (the passkey must be both factors)", async () => {
    const stored = await storedCredential();
    const result = await verifyAssertionSignature(
      recordedAssertion(recorded.unverified),
      recorded.unverified_challenge,
      stored,
      rp,
    );
    expect(result.ok).toBe(false);
  });

  it("refuses an assertion whose signature was altered", async () => {
    const stored = await storedCredential();
    const signature = Buffer.from(recorded.good.response.signature, "base64url");
    signature[signature.length - 1]! ^= 0x01;
    const altered = {
      ...recorded.good,
      response: { ...recorded.good.response, signature: signature.toString("base64url") },
    };
    const result = await verifyAssertionSignature(recordedAssertion(altered), recorded.sign_in_challenge, stored, rp);
    expect(result.ok).toBe(false);
  });

  it("reads the challenge the browser signed", () => {
    expect(challengeOf(recorded.good)).toBe(recorded.sign_in_challenge);
    expect(challengeOf({ response: { clientDataJSON: "not json" } })).toBeNull();
  });
});

describe("what the browser sends, read with care", () => {
  it("refuses malformed responses", () => {
    expect(parseAssertion("")).toBeNull();
    expect(parseAssertion("{}")).toBeNull();
    expect(parseAssertion(JSON.stringify({ ...recorded.good, type: "password" }))).toBeNull();
    expect(parseAssertion(JSON.stringify({ ...recorded.good, response: {} }))).toBeNull();
    expect(parseAssertion("x".repeat(20_000))).toBeNull();
  });
});

describe("passkey names", () => {
  it("trims, and refuses empty, long or control characters", () => {
    expect(checkPasskeyName("  Work   laptop ")).toEqual({ ok: true, name: "Work laptop" });
    expect(checkPasskeyName("").ok).toBe(false);
    expect(checkPasskeyName("x".repeat(61)).ok).toBe(false);
    expect(checkPasskeyName("a\u0007b").ok).toBe(false);
    expect(checkPasskeyName(undefined).ok).toBe(false);
  });
});

describe("devices from user agents", () => {
  it("names the browser and the device as a person would", () => {
    expect(
      describeUserAgent(
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      ),
    ).toEqual({ browser: "Chrome 131", device: "macOS Catalina", label: "Chrome 131 on macOS Catalina" });
    const iphone = describeUserAgent(
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    );
    expect(iphone.browser).toBe("Safari 18");
    expect(iphone.device).toMatch(/iPhone/);
    expect(
      describeUserAgent("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0").label,
    ).toBe("Firefox 133 on Windows 10");
    expect(describeUserAgent("").label).toBe("Unknown browser on unknown device");
  });
});
