/**
 * Valid traces a store cannot take are refused one file at a time, named, and the others ingested:
 * stacks whose chains would cost the store far more than the trace's size, and days no store keeps.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProfilerTrace } from '@jsprof/runtime';
import { MAX_STACK_FRAMES } from '../src/identity';
import { ingestFiles } from '../src/ingest';
import { topFunctions } from '../src/queries';
import { writeFieldTraces } from './field-traces';
import { ENGINES, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

/** One chain of `depth` nested stacks over 50 frames, a sample on each of the deepest 20. */
function deepTrace(depth: number): ProfilerTrace {
  const frames = Array.from({ length: 50 }, (_, i) => ({ name: `f${i}`, resourceId: 0, line: i + 1, column: 1 }));
  const stacks = Array.from({ length: depth }, (_, i) => (i === 0 ? { frameId: 0 } : { frameId: i % 50, parentId: i - 1 }));
  const samples = Array.from({ length: 20 }, (_, i) => ({ timestamp: 10 * i, stackId: depth - 20 + i }));
  return { resources: ['https://app.example/deep.js'], frames, stacks, samples };
}

describe.each(ENGINES.slice(0, 2))('%s', (_name, open) => {
  test('a trace with stacks too deep, or received on a day no store keeps, is refused by name; the rest are ingested', async () => {
    const dir = tempDir('refused');
    const files = writeFieldTraces(path.join(dir, 'traces'), { releases: ['1'], traces: 10 });
    const write = (name: string, document: object) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, JSON.stringify(document));
      return file;
    };
    // 1,000 deep: 500,500 frames along its stacks, taken. 2,000 deep: 2,001,000, refused at once.
    const deepButTaken = write('deep-1000.json', { meta: { release: '1' }, trace: deepTrace(1000) });
    const tooDeep = write('deep-2000.json', { meta: { release: '1' }, trace: deepTrace(2000) });
    const future = write('future.json', { receivedAt: '+275760-09-13T00:00:00.000Z', meta: { release: '1' }, trace: deepTrace(30) });
    const past = write('past.json', { receivedAt: '1969-12-31T23:00:00.000Z', meta: { release: '1' }, trace: deepTrace(30) });
    const store = await open(tempDir('refused-store'));
    const rejected: string[] = [];
    const started = Date.now();
    const summary = await ingestFiles(store, [...files, deepButTaken, tooDeep, future, past], { onRejected: (message) => rejected.push(message), batchSize: 4 });
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(summary).toMatchObject({ ingested: 11, rejected: 3 });
    expect(rejected).toEqual([
      `${tooDeep}: its stacks are too deep for a store: 2,001,000 frames counted along each stack, at most ${MAX_STACK_FRAMES.toLocaleString('en-US')}`,
      `${future}: receivedAt "+275760-09-13T00:00:00.000Z" is not a day a store keeps (1970-01-01 to 2149-06-06)`,
      `${past}: receivedAt "1969-12-31T23:00:00.000Z" is not a day a store keeps (1970-01-01 to 2149-06-06)`,
    ]);
    expect((await topFunctions(store)).all.traces).toBe(11);
    await store.close();
  });
});
