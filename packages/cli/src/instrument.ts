/**
 * Instruments one module's source with the Babel plugin, through an on-disk cache so a second run
 * of a program that loads large libraries does not wait for Babel again.
 */
import type * as Babel from '@babel/core';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import type { FunctionRecord, PlacementOptions } from '@jsprof/policy';
import { writeAtomic } from './files';

export type InstrumentOptions = Partial<PlacementOptions>;

export interface Instrumented {
  code: string;
  /** Where the functions and source map of this module are stored, read when a frame needs them. */
  metaFile: string | null;
  /** The same, in memory, when it could not be stored. */
  meta: ModuleMeta | null;
}

export interface ModuleMeta {
  functions: FunctionRecord[];
  /** Source map from the instrumented code back to the file as loaded (absent if nothing changed). */
  map: any | null;
}

/** Changes whenever the code that instruments changes, so stale cache entries are never used. */
const INSTRUMENTER_ID = (() => {
  const hash = createHash('sha256');
  for (const file of [__filename, require.resolve('@jsprof/babel-plugin'), require.resolve('@jsprof/policy')]) {
    const dir = path.dirname(file);
    for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.js')).sort()) hash.update(fs.readFileSync(path.join(dir, name)));
  }
  return hash.digest('hex');
})();

/**
 * Babel is loaded on the first cache miss only: on a second run nothing is instrumented, and Babel's
 * modules would only sit in the program's heap (slowing every garbage collection).
 */
let loaded: { babel: typeof Babel; jsprofPlugin: any } | null = null;
function instrumenter() {
  loaded ??= { babel: require('@babel/core'), jsprofPlugin: require('@jsprof/babel-plugin').default };
  return loaded;
}

export function cacheDir(): string {
  const fromEnv = process.env.JSPROF_CACHE_DIR;
  if (fromEnv) return fromEnv;
  const local = path.join(process.cwd(), 'node_modules');
  return fs.existsSync(local) ? path.join(local, '.cache', 'jsprof') : path.join(os.tmpdir(), 'jsprof-cache');
}

/** Instruments `source` of `filename`; returns null if the file cannot be parsed (it then runs as it is). */
export function instrumentModule(source: string, filename: string, options: InstrumentOptions): Instrumented | null {
  const dir = cacheDir();
  const key = createHash('sha256')
    .update(`${INSTRUMENTER_ID}\0${JSON.stringify(options)}\0${filename}\0`)
    .update(source)
    .digest('hex')
    .slice(0, 32);
  const codeFile = path.join(dir, `${key}.js`);
  const metaFile = path.join(dir, `${key}.meta.json`);
  try {
    if (fs.existsSync(metaFile)) return { code: fs.readFileSync(codeFile, 'utf8'), metaFile, meta: null };
  } catch {
    // a damaged cache entry is rebuilt below
  }
  let result;
  try {
    const { babel, jsprofPlugin } = instrumenter();
    result = babel.transformSync(source, {
      filename,
      babelrc: false,
      configFile: false,
      sourceType: 'unambiguous',
      sourceMaps: true,
      // Frames are placed in the file as Node loads it (as native Chromium places them in the script),
      // so a library's own source map is not chained in.
      inputSourceMap: false as any,
      compact: source.length > 500_000,
      comments: true,
      parserOpts: { allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true, errorRecovery: false },
      plugins: [[jsprofPlugin, options]],
    });
  } catch {
    return null;
  }
  if (!result || result.code == null) return null;
  const metadata = (result.metadata as any).jsprof;
  const meta: ModuleMeta = { functions: metadata?.functions ?? [], map: metadata?.changed ? result.map : null };
  const code = metadata?.changed ? result.code : source;
  try {
    fs.mkdirSync(dir, { recursive: true });
    writeAtomic(codeFile, code);
    writeAtomic(metaFile, JSON.stringify(meta));
    return { code, metaFile, meta: null };
  } catch {
    return { code, metaFile: null, meta };
  }
}
