/**
 * jsprof's checks as an unplugin: one transform for vite, rollup and esbuild's loader. It runs after the
 * build's own transforms (vite: `enforce: 'post'`; rollup: the transform hook's `order: 'post'`, so
 * TypeScript and JSX are already JavaScript there), instruments each module with the policy every
 * front end shares, and returns the edit's source map for the bundler to chain. esbuild hands
 * plugins the files as loaded, before its own transforms, so there only JavaScript files are
 * instrumented, and one its loader compiles (`loader: { '.js': 'jsx' }`) may not be JavaScript yet;
 * jsprof loads them itself there (esbuildLoad).
 * Each script the build writes gets its function table beside it, and says so at its end
 * (TABLE_REGISTRATION).
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createUnplugin } from 'unplugin';
import type { Loader } from 'esbuild';
import { JsSyntaxError, TABLE_REGISTRATION, TooDeeplyNestedError, chainSourceMaps, instrument, parseJs, readSourceMap, relocateSources, withInlineSourceMap } from '@jsprof/estree-instrument';
import { normalizeOptions, protocolWarning } from '@jsprof/policy';
import { JsprofPluginOptions, checkOptionNames } from './options';
import { SCRIPT_OUTPUT, functionTableFor } from './function-table';
import { COMPILED_MODULES, JAVASCRIPT, SCRIPTS, contentName, moduleFilter } from './filter';
import { BuiltScript, SamplingOptions, checkSampling, finishSampledBuild, inInstrumentedPass, instrumentedDir, instrumentedPass } from './sampling';


export const jsprofUnplugin = createUnplugin<JsprofPluginOptions | undefined>((options = {}, meta) => {
  checkOptionNames(options);
  const { include, exclude, sampling, ...policy } = options;
  // bad options fail when the config loads, not in the middle of a build
  normalizeOptions(policy);
  const instrumented = moduleFilter({ include, exclude }, meta.framework === 'esbuild' ? JAVASCRIPT : COMPILED_MODULES);
  // What `include` would have under vite or rollup: under esbuild, the files it names that jsprof cannot instrument there.
  const included = include === undefined ? null : moduleFilter({ include, exclude }, SCRIPTS);
  if (sampling) checkSampling(sampling);
  // A sampled build's first pass is plain: jsprof does nothing to it but start the second.
  const instrumenting = () => !sampling || inInstrumentedPass();
  const fileOf = (id: string) => id.split('?')[0];
  const footer = () => (instrumenting() ? TABLE_REGISTRATION : '');
  // esbuild's loaders as the build configures them (`loader: { '.js': 'jsx' }`), by extension.
  let esbuildLoaders: Record<string, Loader> = {};
  const esbuildLoader = (file: string) => esbuildLoaders[path.extname(file)] ?? 'js';
  /** Why the file is left as it is (the build goes on), or null where its error is the build's. */
  const leftAsItIs = (error: unknown, file: string): string | null => {
    if (error instanceof TooDeeplyNestedError) return error.message;
    const loader = meta.framework === 'esbuild' ? esbuildLoader(file) : 'js';
    if (error instanceof JsSyntaxError && loader !== 'js') {
      return `${error.message}: esbuild hands plugins this file before its '${loader}' loader compiles it, so jsprof leaves it as it is; to instrument it, build without jsprof's plugin and run \`jsprof instrument\` on the output`;
    }
    return null;
  };
  const transformInclude = (id: string) => instrumenting() && !id.startsWith('\0') && instrumented(fileOf(id), contentName(id));
  const transform = function (this: { warn(message: string): void }, code: string, id: string) {
    const file = fileOf(id);
    let program;
    try {
      program = parseJs(code, file);
    } catch (error) {
      const left = leftAsItIs(error, file);
      if (left) return void this.warn(`jsprof: ${left}`);
      if (error instanceof JsSyntaxError && UNCOMPILED.test(file)) {
        throw new JsSyntaxError(error.file, error.line, error.column, `${error.reason}: the file is not JavaScript yet; jsprof must run after the plugins that compile TypeScript and JSX (list it after them)`);
      }
      throw error;
    }
    const result = instrument({ code, program, filename: file }, { ...policy, runtime: 'global' });
    const warning = protocolWarning(file, result.protocol);
    if (warning) this.warn(`jsprof: ${warning}`);
    return result.changed ? { code: result.code, map: result.map } : null;
  };
  const esbuildTransform = (code: string, file: string, warn: (message: string) => void) => transform.call({ warn }, code, file);
  // rollup: after every other plugin's transform, wherever jsprof is listed (vite orders plugins by `enforce`).
  const rollupTransform = {
    order: 'post' as const,
    handler(this: { warn(message: string): void }, code: string, id: string) {
      return transformInclude(id) ? transform.call(this, code, id) : null;
    },
  };
  return {
    name: 'jsprof',
    enforce: 'post',
    transformInclude,
    // esbuild: loaded by jsprof (esbuildLoad), not by unplugin's transform.
    ...(meta.framework !== 'esbuild' && { transform }),
    // Function tables describe the scripts as they will run: after minification, from the final output,
    // so after every other plugin's generateBundle (vite's rewrites its dynamic imports' preload lists there).
    // Each script says it has one (TABLE_REGISTRATION), at its end, outside any wrapper.
    rollup: { transform: rollupTransform, generateBundle: { order: 'post', handler: emitFunctionTables(instrumenting) }, footer, ...(sampling && sampledRollup(sampling)) },
    vite: {
      // vite bundles a worker (`new Worker(new URL('./worker.js', import.meta.url))`) apart, with only `worker.plugins`.
      config: () => ({ worker: { plugins: () => [workerPlugin(rollupTransform, emitFunctionTables(instrumenting), footer)] } }),
      generateBundle: { order: 'post', handler: emitFunctionTables(instrumenting) },
      footer,
      ...(sampling && sampledVite(sampling)),
    },
    esbuild: {
      config(options) {
        esbuildLoaders = options.loader ?? {};
      },
      setup(build) {
        if (included && instrumenting()) warnOfUncompiled(build, (file) => included(file) && !instrumented(file));
        if (instrumenting()) esbuildLoad(build, transformInclude, esbuildTransform, esbuildLoader);
        if (build.initialOptions.write === false) return;
        if (!instrumenting()) return void sampledEsbuild(build, sampling!);
        const footer = build.initialOptions.footer?.js;
        build.initialOptions.footer = { ...build.initialOptions.footer, js: footer ? `${footer}\n${TABLE_REGISTRATION}` : TABLE_REGISTRATION };
        build.initialOptions.metafile = true;
        build.onEnd((result) => {
          if (!result.metafile) return;
          const cwd = build.initialOptions.absWorkingDir ?? process.cwd();
          for (const output of Object.keys(result.metafile.outputs).filter((f) => SCRIPT_OUTPUT.test(f))) {
            const file = path.resolve(cwd, output);
            const map = result.metafile.outputs[`${output}.map`] ? fs.readFileSync(`${file}.map`, 'utf8') : undefined;
            const table = functionTableFor(file, fs.readFileSync(file, 'utf8'), map);
            if (table) fs.writeFileSync(...table);
          }
        });
      },
    },
  };
});

