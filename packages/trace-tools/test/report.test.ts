import type { ProfilerTrace } from '@jsprof/runtime';
import { summarize } from '../src/analyze';
import { CallTreeNode, bottomUpTree, topDownTree } from '../src/report/call-tree';
import { displayLocation } from '../src/report/frames';
import { formatReport } from '../src/report/functions';
import { htmlReport, jsonForScript } from '../src/report/html';
import { SCRIPT } from '../src/report/html-page';
import { estimateInterval } from '../src/report/interval';
import { pruneTree } from '../src/report/prune';
import { formatView, viewJson } from '../src/report/views';
import { stringifyDeep } from '../src/report/tree-walk';
import { createHash } from 'node:crypto';

const FILE = 'file:///app/src/fib.js';

/**
 * main → fib → fib → leaf, with recursion, a leaf reached two ways, and two idle samples:
 *   s0 main | s1,s2 main>fib>fib>leaf | s3 idle | s4 main>fib>fib>fib | s5 main>leaf | s6 idle | s7 main>fib>fib | s8 main>fib
 */
const RECURSIVE: ProfilerTrace = {
  resources: [FILE],
  frames: [
    { name: 'main', resourceId: 0, line: 1, column: 10 },
    { name: 'fib', resourceId: 0, line: 5, column: 13 },
    { name: 'leaf', resourceId: 0, line: 9, column: 14 },
  ],
  stacks: [
    { frameId: 0 },
    { frameId: 1, parentId: 0 },
    { frameId: 1, parentId: 1 },
    { frameId: 2, parentId: 2 },
    { frameId: 2, parentId: 0 },
    { frameId: 1, parentId: 2 },
  ],
  samples: [0, 3, 3, undefined, 5, 4, undefined, 2, 1].map((stackId, i) => (stackId === undefined ? { timestamp: 100 + 10 * i } : { timestamp: 100 + 10 * i, stackId })),
};

/** A tree as nested [name, total, self, children] for readable expectations. */
type Shape = [string, number, number, Shape[]?];
function shape(trace: ProfilerTrace, node: CallTreeNode): Shape[] {
  return node.children.map((c) => {
    const kids = shape(trace, c);
    return kids.length ? [trace.frames[c.frameId].name, c.total, c.self, kids] : [trace.frames[c.frameId].name, c.total, c.self];
  });
}

describe('call trees', () => {
  test('top-down: each node counts the samples under it once, recursion level by level', () => {
    const tree = topDownTree(RECURSIVE);
    expect(tree).toMatchObject({ frameId: -1, total: 7, self: 0 });
    expect(shape(RECURSIVE, tree)).toEqual([
      ['main', 7, 1, [
        ['fib', 5, 1, [
          ['fib', 4, 1, [['leaf', 2, 2], ['fib', 1, 1]]],
        ]],
        ['leaf', 1, 1],
      ]],
    ]);
  });

  test('bottom-up: roots are where time was spent, merged by function; children are the callers', () => {
    const tree = bottomUpTree(RECURSIVE);
    expect(tree.total).toBe(7);
    expect(shape(RECURSIVE, tree)).toEqual([
      ['fib', 3, 3, [
        ['fib', 2, 0, [['main', 1, 0], ['fib', 1, 0, [['main', 1, 0]]]]],
        ['main', 1, 0],
      ]],
      ['leaf', 3, 3, [
        ['fib', 2, 0, [['fib', 2, 0, [['main', 2, 0]]]]],
        ['main', 1, 0],
      ]],
      ['main', 1, 1],
    ]);
  });

  test('the function table counts a recursive function once per sample', () => {
    const fib = summarize(RECURSIVE).functions[1];
    expect(fib).toMatchObject({ name: 'fib', self: 3, total: 5 });
  });

  test('idle samples belong to no node; a trace with only idle samples has an empty tree', () => {
    const idle: ProfilerTrace = { resources: [], frames: [], stacks: [], samples: [{ timestamp: 0 }, { timestamp: 10 }] };
    expect(topDownTree(idle)).toEqual({ frameId: -1, total: 0, self: 0, children: [] });
    expect(bottomUpTree(idle)).toEqual({ frameId: -1, total: 0, self: 0, children: [] });
  });

  test('on random traces, shares add up and no function is counted twice', () => {
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const frames = Array.from({ length: 1 + random(5) }, (_, i) => ({ name: `f${i}` }));
      const stacks: ProfilerTrace['stacks'] = [];
      for (let i = 0; i < 1 + random(12); i++) stacks.push(i && random(4) ? { frameId: random(frames.length), parentId: random(i) } : { frameId: random(frames.length) });
      const samples = Array.from({ length: random(40) }, (_, i) => (random(5) ? { timestamp: i, stackId: random(stacks.length) } : { timestamp: i }));
      const trace: ProfilerTrace = { resources: [], frames, stacks, samples };
      const busy = samples.filter((s) => s.stackId !== undefined).length;

      const topDown = topDownTree(trace);
      expect(topDown.total).toBe(busy);
      const check = (node: CallTreeNode) => {
        expect(node.total).toBe(node.self + node.children.reduce((sum, c) => sum + c.total, 0));
        node.children.forEach(check);
      };
      check(topDown);

      // A function's total is the sum over its outermost nodes (those with no ancestor of the same function).
      const functions = summarize(trace).functions;
      const outermost = new Map<number, number>();
      const walk = (node: CallTreeNode, above: Set<number>) => {
        if (!above.has(node.frameId)) outermost.set(node.frameId, (outermost.get(node.frameId) ?? 0) + node.total);
        const next = new Set(above).add(node.frameId);
        node.children.forEach((c) => walk(c, next));
      };
      topDown.children.forEach((c) => walk(c, new Set()));
      functions.forEach((f) => expect(outermost.get(f.frameId) ?? 0).toBe(f.total));

      const bottomUp = bottomUpTree(trace);
      expect(bottomUp.children.reduce((sum, c) => sum + c.total, 0)).toBe(busy);
      for (const root of bottomUp.children) expect(root.self).toBe(functions[root.frameId].self);
      const callers = (node: CallTreeNode) => {
        expect(node.children.reduce((sum, c) => sum + c.total, 0)).toBeLessThanOrEqual(node.total);
        node.children.forEach((c) => {
          expect(c.self).toBe(0);
          callers(c);
        });
      };
      bottomUp.children.forEach(callers);
    }
  });
});

