import { test as base } from "@playwright/test";
import crypto from "node:crypto";

/**
 * Every test browses from its own network address, as real visitors do: the e2e server runs
 * behind a "proxy" (TRUST_PROXY=1) and each test sends its own X-Forwarded-For. Without this,
 * the whole suite shares 127.0.0.1 and the per-IP sign-in limits (SPEC 5) trip mid-run.
 * The addresses come from 198.18.0.0/15, the range reserved for benchmarks: a header value only.
 */
export const test = base.extend({
  extraHTTPHeaders: async ({ extraHTTPHeaders }, provide, testInfo) => {
    const digest = crypto.createHash("sha256").update(`${testInfo.testId}:${testInfo.retry}`).digest();
    const address = `198.${18 + (digest[0]! & 1)}.${digest[1]}.${digest[2]! || 1}`;
    await provide({ ...extraHTTPHeaders, "X-Forwarded-For": address });
  },
});

export * from "@playwright/test";
