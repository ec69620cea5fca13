/** jsprof's runtime, which a page may bundle: never instrumented (its checks would call into itself), installed or linked. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { INSTALLED_RUNTIME } from '@jsprof/policy';

/** The runtime this plugin would resolve, by its real path (bundlers follow symlinks), if it can. */
function resolvedRuntime(): string | null {
  try {
    return fs.realpathSync(path.dirname(require.resolve('@jsprof/runtime/package.json'))) + path.sep;
  } catch {
    return null;
  }
}

const runtimeDir = resolvedRuntime();

export function isJsprofRuntime(file: string): boolean {
  return INSTALLED_RUNTIME.test(file.replace(/\\/g, '/')) || (runtimeDir !== null && file.startsWith(runtimeDir));
}
