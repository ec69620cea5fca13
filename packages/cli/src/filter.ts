/**
 * Which files `jsprof run` instruments: every module Node compiles as JavaScript, but jsprof's own
 * and its tools'. The hooks are given JavaScript (Node's own loaders read JSON and addons another
 * way; the hooks pass over the formats Node names TypeScript), whatever its file is named: a script
 * without an extension (`bin/tool`), or TypeScript that a loader (tsx, ts-node) turned into JavaScript.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const OWN = [
  path.dirname(require.resolve('@jsprof/runtime/package.json')),
  path.dirname(require.resolve('@jsprof/policy/package.json')),
  path.resolve(__dirname, '..'),
].map((dir) => dir + path.sep);

/** Whether a file (path or file: URL) belongs to jsprof itself, whose frames never reach a trace. */
export function isOwnFile(location: string): boolean {
  const file = location.startsWith('file:') ? fileURLToPath(location) : location;
  return OWN.some((dir) => file.startsWith(dir));
}

export function shouldInstrument(filename: string): boolean {
  return !isOwnFile(filename);
}
