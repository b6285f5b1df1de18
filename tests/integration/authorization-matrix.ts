import "./admin-support";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RouterContextProvider } from "react-router";
import type { Database, Db } from "~/server/db/client.server";
import { setAppDatabase } from "~/server/db/db.server";
import { requestInfoContext } from "~/context";
import { applicant, person, signedIn } from "./admin-support";
import { openTestDatabase } from "./test-database";
import { fundedMember } from "../factories";

/**
 * One set-up for the authorization-matrix tests (docs/product.md#access-rules): the people signed
 * in once, requests as each of them, a loader or action run the way React Router runs it, and the
 * "sent away" answer every refused page gives. Each test file keeps its own table of routes and
 * what each person must get.
 */

export const HOST = "http://localhost:3000";

/**
 * Where a signed-in person is sent when a page is not theirs: their own home. (A visitor is sent
 * to /login with the way back instead.)
 */
export const HOME = {
  applicant: "/pending-approval",
  pending: "/pending-approval",
  rejected: "/not-approved",
  member: "/dashboard",
  other_member: "/dashboard",
  another_member: "/dashboard",
  reviewer: "/admin",
  staff: "/admin",
  // The books only (docs/product.md#books): every other back-office page sends an accountant there.
  accountant: "/admin/books",
} as const;

/** What a refused action answers: 401 to a visitor (no session), 403 to anyone signed in. */
export function refusedStatus(persona: string): 401 | 403 {
  return persona === "anonymous" ? 401 : 403;
}

type MemberOptions = Parameters<typeof fundedMember>[1];

/**
 * The usual cast: staff who may move money (role admin), a reviewer (staff without money
 * powers), an applicant whose application is pending, a funded member and another member.
 */
export async function matrixCast(db: Db, options: { member?: MemberOptions; other_member?: MemberOptions } = {}) {
  const staff = await person(db, "admin");
  const reviewer = await person(db, "reviewer");
  const pending = await applicant(db);
  const member = await fundedMember(db, options.member ?? {});
  const other_member = await fundedMember(db, options.other_member ?? {});
  return { staff, reviewer, applicant: pending, member, other_member };
}

/**
 * The people's session cookies, and requests made as one of them. A persona with no cookie (the
 * visitor, "anonymous") sends none. Every request carries the app's own Origin, as a browser's
 * same-site form post does.
 */
export class SignedIn<P extends string> {
  readonly cookies: Partial<Record<P, string>> = {};

  /** Signs each person in, in the order given: persona -> user id. */
  static async as<P extends string>(db: Db, people: Partial<Record<P, string>>): Promise<SignedIn<P | "anonymous">> {
    const signed = new SignedIn<P | "anonymous">();
    for (const [persona, user_id] of Object.entries(people) as [P, string][])
      signed.cookies[persona] = await signedIn(db, user_id);
    return signed;
  }

  headers(persona: P, extra: Record<string, string> = {}): Headers {
    const headers = new Headers({ origin: HOST, ...extra });
    const cookie = this.cookies[persona];
    if (cookie) headers.set("cookie", cookie);
    return headers;
  }

  get(persona: P, path: string): Request {
    return new Request(`${HOST}${path}`, { headers: this.headers(persona) });
  }

  /** A form post (application/x-www-form-urlencoded); a list stands for a field repeated. */
  post(persona: P, path: string, form: Record<string, string | string[]>): Request {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form))
      for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
    return new Request(`${HOST}${path}`, {
      method: "POST",
      headers: this.headers(persona, { "content-type": "application/x-www-form-urlencoded" }),
      body,
    });
  }

  /** A GET without a form, or a form post with one: the shape most matrix tables use. */
  request(persona: P, path: string, form?: Record<string, string | string[]>): Request {
    return form ? this.post(persona, path, form) : this.get(persona, path);
  }

  /** A multipart post (files), with any extra headers (a declared content-length, say). */
  upload(persona: P, path: string, fields: Record<string, string | File>, extra: Record<string, string> = {}): Request {
    const body = new FormData();
    for (const [name, value] of Object.entries(fields)) body.append(name, value);
    return new Request(`${HOST}${path}`, { method: "POST", headers: this.headers(persona, extra), body });
  }
}

