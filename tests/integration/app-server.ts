import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { and, desc, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { ledgerAccounts, outbox, users } from "~/server/db/schema";

/**
 * The real app server as a process of its own, and the few HTTP steps a member takes (sign in,
 * a Between Accounts transfer), for the tests that run the server as production does: the
 * database outage test and the several-processes-behind-a-proxy test.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
export const repository = path.resolve(here, "../..");

/** The app server process (development mode: no build needed): its log lines, and whether it has exited. */
export class AppProcess {
  readonly lines: string[] = [];
  exit: string | null = null;
  private readonly child: ChildProcess;
  private readonly watchers = new Set<(line: string) => void>();
  readonly exited: Promise<void>;

  constructor(
    readonly port: number,
    env: Record<string, string>,
  ) {
    this.child = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
      cwd: repository,
      env: { ...process.env, ...env, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      readline.createInterface({ input: stream }).on("line", (line) => {
        this.lines.push(line);
        for (const watcher of this.watchers) watcher(line);
      });
    }
    this.exited = new Promise((resolve) =>
      this.child.once("exit", (code, signal) => {
        this.exit = signal ?? String(code);
        resolve();
      }),
    );
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Resolves with the first log line (past or future) matching `pattern`; fails if the process exits first. */
  waitForLine(pattern: RegExp, what: string): Promise<string> {
    const seen = this.lines.find((line) => pattern.test(line));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const watcher = (line: string) => {
        if (!pattern.test(line)) return;
        this.watchers.delete(watcher);
        resolve(line);
      };
      this.watchers.add(watcher);
      void this.exited.then(() => reject(new Error(`app exited (${this.exit}) while waiting for ${what}:\n${this.lines.slice(-40).join("\n")}`)));
    });
  }

  /** Sends `signal` (SIGTERM: a graceful stop; SIGKILL: a crash) and waits for the exit. */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    if (this.exit === null) this.child.kill(signal);
    await this.exited;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Member {
  email: string;
  cookie: string;
  checking_id: number;
  savings_id: number;
}

/**
 * Signs in over HTTP as a person does: password, then the emailed code (read from the outbox).
 * `base` is where the browser is (the proxy, or one process); the Origin header says the same.
 * `extra_headers` go with every post (a forged X-Forwarded-For, say).
 */
export async function signIn(base: string, db: Database["db"], email: string, password: string, extra_headers: Record<string, string> = {}): Promise<string> {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const post = async (fields: Record<string, string>) => {
    const response = await fetch(`${base}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { ...extra_headers, cookie: cookie(), origin: base, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(";")[0]!;
      const i = pair.indexOf("=");
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    await response.body?.cancel();
    return response.status;
  };
  const passwordStatus = await post({ intent: "password", email, password });
  if (passwordStatus !== 302) throw new Error(`sign-in password step answered ${passwordStatus} for ${email}`);
  const [mail] = await db.select().from(outbox).where(and(eq(outbox.to_email, email), eq(outbox.kind, "sign_in_code"))).orderBy(desc(outbox.id)).limit(1);
  const code = /code is: (\d{6})/.exec(mail?.text_body ?? "")?.[1];
  if (!code) throw new Error(`no sign-in code for ${email}`);
  const codeStatus = await post({ intent: "code", code });
  if (codeStatus !== 302) throw new Error(`sign-in code step answered ${codeStatus} for ${email}`);
  return cookie();
}

/** A signed-in member with their active checking and savings accounts. */
export async function memberWithAccounts(db: Database["db"], email: string, cookie: string): Promise<Member> {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  const accounts = await db.select().from(ledgerAccounts).where(eq(ledgerAccounts.member_id, user!.id));
  const account = (type: string) => {
    const active = accounts.filter((a) => a.type === type && a.status === "active");
    // Exactly one of each: a second set would mean the demo was seeded twice.
    if (active.length !== 1) throw new Error(`${email} has ${active.length} active ${type} accounts`);
    return active[0]!.id;
  };
  return { email, cookie, checking_id: account("checking"), savings_id: account("savings") };
}

export type Outcome =
  | { kind: "acknowledged"; reference: string; served_by: string | null }
  | { kind: "unavailable"; status: number }
  | { kind: "try_again" }
  | { kind: "failed"; status: number; body: string };

/**
 * One Between Accounts transfer over HTTP, posted as the dashboard does with JavaScript. 502 and
 * 503 (a proxy with no process left to ask, or a process without its database) are "unavailable":
 * the form keeps its key and the member tries again.
 */
export async function postTransfer(base: string, member: Member, idempotency_key: string, amount_cents: number, reference: string): Promise<Outcome> {
  let response: Response;
  try {
    response = await fetch(`${base}/dashboard.data`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: member.cookie, origin: base, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        intent: "internal",
        from_account_id: String(member.checking_id),
        to_account_id: String(member.savings_id),
        amount: (amount_cents / 100).toFixed(2),
        reference,
        idempotency_key,
      }).toString(),
    });
  } catch (error) {
    // Nobody answered at all: the socket was refused or dropped.
    return { kind: "failed", status: 0, body: String((error as Error).cause ?? error) };
  }
  const body = await response.text();
  if (response.status === 503 || response.status === 502) return { kind: "unavailable", status: response.status };
  const transaction = /"(MU\d{8,})"/.exec(body)?.[1];
  if (response.status === 200 && transaction && body.includes('"done"')) {
    return { kind: "acknowledged", reference: transaction, served_by: response.headers.get("x-served-by") };
  }
  // The transfer form's own answer when the database failed mid-transfer: try again, same key.
  if (response.status === 200 && body.includes('"refused"') && body.includes('"failed"')) return { kind: "try_again" };
  return { kind: "failed", status: response.status, body: body.slice(0, 300) };
}
