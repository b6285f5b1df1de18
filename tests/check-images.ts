import zlib from "node:zlib";
import sharp from "sharp";

/**
 * Check photos for the Mobile Deposit tests (unit, integration, browser): real images, and the
 * files a deposit must refuse. Made here, not read from fixtures, so each test says what it is.
 */

/** A real JPEG of `width`×`height`, its colour and text decided by `seed` (different seeds, different bytes). */
export async function checkJpeg(seed = 1, width = 1200, height = 540): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="rgb(${((seed * 37) % 64) + 190},${((seed * 53) % 48) + 200},${((seed * 11) % 32) + 210})"/>
    <text x="40" y="90" font-size="48" font-family="sans-serif" fill="#123">PAY TO THE ORDER OF Check ${seed}</text>
    <line x1="40" y1="${height - 80}" x2="${width - 40}" y2="${height - 80}" stroke="#123" stroke-width="3"/>
  </svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 80 }).toBuffer();
}

/** A real PNG (with transparency, which the deposit flattens onto white). */
export async function checkPng(seed = 2, width = 900, height = 400): Promise<Buffer> {
  return sharp({
    create: { width, height, channels: 4, background: { r: 200, g: 220 - (seed % 20), b: 240, alpha: 0.9 } },
  })
    .png()
    .toBuffer();
}

/** A PDF document: what a member might pick by mistake, renamed to .jpg. */
export function pdfBytes(): Buffer {
  return Buffer.from(
    "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
  );
}

/** An HTML page with a script: renamed .jpg, it must never be stored or served. */
export function htmlBytes(): Buffer {
  return Buffer.from("<!doctype html><html><body><script>alert(document.cookie)</script></body></html>\n");
}

/** A JPEG's first bytes with nothing an image decoder can read behind them. */
export function brokenJpeg(): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2048, 0x41)]);
}

function chunk(type: string, content: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(content.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), content]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/**
 * A decompression bomb: a complete, valid black-and-white PNG of `side`×`side` pixels
 * (20000×20000 = 400 megapixels) that weighs about 60 KB, because its rows are all zeros.
 * Decoded it is hundreds of megabytes: without a pixel limit the server would try.
 */
export function pngBomb(side = 20_000): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 1; // bit depth: one bit a pixel
  header[9] = 0; // colour type: grey
  const row = Buffer.alloc(1 + Math.ceil(side / 8)); // filter byte 0, then the row's bits
  const rows = zlib.deflateSync(Buffer.concat(Array.from({ length: side }, () => row)), { level: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", rows),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** An SVG (an image format that can carry script) renamed .jpg: sharp would draw it; the type check refuses it. */
export function svgBytes(): Buffer {
  return Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="400"><script>alert(1)</script><rect width="800" height="400" fill="#fff"/></svg>',
  );
}

/** `bytes` bytes that start like a JPEG: one byte over the limit is refused by size alone. */
export function oversizedJpeg(bytes: number): Buffer {
  const content = Buffer.alloc(bytes, 0);
  content.set([0xff, 0xd8, 0xff, 0xe0]);
  return content;
}

export function asFile(content: Buffer, name: string, type = "image/jpeg"): File {
  return new File([new Uint8Array(content)], name, { type });
}
