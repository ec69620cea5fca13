/**
 * Two releases of a small app, built minified with source maps by esbuild as a site would build
 * them, and traces of them with minified frame names: the store's identity tests and the CLI's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { TraceMap, generatedPositionFor } from '@jridgewell/trace-mapping';
import type { ProfilerTrace } from '@jsprof/runtime';

export const SOURCE = `export function render(items) {
  let sum = 0;
  for (const item of items) sum += paint(item);
  return sum;
}

function paint(item) {
  let value = item;
  for (let i = 0; i < 10; i++) value = (value * 31) % 97;
  return value;
}

console.log(render([1, 2, 3]));
`;
// Release B adds a function above the others: every line moves.
export const RELEASES: Record<string, string> = { '2026.11.1': SOURCE, '2026.11.2': `function banner() {\n  return 'new';\n}\n\nconsole.log(banner());\n\n${SOURCE}` };

/** Builds a release minified into `<builds>/<release>/`, as a site would: dist/app-<release>.js and its map, beside src/app.js. */
export function build(builds: string, release: string, source: string) {
  const dir = path.join(builds, release);
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src/app.js'), source);
  const outfile = path.join(dir, 'dist', `app-${release}.js`);
  buildSync({ entryPoints: [path.join(dir, 'src/app.js')], outfile, bundle: true, minify: true, sourcemap: true, format: 'iife', logLevel: 'silent' });
  const map = new TraceMap(fs.readFileSync(`${outfile}.map`, 'utf8'));
  const at = (name: string) => {
    const offset = source.indexOf(`function ${name}(`);
    const line = source.slice(0, offset).split('\n').length;
    const column = offset - source.lastIndexOf('\n', offset - 1) - 1;
    const generated = generatedPositionFor(map, { source: map.sources.find((s) => s!.endsWith('src/app.js'))!, line, column });
    return { line: generated.line!, column: generated.column! + 1 };
  };
  return { url: `https://cdn.shop.example/${release}/app-${release}.js`, render: at('render'), paint: at('paint') };
}

/** A trace of the release: render calling paint, with minified frame names. */
export function traceOf(built: ReturnType<typeof build>): ProfilerTrace {
  return {
    resources: [built.url],
    frames: [
      { name: 'r', resourceId: 0, ...built.render },
      { name: 'p', resourceId: 0, ...built.paint },
    ],
    stacks: [{ frameId: 0 }, { parentId: 0, frameId: 1 }],
    samples: [0, 1, 1, 0, 1, 1, 1].map((stackId, i) => ({ timestamp: 10 * i, stackId })),
  };
}
