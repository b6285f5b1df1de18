/**
 * `npm run staff:create`: a staff account made on the server itself, the first step after the
 * migrations on a fresh installation (docs/operations.md#first-admin). Asks for the email address,
 * first and last name and role (admin unless told otherwise) on the terminal, or takes them as
 * flags for scripts:
 *
 *   npm run staff:create -- --email ops@example.org --first-name Ada --last-name Byron [--role reviewer]
 *
 * With no admin yet, nobody could approve a request, so the account is created at once and a
 * one-time set-up link is printed for the operator to hand to the person (they choose their own
 * password there; the email code to their address is their second factor). Once an admin exists,
 * dual control applies to this command too: it files a request that an admin approves in the
 * back office (Queues), and the link is then emailed to the address. Audited either way, with the
 * server command as the actor. Exits 0 when done, 1 when refused (bad input, the address taken, a
 * request already waiting), 2 when the database cannot be opened.
 */
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { z } from "zod";
import { scriptDatabase } from "~/server/db/db.server";
import { createStaffFromServer, STAFF_SET_UP_LINK_VALID_HOURS } from "~/server/admin/staff-grants.server";
import { hasControlCharacters } from "~/domain/plain-text";

const USAGE =
  "Usage: npm run staff:create -- --email <address> --first-name <name> --last-name <name> [--role admin|reviewer]";

const input = z.object({
  email: z
    .email("The email address is not valid.")
    .max(254)
    .transform((e) => e.toLowerCase()),
  first_name: z
    .string()
    .trim()
    .min(1, "The first name is missing.")
    .max(100)
    .refine((v) => !hasControlCharacters(v), "The first name has a control character."),
  last_name: z
    .string()
    .trim()
    .min(1, "The last name is missing.")
    .max(100)
    .refine((v) => !hasControlCharacters(v), "The last name has a control character."),
  role: z.enum(["admin", "reviewer"], "The role is admin or reviewer."),
});

async function ask(values: {
  email?: string;
  "first-name"?: string;
  "last-name"?: string;
  role?: string;
}): Promise<Record<string, string | undefined>> {
  const answers = {
    email: values.email?.trim(),
    first_name: values["first-name"],
    last_name: values["last-name"],
    role: values.role?.trim(),
  };
  const missing = !answers.email || !answers.first_name || !answers.last_name;
  if (!missing || !process.stdin.isTTY) return { ...answers, role: answers.role || "admin" };
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  try {
    answers.email ||= (await terminal.question("Email address: ")).trim();
    answers.first_name ||= await terminal.question("First name: ");
    answers.last_name ||= await terminal.question("Last name: ");
    answers.role ||= (await terminal.question("Role (admin or reviewer) [admin]: ")).trim();
  } finally {
    terminal.close();
  }
  return { ...answers, role: answers.role || "admin" };
}

async function main(): Promise<number> {
  let flags;
  try {
    flags = parseArgs({
      options: {
        email: { type: "string" },
        "first-name": { type: "string" },
        "last-name": { type: "string" },
        role: { type: "string" },
      },
    }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 1;
  }
  const parsed = input.safeParse(await ask(flags));
  if (!parsed.success) {
    console.error(`${parsed.error.issues.map((i) => i.message).join(" ")}\n${USAGE}`);
    return 1;
  }
  const v = parsed.data;
  let database;
  try {
    database = await scriptDatabase();
  } catch (error) {
    console.error(`staff:create cannot open the database: ${(error as Error).message}`);
    return 2;
  }
  try {
    const result = await createStaffFromServer(database.db, {
      email: v.email,
      role: v.role,
      profile: { first_name: v.first_name, last_name: v.last_name },
    });
    if (!result.ok) {
      console.error(
        result.code === "already_pending"
          ? `Refused: a staff role request for ${v.email} is already waiting for approval.`
          : `Refused: an account with the email ${v.email} already exists.`,
      );
      return 1;
    }
    switch (result.outcome) {
      case "created":
        console.log(`Created the ${v.role} account ${v.email} (no admin existed yet).`);
        console.log(
          `One-time set-up link (works once, for ${STAFF_SET_UP_LINK_VALID_HOURS} hours, until ${result.expires_at.toISOString()}):`,
        );
        console.log(result.set_up_url);
        console.log(
          "Give it to that person only. They choose their own password there, then sign in with the code emailed to that address.",
        );
        return 0;
      case "requested":
        console.log(
          `An admin already exists, so this is a request under dual control: request #${result.grant_id} waits in the back office (Queues, "Staff roles waiting for a second admin").`,
        );
        console.log(`Once an admin approves it, the set-up link is emailed to ${v.email}.`);
        return 0;
    }
  } finally {
    await database.close();
  }
}

process.exitCode = await main();
