import net from "node:net";

/**
 * A tiny SMTP server standing in for the mail relay in tests (SMTP_URL=smtp://127.0.0.1:port):
 * it accepts every message (or refuses one recipient) and keeps what it received, the DATA as
 * sent (MIME, with attachments base64-encoded).
 */
export interface Received {
  from: string;
  to: string[];
  data: string;
}

export function fakeSmtpServer(options: { refuseRecipient?: string }) {
  const received: Received[] = [];
  const server = net.createServer((socket) => {
    let buffer = "";
    let inData = false;
    let current: Received = { from: "", to: [], data: "" };
    // A sender that drops its pooled connection (an app process stopping) resets it: not an error here.
    socket.on("error", () => undefined);
    socket.write("220 fake ESMTP\r\n");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      let index: number;
      while ((index = buffer.indexOf("\r\n")) >= 0) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 2);
        if (inData) {
          if (line === ".") {
            inData = false;
            received.push(current);
            current = { from: "", to: [], data: "" };
            socket.write("250 queued\r\n");
          } else current.data += `${line}\n`;
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO" || verb === "HELO") socket.write("250 fake\r\n");
        else if (verb === "MAIL") {
          current.from = line;
          socket.write("250 ok\r\n");
        } else if (verb === "RCPT") {
          if (options.refuseRecipient && line.includes(options.refuseRecipient))
            socket.write("550 no such mailbox\r\n");
          else {
            current.to.push(line);
            socket.write("250 ok\r\n");
          }
        } else if (verb === "DATA") {
          inData = true;
          socket.write("354 go ahead\r\n");
        } else if (verb === "QUIT") {
          socket.end("221 bye\r\n");
        } else socket.write("250 ok\r\n");
      }
    });
  });
  return { server, received };
}
