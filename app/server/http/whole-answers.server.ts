import type { RequestHandler, Response } from "express";

type Callback = (error?: Error | null) => void;

/**
 * Answers that are ready at once go out whole, with their length, so that compression skips the
 * small ones.
 *
 * React Router's Express adapter writes every answer as a stream (`res.write` per chunk, then
 * `res.end()`), even a transfer's few hundred bytes that are all there at once. Compression then
 * never learns the answer's size before the first write, so its threshold (1 KiB) never applies:
 * every small answer to a browser (which always sends Accept-Encoding) got a zlib or Brotli
 * encoder of its own, about 0.2 ms of the app's CPU per answer for a few hundred bytes
 * (bench/LOG.md, "Member transfers over HTTP"). Here what is written is held until the end of the
 * current turn of the event loop: if the answer ends within it, it goes out in one `res.end`
 * (compression sees its length: under 1 KiB plain, with Content-Length; larger compressed as
 * before); if not (a page streamed in parts), what was held goes on in one write at the end of the
 * turn and the rest streams as before.
 *
 * Placed after compression (whose `write` and `end` it calls) and before the routes. An answer
 * with a Content-Length already (files) or with its headers already sent is left alone.
 */
export function wholeAnswers(): RequestHandler {
  return (_req, res, next) => {
    const write = res.write;
    const end = res.end;
    // What was written in this turn of the event loop, not yet passed on.
    let held: { chunks: Uint8Array[]; callbacks: Callback[] } | undefined;
    let timer: NodeJS.Immediate | undefined;
    let passing = false;

    const take = () => {
      if (timer) clearImmediate(timer);
      timer = undefined;
      const pending = held;
      held = undefined;
      return pending;
    };
    const flush = () => {
      const pending = take();
      // A browser gone meanwhile: nothing to send (the writer stops on the close itself).
      if (!pending || res.destroyed) return;
      const callbacks = pending.callbacks;
      (write as (...args: unknown[]) => boolean).call(
        res,
        pending.chunks.length === 1 ? pending.chunks[0]! : Buffer.concat(pending.chunks),
        (error?: Error | null) => callbacks.forEach((callback) => callback(error)),
      );
      // The writer flushed compression's encoder after each write held here: so does this, or a
      // streamed page's first part would wait in the encoder for the next.
      (res as Response & { flush?: () => void }).flush?.();
    };

    res.write = function (this: Response, chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
      if (typeof encoding === "function") [callback, encoding] = [encoding, undefined];
      if (
        !held &&
        (passing ||
          res.headersSent ||
          res.getHeader("content-length") !== undefined ||
          !(typeof chunk === "string" || chunk instanceof Uint8Array))
      ) {
        // Streaming already (an earlier turn's part went on), or not ours to hold.
        passing = true;
        return (write as (...args: unknown[]) => boolean).call(
          this,
          chunk,
          ...(encoding === undefined ? [] : [encoding]),
          ...(callback === undefined ? [] : [callback]),
        );
      }
      if (!held) {
        held = { chunks: [], callbacks: [] };
        timer = setImmediate(() => {
          passing = true;
          flush();
        });
      }
      held.chunks.push(
        typeof chunk === "string"
          ? Buffer.from(chunk, (encoding as BufferEncoding | undefined) ?? "utf8")
          : (chunk as Uint8Array),
      );
      if (typeof callback === "function") held.callbacks.push(callback as Callback);
      return true;
    } as Response["write"];

    res.end = function (this: Response, chunk?: unknown, encoding?: unknown, callback?: unknown): Response {
      if (typeof chunk === "function") [callback, chunk] = [chunk, undefined];
      if (typeof encoding === "function") [callback, encoding] = [encoding, undefined];
      const pending = take();
      // Restored first: whatever runs inside `end` (compression, Node) finds the plain methods.
      res.write = write;
      res.end = end;
      const args: unknown[] = [];
      if (pending) {
        if (chunk !== undefined && chunk !== null)
          pending.chunks.push(
            typeof chunk === "string"
              ? Buffer.from(chunk, (encoding as BufferEncoding | undefined) ?? "utf8")
              : (chunk as Uint8Array),
          );
        const whole = pending.chunks.length === 1 ? pending.chunks[0]! : Buffer.concat(pending.chunks);
        // Its length, known now: compression compares it with its threshold (and removes it when
        // it compresses), and the answer goes out in one piece rather than chunked.
        if (!res.headersSent) res.setHeader("Content-Length", whole.byteLength);
        args.push(whole);
        const callbacks = pending.callbacks;
        if (callbacks.length > 0) res.once("finish", () => callbacks.forEach((held_callback) => held_callback()));
      } else if (chunk !== undefined) {
        args.push(chunk);
        if (encoding !== undefined) args.push(encoding);
      }
      if (callback !== undefined) args.push(callback);
      return (end as (...args: unknown[]) => Response).apply(this, args);
    } as Response["end"];

    next();
  };
}
