import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import compression from "compression";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeReadableStreamToWritable } from "@react-router/node";
import { wholeAnswers } from "~/server/http/whole-answers.server";

/** The app's order: compression, then whole answers, then the routes (server.ts). */
let server: http.Server;
let base: string;
let releaseSecondPart: () => void = () => {};

/**
 * An answer written as React Router's adapter writes it: chunk by chunk from a web stream (text
 * encoded, as its single-fetch answers), each write followed by compression's flush, then end().
 * Parts all known at once are enqueued at once, as React Router's encoder does for data without
 * promises.
 */
async function asTheAdapterWrites(res: express.Response, parts: AsyncIterable<string> | string[]) {
  res.type("text/x-script");
  const iterator = Array.isArray(parts) ? undefined! : parts[Symbol.asyncIterator]();
  const text = Array.isArray(parts)
    ? new ReadableStream<string>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      })
    : new ReadableStream<string>({
        async pull(controller) {
          const next = await iterator.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
      });
  await writeReadableStreamToWritable(text.pipeThrough(new TextEncoderStream()), res);
}

beforeAll(async () => {
  const app = express();
  app.use(compression());
  app.use(wholeAnswers());
  app.get("/small", (_req, res) => void asTheAdapterWrites(res, ["a".repeat(200), "b".repeat(200)]));
  app.get("/large", (_req, res) => void asTheAdapterWrites(res, ["c".repeat(3000)]));
  app.get("/streamed", (_req, res) => {
    const second = new Promise<void>((resolve) => (releaseSecondPart = resolve));
    async function* parts() {
      yield "first part;";
      await second;
      yield "second part";
    }
    void asTheAdapterWrites(res, parts());
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

function get(
  path: string,
  onFirstData?: (text: string) => void,
): Promise<{ headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${path}`, { headers: { "accept-encoding": "gzip, deflate, br" } }, (res) => {
        const encoding = res.headers["content-encoding"];
        const body =
          encoding === "br"
            ? res.pipe(zlib.createBrotliDecompress())
            : encoding === "gzip"
              ? res.pipe(zlib.createGunzip())
              : res;
        let text = "";
        body.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
          onFirstData?.(text);
          onFirstData = undefined;
        });
        body.on("end", () => resolve({ headers: res.headers, text }));
        body.on("error", reject);
      })
      .on("error", reject);
  });
}

describe("answers ready at once go out whole", () => {
  it("a small answer written in chunks is sent whole with its length, not compressed (under compression's 1 KiB threshold)", async () => {
    const { headers, text } = await get("/small");
    expect(text).toBe("a".repeat(200) + "b".repeat(200));
    expect(headers["content-encoding"]).toBeUndefined();
    expect(headers["content-length"]).toBe("400");
    expect(headers["vary"]).toBe("Accept-Encoding");
  });

  it("a large one is still compressed", async () => {
    const { headers, text } = await get("/large");
    expect(headers["content-encoding"]).toBe("br");
    expect(text).toBe("c".repeat(3000));
  });

  it("a streamed answer's first part reaches the browser before the rest exists, compressed", async () => {
    // The second part is released only once the browser has the first: were the first held back
    // (here or in the encoder), this would never end.
    const { headers, text } = await get("/streamed", (first) => {
      expect(first).toBe("first part;");
      releaseSecondPart();
    });
    expect(headers["content-encoding"]).toBe("br");
    expect(text).toBe("first part;second part");
  });
});
