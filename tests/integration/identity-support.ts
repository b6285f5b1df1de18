import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { desc, eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { outbox } from "~/server/db/schema";
import type { RequestMeta } from "~/server/auth/request-meta.server";

/**
 * Shared set-up for the identity tests: fixed secrets and a throw-away DATA_DIR (uploads), set
 * before anything reads the environment (env() is read lazily, on first use).
 */
process.env.SESSION_SECRET ??= "integration-test-session-secret-0123456789";
process.env.DATA_ENCRYPTION_KEY ??= "0f".repeat(32);
process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-identity-"));
process.env.LOG_LEVEL = "silent";

/** A browser: its cookies, updated from each answer's Set-Cookie lines. */
export class Browser {
  private cookies = new Map<string, string>();
  constructor(
    readonly ip = "203.0.113.10",
    readonly user_agent = "vitest",
  ) {}

  meta(): RequestMeta {
    return { ip: this.ip, user_agent: this.user_agent, cookie: this.cookieHeader() };
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  apply(set_cookies: readonly string[]): void {
    for (const line of set_cookies) {
      const pair = line.split(";")[0] ?? "";
      const index = pair.indexOf("=");
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (/;\s*max-age=0/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  has(fragment: string): boolean {
    return [...this.cookies.keys()].some((name) => name.includes(fragment));
  }
}

/** The newest message to an address, or undefined. */
export async function lastMessageTo(db: Db, to: string) {
  const [row] = await db
    .select()
    .from(outbox)
    .where(eq(outbox.to_email, to.toLowerCase()))
    .orderBy(desc(outbox.id))
    .limit(1);
  return row;
}

/** The 6-digit code in the newest sign-in code message to an address. */
export async function lastCodeTo(db: Db, to: string): Promise<string> {
  const message = await lastMessageTo(db, to);
  const code = /code is: (\d{6})/.exec(message?.text_body ?? "")?.[1];
  if (!code || message?.kind !== "sign_in_code") throw new Error(`no sign-in code for ${to}`);
  return code;
}

export { tinyPng } from "../factories";

export function fileOf(bytes: Uint8Array, name: string, type: string): File {
  return new File([new Uint8Array(bytes)], name, { type });
}

/**
 * What a sign-in, passkey or password service answered, as one word for a test to compare: a
 * refusal's `code`, a success's `status` where there are several ways to succeed, else
 * "signed_in" (a session made) or "ok".
 */
export function outcome(
  result: { ok: true; status?: string } | { ok: true; user: unknown } | { ok: false; code?: string },
): string {
  if (!result.ok) return result.code ?? "refused";
  if ("status" in result && typeof result.status === "string") return result.status;
  return "user" in result ? "signed_in" : "ok";
}