/** jsprof in the build of a vite worker (a rollup plugin), unless `worker.plugins` lists jsprof already. */
function workerPlugin(transform: { handler(this: any, code: string, id: string): unknown }, emitTables: (this: any, output: unknown, bundle: any) => void, footer: () => string): any {
  let listed = false;
  return {
    name: 'jsprof:worker',
    enforce: 'post',
    options(options: { plugins?: unknown }) {
      listed = [options.plugins].flat(Infinity).some((plugin: any) => plugin?.name === 'jsprof');
      return null;
    },
    transform: {
      order: 'post',
      handler(this: any, code: string, id: string) {
        return listed ? null : transform.handler.call(this, code, id);
      },
    },
    generateBundle: {
      order: 'post',
      handler(this: any, output: unknown, bundle: any) {
        if (!listed) emitTables.call(this, output, bundle);
      },
    },
    footer: () => (listed ? '' : footer()),
  };
}

/**
 * esbuild: the scripts jsprof instruments, loaded by jsprof (esbuild has no transform hook), as the
 * loader esbuild would have used compiles them. Only files on disk: a module another plugin makes
 * (its own namespace) is that plugin's to load. The map the file names, if any, is chained, so the
 * build's map leads on to a dependency's own sources, as it does without jsprof.
 */
function esbuildLoad(
  build: any,
  include: (id: string) => boolean,
  transform: (code: string, file: string, warn: (message: string) => void) => { code: string; map: any } | null | undefined,
  loader: (file: string) => Loader,
): void {
  build.onLoad({ filter: /\.[cm]?js$/, namespace: 'file' }, async (args: { path: string; with?: Record<string, string> }) => {
    // Imported as something else (`with { type: 'text' }`): the app's data, not its code.
    if (args.with?.type || !include(args.path)) return undefined;
    const code = await fs.promises.readFile(args.path, 'utf8');
    const warnings: Array<{ text: string }> = [];
    const result = transform(code, args.path, (text) => warnings.push({ text }));
    if (!result) return warnings.length > 0 ? { warnings } : undefined;
    return { contents: withInlineSourceMap(result.code, mapThrough(result.map, code, args.path)), loader: loader(args.path), warnings };
  });
}

