/**
 * Passkeys (docs/product.md#passkeys): the rule for a passkey's name, shared by the server and the
 * Account Settings form.
 */
export const PASSKEY_NAME_MAX_CHARS = 60;

export type PasskeyNameCheck = { ok: true; name: string } | { ok: false; message: string };

/** The name a person gives a passkey: 1 to 60 characters, spaces folded, no control characters. */
export function checkPasskeyName(raw: unknown): PasskeyNameCheck {
  const name = typeof raw === "string" ? raw.replace(/\s+/g, " ").trim() : "";
  if (!name) return { ok: false, message: "Please give the passkey a name, such as the device it is on." };
  if (name.length > PASSKEY_NAME_MAX_CHARS)
    return { ok: false, message: `Please use at most ${PASSKEY_NAME_MAX_CHARS} characters.` };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return { ok: false, message: "Please use letters, digits and punctuation." };
  return { ok: true, name };
}
