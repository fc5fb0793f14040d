import { crc32, deflateSync } from 'node:zlib';
import { SANDBOX_MARKER } from '../../../application/collection/identity/sandbox.ts';

/**
 * Real PNG and JPEG images for identity checks against the offline sandbox adapter, whose
 * outcome the images decide (application/collection/identity/sandbox.ts): a marker in a PNG tEXt
 * chunk or a JPEG comment. Other modules' tests (signatures with SIGNATURE_AND_IDENTITY) pass a
 * check with approvedImages().
 */

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A 16x16 RGB PNG whose pixels depend on `seed` (so a document and a selfie differ), with the sandbox marker when given. */
export function testPng(marker: string | null, seed = 1): Buffer {
  const size = 16;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits per channel, truecolour, no interlace
  const rows = Array.from({ length: size }, (_, y) => Buffer.from([0, ...Array.from({ length: size }, (_, x) => [(x * 16 + seed * 40) % 256, (y * 16) % 256, (seed * 97) % 256]).flat()]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    ...(marker === null ? [] : [chunk('tEXt', Buffer.from(`${SANDBOX_MARKER}\0${marker}`, 'latin1'))]),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A small real baseline JPEG (from CPython's test data), with the sandbox marker as a comment segment right after its start. */
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/2wBDAQMDAwQDBAgEBAgQCwkLEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBD/wAARCAAQABADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAABwQF/8QAJBAAAQQBBAICAwAAAAAAAAAAAQIDBAYFBwgSExEiABQJMTL/xAAVAQEBAAAAAAAAAAAAAAAAAAAABv/EACMRAAECBQMFAAAAAAAAAAAAAAECEQMEBQYhABIxFRZhgeH/2gAMAwEAAhEDEQA/ABSm0mobc8HmExLUlRzzEWPkJWW+ulrsaUVAseUgslSlH9LKuPryIKuWPZdskzXmm3fX5m2nF4GlVxx/HOpx4ks51+MiU/Iaad7UcUo4tILoS4kqcWkezS0hO/HvuRp0rO6hWnWO1UisZVuFi4GFeyEpmGepa5S5SWVPuciFKRFLgSrwetnyPIB+Vb4N9mKhQMzo5po9XLdDs9d6ZVix2VEhiL9kuNPxw2gEKcDQ/rs8AuA8VAe0vdl7VOYn+27flGAUgmITjbhSmCg3BYlyeWDkMolvw4KOp1KM6iCNvngZHwetf//Z',
  'base64',
);

export function testJpeg(marker: string | null): Buffer {
  if (marker === null) return Buffer.from(JPEG);
  const text = Buffer.from(`${SANDBOX_MARKER}=${marker}`, 'latin1');
  const segment = Buffer.alloc(4);
  segment.set([0xff, 0xfe]);
  segment.writeUInt16BE(text.length + 2, 2);
  return Buffer.concat([JPEG.subarray(0, 2), segment, text, JPEG.subarray(2)]);
}

export interface TestIdentityImages {
  document: Buffer;
  selfie: Buffer;
}

/** The document a JPEG, the selfie a PNG: the sandbox approves (similarity 97%, liveness 99%). */
export const approvedImages = (): TestIdentityImages => ({ document: testJpeg('APROVADO'), selfie: testPng('APROVADO', 2) });
/** The sandbox refuses with the FOTO_DE_TELA signal (similarity 12%). */
export const rejectedImages = (): TestIdentityImages => ({ document: testPng(null, 1), selfie: testPng('REPROVADO;FOTO_DE_TELA', 3) });
/** The sandbox cannot tell (similarity 71%): the item goes to the operator. */
export const inconclusiveImages = (): TestIdentityImages => ({ document: testPng(null, 1), selfie: testPng('INCONCLUSIVO', 4) });
/** The sandbox gives no result, as a provider that times out. */
export const unavailableImages = (): TestIdentityImages => ({ document: testPng(null, 1), selfie: testPng('INDISPONIVEL', 5) });
