import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { repository } from "./app-server";

/**
 * Debian's nginx in front of several app processes, configured from the shipped example
 * (deploy/nginx/mutual.conf), for the tests that run the app as production does: the
 * multi-process test and the failover test.
 */

export const NGINX = process.env.NGINX_BIN ?? "/usr/sbin/nginx";

/** The parts of the shipped nginx site the test runs as they are (see the markers in the file). */
function shippedProxyConfig(): { server_parameters: string; map: string; log_format: string; proxy: string } {
  const text = fs.readFileSync(path.join(repository, "deploy/nginx/mutual.conf"), "utf8");
  const upstream = /upstream mutual \{([\s\S]*?)\n\}/.exec(text)?.[1];
  const server_parameters = /^\s*server \S+ ([^;]*);/m.exec(upstream ?? "")?.[1];
  const map = /^map \$server_port \$mutual_port_suffix \{[\s\S]*?\n\}/m.exec(text)?.[0];
  const log_format = /^log_format mutual [\s\S]*?;$/m.exec(text)?.[0];
  const proxy = /# BEGIN proxy\n([\s\S]*?)\n\s*# END proxy/.exec(text)?.[1];
  if (!upstream || !server_parameters || !map || !log_format || !proxy)
    throw new Error("deploy/nginx/mutual.conf lost its upstream, map, log_format or BEGIN/END proxy markers");
  return { server_parameters, map, log_format, proxy };
}

/** Debian's nginx in the foreground, with a prefix folder of its own for its config, logs and temp files. */
export class NginxProcess {
  exit: string | null = null;
  private readonly child: ChildProcess;
  readonly exited: Promise<void>;
  readonly output: string[] = [];

  constructor(
    readonly dir: string,
    readonly port: number,
    app_ports: number[],
  ) {
    const shipped = shippedProxyConfig();
    // Workers run as `nobody` when the master is root (CI): they must reach their temp folders.
    fs.chmodSync(dir, 0o755);
    const config = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
${shipped.log_format}
    access_log ${dir}/access.log mutual;
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;

    upstream mutual {
${app_ports.map((p) => `        server 127.0.0.1:${p} ${shipped.server_parameters};`).join("\n")}
        keepalive 16;
    }
${shipped.map}
    server {
        listen 127.0.0.1:${port};
        server_name 127.0.0.1;
        # The proxy reaches the apps from another address than the members reach it from, so
        # the app's idea of the client address shows whether it trusts the proxy's header.
        proxy_bind 127.0.0.2;
        # Which process answered (the last one asked), for the test's counts only.
        add_header X-Served-By $upstream_addr always;
${shipped.proxy}
    }
}
`;
    fs.writeFileSync(path.join(dir, "nginx.conf"), config);
    this.child = spawn(
      NGINX,
      ["-p", dir, "-e", path.join(dir, "error.log"), "-c", path.join(dir, "nginx.conf"), "-g", "daemon off;"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    for (const stream of [this.child.stdout!, this.child.stderr!])
      stream.on("data", (chunk: Buffer) => this.output.push(chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.child.once("exit", (code, signal) => {
        this.exit = signal ?? String(code);
        resolve();
      }),
    );
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  accessLog(): string {
    const file = path.join(this.dir, "access.log");
    return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  }

  errorLog(): string {
    const file = path.join(this.dir, "error.log");
    return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  }

  /**
   * Resolves once nginx answers on its port (it says nothing when ready); fails if it exits (its
   * port taken meanwhile, say). Only this nginx adds X-Served-By: whatever else may answer there
   * is not taken for it.
   */
  async ready(): Promise<void> {
    for (;;) {
      if (this.exit !== null)
        throw new Error(`nginx exited (${this.exit}): ${this.output.join("")}\n${this.errorLog()}`);
      try {
        const response = await fetch(`${this.base}/healthz`);
        await response.body?.cancel();
        if (response.status === 200 && response.headers.has("x-served-by")) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async stop(): Promise<void> {
    // SIGQUIT: nginx's graceful stop.
    if (this.exit === null) this.child.kill("SIGQUIT");
    await this.exited;
  }
}
