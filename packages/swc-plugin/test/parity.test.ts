/**
 * The corpus's forms.js instrumented by the Babel plugin and by the SWC front, each run while profiled:
 * the traces name the same frames once positions are mapped back through each front's source map.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as acorn from 'acorn';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { LineIndex } from '@jsprof/policy';
import { instrument as instrumentEstree } from '@jsprof/estree-instrument';
import { instrument } from '../src';
import { instrument as babelInstrument } from '../../babel-plugin/test/helpers';

const RUNTIME = path.resolve(__dirname, '../../runtime/dist/node.js');
// Every form spins 25 ms (of wall time: CPU time is slow to read) instead of 8 ms of CPU, so each is sampled at 10 ms.
const SOURCE = fs
  .readFileSync(path.resolve(__dirname, '../../../fixtures/corpus/forms.js'), 'utf8')
  .replace('const end = process.cpuUsage().user + 8000; while (process.cpuUsage().user < end);', 'const end = performance.now() + 25; while (performance.now() < end);');
const ORIGINAL = instrumentEstree({ code: SOURCE, program: acorn.parse(SOURCE, { ecmaVersion: 'latest' }) as any }, { threshold: 1 }).functions;
const lines = new LineIndex(SOURCE);

/** Runs instrumented code as forms.js under the profiler; returns the trace. */
function profile(code: string): any {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-parity-'));
  const file = path.join(dir, 'forms.js');
  fs.writeFileSync(file, code);
  const script = `
    const { Profiler } = require(${JSON.stringify(RUNTIME)});
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 100000 });
    require(${JSON.stringify(file)});
    setTimeout(() => profiler.stop().then((trace) => console.log(JSON.stringify({ trace, url: ${JSON.stringify(pathToFileURL(file).href)} }))), 50);`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

/** The original function each sampled frame of forms.js stands for, as `name@line:column`. */
function framesOf(result: { trace: any; url: string }, map: any): Set<string> {
  const traceMap = new TraceMap(map);
  const out = new Set<string>();
  const { trace, url } = result;
  for (const frame of trace.frames) {
    if (frame.resourceId === undefined || trace.resources[frame.resourceId] !== url) continue;
    if (frame.name === '' && frame.line === 1 && frame.column === 1) {
      out.add('(module top level)');
      continue;
    }
    const pos = originalPositionFor(traceMap, { line: frame.line, column: frame.column - 1 });
    const offset = pos.line == null ? -1 : lines.offset(pos.line, pos.column! + 1);
    let found = null;
    for (const f of ORIGINAL) if (f.start <= offset && offset < f.bodyStart) found = f;
    out.add(found ? `${found.name}@${found.line}:${found.column}` : `unplaced ${frame.name}`);
  }
  return out;
}

test('Babel and SWC instrumented, the traces name the same frames', () => {
  const babel = babelInstrument(SOURCE, { threshold: 1 }, { sourceMaps: true, filename: 'forms.js' });
  const swc = instrument(SOURCE, { threshold: 1, filename: 'forms.js' });
  const viaBabel = framesOf(profile(babel.code), babel.map);
  const viaSwc = framesOf(profile(swc.code), swc.map);
  const both = [...viaBabel].filter((f) => viaSwc.has(f));
  // Sampling may miss a function in one run; nearly all are in both, and none is placed differently.
  expect(both.length).toBeGreaterThan(0.8 * Math.max(viaBabel.size, viaSwc.size));
  expect(both.length).toBeGreaterThan(40);
  expect(SOURCE).toContain('performance.now() + 25');
  expect([...viaBabel, ...viaSwc].filter((f) => f.startsWith('unplaced'))).toEqual([]);
});