/** A route context as the server makes it, with the request id and address audits record. */
export function routeContext(info: { request_id: string; ip: string }): () => RouterContextProvider {
  return () => {
    const provider = new RouterContextProvider();
    provider.set(requestInfoContext, { ...info, nonce: "" });
    return provider;
  };
}

/**
 * What the browser would get from a loader or action: a redirect (with where to), a refusal
 * (4xx/5xx) or an answer. `body` is the text or the data as JSON (a binary file stands as its
 * type in brackets); `value` is the data itself, or the Response.
 */
export interface Outcome {
  kind: "redirect" | "refused" | "ok";
  status: number;
  location?: string;
  body: string;
  value: unknown;
}

/** Runs a loader or action the way React Router does: a thrown Response or data() is the answer. */
export async function run(fn: () => Promise<unknown>): Promise<Outcome> {
  let value: unknown;
  try {
    value = await fn();
  } catch (thrown) {
    value = thrown;
  }
  const kind = (status: number) => (status >= 300 && status < 400 ? "redirect" : status >= 400 ? "refused" : "ok");
  if (value instanceof Response) {
    const type = value.headers.get("content-type") ?? "";
    const body = type.startsWith("image/") || type === "application/pdf" ? `[${type}]` : await value.clone().text();
    return {
      kind: kind(value.status),
      status: value.status,
      location: value.headers.get("location") ?? undefined,
      body,
      value,
    };
  }
  // data(payload, { status }): React Router's DataWithResponseInit.
  const wrapped = (value as { type?: string } | null)?.type === "DataWithResponseInit";
  const payload = wrapped ? (value as { data: unknown }).data : value;
  const status = (wrapped ? (value as { init?: { status?: number } | null }).init?.status : undefined) ?? 200;
  return { kind: kind(status), status, body: JSON.stringify(payload) ?? "", value: payload };
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A page refused to `persona`: a redirect, a visitor to /login with the way back to `from` (its
 * start; "" for any), anyone else to their own home.
 */
export function expectSentAway(outcome: Outcome, persona: string, from: string): void {
  expect(outcome.kind, persona).toBe("redirect");
  if (persona === "anonymous")
    expect(outcome.location, persona).toMatch(
      new RegExp(`^${escaped(`/login?redirectTo=${encodeURIComponent(from)}`)}`),
    );
  else expect(outcome.location, persona).toBe(HOME[persona as keyof typeof HOME]);
}

/**
 * One test per person for an action they may not take: it is refused (401 to a visitor, 403 to
 * anyone signed in), its answer shows nothing of `hides`, and `unchanged` (everything the action
 * could change) reads the same after as before.
 */
export function itRefuses<P extends string>(
  name: string,
  personas: readonly P[],
  attempt: (persona: P) => Promise<unknown>,
  options: { unchanged: () => Promise<unknown>; hides?: string },
): void {
  for (const persona of personas) {
    it(`${name} by ${persona} is refused (${refusedStatus(persona)}) and changes nothing`, async () => {
      const before = await options.unchanged();
      const outcome = await run(() => attempt(persona));
      expect(outcome).toMatchObject({ kind: "refused", status: refusedStatus(persona) });
      if (options.hides) expect(outcome.body).not.toContain(options.hides);
      expect(await options.unchanged()).toEqual(before);
    });
  }
}

/** The people of a matrix about a member's own records: the usual cast, the accountant (the books only), and a visitor. */
export const MEMBER_OWN_PERSONAS = [
  "anonymous",
  "applicant",
  "member",
  "other_member",
  "reviewer",
  "staff",
  "accountant",
] as const;
export type MemberOwnPersona = (typeof MEMBER_OWN_PERSONAS)[number];

/** A route module as the matrix calls it: its loader and action, each given a request. */
interface RouteModule {
  loader: (args: never) => Promise<unknown>;
  action: (args: never) => Promise<unknown>;
}

/**
 * The set-up of a matrix about a page of a member's own records (alerts, scheduled transfers): a
 * database for the file, the usual cast (`matrixCast`), `prepare` giving the member a record before
 * anyone signs in, everyone signed in, and the page and its posts as each person, run the way React
 * Router runs them. Its fields are set in the file's `beforeAll`.
 */
export function memberOwnMatrix<T>(options: {
  path: string;
  route: RouteModule;
  /** The request id and address of the page and posts' requests (audits record them). */
  request: { request_id: string; ip: string };
  cast?: Parameters<typeof matrixCast>[1];
  /** The member's record; `cast` for what else it needs (staff to export a file, the other member's account). */
  prepare: (
    db: Db,
    member: Awaited<ReturnType<typeof fundedMember>>,
    cast: Awaited<ReturnType<typeof matrixCast>>,
  ) => Promise<T>;
}) {
  const context = routeContext(options.request);
  const matrix = {
    database: undefined as unknown as Database,
    people: undefined as unknown as SignedIn<MemberOwnPersona>,
    member: undefined as unknown as Awaited<ReturnType<typeof fundedMember>>,
    /** What `prepare` answered. */
    prepared: undefined as unknown as T,
    context,
    page: (persona: MemberOwnPersona) =>
      run(() =>
        options.route.loader({
          request: matrix.people.get(persona, options.path),
          params: {},
          context: context(),
        } as never),
      ),
    post: (persona: MemberOwnPersona, form: Record<string, string>) =>
      run(() =>
        options.route.action({
          request: matrix.people.post(persona, options.path, form),
          params: {},
          context: context(),
        } as never),
      ),
  };
  beforeAll(async () => {
    matrix.database = await openTestDatabase();
    setAppDatabase(matrix.database);
    const db = matrix.database.db;
    const cast = await matrixCast(db, options.cast);
    matrix.member = cast.member;
    matrix.prepared = await options.prepare(db, cast.member, cast);
    matrix.people = await SignedIn.as(db, {
      staff: cast.staff.id,
      reviewer: cast.reviewer.id,
      accountant: (await person(db, "accountant")).id,
      applicant: cast.applicant.id,
      member: cast.member.member.id,
      other_member: cast.other_member.member.id,
    });
  });
  afterAll(async () => {
    await matrix.database?.close();
  });
  return matrix;
}

/**
 * A page of the member's own records: the member and another member each get it (`sees` checks
 * what each sees: the member's record or none of it), everyone else is sent away. Each of `posts`
 * by anyone but the member is refused (another member: "not found", 404; the rest 401 or 403),
 * shows nothing of `hides`, and changes nothing of `state` (everything a post could change).
 */
export function itKeepsToTheMember(
  matrix: ReturnType<typeof memberOwnMatrix>,
  path: string,
  options: {
    sees: (persona: "member" | "other_member", outcome: Outcome) => void;
    posts: Array<{ intent: string; form: () => Record<string, string> }>;
    state: () => Promise<unknown>;
    hides: string;
    /** A post a persona may make of their own (another member turning off their own setting). */
    skip?: (intent: string, persona: MemberOwnPersona) => boolean;
  },
): void {
  for (const persona of MEMBER_OWN_PERSONAS) {
    it(`${path} for ${persona}`, async () => {
      const result = await matrix.page(persona);
      if (persona === "member" || persona === "other_member") {
        expect(result.status).toBe(200);
        options.sees(persona, result);
        return;
      }
      expect(result.status).toBe(302);
      expectSentAway(result, persona, path);
    });
  }
  for (const { intent, form } of options.posts) {
    for (const persona of MEMBER_OWN_PERSONAS.filter((p) => p !== "member")) {
      if (options.skip?.(intent, persona)) continue;
      it(`${intent} by ${persona} is refused and changes nothing`, async () => {
        const before = await options.state();
        const result = await matrix.post(persona, { intent, ...form() });
        if (persona === "other_member") {
          expect(result.status).toBe(404);
          expect(result.body).not.toContain(options.hides);
        } else expect([401, 403]).toContain(result.status);
        expect(await options.state()).toEqual(before);
      });
    }
  }
}
