/** `jsprof run`: profiles a Node program in a child process and reports on it. */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { RunSettings, SETTINGS_ENV } from './options';
import { formatReport } from '@jsprof/trace-tools';

export interface RunOptions extends Required<Pick<RunSettings, 'sampleInterval' | 'maxBufferSize' | 'instrument'>> {
  out: string;
  top: number;
  quiet: boolean;
}

export async function run(script: string, args: string[], options: RunOptions): Promise<number> {
  const scriptPath = path.resolve(script);
  if (!fs.existsSync(scriptPath)) {
    process.stderr.write(`jsprof: no such file: ${script}\n`);
    return 1;
  }
  const out = path.resolve(options.out);
  try {
    fs.mkdirSync(path.dirname(out), { recursive: true });
  } catch {
    process.stderr.write(`jsprof: cannot create the directory for ${options.out}\n`);
    return 1;
  }
  fs.rmSync(out, { force: true });
  const settings: RunSettings = {
    instrument: options.instrument,
    out,
    sampleInterval: options.sampleInterval,
    maxBufferSize: options.maxBufferSize,
  };
  const child = spawn(process.execPath, ['--import', pathToFileURL(require.resolve('./profile-run')).href, scriptPath, ...args], {
    stdio: 'inherit',
    env: { ...process.env, [SETTINGS_ENV]: JSON.stringify(settings) },
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const code: number = await new Promise((resolve) => {
    child.on('exit', (status, signal) => resolve(status ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1)));
    child.on('error', (error) => {
      process.stderr.write(`jsprof: could not start node: ${error.message}\n`);
      resolve(1);
    });
  });
  process.off('SIGINT', forward);
  process.off('SIGTERM', forward);
  if (!fs.existsSync(out)) {
    process.stderr.write(`jsprof: the program ended without a trace\n`);
    return code || 1;
  }
  if (!options.quiet) {
    const trace = JSON.parse(fs.readFileSync(out, 'utf8'));
    process.stderr.write(`\njsprof: trace written to ${path.relative(process.cwd(), out) || out}\n`);
    process.stderr.write(formatReport(trace, options.top, Math.ceil(Math.max(options.sampleInterval, 1) / 10) * 10));
  }
  return code;
}
