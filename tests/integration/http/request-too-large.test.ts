import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestGuards, UPLOAD_BODY_MAX_BYTES } from "~/server/security/request-guards.server";

/**
 * A body over the request guards' limit is refused before it is read. A browser's form post
 * without JavaScript (a page request) gets a page that says the limit and links back to the
 * form; a React Router `.data` request and any other client keep the short plain answer.
 */
let server: http.Server;
let port = 0;
beforeAll(async () => {
  const app = express();
  app.use((_req, res, next) => {
    res.locals.request_id = "too-large-0001";
    res.locals.nonce = "bm9uY2U";
    next();
  });
  app.use(requestGuards());
  app.post("/{*splat}", (_req, res) => void res.send("read"));
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** Sends only the headers of a post declaring `length` bytes, and reads the answer. */
function post(
  path: string,
  headers: Record<string, string>,
  length: number,
): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: { Origin: `http://127.0.0.1:${port}`, "Content-Length": String(length), ...headers },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), body });
        });
      },
    );
    req.on("error", reject);
    req.flushHeaders();
  });
}

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
const MULTIPART = "multipart/form-data; boundary=----x";
const HUNDRED_MB = 100 * 1024 * 1024;

describe("a body over the limit", () => {
  it("a browser's page request gets a page: 413, HTML, the limit, a link back to the form it came from", async () => {
    const answer = await post(
      "/apply",
      { Accept: BROWSER_ACCEPT, "Content-Type": MULTIPART, Referer: `http://127.0.0.1:${port}/apply?step=2` },
      HUNDRED_MB,
    );
    expect(answer.status).toBe(413);
    expect(answer.type).toMatch(/^text\/html/);
    expect(answer.body).toContain("<h1>That file is too large</h1>");
    expect(answer.body).toContain(`We accept at most ${UPLOAD_BODY_MAX_BYTES / (1024 * 1024)} MB in one form.`);
    expect(answer.body).toContain('<a class="button" href="/apply?step=2">Back to the form</a>');
    expect(answer.body).toContain("Reference: too-large-0001");
    expect(answer.body).toContain('<style nonce="bm9uY2U">');
  });

  it("a Referer from another site is not linked: the way back is the home page", async () => {
    const answer = await post(
      "/apply",
      { Accept: BROWSER_ACCEPT, "Content-Type": MULTIPART, Referer: "https://evil.example/apply" },
      HUNDRED_MB,
    );
    expect(answer.body).toContain('<a class="button" href="/">Back to the form</a>');
  });

  it("a same-site Referer whose path starts with // is not linked: a browser reads //host as another site", async () => {
    const answer = await post(
      "/apply",
      { Accept: BROWSER_ACCEPT, "Content-Type": MULTIPART, Referer: `http://127.0.0.1:${port}//evil.example/apply` },
      HUNDRED_MB,
    );
    expect(answer.body).toContain('<a class="button" href="/">Back to the form</a>');
  });

  it("a form without files says the form's limit", async () => {
    const answer = await post(
      "/contact",
      { Accept: BROWSER_ACCEPT, "Content-Type": "application/x-www-form-urlencoded" },
      200_000,
    );
    expect(answer.status).toBe(413);
    expect(answer.body).toContain("We accept at most 64 KB in one form.");
  });

  it("a .data request and a client that does not ask for HTML keep the plain answer", async () => {
    for (const [path, accept] of [
      ["/apply.data", BROWSER_ACCEPT],
      ["/apply", "*/*"],
      ["/apply", "application/json"],
    ] as const) {
      const answer = await post(path, { Accept: accept, "Content-Type": MULTIPART }, HUNDRED_MB);
      expect(answer.status).toBe(413);
      expect(answer.type).toMatch(/^text\/plain/);
      expect(answer.body).toBe("The request is larger than we accept. Reference: too-large-0001");
    }
  });
});
