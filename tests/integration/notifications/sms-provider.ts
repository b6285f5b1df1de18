import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local SMS provider for the tests, speaking Twilio's Messages API as Mutual uses it: POST
 * /2010-04-01/Accounts/{sid}/Messages.json, form-encoded To, From and Body, basic authentication.
 * It records each message and answers with the status the test chooses (201 with a sid unless set).
 */
export interface ReceivedText {
  path: string;
  authorization: string;
  to: string;
  from: string;
  body: string;
}

export interface LocalSmsProvider {
  origin: string;
  received: ReceivedText[];
  setAnswer: (fn: (text: ReceivedText) => number) => void;
  close: () => Promise<void>;
}

export async function startSmsProvider(port = 0): Promise<LocalSmsProvider> {
  const received: ReceivedText[] = [];
  let answer = (_text: ReceivedText) => 201;
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
      const text: ReceivedText = {
        path: req.url ?? "",
        authorization: String(req.headers.authorization ?? ""),
        to: form.get("To") ?? "",
        from: form.get("From") ?? "",
        body: form.get("Body") ?? "",
      };
      received.push(text);
      const status = answer(text);
      res.statusCode = status;
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify(
          status === 201
            ? { sid: `SM${String(++n).padStart(32, "0")}`, status: "queued" }
            : { code: status === 400 ? 21211 : 20500, message: "refused by the test", status },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${address.port}`,
    received,
    setAnswer: (fn) => {
      answer = fn;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The 6-digit code in a verification text. */
export function codeIn(text: ReceivedText | undefined): string {
  const code = /\b(\d{6})\b/.exec(text?.body ?? "")?.[1];
  if (!code) throw new Error("no code in the text");
  return code;
}