describe('pruning', () => {
  test('hides children under the share or beyond the count, saying how many and how much', () => {
    const tree = topDownTree(RECURSIVE);
    const pruned = pruneTree(tree, 7, { maxChildren: 10, minShare: 0.2 });
    const main = pruned.children[0];
    expect(main.children.map((c) => c.frameId)).toEqual([1]);
    expect(main.hidden).toEqual({ nodes: 1, total: 1 });
    expect(pruneTree(tree, 7, { maxChildren: 1, minShare: 0 }).children[0].children[0].children[0].hidden).toEqual({ nodes: 1, total: 1 });
    expect(pruneTree(tree, 7, { maxChildren: 10, minShare: 0 }).children[0].hidden).toBeUndefined();
  });
});

describe('the sampling interval', () => {
  const at = (...timestamps: number[]): ProfilerTrace => ({ resources: [], frames: [], stacks: [], samples: timestamps.map((timestamp) => ({ timestamp })) });
  test('is the median gap between samples', () => {
    expect(estimateInterval(RECURSIVE)).toBe(10);
    expect(estimateInterval(at(0, 10, 20, 45, 55))).toBe(10);
    expect(estimateInterval(at(0, 10, 30))).toBe(15);
  });
  test('is unknown with fewer than two samples or no gap', () => {
    expect(estimateInterval(at(5))).toBeNull();
    expect(estimateInterval(at(5, 5, 5))).toBeNull();
  });
});

