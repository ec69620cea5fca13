/**
 * Components of Vue and Svelte: their plugins compile `App.vue` and `App.svelte` to JavaScript, and
 * a block of one to a module whose query names its language (`App.vue?vue&type=script&setup=true&lang.ts`,
 * `App.vue?vue&type=style&index=0&lang.module.css`), as @vitejs/plugin-vue and
 * @sveltejs/vite-plugin-svelte name them. A real rollup build, with a plugin that compiles such
 * components the way those do.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { rollup, Plugin } from 'rollup';
import { isInstrumentedSource } from '@jsprof/policy';
import { jsprofUnplugin } from '../src';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-components-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const SCRIPT = '<script>\nexport function sieve(limit) {\n  const out = [];\n  for (let i = 2; i < limit; i++) if (out.every((p) => i % p)) out.push(i);\n  return out;\n}\n</script>\n';
const STYLE = '<style module>\n.box { color: red }\n</style>\n';
const block = (text: string, tag: string) => new RegExp(`<${tag}[^>]*>([^]*?)</${tag}>`).exec(text)![1];

/** `.vue`: the main module imports its script and style blocks; `.svelte`: the component is one module. */
const components: Plugin = {
  name: 'components',
  resolveId: (id) => (id.includes('?') ? id : null),
  load(id) {
    const [file, query] = id.split('?');
    const text = () => fs.readFileSync(file, 'utf8');
    if (query?.includes('type=script')) return block(text(), 'script');
    // What a CSS module becomes once vite's CSS plugin has read it.
    if (query?.includes('type=style')) return `export default { box: "_box_1" }; // ${block(text(), 'style').trim()}`;
    return null;
  },
  transform(code, id) {
    if (id.endsWith('.vue')) return `export * from '${id}?vue&type=script&setup=true&lang.js';\nexport { default as style } from '${id}?vue&type=style&index=0&lang.module.css';\n`;
    if (id.endsWith('.svelte')) return block(code, 'script');
    return null;
  },
};

test.each(['App.vue', 'App.svelte'])("%s: the component's functions get checks, its style block is left alone", async (name) => {
  fs.writeFileSync(path.join(dir, name), SCRIPT + STYLE);
  const instrumented: string[] = [];
  const jsprof = jsprofUnplugin.rollup({ threshold: 1 }) as Plugin;
  const seeing: Plugin = {
    name: 'seeing',
    transform: { order: 'post', handler: (code, id) => void (isInstrumentedSource(code) && instrumented.push(path.basename(id))) },
  };
  const bundle = await rollup({ input: path.join(dir, name), plugins: [components, jsprof, seeing] });
  const { output } = await bundle.generate({ format: 'cjs' });
  await bundle.close();
  expect(output[0].code).toMatch(/function sieve\(limit\) \{ if \(--__jsprof\$c\[0\] < 0\)/);
  expect(instrumented.sort()).toEqual(name.endsWith('.vue') ? ['App.vue', 'App.vue?vue&type=script&setup=true&lang.js'] : ['App.svelte']);
  // Without the runtime, the component computes what it did.
  const file = path.join(dir, 'out.cjs');
  fs.writeFileSync(file, output[0].code);
  const { sieve } = require(file);
  expect(sieve(30)).toEqual([2, 3, 5, 7, 11, 13, 17, 19, 23, 29]);
});

test("which modules of a component: those whose code is a script after the build's transforms", () => {
  const include = (framework: 'vite' | 'rollup' | 'esbuild', id: string) => (jsprofUnplugin.raw({}, { framework }) as any).transformInclude(id);
  expect(include('vite', '/app/src/App.vue')).toBe(true);
  expect(include('vite', '/app/src/App.vue?vue&type=script&setup=true&lang.ts')).toBe(true);
  expect(include('vite', '/app/src/App.vue?vue&type=template&lang.js')).toBe(true);
  expect(include('vite', '/app/src/App.vue?vue&type=style&index=0&scoped=7a7a37b1&lang.css')).toBe(false);
  expect(include('vite', '/app/src/App.vue?vue&type=style&index=0&lang.module.scss')).toBe(false);
  expect(include('rollup', '/app/src/App.svelte')).toBe(true);
  expect(include('rollup', '/app/src/App.svelte?svelte&type=style&lang.css')).toBe(false);
  // esbuild hands plugins files as loaded: a component is not JavaScript yet.
  expect(include('esbuild', '/app/src/App.vue')).toBe(false);
});
