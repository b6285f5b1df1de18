import PDFDocument from "pdfkit";

/**
 * A new US Letter PDF with the standard fonts (pdfkit, docs/decisions/0011-statement-pdf.md), as
 * every document Mutual makes (statements, receipts, tax forms, the E-SIGN sample): `doc` to
 * write on, and `done`, the whole file once the caller calls `doc.end()`. The bytes are collected
 * from the start, so nothing written is lost.
 */
export function letterPdf(options: { margin: number; info: { Title: string; Author: string; Subject?: string } }): {
  doc: PDFKit.PDFDocument;
  done: Promise<Buffer>;
} {
  const doc = new PDFDocument({
    size: "LETTER",
    margin: options.margin,
    info: options.info,
    lang: "en-US",
    pdfVersion: "1.7",
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on("data", (chunk: Buffer) => chunks.push(chunk));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });
  return { doc, done };
}
