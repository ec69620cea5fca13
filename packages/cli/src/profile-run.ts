/**
 * Loaded with `--import` into the program `jsprof run` starts: instruments it (register), profiles
 * the whole run, and writes the trace when the process exits, whatever way it exits.
 */
import * as fs from 'node:fs';
import './register';
import { Profiler } from '@jsprof/runtime/node';
import { readSettings } from './options';

const settings = readSettings();
const profiler = new Profiler({ sampleInterval: settings.sampleInterval, maxBufferSize: settings.maxBufferSize });
let written = false;

function writeTrace() {
  if (written || !settings.out) return;
  written = true;
  try {
    const trace = profiler.stopSync();
    fs.writeFileSync(settings.out, JSON.stringify(trace));
  } catch (error) {
    process.stderr.write(`jsprof: could not write the trace to ${settings.out}: ${(error as Error).message}\n`);
  }
}

process.on('exit', writeTrace);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    writeTrace();
    process.kill(process.pid, signal);
  });
}
