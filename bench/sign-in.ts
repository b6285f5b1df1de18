/**
 * Sign-ins per second (issue 17, capacity: docs/operations.md "Scaling"). The whole two-step
 * sign-in as the service runs it, in this process on a database of its own: `startSignIn` (the
 * address's rate limit, the lockout check, the password check with argon2id at 19 MiB
 * and two passes, the challenge, the emailed code written to the outbox), the code read back
 * from the outbox, then `verifySignInCode` (the code, the session). At 1, 2, 4 and 8 sign-ins at
 * once; beside it, in the same run, argon2id's verify alone at the same concurrency: the floor
 * that no sign-in goes under. HTTP is left out (about 1 ms of a request, measured for transfers
 * in bench/transfers.ts, against tens of milliseconds here).
 *
 * Each sign-in comes from an address of its own (10.x.y.z), as a crowd of members does: the
 * per-address limit (30 in 15 minutes) is a guard, not what is measured. Each client signs its own
 * members in, one after another, so no member has two sign-ins open at once.
 *
 *   node --import tsx bench/sign-in.ts   (writes results/sign-in.json, or sign-in-postgres.json)
 *
 * Environment: BENCH_SECONDS (5 timed per point, after 1 s of warm-up), BENCH_CLIENTS (1,2,4,8),
 * BENCH_MEMBERS (64), BENCH_DATABASE_URL (a PostgreSQL server: a database of its own is created
 * there and dropped at the end; otherwise PGlite in a temporary folder).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { desc, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { onPgliteDatabase, onServerDatabase, writeResults } from "./support";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CLIENTS = (process.env.BENCH_CLIENTS ?? "1,2,4,8").split(",").map(Number);
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 64);
const SERVER_URL = process.env.BENCH_DATABASE_URL;
const PASSWORD = "Bench-Member-Pass-1";

process.env.SESSION_SECRET ??= crypto.randomBytes(32).toString("hex");
process.env.DATA_ENCRYPTION_KEY ??= crypto.randomBytes(32).toString("hex");
process.env.LOG_LEVEL = "warn";
// The app's own folder (uploads, keys), never ./data: a new one, removed at the end.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-bench-sign-in-"));
process.env.DATA_DIR = dataDir;

const { migrateDatabase } = await import("~/server/db/client.server");
const schema = await import("~/server/db/schema");
const { authFor, hashPassword, verifyPassword } = await import("~/server/auth/auth.server");
const { startSignIn, verifySignInCode } = await import("~/server/auth/sign-in.server");
const { passkeySignInOptions, signInWithPasskey } = await import("~/server/auth/sign-in-passkey.server");
const { relyingParty } = await import("~/server/auth/passkeys.server");
const { assertion, newCredential, registrationResponse } = await import("../tests/soft-authenticator");
const { verifyRegistrationResponse } = await import("@simplewebauthn/server");
const pg = (await import("pg")).default;

let addresses = 0;
/** A new address for each sign-in: 10.0.0.1, 10.0.0.2, ... */
function nextAddress(): string {
  const n = ++addresses;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const round = (n: number, places = 1) => Math.round(n * 10 ** places) / 10 ** places;

interface Point {
  clients: number;
  per_second: number;
  p50_ms: number;
  p95_ms: number;
  /** This process's CPU (every thread, argon2's included) per sign-in or per check. */
  cpu_ms_each: number;
}

/** `one` run by `clients` loops for 1 s untimed, then SECONDS timed. */
async function drive(clients: number, one: (client: number) => Promise<void>): Promise<Point> {
  const warm_until = performance.now() + 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      while (performance.now() < warm_until) await one(c);
    }),
  );
  const times: number[] = [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await one(c);
        times.push(performance.now() - t);
      }
    }),
  );
  const elapsed_s = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  return {
    clients,
    per_second: round(times.length / elapsed_s),
    p50_ms: round(percentile(times, 50)),
    p95_ms: round(percentile(times, 95)),
    cpu_ms_each: round((used.user + used.system) / 1000 / times.length),
  };
}

