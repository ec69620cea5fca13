/** `jsprof run`: profiles a Node program in a child process and reports on it. */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { RunSettings, SETTINGS_ENV, SIGNAL_FILE, instrumentingFile, runInterval } from './options';
import { formatReport, printable } from '@jsprof/trace-tools';
import { refusedForTrace, refusedOutput, writeAtomic } from './files';
import { counted } from './words';

/** What self time is in a jsprof trace, under the table `jsprof run` prints. */
export const SELF_TIME_NOTE = 'self includes the functions without checks each one calls (below the threshold, built-ins)';

export interface RunOptions extends Required<Pick<RunSettings, 'sampleInterval' | 'maxBufferSize' | 'instrument'>> {
  out: string;
  top: number;
  quiet: boolean;
}

export async function run(script: string, args: string[], options: RunOptions): Promise<number> {
  let scriptPath = path.resolve(script);
  if (!fs.existsSync(scriptPath)) {
    const command = !script.includes('/') && !script.includes(path.sep) && onPath(script);
    const hint = command ? ` (to run the command ${script}: jsprof run ${command})` : '';
    process.stderr.write(`jsprof: no such file: ${printable(script)}${printable(hint)}\n`);
    return 1;
  }
  if (fs.statSync(scriptPath).isDirectory()) {
    // As `node <dir>` runs it: its package.json's main, or its index.js.
    try {
      scriptPath = require.resolve(scriptPath);
    } catch {
      process.stderr.write(`jsprof: ${printable(script)} is a directory with no program in it (no package.json "main", no index.js)\n`);
      return 1;
    }
  }
  const out = path.resolve(options.out);
  const refused = refusedOutput(out, [[scriptPath, 'the script to run']]) ?? refusedForTrace(out);
  if (refused) {
    process.stderr.write(`jsprof: will not write the trace to ${printable(options.out)}: ${refused}\n`);
    return 2;
  }
  // The child writes the trace to a file of jsprof's own; it replaces the output only once there is
  // a trace, so a run that ends without one leaves the output as it was.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-run-'));
  const traceFile = path.join(scratch, 'trace.json');
  try {
    const settings: RunSettings = {
      instrument: options.instrument,
      out: traceFile,
      scratch,
      jsprofPid: process.pid,
      sampleInterval: options.sampleInterval,
      maxBufferSize: options.maxBufferSize,
    };
    const code = await runChild(scriptPath, args, settings);
    if (!fs.existsSync(traceFile)) {
      process.stderr.write(`jsprof: the program ended without a trace\n`);
      return code || 1;
    }
    const text = fs.readFileSync(traceFile, 'utf8');
    let trace;
    try {
      trace = JSON.parse(text);
    } catch {
      process.stderr.write('jsprof: the trace the program wrote is incomplete (it was ended while writing it)\n');
      return code || 1;
    }
    if (options.maxBufferSize > 0 && trace.samples?.length >= options.maxBufferSize) {
      const seconds = (trace.samples[trace.samples.length - 1].timestamp - trace.samples[0].timestamp) / 1000;
      process.stderr.write(`jsprof: the trace holds ${options.maxBufferSize.toLocaleString('en-US')} samples, --max-buffer-size: sampling stopped ${seconds.toFixed(1)} s into the run (raise --max-buffer-size for all of it)\n`);
    }
    try {
      writeAtomic(out, text);
    } catch (error) {
      process.stderr.write(`jsprof: cannot write the trace to ${printable(options.out)}: ${printable((error as Error).message)}\n`);
      return code || 1;
    }
    if (!options.quiet) {
      process.stderr.write(`\njsprof: trace written to ${printable(shown(out))}\n`);
      const instrumenting = readInstrumenting(traceFile);
      if (instrumenting.modules > 0) {
        const time = instrumenting.ms < 1000 ? `${Math.round(instrumenting.ms)} ms` : `${(instrumenting.ms / 1000).toFixed(1)} s`;
        process.stderr.write(`jsprof: instrumented ${counted(instrumenting.modules, 'module')} in ${time} (cached for the next run); that time is in the idle samples\n`);
      }
      process.stderr.write(formatReport(trace, options.top, runInterval(options.sampleInterval)));
      if (trace.samples?.length > 0 && trace.samples.every((s: { stackId?: number }) => s.stackId === undefined)) {
        process.stderr.write('jsprof: no sample found JavaScript running in the program\'s main thread (it waited the whole run, or its work was in worker threads or child processes, which are not profiled)\n');
      }
      if (trace.samples?.some((s: { stackId?: number }) => s.stackId !== undefined)) process.stderr.write(`${SELF_TIME_NOTE}\n`);
    }
    return code;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** A path as the user would write it: relative where it is under the working directory. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** Where the Node command `name` is on PATH (a file whose `#!` line runs node), or null. */
function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    try {
      const file = fs.realpathSync(path.join(dir, name));
      const head = Buffer.alloc(200);
      const fd = fs.openSync(file, 'r');
      try {
        fs.readSync(fd, head, 0, head.length, 0);
      } finally {
        fs.closeSync(fd);
      }
      if (/^#!.*\bnode\b/.test(head.toString('latin1'))) return file;
    } catch {
      // not there
    }
  }
  return null;
}

/** What the program said of its instrumenting, or none. */
function readInstrumenting(traceFile: string): { modules: number; ms: number } {
  try {
    const { modules, ms } = JSON.parse(fs.readFileSync(instrumentingFile(traceFile), 'utf8'));
    return { modules: Number(modules) || 0, ms: Number(ms) || 0 };
  } catch {
    return { modules: 0, ms: 0 };
  }
}

/**
 * Runs the program and resolves to its exit status (128 + the signal's number when a signal ended
 * it, as a shell reports it). Signals reach the program once: it runs in a process group of its own
 * when jsprof has no terminal, so that a signal to jsprof's group does not reach it twice, and jsprof
 * passes them on. At a terminal it shares jsprof's group (to read the terminal), so what the terminal
 * sends to the group (Ctrl-C, the hangup when it closes) reaches it directly, and jsprof passes on
 * only SIGTERM, what `kill <pid>` sends. (A SIGTERM sent to the whole group there reaches it twice.)
 */
function runChild(scriptPath: string, args: string[], settings: RunSettings): Promise<number> {
  const atTerminal = !!process.stdin.isTTY;
  const child = spawn(process.execPath, ['--import', pathToFileURL(require.resolve('./profile-run')).href, scriptPath, ...args], {
    // The program's process.argv0 as `node` started by the user gives it, not the path of Node.
    argv0: process.argv0,
    stdio: 'inherit',
    env: { ...process.env, [SETTINGS_ENV]: JSON.stringify(settings) },
    detached: !atTerminal,
  });
  const forwarded: NodeJS.Signals[] = atTerminal ? ['SIGTERM'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const ignored: NodeJS.Signals[] = atTerminal ? ['SIGINT', 'SIGHUP'] : [];
  // The program's listener runs only when its event loop turns: the signal is also named in a file
  // that it looks for between samples (profile-run), so that a busy program ends as under node.
  const note = (signal: NodeJS.Signals) => {
    try {
      if (settings.scratch) fs.writeFileSync(path.join(settings.scratch, SIGNAL_FILE), signal);
    } catch {
      // the program has ended, or its scratch directory went
    }
  };
  const forward = (signal: NodeJS.Signals) => {
    note(signal);
    child.kill(signal);
  };
  for (const signal of forwarded) process.on(signal, forward);
  // At a terminal, jsprof outlives what the terminal sends if the program handles it, to write its report.
  for (const signal of ignored) process.on(signal, note);
  return new Promise<number>((resolve) => {
    child.on('exit', (status, signal) => resolve(status ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1)));
    child.on('error', (error) => {
      process.stderr.write(`jsprof: could not start node: ${error.message}\n`);
      resolve(1);
    });
  }).finally(() => {
    for (const signal of forwarded) process.off(signal, forward);
    for (const signal of ignored) process.off(signal, note);
  });
}
