import type { FormReply } from "~/components/ui";

/**
 * The answer of a back-office money action (app/server/member-accounts/actions.server.ts), as the
 * page receives it: which form answered (`intent` and `target`), its FormReply, and the message.
 */
export interface MoneyResult {
  intent: string;
  target: string;
  reply: FormReply;
  message: string;
  tone: "success" | "error";
}

export function isMoneyResult(value: unknown): value is MoneyResult {
  return Boolean(value && typeof value === "object" && "reply" in value && "target" in value && "intent" in value);
}

/** The answer if it belongs to this form, else undefined. */
export function resultFor(
  result: unknown,
  intent: string | readonly string[],
  target?: string | number,
): MoneyResult | undefined {
  if (!isMoneyResult(result)) return undefined;
  const intents = typeof intent === "string" ? [intent] : intent;
  if (!intents.includes(result.intent)) return undefined;
  if (target !== undefined && result.target !== String(target)) return undefined;
  return result;
}

/** The answer's message about the whole form (not one field), if any: a refusal from the server. */
export function formMessageOf(result: MoneyResult | undefined): string | undefined {
  const messages = (result?.reply as { error?: Record<string, string[] | null> } | undefined)?.error?.[""];
  return messages?.[0] ?? undefined;
}
