/**
 * Stable 64-bit ids, computed here so that every engine (DuckDB, ClickHouse, a future one) stores
 * the same numbers for the same function or stack: FNV-1a 64 over bytes, in two 32-bit halves
 * (no BigInt arithmetic on the hot path). Ids travel as decimal strings of the unsigned 64-bit value.
 *
 * - a function's id: FNV-1a 64 of the UTF-8 bytes of `file + "\n" + name` (no line, no column, so
 *   it survives releases that move the function);
 * - a trace's id (`hashText`): the first 64 bits of the SHA-256 of its raw rows and meta;
 * - a stack's id: FNV-1a 64 of the 8 bytes (little-endian) of its parent stack's id (0 for a root)
 *   then the 8 bytes of its function's id, so a stack is its chain of function ids.
 */

import { createHash } from 'node:crypto';

const OFFSET_HI = 0xcbf29ce4;
const OFFSET_LO = 0x84222325;
/** The FNV-64 prime is 2^40 + 0x1b3. */
const PRIME_LOW_PART = 0x1b3;
const TWO_32 = 0x1_0000_0000;

/** A 64-bit value as two unsigned 32-bit halves. */
export interface Hash64 {
  hi: number;
  lo: number;
}

/** FNV-1a 64 over `bytes`, continuing from `start`. */
export function fnv1a64(bytes: Uint8Array, start: Hash64 = { hi: OFFSET_HI, lo: OFFSET_LO }): Hash64 {
  let { hi, lo } = start;
  for (let i = 0; i < bytes.length; i++) {
    lo = (lo ^ bytes[i]) >>> 0;
    // (hi·2^32 + lo) · (2^40 + 0x1b3) mod 2^64, in doubles that stay below 2^53.
    const low = lo * PRIME_LOW_PART;
    const carry = Math.floor(low / TWO_32);
    hi = (hi * PRIME_LOW_PART + carry + ((lo << 8) >>> 0)) % TWO_32;
    lo = low % TWO_32;
  }
  return { hi, lo };
}

/** The decimal text of the unsigned 64-bit value. */
export function hashToString(hash: Hash64): string {
  return ((BigInt(hash.hi) << 32n) | BigInt(hash.lo)).toString();
}

export function stringToHash(id: string): Hash64 {
  const value = BigInt(id);
  return { hi: Number(value >> 32n), lo: Number(value & 0xffffffffn) };
}

const encoder = new TextEncoder();

/** The id of the function `name` in `file` (an original source, or the script's URL when unmapped). */
export function functionId(file: string, name: string): string {
  return hashToString(fnv1a64(encoder.encode(`${file}\n${name}`)));
}

const ROOT: Hash64 = { hi: 0, lo: 0 };

function littleEndian(hash: Hash64, into: Uint8Array, at: number): void {
  for (let i = 0; i < 4; i++) {
    into[at + i] = (hash.lo >>> (8 * i)) & 0xff;
    into[at + 4 + i] = (hash.hi >>> (8 * i)) & 0xff;
  }
}

/** The id of the stack whose innermost function is `fn`, called from the stack `parent` (null at the root). */
export function stackId(parent: Hash64 | null, fn: Hash64): Hash64 {
  const bytes = new Uint8Array(16);
  littleEndian(parent ?? ROOT, bytes, 0);
  littleEndian(fn, bytes, 8);
  return fnv1a64(bytes);
}

/** The first 64 bits of the SHA-256 of a string, as decimal text: trace ids (native code, for long texts). */
export function hashText(text: string): string {
  return BigInt.asUintN(64, createHash('sha256').update(text).digest().readBigUInt64BE(0)).toString();
}
