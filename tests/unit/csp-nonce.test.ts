import { describe, expect, it } from "vitest";
import { cspNonce } from "~/server/http/csp-nonce.server";

describe("CSP nonce", () => {
  it("gives every response 16 fresh random bytes, also across refills of its pool", () => {
    // 1,000 nonces: the pool of 256 is drawn again three times.
    const nonces = Array.from({ length: 1000 }, () => cspNonce());
    expect(new Set(nonces).size).toBe(nonces.length);
    for (const nonce of nonces) {
      expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
      expect(Buffer.from(nonce, "base64")).toHaveLength(16);
    }
    // Not a counter or a fixed pattern: the bytes at one position vary across nonces.
    const first_bytes = new Set(nonces.map((n) => Buffer.from(n, "base64")[0]));
    expect(first_bytes.size).toBeGreaterThan(100);
  });
});
