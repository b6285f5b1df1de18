/**
 * Password rules (docs/product.md#passwords): at least 12 characters, at most 128, and not a common
 * password. Shared by the server and the browser (for quick feedback); the server decides.
 */
export const PASSWORD_MIN_CHARS = 12;
export const PASSWORD_MAX_CHARS = 128;

export const PASSWORD_TOO_SHORT = "Password should be at least 12 characters long.";
export const PASSWORD_TOO_LONG = "Password should be at most 128 characters long.";
export const PASSWORD_TOO_COMMON = "This password is too common. Please choose one that is harder to guess.";
export const PASSWORDS_DO_NOT_MATCH = "Passwords do not match";
/** "Choose a new password" after a temporary one: the new one must differ from it. */
export const SAME_AS_TEMPORARY_PASSWORD = "Your new password must be different from the temporary password.";

/**
 * Long passwords that appear high in breach lists (lower-cased). Shorter ones are already refused
 * by the length rule.
 */
const COMMON_PASSWORDS = new Set([
  "123456789012",
  "1234567890123",
  "12345678901234",
  "123456789123",
  "1234567891011",
  "123123123123",
  "111111111111",
  "000000000000",
  "123412341234",
  "121212121212",
  "987654321098",
  "098765432109",
  "qwertyuiop12",
  "qwertyuiop123",
  "qwerty123456",
  "qwerty1234567",
  "qwertyqwerty",
  "qwertyuiopasdfghjkl",
  "asdfghjkl123",
  "asdfghjkl;'",
  "asdfasdfasdf",
  "zxcvbnm12345",
  "1q2w3e4r5t6y",
  "1q2w3e4r5t6y7u",
  "1qaz2wsx3edc",
  "1qaz2wsx3edc4rfv",
  "zaq12wsxcde3",
  "zaq1zaq1zaq1",
  "q1w2e3r4t5y6",
  "a1b2c3d4e5f6",
  "abcdefghijkl",
  "abcdefghijklm",
  "abc123abc123",
  "abcd1234abcd",
  "password1234",
  "password12345",
  "password123456",
  "passwordpassword",
  "password1password",
  "p@ssw0rd1234",
  "passw0rd1234",
  "mypassword123",
  "iloveyou1234",
  "iloveyou123456",
  "welcome12345",
  "welcome123456",
  "letmein12345",
  "letmeinletmein",
  "administrator",
  "administrator1",
  "adminadmin123",
  "admin1234567",
  "changeme1234",
  "changeme123456",
  "trustno112345",
  "monkey123456",
  "dragon123456",
  "football1234",
  "football12345",
  "baseball1234",
  "basketball12",
  "basketball123",
  "sunshine1234",
  "princess1234",
  "superman1234",
  "starwars1234",
  "whatever1234",
  "computer1234",
  "internet1234",
  "masterkey123",
  "michael12345",
  "jennifer1234",
  "liverpool123",
  "chelsea12345",
  "manchester12",
  "blink1821821",
  "thequickbrownfox",
  "correcthorsebatterystaple",
  "onlinebanking",
  "onlinebanking1",
  "bankaccount1",
  "creditunion1",
  "mybankpassword",
  "securepassword",
  "securepassword1",
  "strongpassword",
  "strongpassword1",
  "verysecurepassword",
  "nopassword123",
  "temppassword1",
]);

/** Words that, padded with digits or symbols, make the most guessed "long" passwords. */
const COMMON_BASE_WORDS = new Set([
  "password",
  "passw0rd",
  "p@ssword",
  "p@ssw0rd",
  "qwerty",
  "qwertyuiop",
  "letmein",
  "welcome",
  "iloveyou",
  "admin",
  "administrator",
  "monkey",
  "dragon",
  "football",
  "baseball",
  "basketball",
  "soccer",
  "hockey",
  "sunshine",
  "princess",
  "master",
  "shadow",
  "superman",
  "batman",
  "michael",
  "jennifer",
  "jessica",
  "ashley",
  "trustno1",
  "starwars",
  "whatever",
  "changeme",
  "abc123",
  "secret",
  "login",
  "user",
  "test",
  "guest",
  "default",
  "banking",
  "bank",
  "money",
  "summer",
  "winter",
  "spring",
  "autumn",
  "freedom",
  "hello",
  "charlie",
  "america",
  "usa",
]);

function isRepetitive(password: string): boolean {
  // One character repeated, or a block of up to 4 characters repeated: "aaaaaaaaaaaa", "abcabcabcabc".
  if (/^(.{1,4})\1+$/u.test(password)) return true;
  // An ascending or descending run of digits or letters: "123456789012", "abcdefghijklmn".
  const codes = [...password.toLowerCase()].map((c) => c.codePointAt(0)!);
  const steps = new Set(codes.slice(1).map((code, i) => code - codes[i]!));
  return steps.size === 1 && (steps.has(1) || steps.has(-1));
}

function withoutPadding(password: string): string {
  // Years, counters and symbols around a word: "Password2024!" -> "password".
  return password
    .toLowerCase()
    .replace(/^[\d\W_]+/u, "")
    .replace(/[\d\W_]+$/u, "");
}

/** True when a password is in the breach list, is a common word padded out, or is a pattern. */
export function isCommonPassword(password: string): boolean {
  const lower = password.toLowerCase();
  if (COMMON_PASSWORDS.has(lower)) return true;
  if (isRepetitive(password)) return true;
  const base = withoutPadding(password);
  // Only digits and symbols: common when a pattern (checked above), otherwise as strong as its length.
  if (base.length === 0) return false;
  if (COMMON_BASE_WORDS.has(base)) return true;
  // The same common word twice, e.g. "welcomewelcome", "Password-Password".
  const half = base.replace(/[\d\W_]+/gu, "");
  for (const word of COMMON_BASE_WORDS) if (half === word + word) return true;
  return false;
}

/** The message for a password that breaks a rule, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_CHARS) return PASSWORD_TOO_SHORT;
  if (password.length > PASSWORD_MAX_CHARS) return PASSWORD_TOO_LONG;
  if (isCommonPassword(password)) return PASSWORD_TOO_COMMON;
  return null;
}
