import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { TraceError, parseTraceText, readTraceFile, summarize, validateDocument, validateTrace } from '../src';

function goodTrace() {
  return {
    resources: ['https://example.com/app.js'],
    frames: [{ name: 'main', resourceId: 0, line: 1, column: 10 }, { name: 'work', resourceId: 0, line: 5, column: 14 }, { name: 'Math.sqrt' }],
    stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }, { frameId: 2, parentId: 1 }],
    samples: [{ timestamp: 10 }, { timestamp: 20, stackId: 1 }, { timestamp: 30, stackId: 2 }, { timestamp: 30, stackId: 0 }],
  };
}

function rejection(value: unknown): string {
  try {
    validateDocument(value);
  } catch (error) {
    expect(error).toBeInstanceOf(TraceError);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

/** A deterministic pseudo-random generator (mulberry32), so a failing case can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('validateTrace', () => {
  test('accepts a valid trace, a {meta, trace} document and a receiver file', () => {
    expect(validateTrace(goodTrace())).toEqual(goodTrace());
    expect(validateDocument({ meta: { page: '/home', release: 42, beta: true }, trace: goodTrace() }).meta).toEqual({ page: '/home', release: 42, beta: true });
    const received = validateDocument({ receivedAt: '2026-11-21T09:00:00.000Z', meta: {}, trace: goodTrace() });
    expect(received.receivedAt).toBe('2026-11-21T09:00:00.000Z');
    expect(validateTrace({ resources: [], frames: [], stacks: [], samples: [] }).samples).toEqual([]);
  });

  test.each([
    ['not an object', [1, 2], 'the trace is an array, not an object'],
    ['a missing array', { resources: [], frames: [], stacks: [] }, '"samples" is missing, not an array'],
    ['a resource that is not a string', { ...goodTrace(), resources: [7] }, 'resources[0] is 7, not a string'],
    ['a frame without a name', { ...goodTrace(), frames: [{ resourceId: 0 }] }, 'frames[0].name is missing'],
    ['a resourceId out of range', { ...goodTrace(), frames: [{ name: 'a', resourceId: 3 }] }, 'frames[0].resourceId 3 is not an index into resources (1 of them)'],
    ['a fractional line', { ...goodTrace(), frames: [{ name: 'a', line: 1.5 }] }, 'frames[0].line is 1.5, not a whole number ≥ 0'],
    ['a frameId out of range', { ...goodTrace(), stacks: [{ frameId: 9 }] }, 'stacks[0].frameId 9 is not an index into frames (3 of them)'],
    ['a cycle', { ...goodTrace(), stacks: [{ frameId: 0, parentId: 1 }, { frameId: 1, parentId: 0 }] }, 'stacks[0].parentId 1 is not an earlier stack'],
    ['a stack that is its own parent', { ...goodTrace(), stacks: [{ frameId: 0 }, { frameId: 1, parentId: 1 }] }, 'stacks[1].parentId 1 is not an earlier stack'],
    ['a string parentId', { ...goodTrace(), stacks: [{ frameId: 0 }, { frameId: 1, parentId: '0' }] }, 'stacks[1].parentId "0" is not an earlier stack'],
    ['a NaN timestamp (as null in JSON)', { ...goodTrace(), samples: [{ timestamp: null }] }, 'samples[0].timestamp is null, not a finite number'],
    ['timestamps out of order', { ...goodTrace(), samples: [{ timestamp: 20 }, { timestamp: 10 }] }, 'samples[1].timestamp 10 is earlier than a sample before it (20)'],
    ['a timestamp no clock gives (convert wrote startTime null)', { ...goodTrace(), samples: [{ timestamp: 1e308 }] }, 'samples[0].timestamp 1e+308 is beyond ±9007199254740 ms'],
    ['timestamps stepping back a little at a time', { ...goodTrace(), samples: [{ timestamp: 20 }, { timestamp: 19.95 }, { timestamp: 19.9 }, { timestamp: 19.85 }] }, 'samples[3].timestamp 19.85 is earlier than a sample before it (20)'],
    ['a stackId out of range', { ...goodTrace(), samples: [{ timestamp: 1, stackId: 3 }] }, 'samples[0].stackId 3 is not an index into stacks (3 of them)'],
    ['a sample that is not an object', { ...goodTrace(), samples: ['x'] }, 'samples[0] is "x", not an object'],
    ['meta with an object value', { meta: { page: { a: 1 } }, trace: goodTrace() }, 'meta.page is an object, not a string, number or boolean'],
  ])('rejects %s with one line naming it', (_, value, message) => {
    const got = rejection(value);
    expect(got).toContain(message);
    expect(got).not.toContain('\n');
  });

  test("accepts timestamps that step back by microseconds, as Chromium's own coarsened ones do", () => {
    const trace = { ...goodTrace(), samples: [{ timestamp: 355.95000000298023 }, { timestamp: 355.945000000298 }, { timestamp: 365.9 }] };
    expect(validateTrace(trace)).toBe(trace);
  });

  test('rejects arrays and strings over the limits', () => {
    const many = { ...goodTrace(), samples: Array.from({ length: 101 }, (_, i) => ({ timestamp: i })) };
    expect(() => validateTrace(many, { maxEntries: 100 })).toThrow('"samples" has 101 entries, more than the limit of 100');
    expect(() => validateTrace({ ...goodTrace(), resources: ['x'.repeat(70_000)] })).toThrow('resources[0] is 70000 characters long');
  });

  test('fuzz: a mutated trace is either valid (and summarize works on it) or rejected with a TraceError, quickly', () => {
    const next = random(20261121);
    const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)];
    const junk = () => pick<unknown>([undefined, null, -1, 0.5, 1e308, 'str', [], {}, true, 2 ** 40, 3]);
    const started = Date.now();
    let accepted = 0;
    let rejected = 0;
    for (let round = 0; round < 3000; round++) {
      const trace: any = goodTrace();
      for (let m = 1 + Math.floor(next() * 3); m > 0; m--) {
        const key = pick(['resources', 'frames', 'stacks', 'samples']);
        const list = trace[key];
        const action = Math.floor(next() * 5);
        if (!Array.isArray(list)) continue;
        if (action === 0) trace[key] = junk();
        else if (action === 1 && list.length) list[Math.floor(next() * list.length)] = junk();
        else if (action === 2 && list.length) {
          const item = list[Math.floor(next() * list.length)];
          if (item && typeof item === 'object') item[pick(Object.keys(item).concat(['parentId', 'stackId', 'resourceId']))] = junk();
        } else if (action === 3) list.reverse();
        else list.push(structuredClone(pick(list.length ? list : [junk()])));
      }
      try {
        validateTrace(trace);
        summarize(trace);
        accepted++;
      } catch (error) {
        expect(error).toBeInstanceOf(TraceError);
        rejected++;
      }
    }
    expect(accepted).toBeGreaterThan(50);
    expect(rejected).toBeGreaterThan(1000);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe('readTraceFile', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-read-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, data: string | Buffer) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, data);
    return file;
  };
  const refusal = (file: string, limits = {}) => {
    const started = Date.now();
    try {
      readTraceFile(file, limits);
    } catch (error) {
      expect(error).toBeInstanceOf(TraceError);
      expect(Date.now() - started).toBeLessThan(5000);
      return (error as Error).message;
    }
    throw new Error('accepted');
  };

  test('reads plain and gzip files', () => {
    const text = JSON.stringify({ meta: { page: '/a' }, trace: goodTrace() });
    expect(readTraceFile(write('a.json', text)).meta).toEqual({ page: '/a' });
    expect(readTraceFile(write('a.json.gz', zlib.gzipSync(text))).trace).toEqual(goodTrace());
    // With a byte order mark, as some editors save JSON.
    expect(readTraceFile(write('bom.json', `\ufeff${text}`)).trace).toEqual(goodTrace());
  });

  test('refuses what is not a trace with one line that names the file', () => {
    expect(refusal(path.join(dir, 'absent.json'))).toBe(`${path.join(dir, 'absent.json')}: no such file`);
    expect(refusal(dir)).toBe(`${dir}: is not a file`);
    expect(refusal(write('empty.json', ''))).toMatch(/empty\.json: is empty$/);
    expect(refusal(write('bad.json', '{"resources": ['))).toMatch(/bad\.json: is not JSON \(/);
    expect(refusal(write('cycle.json', JSON.stringify({ ...goodTrace(), stacks: [{ frameId: 0, parentId: 0 }] })))).toMatch(/cycle\.json: stacks\[0\]\.parentId 0 is not an earlier stack/);
  });

  test("says what a Chrome trace-event file (DevTools' Performance panel) is, in its object and array forms", () => {
    const events = [{ name: 'Profile', ph: 'P', pid: 1, tid: 1, ts: 0, args: { data: { startTime: 0 } } }];
    for (const [name, content] of [['recording.json', { traceEvents: events, metadata: {} }], ['events.json', events]] as const) {
      expect(refusal(write(name, JSON.stringify(content)))).toBe(`${path.join(dir, name)}: is a Chrome trace-event file (what DevTools' Performance panel saves), not a trace: jsprof reads JS Self-Profiling traces and V8 CPU profiles (.cpuprofile, as node --cpu-prof writes them)`);
    }
    expect(refusal(write('other-array.json', '[1, 2]'))).toMatch(/other-array\.json: the trace is an array, not an object$/);
  });

  test('refuses truncated and corrupt gzip at every cut', () => {
    const gz = zlib.gzipSync(JSON.stringify(goodTrace()));
    for (let cut = 2; cut < gz.length; cut += 3) {
      expect(refusal(write('cut.json.gz', gz.subarray(0, cut)))).toMatch(/cut\.json\.gz: (the gzip data is (truncated|corrupt)|is not JSON)/);
    }
    const flipped = Buffer.from(gz);
    flipped[12] ^= 0xff;
    expect(refusal(write('flip.json.gz', flipped))).toMatch(/flip\.json\.gz: /);
  });

  test('refuses a gzip bomb and an oversized file without reading them whole', () => {
    const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(refusal(write('bomb.json.gz', bomb), { maxInflatedBytes: 8 * 1024 * 1024 })).toMatch(/bomb\.json\.gz: gunzips to more than 8\.0 MB \(the limit\); refused/);
    expect(refusal(write('big.json', ' '.repeat(2048)), { maxBytes: 1024 })).toMatch(/big\.json: is 2048 bytes, more than the limit of 1024 bytes/);
  });

  test('parseTraceText rejects a huge array within a second', () => {
    const text = `{"resources":[],"frames":[],"stacks":[],"samples":[${'{"timestamp":1,"stackId":0},'.repeat(200_000)}{"timestamp":1}]}`;
    const started = Date.now();
    expect(() => parseTraceText(text, { maxEntries: 100_000 })).toThrow('"samples" has 200001 entries, more than the limit of 100000');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
