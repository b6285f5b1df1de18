import type { Server } from "node:http";

/**
 * How long the server waits on a connection.
 *
 * A reverse proxy keeps connections to the app open between requests (nginx's `keepalive` in the
 * upstream, deploy/nginx/mutual.conf) for up to its own idle limit (nginx's upstream
 * `keepalive_timeout`, 60 s unless set), and sends the next request down one of them without
 * warning. Node closes an idle connection after 5 s by default: a request the proxy sends as the
 * app closes the connection meets a closed socket, and nginx never resends a post to another
 * process, so the member's transfer answers 502 (the form can resend it under the same key, but
 * the member sees an error). So the app keeps an idle connection open longer than the proxy does,
 * and it is always the proxy that closes one. An idle connection holds no request, so the limits
 * on a request's headers and on the whole request below do not close it.
 */
export const CONNECTION_TIMEOUTS_MS = {
  /** Longer than nginx's upstream `keepalive_timeout` (60 s by default); see above. */
  keep_alive: 65_000,
  /** A client that takes longer than this to send a request's headers is cut off (slow-loris). */
  headers: 30_000,
  /** Every request answers within this; the proxy waits a little longer (proxy_read_timeout 65 s). */
  request: 60_000,
} as const;

export function applyConnectionTimeouts(server: Server): void {
  server.keepAliveTimeout = CONNECTION_TIMEOUTS_MS.keep_alive;
  server.headersTimeout = CONNECTION_TIMEOUTS_MS.headers;
  server.requestTimeout = CONNECTION_TIMEOUTS_MS.request;
}