describe('text views', () => {
  test('functions: the table jsprof run prints', () => {
    expect(formatReport(RECURSIVE, 15, 10)).toBe(
      [
        '9 samples every 10 ms: 7 while JavaScript ran, 2 idle.',
        '',
        ' self   total  function  location',
        '42.9%   71.4%  fib       /app/src/fib.js:5:13',
        '42.9%   42.9%  leaf      /app/src/fib.js:9:14',
        '14.3%  100.0%  main      /app/src/fib.js:1:10',
        '',
      ].join('\n'),
    );
    expect(formatView(RECURSIVE, { view: 'functions', top: 1 })).toBe(formatReport(RECURSIVE, 1, 10));
  });

  test('top-down: an indented tree with total and self shares', () => {
    expect(formatView(RECURSIVE, { view: 'top-down' })).toBe(
      [
        '9 samples every 10 ms: 7 while JavaScript ran, 2 idle.',
        '',
        ' total   self  function, then its callees',
        '100.0%  14.3%  main  /app/src/fib.js:1:10',
        ' 71.4%  14.3%    fib  /app/src/fib.js:5:13',
        ' 57.1%  14.3%      fib  /app/src/fib.js:5:13',
        ' 28.6%  28.6%        leaf  /app/src/fib.js:9:14',
        ' 14.3%  14.3%        fib  /app/src/fib.js:5:13',
        ' 14.3%  14.3%    leaf  /app/src/fib.js:9:14',
        '',
      ].join('\n'),
    );
  });

  test('bottom-up: functions then their callers, pruned with a count of what was hidden', () => {
    expect(formatView(RECURSIVE, { view: 'bottom-up', top: 1, minShare: 0.2 })).toBe(
      [
        '9 samples every 10 ms: 7 while JavaScript ran, 2 idle.',
        '',
        'total   self  function, then its callers',
        '42.9%  42.9%  fib  /app/src/fib.js:5:13',
        '28.6%           fib  /app/src/fib.js:5:13',
        '28.6%             … 2 more',
        '14.3%           … 1 more',
        '57.1%         … 2 more',
        '',
      ].join('\n'),
    );
  });

  test('a trace without busy samples prints its header only', () => {
    const idle: ProfilerTrace = { resources: [], frames: [], stacks: [], samples: [{ timestamp: 0 }] };
    expect(formatView(idle, { view: 'top-down' })).toBe('1 sample: 0 while JavaScript ran, 1 idle.\n');
    expect(formatView(idle, { view: 'functions' })).toBe('1 sample: 0 while JavaScript ran, 1 idle.\n');
  });

  test('control characters in names and URLs never reach the terminal', () => {
    const evil: ProfilerTrace = {
      resources: ['http://x/\u001b]8;;evil\u0007a.js'],
      frames: [{ name: 'red\u001b[31m', resourceId: 0, line: 1, column: 1 }],
      stacks: [{ frameId: 0 }],
      samples: [{ timestamp: 0, stackId: 0 }],
    };
    for (const view of ['functions', 'top-down', 'bottom-up'] as const) {
      const text = formatView(evil, { view });
      expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
      expect(text).toContain('red\\u001b[31m');
    }
  });

  test('bidirectional formatting characters are escaped too: U+202E cannot reverse what follows it', () => {
    const trick: ProfilerTrace = {
      resources: ['https://x.example/\u202egnp.js'],
      frames: [{ name: 'safe\u202e\u2066evil\u2069', resourceId: 0, line: 1, column: 1 }],
      stacks: [{ frameId: 0 }],
      samples: [{ timestamp: 0, stackId: 0 }],
    };
    for (const view of ['functions', 'top-down', 'bottom-up'] as const) {
      const text = formatView(trick, { view });
      expect(text).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
      expect(text).toContain('safe\\u202e\\u2066evil\\u2069');
    }
    const page = htmlReport({ trace: trick, meta: { 'note\u202e': 'x\u202ey' } }, 'a\u202eb.json');
    expect(page).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(page).toContain('safe\\\\u202e');
  });

  test('locations: files relative to the working directory, webpack sources by their path in the project, native frames marked', () => {
    expect(displayLocation('webpack://shop/./src/primes.js', 2, 28)).toBe('src/primes.js:2:28');
    expect(displayLocation('webpack:///src/primes.js', 2, 28)).toBe('src/primes.js:2:28');
    expect(displayLocation('webpack://shop/node_modules/marked/lib/marked.esm.js', 24, 15)).toBe('node_modules/marked/lib/marked.esm.js:24:15');
    expect(displayLocation('file:///work/app/a.js', 3, null, '/work')).toBe('app/a.js:3');
    expect(displayLocation('file:///work/app/a.js', 3, 14, '/work')).toBe('app/a.js:3:14');
    expect(displayLocation('file:///elsewhere/a.js', 3, 1, '/work')).toBe('/elsewhere/a.js:3:1');
    expect(displayLocation('https://example.com/a.js', null)).toBe('https://example.com/a.js');
    expect(displayLocation(null, null)).toBe('(native)');
  });
});

describe('JSON views', () => {
  const document = { trace: RECURSIVE, meta: { page: '/home' } };
  test('functions', () => {
    expect(viewJson(document, { view: 'functions', top: 2 })).toEqual({
      view: 'functions',
      samples: 9,
      busy: 7,
      idle: 2,
      intervalMs: 10,
      meta: { page: '/home' },
      functions: [
        { name: 'fib', resource: FILE, line: 5, column: 13, location: '/app/src/fib.js:5:13', self: 3, total: 5 },
        { name: 'leaf', resource: FILE, line: 9, column: 14, location: '/app/src/fib.js:9:14', self: 3, total: 3 },
      ],
    });
  });

  test('trees: the root holds every busy sample; hidden children are counted', () => {
    const json = viewJson(document, { view: 'top-down', minShare: 0.2 }) as any;
    expect(json.tree).toMatchObject({ total: 7, self: 0 });
    expect(json.tree.name).toBeUndefined();
    const main = json.tree.children[0];
    expect(main).toMatchObject({ name: 'main', resource: FILE, line: 1, column: 10, total: 7, self: 1, hidden: { nodes: 1, total: 1 } });
    expect(main.children[0]).toMatchObject({ name: 'fib', total: 5, self: 1 });
  });
});

