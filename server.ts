/**
 * The HTTP entry: security headers, request ids and logs, health checks, request guards, static
 * files, then React Router for every page, loader and action.
 */
import crypto from "node:crypto";
import path from "node:path";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import { enableCompileCache } from "node:module";
import express, { type NextFunction, type Request, type Response } from "express";
import compression from "compression";
import helmet from "helmet";
import { pinoHttp } from "pino-http";
import { pino } from "pino";
import { createRequestHandler } from "@react-router/express";
import { RouterContextProvider, type ServerBuild } from "react-router";
import { env, ConfigurationError } from "./app/config/env.server";
import { institution, requireMailAndHttps } from "./app/config/institution.server";
import { requestInfoContext } from "./app/context";
import { appDatabase } from "./app/server/db/db.server";
import { seedDemoIfDemo } from "./app/server/seed/startup.server";
import { encryptPlainUploads, uploadsRoot } from "./app/server/uploads/private-uploads.server";
import { sealPlainDestinations } from "./app/server/payments/payment-destination.server";
import { ownerOnlyDir } from "./app/server/files/owner-only.server";
import { requestGuards } from "./app/server/security/request-guards.server";
// A client behind TRUST_PROXY can send any X-Forwarded-For: records and limits keep only a valid
// address, or a bounded `invalid:` hash of what was sent.
import { clientAddressKey } from "./app/server/rate-limit/rate-limit.server";
import { contentSecurityPolicy } from "./app/server/security/csp.server";
import { DataDirLockedError } from "./app/server/files/data-dir-lock.server";
import { databaseUnavailableStatus } from "./app/server/http/database-unavailable.server";
import { errorText, httpLogSerializers, loggerOptions } from "./app/server/logging/redact.server";
import { noStoreWhenSignedIn } from "./app/server/http/no-store.server";
import { cspNonce } from "./app/server/http/csp-nonce.server";
import { applyConnectionTimeouts } from "./app/server/http/connection-timeouts.server";
import { wholeAnswers } from "./app/server/http/whole-answers.server";
import { httpMetrics, metricsOnMainPort, metricsPortApp } from "./app/server/metrics/metrics.server";
import { startJobs } from "./app/server/jobs/jobs.server";

