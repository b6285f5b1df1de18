// Reads an environment file exactly as systemd's EnvironmentFile= does (systemd's env-file.c), so
// that a maintenance command run by hand sees the values the service sees. A shell does not: `set
// -a; . mutual.env` runs a URL's `&` as a command and expands `$`, and Node's --env-file cuts a
// value at ` #` and knows no continuation lines.
//
// The rules, as systemd applies them:
// - one NAME=value a line; blank lines and lines starting with # or ; are comments;
// - spaces around the name and before the value are dropped, and trailing spaces of an unquoted value;
// - nothing is expanded or run: $, &, `, # and ; inside a value are kept as they are;
// - 'single quotes' keep everything; "double quotes" take \" \\ \` \$ as escapes and keep any other
//   backslash; outside quotes a backslash keeps the next character, and at the end of a line joins
//   the next line;
// - a line without = is skipped; a name that is not letters, digits and _ (not starting with a digit),
//   such as `export NAME`, is skipped with a warning, as systemd logs "Ignoring invalid environment
//   assignment".

const SHELL_NEED_ESCAPE = '"\\`$';
const isNewline = (c) => c === "\n" || c === "\r";
const isWhitespace = (c) => c === " " || c === "\t" || isNewline(c);

/**
 * @param {string} text the file's contents
 * @returns {{ values: Record<string, string>, skipped: { line: number, name: string }[] }} the
 *   variables in file order (a later line wins), and the assignments skipped for a bad name (by
 *   line number and name only: a value may be a secret)
 */
export function parseEnvironmentFile(text) {
  /** @type {Record<string, string>} */
  const values = {};
  /** @type {{ line: number, name: string }[]} */
  const skipped = [];
  let state = "PRE_KEY";
  let key = "";
  let value = "";
  let line = 1;
  let assignmentLine = 1;
  // Where an unquoted value's (or the name's) trailing whitespace starts, or -1.
  let valueWhitespace = -1;
  let keyWhitespace = -1;

  const push = () => {
    const name = keyWhitespace >= 0 ? key.slice(0, keyWhitespace) : key;
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !value.includes("\0")) values[name] = value;
    else skipped.push({ line: assignmentLine, name });
    key = "";
    value = "";
    keyWhitespace = -1;
    valueWhitespace = -1;
  };
  const chompValue = () => {
    if (valueWhitespace >= 0) value = value.slice(0, valueWhitespace);
  };

  for (const c of text) {
    switch (state) {
      case "PRE_KEY":
        if (c === "#" || c === ";") state = "COMMENT";
        else if (isNewline(c)) line++;
        else if (!isWhitespace(c)) {
          state = "KEY";
          assignmentLine = line;
          keyWhitespace = -1;
          key = c;
        }
        break;
      case "KEY":
        if (isNewline(c)) {
          // A line without =: not an assignment.
          state = "PRE_KEY";
          line++;
          key = "";
        } else if (c === "=") {
          state = "PRE_VALUE";
          valueWhitespace = -1;
        } else {
          if (!isWhitespace(c)) keyWhitespace = -1;
          else if (keyWhitespace < 0) keyWhitespace = key.length;
          key += c;
        }
        break;
      case "PRE_VALUE":
        if (isNewline(c)) {
          state = "PRE_KEY";
          line++;
          push();
        } else if (c === "'") state = "SINGLE_QUOTE_VALUE";
        else if (c === '"') state = "DOUBLE_QUOTE_VALUE";
        else if (c === "\\") state = "VALUE_ESCAPE";
        else if (!isWhitespace(c)) {
          state = "VALUE";
          value += c;
        }
        break;
      case "VALUE":
        if (isNewline(c)) {
          state = "PRE_KEY";
          line++;
          chompValue();
          push();
        } else if (c === "\\") {
          state = "VALUE_ESCAPE";
          valueWhitespace = -1;
        } else {
          if (!isWhitespace(c)) valueWhitespace = -1;
          else if (valueWhitespace < 0) valueWhitespace = value.length;
          value += c;
        }
        break;
      case "VALUE_ESCAPE":
        state = "VALUE";
        // An escaped line end joins the next line.
        if (isNewline(c)) line++;
        else value += c;
        break;
      case "SINGLE_QUOTE_VALUE":
        if (c === "'") state = "PRE_VALUE";
        else {
          if (c === "\n") line++;
          value += c;
        }
        break;
      case "DOUBLE_QUOTE_VALUE":
        if (c === '"') state = "PRE_VALUE";
        else if (c === "\\") state = "DOUBLE_QUOTE_VALUE_ESCAPE";
        else {
          if (c === "\n") line++;
          value += c;
        }
        break;
      case "DOUBLE_QUOTE_VALUE_ESCAPE":
        state = "DOUBLE_QUOTE_VALUE";
        if (SHELL_NEED_ESCAPE.includes(c)) value += c;
        else if (c === "\n") line++;
        else value += `\\${c}`;
        break;
      case "COMMENT":
        if (isNewline(c)) {
          state = "PRE_KEY";
          line++;
        }
        break;
    }
  }
  // The last line needs no line end; an unclosed quote keeps what it holds, as systemd does.
  if (state === "VALUE") chompValue();
  if (state !== "PRE_KEY" && state !== "KEY" && state !== "COMMENT") push();
  return { values, skipped };
}

/**
 * What a systemd service starts with before its EnvironmentFile: none of the caller's own
 * variables (a leftover DATABASE_URL or MUTUAL_DRILL in an operator's shell must not leak into the
 * command), only what finds programs and names the user.
 */
export const PASSED_THROUGH = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "TERM", "TZ"];
