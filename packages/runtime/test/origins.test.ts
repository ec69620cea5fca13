/** Origin masking's decisions, in a realm faked around them (the real browser cases are in browser.test.ts). */
import { withoutCredentials } from '../src/origins';
import type { CrossOriginFrames } from '../src/origins';
import type { FrameResolver } from '../src/trace';
import type { RawFrame } from '../src/capture';

/** A fresh runtime's masking (what it read of Resource Timing is the runtime's, one per realm). */
function maskingResolver(mode: () => CrossOriginFrames): FrameResolver {
  let resolver!: FrameResolver;
  jest.isolateModules(() => {
    resolver = require('../src/origins').maskingResolver(mode);
  });
  return resolver;
}

/** Resource Timing as a PerformanceObserver sees it: the first of `entries` delivered to its callback, the others still queued. */
function resourceTiming(entries: object[]) {
  return class {
    constructor(readonly callback: (list: { getEntries(): object[] }) => void) {}
    observe(options: { type: string; buffered: boolean }) {
      expect(options).toEqual({ type: 'resource', buffered: true });
      this.callback({ getEntries: () => entries.slice(0, 1) });
    }
    takeRecords() {
      return entries.slice(1);
    }
  };
}

const frame = (url: string | null, name = 'f'): RawFrame => ({ url, name, line: 1, column: 1, native: url === null });

function withRealm(realm: Record<string, unknown>, fn: () => void) {
  const g = globalThis as any;
  const saved = Object.fromEntries(Object.keys(realm).map((k) => [k, Object.getOwnPropertyDescriptor(g, k)]));
  for (const [k, v] of Object.entries(realm)) Object.defineProperty(g, k, { value: v, configurable: true, writable: true });
  try {
    fn();
  } finally {
    for (const [k, d] of Object.entries(saved)) {
      if (d) Object.defineProperty(g, k, d);
      else delete g[k];
    }
  }
}

test('user names and passwords never stay in a URL', () => {
  expect(withoutCredentials('https://user:secret@app.example/a.js')).toBe('https://app.example/a.js');
  expect(withoutCredentials('https://token@app.example/a.js?x=@y')).toBe('https://app.example/a.js?x=@y');
  expect(withoutCredentials('https://app.example/a@b.js')).toBe('https://app.example/a@b.js');
});

const script = (src: string, attrs: Record<string, string> = {}) => ({ src, type: attrs.type ?? '', hasAttribute: (a: string) => a in attrs });

test('same origin, blob: of the same origin and data: are kept; other origins only when fetched with CORS', () => {
  withRealm(
    {
      location: { origin: 'https://app.example' },
      document: { scripts: [script('https://cdn.example/plain.js'), script('https://cdn.example/cors.js', { crossorigin: '' }), script('https://cdn.example/mod.js', { type: 'module' })] },
      PerformanceObserver: resourceTiming([
        { name: 'https://cdn.example/imported.js', responseStatus: 200, initiatorType: 'script' },
        { name: 'https://cdn.example/opaque.js', responseStatus: 0, initiatorType: 'script' },
        { name: 'https://app.example/redirected.js', responseStatus: 0, initiatorType: 'script' },
        { name: 'https://cdn.example/data.js', responseStatus: 200, initiatorType: 'fetch' },
      ]),
    },
    () => {
      let mode: 'drop' | 'coalesce' = 'drop';
      const resolve = maskingResolver(() => mode);
      const url = (u: string | null) => resolve(frame(u))?.url ?? null;
      expect(url('https://app.example/app.js')).toBe('https://app.example/app.js');
      expect(url('https://user:pw@app.example/app.js')).toBe('https://app.example/app.js');
      expect(url('blob:https://app.example/1234')).toBe('blob:https://app.example/1234');
      expect(url('data:text/javascript,f()')).toBe('data:text/javascript,f()');
      expect(resolve(frame(null, 'Math.sqrt'))).toEqual({ name: 'Math.sqrt' });
      for (const kept of ['https://cdn.example/cors.js', 'https://cdn.example/mod.js', 'https://cdn.example/imported.js']) expect(url(kept)).toBe(kept);
      for (const masked of ['https://cdn.example/plain.js', 'https://cdn.example/opaque.js', 'https://other.example/x.js', 'blob:https://cdn.example/1', 'https://app.example/redirected.js', 'https://cdn.example/data.js']) {
        expect(resolve(frame(masked))).toBeNull();
      }
      mode = 'coalesce';
      expect(resolve(frame('https://cdn.example/plain.js'))).toEqual({ name: '(cross-origin)' });
    },
  );
});

test('an about:srcdoc or about:blank document (location.origin "null") masks from its own origin, self.origin, as the runtime loaded', () => {
  withRealm(
    {
      location: { origin: 'null' },
      origin: 'https://app.example',
      document: { scripts: [script('https://app.example/app.js'), script('https://cdn.example/plain.js')] },
    },
    () => {
      const resolve = maskingResolver(() => 'drop');
      // a page script's `var origin` replaces self.origin
      (globalThis as any).origin = 'https://cdn.example';
      expect(resolve(frame('https://app.example/app.js'))?.url).toBe('https://app.example/app.js');
      expect(resolve(frame('https://cdn.example/plain.js'))).toBeNull();
    },
  );
});

test("a page's own `origin` set before the runtime loaded changes nothing: a document with a location masks from its location's origin", () => {
  withRealm(
    {
      location: { origin: 'https://app.example' },
      origin: 'home',
      document: { scripts: [script('https://app.example/app.js'), script('https://cdn.example/plain.js')] },
    },
    () => {
      const resolve = maskingResolver(() => 'drop');
      expect(resolve(frame('https://app.example/app.js'))?.url).toBe('https://app.example/app.js');
      expect(resolve(frame('https://cdn.example/plain.js'))).toBeNull();
    },
  );
});

test("a URL without its query (JavaScriptCore's stacks) passes if a script at that path was fetched with CORS and none was opaque", () => {
  withRealm(
    {
      location: { origin: 'https://app.example' },
      document: {
        scripts: [
          script('https://cdn.example/cors.js?v=1', { crossorigin: '' }),
          script('https://cdn.example/mixed.js?v=1', { crossorigin: '' }),
          script('https://cdn.example/mixed.js?v=2'),
        ],
      },
      PerformanceObserver: resourceTiming([
        { name: 'https://cdn.example/mod.js#x', responseStatus: 200, initiatorType: 'script' },
        { name: 'https://cdn.example/mod.js?opaque', responseStatus: 0, initiatorType: 'script' },
      ]),
    },
    () => {
      const resolve = maskingResolver(() => 'drop');
      expect(resolve(frame('https://cdn.example/cors.js'))?.url).toBe('https://cdn.example/cors.js');
      // an opaque script at the same path could be the one the stack names
      expect(resolve(frame('https://cdn.example/mixed.js'))).toBeNull();
      expect(resolve(frame('https://cdn.example/mod.js'))).toBeNull();
      // a URL with a query is matched exactly
      expect(resolve(frame('https://cdn.example/cors.js?v=2'))).toBeNull();
    },
  );
});