async function main() {
  // Whatever this process creates (database files, secrets, uploads) is the owner's only.
  process.umask(0o077);
  const config = env();
  const profile = institution();
  requireMailAndHttps(config, profile);
  const production = config.NODE_ENV === "production";
  // HSTS and upgrade-insecure-requests only where the site is really served over https.
  const https = config.PUBLIC_URL?.startsWith("https://") ?? false;
  // No cookies, tokens, codes or query values in the log (app/server/logging/redact.server.ts).
  const logger = pino(loggerOptions(config.LOG_LEVEL));

  // The React Router build (the pages and everything they import: most of the JavaScript loaded at
  // start-up) loads while the database opens, not after it.
  const buildDir = path.resolve(process.env.MUTUAL_BUILD_DIR ?? "build");
  let productionBuild: Promise<ServerBuild> | undefined;
  if (production) {
    if (!fs.existsSync(path.join(buildDir, "server/index.js"))) {
      throw new ConfigurationError(
        "No production build found: run `npm run build` first (npm start does this for you).",
      );
    }
    // V8 keeps the compiled code of the build and its dependencies in the build folder, so later
    // starts skip compiling them again (a change of a file invalidates its entry; a folder that
    // cannot be written only means no cache; NODE_DISABLE_COMPILE_CACHE=1 turns it off).
    enableCompileCache(path.join(buildDir, "compile-cache"));
    productionBuild = import(path.join(buildDir, "server/index.js")) as Promise<ServerBuild>;
    // Awaited below; a database that fails to open stops start-up first, with its own message.
    productionBuild.catch(() => {});
  }

  // Open (and migrate) the database before accepting requests: a locked DATA_DIR stops start-up
  // here with a clear message; an unreachable PostgreSQL is waited for (logged at each attempt).
  const database = await appDatabase();
  // Demo mode: the demo people and their history on an empty database, before any request.
  await seedDemoIfDemo(database);
  // DATA_DIR/uploads exists from the first start: the guide's nightly copy of it (rsync, cp -a)
  // failed on a new installation that had no upload yet (tests/integration/whole-app/operations-guide.test.ts).
  ownerOnlyDir(uploadsRoot());
  // Payments to other banks queued before their account numbers were sealed are sealed once, in
  // the background (several processes share the rows): until then they are read as they are.
  sealPlainDestinations(database.db).then(
    (payments) => payments > 0 && logger.info({ payments }, "payment account numbers sealed at rest"),
    (error: unknown) =>
      logger.error({ err: errorText(error) }, "sealing payment account numbers failed; the next start tries again"),
  );
  // ID documents and profile photos stored before encryption at rest are encrypted once, in the
  // background: until then the store reads them as they are.
  encryptPlainUploads().then(
    (files) => files > 0 && logger.info({ files }, "plain uploads encrypted at rest"),
    (error: unknown) =>
      logger.error({ err: errorText(error) }, "encrypting plain uploads failed; the next start tries again"),
  );

  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.TRUST_PROXY === "1" ? 1 : false);
  app.set("query parser", "simple");

  app.use((req, res, next) => {
    const incoming = req.get("x-request-id");
    const request_id = incoming && /^[\w-]{8,64}$/.test(incoming) ? incoming : crypto.randomUUID();
    res.locals.request_id = request_id;
    res.locals.nonce = cspNonce();
    res.setHeader("X-Request-Id", request_id);
    next();
  });
  // Requests by route and status, and their duration (/metrics); the route table is read when a
  // request ends, by then `build` is set.
  app.use(httpMetrics(async () => (typeof build === "function" ? await build() : build).routes));
  app.use(
    pinoHttp({
      logger,
      genReqId: (_req, res) => (res as Response).locals.request_id as string,
      autoLogging: { ignore: (req) => req.url === "/healthz" || req.url === "/readyz" || req.url === "/metrics" },
      // Requests by method, address without query values, and id; responses by status only
      // (their headers carry Set-Cookie).
      serializers: httpLogSerializers,
    }),
  );
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: contentSecurityPolicy(profile, { https, dev: !production }),
      },
      strictTransportSecurity: https ? { maxAge: 31536000, includeSubDomains: true } : false,
      referrerPolicy: { policy: "strict-origin-when-cross-origin" },
      crossOriginEmbedderPolicy: false,
      xFrameOptions: { action: "deny" },
    }),
  );
  app.use(compression());
  // An answer ready at once goes out whole, so compression's threshold applies to it.
  app.use(wholeAnswers());

  app.get("/healthz", (_req, res) => void res.type("text/plain").send("ok"));
  app.get("/readyz", async (_req, res) => {
    try {
      await database.ping();
      res.type("text/plain").send("ready");
    } catch (error) {
      logger.error({ err: error, request_id: res.locals.request_id }, "readiness check failed");
      res.status(503).type("text/plain").send("database unreachable");
    }
  });

  // /metrics: on the main port only behind METRICS_TOKEN (404 without one configured); on
  // METRICS_PORT (loopback by default) for a scraper on the same host or network.
  const metricsOptions = {
    token: config.METRICS_TOKEN,
    outbox: Boolean(config.SMTP_URL) && config.MUTUAL_DRILL !== "1",
    logger,
  };
  app.get("/metrics", metricsOnMainPort(database, metricsOptions));
  if (config.METRICS_PORT !== undefined) {
    const metricsServer = metricsPortApp(database, metricsOptions).listen(
      config.METRICS_PORT,
      config.METRICS_HOST,
      (error?: Error) => {
        if (error) {
          logger.fatal({ err: error, port: config.METRICS_PORT }, "cannot serve /metrics on METRICS_PORT");
          process.exit(1);
        }
        logger.info({ port: config.METRICS_PORT, host: config.METRICS_HOST }, "metrics are served on METRICS_PORT");
      },
    );
    // The metrics port never keeps a stopping process alive.
    metricsServer.unref();
  }

  let build: ServerBuild | (() => Promise<ServerBuild>);
  if (productionBuild) {
    app.use(
      "/assets",
      express.static(path.join(buildDir, "client/assets"), { immutable: true, maxAge: "1y", index: false }),
    );
    // Other public files (favicon.svg), by name: looking every request up on disk first cost a
    // file-system check and a 404 error object per page, `.data` request and CSV download.
    const publicDir = path.join(buildDir, "client");
    const publicFiles = express.static(publicDir, { maxAge: "1h", index: false });
    const urlPath = (file: string) => "/" + path.relative(publicDir, file).split(path.sep).join("/");
    const publicFileNames = new Set(
      fs
        .readdirSync(publicDir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => urlPath(path.join(entry.parentPath, entry.name)))
        .filter((name) => !name.startsWith("/assets/")), // served above
    );
    app.use((req, res, next) => (publicFileNames.has(req.path) ? publicFiles(req, res, next) : next()));
    build = await productionBuild;
  } else {
    const vite = await import("vite");
    const devServer = await vite.createServer({ server: { middlewareMode: true } });
    app.use(devServer.middlewares);
    build = () => devServer.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>;
  }

  // After the static files (hashed assets stay cacheable), before every page, .data and download.
  app.use(noStoreWhenSignedIn());
  app.use(requestGuards());
  // A request that failed because the database is unreachable answers 503, not 500.
  app.use(databaseUnavailableStatus());
  app.all(
    "/{*splat}",
    createRequestHandler({
      build,
      mode: production ? "production" : "development",
      getLoadContext: (req, res) => {
        const context = new RouterContextProvider();
        context.set(requestInfoContext, {
          request_id: res.locals.request_id,
          nonce: res.locals.nonce,
          ip: clientAddressKey(req.ip ?? "unknown"),
        });
        return context;
      },
    }),
  );

  // Anything that escapes React Router: a polite message with the request id, never a stack.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status =
      typeof (error as { status?: unknown }).status === "number" ? (error as { status: number }).status : 500;
    if (status >= 500) req.log.error({ err: error }, "unhandled error");
    if (res.headersSent) return;
    res
      .status(status >= 400 && status < 600 ? status : 500)
      .type("text/plain")
      .send(
        status < 500
          ? `The request could not be understood (${status}). Reference: ${res.locals.request_id}`
          : `Something went wrong on our side. Please try again. Reference: ${res.locals.request_id}`,
      );
  });

  const server = app.listen(config.PORT, config.HOST, (error?: Error) => {
    // Express hands a failed listen (the port taken) to this callback: stop, rather than carry on
    // running jobs while another program answers on the port.
    if (error) {
      logger.fatal({ err: error, port: config.PORT, host: config.HOST }, "cannot serve on PORT");
      process.exit(1);
    }
    const { port } = server.address() as AddressInfo;
    logger.info(
      { port, database: database.kind, institution: profile.name },
      `Mutual is serving http://localhost:${port}`,
    );
  });
  // Idle connections outlive the proxy's (a post sent as the app closed one answered 502).
  applyConnectionTimeouts(server);
  // Scheduled jobs (app/server/jobs/): started beside the server, not awaited, so they never delay
  // start-up. A runner that cannot start (a bad setting) stops the process rather than leave jobs
  // undone; a database error only delays its first poll.
  // A restore drill's copy runs no job: the nightly runs would pay dividends, send statements
  // and bill payments on a copy of real members' data.
  const drill = config.MUTUAL_DRILL === "1";
  const jobs = drill ? undefined : startJobs(database, logger);
  if (drill) logger.warn("restore drill (MUTUAL_DRILL=1): scheduled jobs are off and no email is sent");
  jobs?.catch((error: unknown) => {
    logger.fatal({ err: error }, "the job runner could not start");
    process.exit(1);
  });

  // Stopping (a deployment, systemd, Ctrl-C): accept no new connection, let the requests in
  // flight finish (keep-alive connections close after their answer), then close the database
  // (PostgreSQL pool, or PGlite and its folder lock) and exit 0. A request still running after
  // SHUTDOWN_LIMIT_MS is cut off: logged, exit 1, so a restart never waits on a stuck client.
  const SHUTDOWN_LIMIT_MS = 10_000;
  let stopping = false;
  const inFlight = new Set<{ headersSent: boolean; setHeader(name: string, value: string): unknown }>();
  server.on("request", (_req, res) => {
    inFlight.add(res);
    res.once("close", () => {
      inFlight.delete(res);
      // Its connection is idle now: closed, or it would hold server.close() until it times out.
      if (stopping) server.closeIdleConnections();
    });
  });
  const shutdown = (signal: string) => {
    // A service manager and `npm start` may both pass the same stop on: stop once.
    if (stopping) return;
    stopping = true;
    const started_ms = performance.now();
    setTimeout(() => {
      logger.error(
        { signal, limit_ms: SHUTDOWN_LIMIT_MS },
        "shutdown limit reached: requests still in flight were cut off",
      );
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    // The job running now finishes (the limit above still applies); no new one is claimed.
    const jobsStopped = jobs ? jobs.then((runner) => runner.stop()).catch(() => undefined) : Promise.resolve();
    server.close(() => {
      void jobsStopped
        .then(() => database.close())
        .then(() => {
          logger.info({ elapsed_ms: Math.round(performance.now() - started_ms) }, "stopped");
          process.exit(0);
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, "closing the database failed while stopping");
          process.exit(1);
        });
    });
    // Logged once the port is closed: whoever reads "shutting down" (an operator, a test) finds
    // new connections refused already.
    logger.info({ signal, limit_ms: SHUTDOWN_LIMIT_MS }, "shutting down: finishing the requests in flight");
    // Answers still to come tell their client this connection closes after them; connections
    // waiting between requests would hold server.close() until they time out.
    for (const res of inFlight) if (!res.headersSent) res.setHeader("Connection", "close");
    server.closeIdleConnections();
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

/**
 * A process that cannot start says why in one JSON line, like every other line it writes, so that
 * journald and a log shipper keep it whole (a multi-line message arrived as several entries, the
 * variable's name apart from the reason). Written synchronously: the process exits right after.
 */
function reportStartFailure(error: unknown): void {
  // Whatever LOG_LEVEL says (even silent, or a bad value): a refusal to start is always told.
  const logger = pino(loggerOptions("info"), pino.destination({ dest: 1, sync: true }));
  if (error instanceof ConfigurationError || error instanceof DataDirLockedError) {
    const problems = error.message
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean);
    logger.fatal({ problems }, `Mutual cannot start: ${problems.join(" ")}`);
  } else {
    logger.fatal({ err: errorText(error) }, "Mutual failed to start");
  }
}

main().catch((error: unknown) => {
  reportStartFailure(error);
  process.exit(1);
});