/** The instrumented file's map, leading on through the map the file's own code names (if it can be read). */
function mapThrough(map: any, code: string, file: string): any {
  const own = readSourceMap(code, file);
  if (!own) return map;
  try {
    return relocateSources(chainSourceMaps(map, own.map), own.dir, path.dirname(file), path.basename(file));
  } catch {
    return map; // a map that cannot be chained leads no further, as esbuild would not follow it either
  }
}

/**
 * esbuild: one warning a build, at the first file `include` asks for (`wanted`) that jsprof never sees
 * as JavaScript, because esbuild compiles it after its plugins run (TypeScript, JSX). It is given as
 * the file loads (esbuild prints no warning an `onEnd` callback returns), and the file loads as before.
 */
function warnOfUncompiled(build: any, wanted: (file: string) => boolean): void {
  let warned = false;
  build.onStart(() => {
    warned = false;
  });
  build.onLoad({ filter: UNCOMPILED }, (args: { path: string }) => {
    if (warned || !wanted(args.path)) return undefined;
    warned = true;
    const text = `jsprof: include matches ${args.path}, but esbuild hands plugins TypeScript and JSX before compiling them, so jsprof instruments only .js, .mjs and .cjs files there; to instrument the others, build without jsprof's plugin and run \`jsprof instrument\` on the output`;
    return { warnings: [{ text }] };
  });
}

/** Files the build compiles to JavaScript: a syntax error there may be TypeScript or JSX that reached jsprof first. */
const UNCOMPILED = /\.([cm]?ts|[jt]sx)$/;

type EmitFile = { emitFile(file: { type: 'asset'; fileName: string; source: string }): string };

function emitFunctionTables(instrumenting: () => boolean) {
  return function (this: EmitFile, _: unknown, bundle: Record<string, any>) {
    if (!instrumenting()) return;
    for (const chunk of Object.values(bundle)) {
      const table = chunk.type === 'chunk' && SCRIPT_OUTPUT.test(chunk.fileName) ? functionTableFor(chunk.fileName, chunk.code, chunk.map) : null;
      if (table) this.emitFile({ type: 'asset', fileName: table[0], source: table[1] });
    }
  };
}

/** The bundler as the project in `dir` resolves it (the one running the build), else as this plugin does. */
async function importFrom(dir: string, name: string): Promise<any> {
  let resolved: string;
  try {
    resolved = createRequire(path.join(dir, 'package.json')).resolve(name);
  } catch {
    return import(name);
  }
  return import(pathToFileURL(resolved).href);
}

/** The entry scripts of a rollup or vite output, by the module each stands for. */
function entriesOf(output: Iterable<any>, module: boolean): BuiltScript[] {
  return [...output].filter((chunk) => chunk.type === 'chunk' && chunk.isEntry).map((chunk) => ({ key: chunk.facadeModuleId ?? chunk.name, file: chunk.fileName, module }));
}

/** rollup: after each output is written, the same input and output again, instrumenting, into `<dir>/`. */
function sampledRollup(sampling: SamplingOptions) {
  let input: any;
  // The outputs as configured (writeBundle has them normalized), by where they go.
  const outputs = new Map<string, any>();
  const target = (output: any) => path.resolve(output.dir ?? output.file ?? '.');
  return {
    options(options: any) {
      if (!inInstrumentedPass()) input = options;
      return null;
    },
    outputOptions(output: any) {
      if (!inInstrumentedPass()) outputs.set(target(output), output);
      return null;
    },
    async writeBundle(normalized: any, bundle: Record<string, any>) {
      if (inInstrumentedPass()) return;
      const output = outputs.get(target(normalized)) ?? normalized;
      const { rollup } = await importFrom(process.cwd(), 'rollup');
      const outDir = path.resolve(output.dir ?? path.dirname(output.file));
      const into = path.join(outDir, instrumentedDir(sampling));
      const written = await instrumentedPass(async () => {
        const build = await rollup(input);
        try {
          return await build.write({ ...output, ...(output.dir ? { dir: into } : { file: path.join(into, path.basename(output.file)) }) });
        } finally {
          await build.close();
        }
      });
      const module = normalized.format === 'es';
      finishSampledBuild(outDir, sampling, null, { plain: entriesOf(Object.values(bundle), module), instrumented: entriesOf(written.output, module) });
    },
  };
}

