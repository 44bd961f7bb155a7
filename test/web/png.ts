// A small PNG reader for checking screenshots: 8-bit greyscale/RGB/RGBA, not interlaced (what
// Chromium writes). Enough to count colours; it throws on anything else rather than guess.
import { inflateSync } from 'node:zlib';

export interface Image {
  width: number;
  height: number;
  /** RGBA, 4 bytes per pixel. */
  rgba: Uint8Array;
}

export function decodePng(buf: Buffer): Image {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let off = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Buffer[] = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('ascii', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8];
      colorType = data[9] as number;
      if (depth !== 8 || data[12] !== 0)
        throw new Error(`unsupported PNG (depth ${depth}, interlace ${data[12]})`);
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    off += 12 + len;
  }
  const channels = { 0: 1, 2: 3, 6: 4 }[colorType as 0 | 2 | 6];
  if (!channels) throw new Error(`unsupported colour type ${colorType}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)] as number;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? (out[y * stride + x - channels] as number) : 0;
      const b = y > 0 ? (out[(y - 1) * stride + x] as number) : 0;
      const c = x >= channels && y > 0 ? (out[(y - 1) * stride + x - channels] as number) : 0;
      const v = line[x] as number;
      let p: number;
      if (filter === 0) p = v;
      else if (filter === 1) p = v + a;
      else if (filter === 2) p = v + b;
      else if (filter === 3) p = v + ((a + b) >> 1);
      else if (filter === 4) p = v + paeth(a, b, c);
      else throw new Error(`bad filter ${filter}`);
      out[y * stride + x] = p & 0xff;
    }
  }
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    for (let k = 0; k < 3; k++) rgba[i * 4 + k] = out[i * channels + (channels >= 3 ? k : 0)] as number;
    rgba[i * 4 + 3] = channels === 4 ? (out[i * 4 + 3] as number) : 255;
  }
  return { width, height, rgba };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

export function distinctColours(img: Image): number {
  const seen = new Set<number>();
  const v = new DataView(img.rgba.buffer, img.rgba.byteOffset, img.rgba.byteLength);
  for (let i = 0; i < img.width * img.height; i++) seen.add(v.getUint32(i * 4));
  return seen.size;
}

/** Share of pixels darker than mid-grey. */
export function darkShare(img: Image): number {
  let dark = 0;
  for (let i = 0; i < img.width * img.height; i++) {
    const [r, g, b] = [img.rgba[i * 4], img.rgba[i * 4 + 1], img.rgba[i * 4 + 2]] as number[];
    if ((r as number) + (g as number) + (b as number) < 384) dark++;
  }
  return dark / (img.width * img.height);
}
