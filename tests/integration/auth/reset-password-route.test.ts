import "../identity-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RouterContextProvider } from "react-router";
import { requestInfoContext } from "~/context";
import { setAppDatabase } from "~/server/db/db.server";
import type { Database } from "~/server/db/client.server";
import { RATE_LIMITS } from "~/server/auth/rate-limits.server";
import { rateLimitedMessage } from "~/domain/sign-in-messages";
import { action } from "~/routes/auth/reset-password";
import { openTestDatabase } from "../test-database";

/**
 * /reset-password's answer to too many attempts from one address (docs/product.md#passwords):
 * 429 with `Retry-After`, the seconds the limiter knows, like every rate-limited route.
 */
let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
  // The route's action uses the app's database: make it this one.
  setAppDatabase(database);
});
afterAll(async () => {
  await database?.close();
});

async function post(ip: string) {
  const context = new RouterContextProvider();
  context.set(requestInfoContext, { request_id: `req-${crypto.randomUUID()}`, nonce: "", ip });
  const request = new Request("http://localhost/reset-password", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      token: "not-a-link-we-sent",
      password: "Correct horse battery 7",
      confirm_password: "Correct horse battery 7",
    }).toString(),
  });
  const result = (await action({ request, context, params: {} } as unknown as Parameters<typeof action>[0])) as {
    data: { status: string; reply: { error?: Record<string, string[] | null> } };
    init: { status?: number; headers?: Record<string, string> } | null;
  };
  return { status: result.init?.status, headers: new Headers(result.init?.headers), body: result.data };
}

it("answers the attempt after the limit with 429 and Retry-After; the ones before have none", async () => {
  const ip = "192.0.2.77";
  const { limit, window_ms } = RATE_LIMITS.password_reset_complete;
  for (let i = 0; i < limit; i++) {
    const dead = await post(ip);
    expect(dead.status).toBe(400);
    expect(dead.headers.get("Retry-After")).toBeNull();
  }
  const refused = await post(ip);
  expect(refused.status).toBe(429);
  const seconds = Number(refused.headers.get("Retry-After"));
  expect(seconds).toBeGreaterThan(0);
  expect(seconds).toBeLessThanOrEqual(window_ms / 1000);
  // The page says the same wait in words, above the form.
  expect(JSON.stringify(refused.body.reply)).toContain(rateLimitedMessage(seconds));
  // Another address is not limited by this one.
  expect((await post("192.0.2.78")).status).toBe(400);
});