/** vite: after the client build, the same build again (config file, inline config and mode), instrumenting, into `<outDir>/<dir>/`. */
function sampledVite(sampling: SamplingOptions) {
  let config: any;
  let bundle: Record<string, any> = {};
  return {
    configResolved(resolved: any) {
      if (!inInstrumentedPass()) config = resolved;
    },
    writeBundle(_: unknown, written: Record<string, any>) {
      if (!inInstrumentedPass()) bundle = written;
    },
    async closeBundle() {
      if (inInstrumentedPass() || config?.command !== 'build' || config.build.ssr) return;
      const { build } = await importFrom(config.root, 'vite');
      const outDir = path.resolve(config.root, config.build.outDir);
      const dir = instrumentedDir(sampling);
      const relative = config.base === '' || config.base.startsWith('.');
      // vite writes the environments it resolved into the inline config (the client's with the plain build's outDir): they are made again.
      const { environments: _, ...inline } = config.inlineConfig ?? {};
      const result = await instrumentedPass(() =>
        build({
          ...inline,
          configFile: config.configFile ?? false,
          root: config.root,
          mode: config.mode,
          logLevel: config.logLevel,
          experimental: { ...inline.experimental, renderBuiltUrl: urlsBesidePlainBuild(config, dir, relative) },
          build: { ...inline.build, outDir: path.join(outDir, dir), emptyOutDir: true, copyPublicDir: false },
        }),
      );
      const written = (Array.isArray(result) ? result : [result]).flatMap((r: any) => r.output ?? []);
      finishSampledBuild(outDir, sampling, relative ? null : config.base, { plain: entriesOf(Object.values(bundle), true), instrumented: entriesOf(written, true) });
    },
  };
}

type BuiltUrlContext = { hostId: string; hostType: 'js' | 'css' | 'html'; type: 'asset' | 'public'; ssr: boolean };
type BuiltUrl = string | { relative?: boolean; runtime?: string } | undefined;

/**
 * URLs in vite's instrumented build, whose base stays the app's (so `import.meta.env.BASE_URL`, and the
 * app's routes, are the same in both builds): the build's own files where it writes them, in `<dir>/`;
 * public files where the plain build copied them, not copied again. The app's own `renderBuiltUrl`
 * decides first, given each file's path (and its host's) in the plain build's output directory. With
 * a relative base, public files are named from ES module output (`import.meta.url`), as apps build.
 */
function urlsBesidePlainBuild(config: any, dir: string, relative: boolean) {
  const own: ((file: string, context: BuiltUrlContext) => BuiltUrl) | undefined = config.experimental?.renderBuiltUrl;
  const base: string = config.decodedBase ?? config.base;
  return (filename: string, context: BuiltUrlContext): BuiltUrl => {
    const inPlainBuild = context.type === 'public' ? filename : `${dir}/${filename}`;
    const theirs = own?.(inPlainBuild, { ...context, hostId: `${dir}/${context.hostId}` });
    if (typeof theirs === 'string' || theirs?.runtime) return theirs;
    if (!relative) return base + inPlainBuild;
    if (context.type === 'asset') return { relative: true };
    // A public file, from a file of the instrumented build: up out of `<dir>/`.
    const url = path.posix.relative(path.posix.join(dir, path.posix.dirname(context.hostId)), filename);
    return context.hostType === 'js' ? { runtime: `new URL(${JSON.stringify(url)}, import.meta.url).href` } : url;
  };
}

/** esbuild: after the build, the same build again, instrumenting, into `<outdir>/<dir>/`. */
function sampledEsbuild(build: any, sampling: SamplingOptions) {
  const initial = build.initialOptions;
  initial.metafile = true; // the entries, for the snippet; the output is the same
  const cwd = initial.absWorkingDir ?? process.cwd();
  const outDir = path.resolve(cwd, initial.outdir ?? path.dirname(initial.outfile ?? '.'));
  const into = path.join(outDir, instrumentedDir(sampling));
  // The configured entry points, as the metafile names them (dynamic imports are entry points there too).
  const configured = new Set(
    (Array.isArray(initial.entryPoints) ? initial.entryPoints : Object.values(initial.entryPoints ?? {})).map((entry: string | { in: string }) =>
      path.relative(cwd, path.resolve(cwd, typeof entry === 'string' ? entry : entry.in)).split(path.sep).join('/'),
    ),
  );
  // Each entry's file relative to the directory its build wrote into.
  const entries = (metafile: any, root: string): BuiltScript[] =>
    Object.entries(metafile.outputs)
      .filter(([, output]: [string, any]) => configured.has(output.entryPoint))
      .map(([file, output]: [string, any]) => ({ key: output.entryPoint, file: path.relative(root, path.resolve(cwd, file)).split(path.sep).join('/'), module: initial.format === 'esm' }));
  build.onEnd(async (result: any) => {
    if (result.errors.length || !result.metafile) return;
    const nested: any = await instrumentedPass(() => build.esbuild.build({ ...initial, ...(initial.outdir ? { outdir: into } : { outfile: path.join(into, path.basename(initial.outfile)) }) }));
    finishSampledBuild(outDir, sampling, null, { plain: entries(result.metafile, outDir), instrumented: entries(nested.metafile, into) });
  });
}