describe('the HTML report', () => {
  const XSS = '</script><img src=x onerror=alert(1)><!--';
  const evil: ProfilerTrace = {
    resources: ['https://x/<script>alert(2)</script>.js'],
    frames: [{ name: XSS, resourceId: 0, line: 1, column: 1 }, { name: '\u2028</SCRIPT >&amp;' }],
    stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }],
    samples: [{ timestamp: 0, stackId: 1 }],
  };

  test('carries the trace as JSON that cannot close its script element', () => {
    const html = htmlReport({ trace: evil, meta: { page: '<b>' } }, 'a<b>.json');
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<!--');
    expect(html).toContain('<title>jsprof report: a&#60;b&#62;.json</title>');
    const json = html.match(/<script type="application\/json" id="jsprof-data">(.*?)<\/script>/s)![1];
    const data = JSON.parse(json);
    expect(data.frames[0][0]).toBe(XSS);
    expect(data.frames[1]).toEqual(['\u2028</SCRIPT >&amp;', '(native)']);
    expect(data.meta).toEqual({ page: '<b>' });
    expect(JSON.parse(jsonForScript({ s: '<>&\u2028\u2029' }))).toEqual({ s: '<>&\u2028\u2029' });
  });

  test('lets only its own script run', () => {
    const html = htmlReport({ trace: evil, meta: {} }, 't.json');
    const hash = createHash('sha256').update(SCRIPT).digest('base64');
    expect(html).toContain(`script-src 'sha256-${hash}'`);
    expect(html).toContain(`default-src 'none'`);
    expect(html).toContain(`<script>${SCRIPT}</script>`);
  });
});

describe('traces thousands of frames deep (a recursive parser)', () => {
  const depth = 3000;
  const deep: ProfilerTrace = {
    resources: ['file:///parser.js'],
    frames: Array.from({ length: depth }, (_, i) => ({ name: `level${i % 7}`, resourceId: 0, line: i + 1, column: 1 })),
    stacks: Array.from({ length: depth }, (_, i) => (i ? { frameId: i, parentId: i - 1 } : { frameId: 0 })),
    samples: Array.from({ length: 30 }, (_, i) => ({ timestamp: i * 10, stackId: depth - 1 - (i % 3) })),
  };

  test('call trees, their text and their data are built without running out of stack', () => {
    const top = topDownTree(deep);
    let node = top;
    let levels = 0;
    while (node.children.length) {
      node = node.children[0];
      levels++;
    }
    expect(levels).toBe(depth);
    expect(node.self).toBe(10);
    for (const view of ['top-down', 'bottom-up'] as const) {
      const text = formatView(deep, { view, top: 3, minShare: 0 });
      expect(text.split('\n').length).toBeGreaterThan(depth);
      // Indentation stops growing past a depth, which rows deeper than it write out (before, its spaces alone were 9 MB here).
      expect(text.length).toBeLessThan(2_000_000);
      expect(text).toMatch(/\[29\d\d\] level/);
      const json = stringifyDeep(viewJson({ trace: deep, meta: {} }, { view, top: 3, minShare: 0 }), 2);
      expect(json.length).toBeLessThan(20_000_000); // indentation stops growing past a depth
      expect(json).toMatch(/^\{\n {2}"view": /);
    }
    expect(htmlReport({ trace: deep, meta: {} }, 'deep.json')).toContain('jsprof-data');
  });

  test('the top-down tree and the function table cost work in proportion to the trace, sampled at every depth', () => {
    // Walking down from the root for every sampled stack reads 4.5 million stacks here.
    let reads = 0;
    const stacks = new Proxy(deep.stacks, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const everyDepth: ProfilerTrace = { ...deep, stacks, samples: Array.from({ length: depth }, (_, i) => ({ timestamp: i * 10, stackId: i })) };
    const top = topDownTree(everyDepth);
    const summary = summarize(everyDepth);
    expect(reads).toBeLessThan(20 * depth);
    let node = top;
    for (let level = 0; level < depth; level++) {
      expect(node.children.map((c) => [c.total, c.self])).toEqual([[depth - level, 1]]);
      node = node.children[0];
    }
    // Frame i is called at depth i only: its total is the samples from there down.
    expect(summary.functions.slice(0, 7).map((f) => f.total)).toEqual([depth, depth - 1, depth - 2, depth - 3, depth - 4, depth - 5, depth - 6]);
  });

  test('stringifyDeep writes what JSON.stringify writes, for data of ordinary depth', () => {
    for (const value of [{ a: 1, b: [1, 2, { c: null, d: undefined }], e: 'x"y\n', f: [], g: {} }, [1, [2, [3]]], 'text', 5, null, [undefined]]) {
      for (const indent of [0, 2]) expect(stringifyDeep(value, indent)).toBe(JSON.stringify(value, null, indent));
    }
  });
});
