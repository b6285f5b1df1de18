import { describe, expect, it } from "vitest";
import "~/components/ui/zod-settings";
import { config } from "zod/v4/core";
import { z } from "zod";

describe("Zod's settings, written without loading Zod (app/root.tsx)", () => {
  it("turn off the parsers compiled with new Function, which the Content Security Policy forbids", () => {
    expect(config().jitless).toBe(true);
  });

  it("are the ones Zod reads: an object schema parses without calling Function", () => {
    const calls: unknown[] = [];
    const original = globalThis.Function;
    globalThis.Function = new Proxy(original, {
      construct(target, args) {
        calls.push(args);
        return Reflect.construct(target, args);
      },
      apply(target, self, args) {
        calls.push(args);
        return Reflect.apply(target, self, args);
      },
    });
    try {
      const schema = z.object({ amount_cents: z.number().int(), memo: z.string() });
      expect(schema.parse({ amount_cents: 100, memo: "rent" })).toEqual({ amount_cents: 100, memo: "rent" });
    } finally {
      globalThis.Function = original;
    }
    expect(calls).toEqual([]);
  });
});
