import http from "node:http";
import type net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { postTransfer, type Member } from "../app-server";

/**
 * The helpers of the tests that start app processes (app-server.ts), where their own behaviour
 * decides whether those tests are reliable.
 */

const servers: http.Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server on a port of its own that answers every request with `answer`. */
async function serving(answer: http.RequestListener): Promise<string> {
  const server = http.createServer(answer);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

const member: Member = { email: "member@example.org", cookie: "__session=x", checking_id: 1, savings_id: 2 };

describe("postTransfer", () => {
  it("an answer whose connection closes after its status line (a process killed mid-answer behind a proxy) is cut_off, to send again with the same key, not a thrown error", async () => {
    // What a member's connection to nginx sees when the process answering is killed after its
    // headers: nginx has passed on the 200 and can only close the connection (the multi-process
    // test's SIGKILL). It used to throw "terminated" (other side closed) out of the transfer loop.
    const base = await serving((_req, res) => {
      res.writeHead(200, { "content-type": "text/x-script" });
      res.write('[{"_1":2},"status","do', () => res.socket?.destroy());
    });
    expect(await postTransfer(base, member, crypto.randomUUID(), 1, "cut off")).toEqual({
      kind: "cut_off",
      status: 200,
    });
  });

  it("a whole answer is still read: a 502 is unavailable, anything unknown a failure", async () => {
    const proxyDown = await serving((_req, res) => void res.writeHead(502).end("Bad Gateway"));
    expect(await postTransfer(proxyDown, member, crypto.randomUUID(), 1, "whole")).toEqual({
      kind: "unavailable",
      status: 502,
    });
    const odd = await serving((_req, res) => void res.writeHead(200).end("something else"));
    expect(await postTransfer(odd, member, crypto.randomUUID(), 1, "whole")).toEqual({
      kind: "failed",
      status: 200,
      body: "something else",
    });
  });
});