async function main() {
  // A database of the bench's own (bench/support.ts), removed at the end.
  try {
    if (SERVER_URL)
      await onServerDatabase("sign_in", (database) => measure(database, true), { server_url: SERVER_URL });
    else await onPgliteDatabase("sign-in", (database) => measure(database, false));
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measure(database: Database, on_postgres: boolean) {
  await migrateDatabase(database);
  const db = database.db;
  const context = await authFor(db).$context;
  const password_hash = await hashPassword(PASSWORD);
  const emails: string[] = [];
  for (let i = 0; i < MEMBERS; i++) {
    const email = `sign-in-${i}@bench.example`;
    const user = await context.internalAdapter.createUser(
      { email, name: `Bench Member ${i}`, emailVerified: true, role: "user", twoFactorEnabled: true },
      { method: "admin" } as never,
    );
    await context.internalAdapter.linkAccount({
      userId: user.id,
      providerId: "credential",
      accountId: user.id,
      password: password_hash,
    });
    await db.insert(schema.memberProfiles).values({
      user_id: user.id,
      first_name: "Bench",
      last_name: `Member ${i}`,
      status: "approved",
    } as typeof schema.memberProfiles.$inferInsert);
    emails.push(email);
  }

  // Each member also has a passkey (registered as Account Settings would, without the password step).
  const rp = relyingParty();
  const credentials = new Map<string, ReturnType<typeof newCredential>>();
  for (const email of emails) {
    const [user] = await db.select({ id: schema.users.id }).from(schema.users).where(eq(schema.users.email, email));
    const credential = newCredential(user!.id);
    const response = registrationResponse(credential, { challenge: "YmVuY2g", origin: rp.origin, rp_id: rp.rp_id });
    const verified = await verifyRegistrationResponse({
      response: response as never,
      expectedChallenge: "YmVuY2g",
      expectedOrigin: rp.origin,
      expectedRPID: rp.rp_id,
    });
    const info = verified.registrationInfo!;
    await db.insert(schema.passkeys).values({
      user_id: user!.id,
      name: "Bench phone",
      credential_id: info.credential.id,
      public_key: Buffer.from(info.credential.publicKey).toString("base64url"),
      counter: 0,
      device_type: info.credentialDeviceType,
    });
    credentials.set(email, credential);
  }
  const passkeySignIn = async (client: number, clients: number) => {
    const own = emails.filter((_, i) => i % clients === client);
    const k = turn.get(client) ?? 0;
    turn.set(client, k + 1);
    const email = own[k % own.length]!;
    const meta = { ip: nextAddress(), user_agent: "bench", cookie: "" };
    const options = await passkeySignInOptions(db, meta);
    if (!options.ok) throw new Error(`passkey options: ${options.message}`);
    const response = assertion(credentials.get(email)!, {
      challenge: options.options.challenge,
      origin: rp.origin,
      rp_id: rp.rp_id,
    });
    const result = await signInWithPasskey(db, meta, { response_json: JSON.stringify(response) });
    if (!result.ok) throw new Error(`passkey sign-in: ${result.message}`);
  };

  /** One whole sign-in of the client's next member, refused loudly if any step is not the expected one. */
  const turn = new Map<number, number>();
  const signIn = async (client: number, clients: number, marks: { code_read?: (reading: boolean) => void } = {}) => {
    const own = emails.filter((_, i) => i % clients === client);
    const k = turn.get(client) ?? 0;
    turn.set(client, k + 1);
    const email = own[k % own.length]!;
    const meta = { ip: nextAddress(), user_agent: "bench", cookie: "" };
    const started = await startSignIn(db, meta, { email, password: PASSWORD });
    if (!started.ok || started.status !== "challenge") throw new Error(`sign-in step 1: ${JSON.stringify(started)}`);
    const cookie = started.set_cookies.map((line) => line.split(";")[0]).join("; ");
    marks.code_read?.(true);
    const [mail] = await db
      .select({ text: schema.outbox.text_body })
      .from(schema.outbox)
      .where(eq(schema.outbox.to_email, email))
      .orderBy(desc(schema.outbox.id))
      .limit(1);
    const code = /code is: (\d{6})/.exec(mail?.text ?? "")?.[1];
    if (!code) throw new Error("no sign-in code in the outbox");
    marks.code_read?.(false);
    const verified = await verifySignInCode(db, { ...meta, cookie }, { code });
    if (!verified.ok) throw new Error(`sign-in step 2: ${verified.message}`);
  };
  const check = async () => {
    if (!(await verifyPassword({ hash: password_hash, password: PASSWORD })))
      throw new Error("the hash did not verify");
  };

  const load_before = os.loadavg().map((n) => round(n, 2));
  const points: { clients: number; sign_in: Point; passkey_sign_in: Point; argon2_verify_alone: Point }[] = [];
  for (const clients of CLIENTS) {
    const sign_in = await drive(clients, (c) => signIn(c, clients));
    const passkey_sign_in = await drive(clients, (c) => passkeySignIn(c, clients));
    const argon2_verify_alone = await drive(clients, check);
    points.push({ clients, sign_in, passkey_sign_in, argon2_verify_alone });
    console.log(
      `${clients} at once: ${sign_in.per_second} sign-ins/s (p50 ${sign_in.p50_ms} ms, p95 ${sign_in.p95_ms} ms, CPU ${sign_in.cpu_ms_each} ms each); passkey ${passkey_sign_in.per_second}/s (p50 ${passkey_sign_in.p50_ms} ms, p95 ${passkey_sign_in.p95_ms} ms, CPU ${passkey_sign_in.cpu_ms_each} ms each); argon2id verify alone ${argon2_verify_alone.per_second}/s (CPU ${argon2_verify_alone.cpu_ms_each} ms each)`,
    );
  }
  // The statements of one sign-in of each kind, counted where node-postgres sends them. The
  // bench's own reading of the code from the outbox, between the two steps, is not the sign-in's.
  let statements: { password_and_code: number; password_step: number; code_step: number; passkey: number } | null =
    null;
  if (on_postgres) {
    const counted = { n: 0, paused: false, step: 1, by_step: [0, 0, 0], texts: [] as string[] };
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
      if (!counted.paused) {
        counted.n += 1;
        counted.by_step[counted.step]! += 1;
        const first = args[0] as string | { text?: string };
        counted.texts.push(
          (typeof first === "string" ? first : (first?.text ?? "")).replace(/\s+/g, " ").slice(0, 160),
        );
      }
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      await signIn(0, 1, {
        code_read: (reading) => {
          counted.paused = reading;
          counted.step = 2;
        },
      });
      const password_and_code = counted.n;
      const [, password_step, code_step] = counted.by_step as [number, number, number];
      // BENCH_LIST_STATEMENTS=1: each statement of the two-step sign-in, to see where they go.
      if (process.env.BENCH_LIST_STATEMENTS === "1")
        counted.texts.forEach((text, i) => console.log(`${i + 1}. ${text}`));
      counted.n = 0;
      await passkeySignIn(0, 1);
      statements = { password_and_code, password_step, code_step, passkey: counted.n };
    } finally {
      pg.Client.prototype.query = query;
    }
    console.log(
      `statements: password and code ${statements.password_and_code} (password ${statements.password_step}, code ${statements.code_step}), passkey ${statements.passkey}`,
    );
  }
  const result = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    database: on_postgres
      ? "PostgreSQL (a database of its own on BENCH_DATABASE_URL's server; its CPU is not in cpu_ms_each)"
      : "PGlite (in this process, on disk)",
    load_average: { before: load_before, after: os.loadavg().map((n) => round(n, 2)) },
    members: MEMBERS,
    seconds_per_point: SECONDS,
    argon2id: "m=19 MiB, t=2, p=1 (@node-rs/argon2, on libuv's thread pool)",
    statements,
    points,
  };
  writeResults(on_postgres ? "sign-in-postgres.json" : "sign-in.json", result);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
