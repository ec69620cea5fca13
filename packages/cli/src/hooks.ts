/**
 * ES module load hook (runs on Node's loader thread): instruments each ES module's source and tells
 * the main thread where its metadata is. CommonJS modules are left to the require hook.
 */
import type { MessagePort } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { instrumentModule, InstrumentOptions } from './instrument';
import { shouldInstrument } from './filter';
import { Progress } from './progress';

let port: MessagePort | null = null;
let options: InstrumentOptions = {};
let progress = new Progress();

export function initialize(data: { port: MessagePort; options: InstrumentOptions; progress: SharedArrayBuffer }) {
  port = data.port;
  options = data.options ?? {};
  progress = new Progress(data.progress);
}

export async function load(url: string, context: any, nextLoad: (url: string, context: any) => Promise<any>) {
  const result = await nextLoad(url, context);
  if (result.format !== 'module' || !url.startsWith('file:') || result.source == null) return result;
  const filename = fileURLToPath(url);
  if (!shouldInstrument(filename)) return result;
  const source = typeof result.source === 'string' ? result.source : Buffer.from(result.source).toString('utf8');
  const instrumented = instrumentModule(source, filename, options, 'module', progress);
  if (!instrumented) return result;
  port?.postMessage({ url, metaFile: instrumented.metaFile, meta: instrumented.meta });
  return { ...result, source: instrumented.code };
}
