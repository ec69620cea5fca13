/**
 * `node --import @jsprof/cli/register app.mjs`: instruments every module as it loads (ES modules
 * through a load hook, CommonJS through the require hook), installs `globalThis.Profiler`, and
 * names frames in the original files. It does not profile by itself.
 */
import * as Module from 'node:module';
import * as threads from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { install, runAsOwnWork, setFrameResolver } from '@jsprof/runtime/node';
import { instrumentModule, pruneModuleCache } from './instrument';
import { shouldInstrument } from './filter';
import { settingsOrExit } from './options';
import { Progress } from './progress';
import { registerModule, resolveFrame } from './sources';

const state = globalThis as any;

/** Counts the modules instrumented on both threads, and the time it took. */
export const progress = new Progress();

/**
 * Node's module hooks thread runs `-r` preloads too, and registering hooks there fails (an unhandled
 * rejection that ended the program with status 1 and no message): nothing of this file is for it.
 * Node 22.14 names it (`isInternalThread`); Node 20 gives it a `workerData` of null, where a program's
 * workers have theirs or undefined.
 */
function inModuleHooksThread(): boolean {
  const internal = (threads as { isInternalThread?: boolean }).isInternalThread;
  return internal ?? (!threads.isMainThread && threads.workerData === null);
}

if (!state.__jsprofRegistered && !inModuleHooksThread()) {
  Object.defineProperty(state, '__jsprofRegistered', { value: true, configurable: true });
  const settings = settingsOrExit();
  install();
  const { port1, port2 } = new threads.MessageChannel();
  const drain = () => {
    for (let m = threads.receiveMessageOnPort(port1); m; m = threads.receiveMessageOnPort(port1)) registerModule(m.message.url, m.message);
  };
  port1.on('message', (m) => registerModule(m.url, m));
  port1.unref();
  setFrameResolver((frame) => {
    drain();
    return resolveFrame(frame);
  });

  // A run that instrumented any module prunes the cache as it ends.
  process.on('exit', () => {
    if (progress.files > 0) runAsOwnWork(pruneModuleCache);
  });

  const register = (Module as any).register as undefined | ((specifier: string, options: object) => void);
  if (typeof register === 'function') {
    register(pathToFileURL(require.resolve('./hooks')).href, {
      parentURL: pathToFileURL(__filename).href,
      data: { port: port2, options: settings.instrument, progress: progress.shared },
      transferList: [port2],
    });
  }

  const proto = (Module as any).Module.prototype;
  const compile = proto._compile;
  // Node 22.18+ passes a format ('commonjs-typescript': types not yet stripped, which _compile does): only JavaScript is instrumented.
  proto._compile = function (this: unknown, content: string, filename: string, format?: string) {
    if (typeof content === 'string' && !(typeof format === 'string' && format.includes('typescript')) && shouldInstrument(filename)) {
      const instrumented = runAsOwnWork(() => instrumentModule(content, filename, settings.instrument, 'commonjs', progress));
      if (instrumented) {
        registerModule(filename, instrumented);
        return compile.call(this, instrumented.code, filename, format);
      }
    }
    return compile.call(this, content, filename, format);
  };
}
