import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyConnectionTimeouts } from "~/server/http/connection-timeouts.server";

/** nginx's idle limit for its kept connections to the app: the upstream's `keepalive_timeout`, 60 s when the shipped site does not set it. */
function nginxUpstreamIdleMs(): number {
  const site = fs.readFileSync(path.resolve(import.meta.dirname, "../../deploy/nginx/mutual.conf"), "utf8");
  const upstream = /upstream mutual \{([\s\S]*?)\n\}/.exec(site)?.[1];
  expect(upstream, "deploy/nginx/mutual.conf has an `upstream mutual` block").toBeDefined();
  expect(upstream).toMatch(/^\s*keepalive \d+;/m);
  const set = /^\s*keepalive_timeout (\d+)(ms|s|m)?;/m.exec(upstream!);
  if (!set) return 60_000;
  return Number(set[1]) * ({ ms: 1, s: 1000, m: 60_000 } as const)[(set[2] ?? "s") as "ms" | "s" | "m"];
}

describe("connection timeouts behind the proxy", () => {
  it("keeps an idle connection open longer than nginx keeps it, so the proxy never sends a post down a connection the app is closing", () => {
    const server = http.createServer();
    applyConnectionTimeouts(server);
    expect(server.keepAliveTimeout).toBeGreaterThan(nginxUpstreamIdleMs());
  });

  it("still cuts off slow headers and long requests", () => {
    const server = http.createServer();
    applyConnectionTimeouts(server);
    expect(server.headersTimeout).toBe(30_000);
    expect(server.requestTimeout).toBe(60_000);
  });
});
