/** Which files `jsprof run` instruments: every JavaScript file but jsprof's own and its tools'. */
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
  if (!/\.(c|m)?js$/.test(filename)) return false;
  return !isOwnFile(filename);
}
