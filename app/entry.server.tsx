import { PassThrough } from "node:stream";
import type { EntryContext, HandleDataRequestFunction, HandleErrorFunction, RouterContextProvider } from "react-router";
import { createReadableStreamFromReadable } from "@react-router/node";
import { ServerRouter } from "react-router";
import { renderToPipeableStream } from "react-dom/server";
import { requestInfoContext } from "./context";
import { NonceProvider } from "./components/nonce";
import { logger } from "./server/logger.server";
import { redactUrl } from "./server/logging/redact.server";
import { describeDatabaseError, isDatabaseUnavailable } from "./server/db/unavailable.server";
import {
  databaseUnavailableData,
  databaseUnavailablePage,
  isMarkedDatabaseUnavailable,
  markDatabaseUnavailable,
} from "./server/http/database-unavailable.server";

export const streamTimeout = 5_000;

/**
 * Renders every page completely before sending it (onAllReady), so a page is whole HTML and
 * works before JavaScript loads; scripts carry this response's CSP nonce.
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  const { nonce, request_id } = loadContext.get(requestInfoContext);
  // A loader or action could not reach the database (handleError below marked the request).
  if (isMarkedDatabaseUnavailable(request_id)) return databaseUnavailablePage(request, request_id, nonce);
  if (request.method.toUpperCase() === "HEAD") {
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }

  return new Promise((resolve, reject) => {
    let timeoutId: ReturnType<typeof setTimeout> | undefined = setTimeout(() => abort(), streamTimeout + 1000);
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        onAllReady() {
          const body = new PassThrough({
            final(callback) {
              clearTimeout(timeoutId);
              timeoutId = undefined;
              callback();
            },
          });
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          pipe(body);
          resolve(
            new Response(createReadableStreamFromReadable(body), {
              headers: responseHeaders,
              status: responseStatusCode,
            }),
          );
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError() {
          responseStatusCode = 500;
        },
      },
    );
  });
}

/** A `.data` request whose loader or action could not reach the database: 503 (see handleError). */
export const handleDataRequest: HandleDataRequestFunction = async (response, { context }) => {
  const { request_id } = context.get(requestInfoContext);
  if (!isMarkedDatabaseUnavailable(request_id)) return response;
  await response.body?.cancel();
  return databaseUnavailableData(request_id);
};

/**
 * Unexpected errors in loaders, actions and rendering: logged once, with the request id. An
 * unreachable database is an outage, not a bug: one warning without the error (its message may
 * hold SQL parameters), and the request is answered 503.
 */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  const { request_id } = context.get(requestInfoContext);
  if (isDatabaseUnavailable(error)) {
    markDatabaseUnavailable(request_id);
    logger.warn(
      {
        request_id,
        method: request.method,
        path: new URL(request.url).pathname,
        database: describeDatabaseError(error),
      },
      "database unavailable",
    );
    return;
  }
  // The address without its query values (a reset link's token); the error without SQL parameters.
  logger.error(
    { err: error, request_id, url: redactUrl(request.url), method: request.method },
    "unhandled error in route",
  );
};
