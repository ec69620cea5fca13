/**
 * Loaded with `--import` into the program `jsprof run` starts: instruments it (register), profiles
 * the whole run, and writes the trace when the process exits, whatever way it exits. Processes the
 * program forks get the same `--import` and settings: they are instrumented, not profiled.
 */
import * as fs from 'node:fs';
import { progress } from './register';
import * as path from 'node:path';
import { Profiler, afterEachSample, setBaseInterval } from '@jsprof/runtime/node';
import { RunSettings, SIGNAL_FILE, instrumentingFile, settingsOrExit, runBaseInterval } from './options';

const settings = settingsOrExit();
if (settings.out && process.ppid === settings.jsprofPid) profileThisProcess(settings as ProfiledRun);

type ProfiledRun = RunSettings & { out: string; jsprofPid: number };

function profileThisProcess(settings: ProfiledRun): void {
  setBaseInterval(runBaseInterval(settings.sampleInterval));
  const profiler = new Profiler({ sampleInterval: settings.sampleInterval, maxBufferSize: settings.maxBufferSize });
  let written = false;

  function writeTrace() {
    if (written) return;
    written = true;
    try {
      const trace = profiler.stopSync();
      fs.writeFileSync(settings.out, JSON.stringify(trace));
      // For jsprof run's summary: the time that shows in the trace as idle samples.
      fs.writeFileSync(instrumentingFile(settings.out), JSON.stringify({ modules: progress.files, ms: progress.milliseconds }));
    } catch (error) {
      process.stderr.write(`jsprof: could not write the trace to ${settings.out}: ${(error as Error).message}\n`);
    }
  }

  // What the code below needs is taken before the program can replace it (fake timers, mocked files).
  const { existsSync, readFileSync, rmSync } = fs;
  const kill = process.kill.bind(process);

  process.on('exit', writeTrace);
  // A signal the program does not handle ends it: the trace is written first, and the signal raised
  // again so that it ends as it would have. One the program handles is the program's business: the
  // trace is written when it exits.
  const listeners = new Map<NodeJS.Signals, () => void>();
  function endBy(signal: NodeJS.Signals) {
    const listener = listeners.get(signal);
    if (!listener || process.listenerCount(signal) > 1) return;
    process.off(signal, listener);
    writeTrace();
    kill(process.pid, signal);
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    listeners.set(signal, () => endBy(signal));
    process.on(signal, listeners.get(signal)!);
  }
  // A listener runs only when the event loop turns, and a busy program's does not: jsprof, which gets
  // the signal too (or passes it on), names it in a file that is looked for between samples.
  if (settings.scratch) {
    const signalFile = path.join(settings.scratch, SIGNAL_FILE);
    let samples = 0;
    afterEachSample(() => {
      // a stat every tenth sample, which throws nothing while no signal came
      if (++samples % 10 !== 0 || !existsSync(signalFile)) return;
      try {
        const signal = readFileSync(signalFile, 'latin1') as NodeJS.Signals;
        rmSync(signalFile, { force: true });
        endBy(signal);
      } catch {
        // gone meanwhile
      }
    });
  }

  // jsprof ended first, without passing a signal on (SIGKILL, out of memory): the program is asked to
  // end (SIGTERM, when its event loop next turns), and nothing of jsprof's is left behind.
  const { jsprofPid } = settings;
  const stopWatching = clearInterval;
  function jsprofEnded(): boolean {
    try {
      // Linux: the parent now, which process.ppid does not follow.
      const stat = readFileSync('/proc/self/stat', 'latin1');
      return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]) !== jsprofPid;
    } catch {
      try {
        return !kill(jsprofPid, 0);
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ESRCH';
      }
    }
  }
  const watch = setInterval(() => {
    if (!jsprofEnded()) return;
    stopWatching(watch);
    written = true; // nobody is left to read a trace
    if (settings.scratch) rmSync(settings.scratch, { recursive: true, force: true });
    kill(process.pid, 'SIGTERM');
  }, 500);
  watch.unref();
}
