/**
 * `jsprof instrument`: rewrites prebuilt JavaScript files (bundles, dist files; minified or not) with
 * jsprof's checks, chaining their source maps. Code reaches the runtime through the global, as code
 * meant for browsers does, and computes what it did where the runtime is absent (a function's
 * text, though, carries the checks unless the runtime is loaded: docs/design.md, "Function text").
 *
 * Nothing is written for a file that fails (a syntax error names file:line:col); other files go on;
 * in-place writes replace a file atomically.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  FUNCTION_TABLE_SUFFIX,
  JsSyntaxError,
  TABLE_REGISTRATION,
  TABLE_REGISTRY,
  TooDeeplyNestedError,
  instrument,
  parseJs,
  UnusableSourceMap,
  loadSourceMap,
  relocateSources,
  splitSourceMappingUrl,
  withInlineSourceMap,
} from '@jsprof/estree-instrument';
import { OptionsError, PlacementOptions, protocolWarning } from '@jsprof/policy';
import { describeFsError, fileIdentity, filesUnder, fromCwd, writeAtomic } from './files';
import { counted } from './words';
import { printableLines } from '@jsprof/trace-tools';
import { SampledPagesOptions, addSamplingSnippets, copySiteAssets } from './sampled-pages';
import { Copy, carryPackageScopes } from './package-scope';

export interface BundleOptions {
  outDir?: string;
  inPlace: boolean;
  /** Which functions get checks, and where. */
  placement: PlacementOptions;
  /** Write a source map even for files that had none. */
  sourceMap: boolean;
  /** Write each output's function table beside it (`<file>.jsprof.json`), for browsers' runtimes. */
  functionTable: boolean;
  json: boolean;
  /** Make the directories given sampled builds: their pages get the sampling snippet (sampled-pages.ts). */
  sampling?: SampledPagesOptions;
}

export interface FileReport {
  file: string;
  output: string | null;
  functions: number;
  instrumented: number;
  bytesIn: number;
  bytesOut: number;
  ms: number;
  error?: string;
  /** The file carried checks this jsprof's runtime does not arm (left as it is). */
  warning?: string;
}

const SCRIPT = /\.(c|m)?js$/;

class UserError extends Error {}

/** Runs the command; returns the exit status. */
export function instrumentFiles(inputs: string[], options: BundleOptions): number {
  if (!!options.outDir === options.inPlace) {
    process.stderr.write('jsprof: give exactly one of --out-dir DIR and --in-place\n');
    return 2;
  }
  const outDir = options.outDir ? path.resolve(options.outDir) : null;
  const directories = inputs.map((i) => path.resolve(i)).filter((i) => fs.statSync(i, { throwIfNoEntry: false })?.isDirectory());
  if (options.sampling) {
    const usage = !outDir
      ? '--sampling needs --out-dir: the files given stay as they are, the instrumented copies go beside them'
      : !directories.length
        ? '--sampling puts the snippet in the pages under the directories given: name a directory'
        : directories.filter((d) => !outDir.startsWith(d + path.sep)).map((d) => `with --sampling, --out-dir must be inside ${fromCwd(d)}: it is deployed with it`)[0];
    if (usage) {
      process.stderr.write(`jsprof: ${usage}\n`);
      return 2;
    }
  }
  let files: Input[];
  try {
    files = collect(inputs, outDir);
  } catch (error) {
    process.stderr.write(printableLines(`jsprof: ${(error as Error).message}\n`));
    return 1;
  }
  if (files.length === 0) {
    process.stderr.write('jsprof: no .js, .mjs or .cjs files in the given paths\n');
    return 1;
  }
  const outputs = files.map((f) => (options.inPlace ? f.file : path.resolve(outDir!, f.relative)));
  const inputIds = new Set(files.map((f) => fileIdentity(f.file)));
  const overwritten = options.inPlace ? -1 : outputs.findIndex((o) => inputIds.has(fileIdentity(o)));
  if (overwritten >= 0) {
    process.stderr.write(printableLines(`jsprof: --out-dir ${options.outDir} would write over the files it reads (${outputs[overwritten]}): give another directory, or --in-place to replace them\n`));
    return 2;
  }
  const duplicate = outputs.find((o, i) => outputs.indexOf(o) !== i);
  if (duplicate) {
    process.stderr.write(printableLines(`jsprof: two inputs would be written to ${duplicate}\n`));
    return 1;
  }

  const progress = files.length >= 20 && process.stderr.isTTY && !options.json;
  const reports: FileReport[] = [];
  files.forEach((f, i) => {
    if (progress) process.stderr.write(`\r\x1b[Kjsprof: ${i + 1}/${files.length} ${f.relative}`);
    const report = instrumentOne(f.file, outputs[i], options);
    for (const message of [report.error, report.warning]) {
      if (!message) continue;
      if (progress) process.stderr.write('\r\x1b[K');
      process.stderr.write(printableLines(`jsprof: ${message}\n`));
    }
    reports.push(report);
  });
  if (progress) process.stderr.write('\r\x1b[K');
  if (outDir) {
    const copies = files.map((f, i) => ({ ...f, output: outputs[i] })).filter((c, i) => reports[i].output !== null && c.file.endsWith('.js'));
    for (const line of carryModuleTypes(copies, outDir)) process.stderr.write(printableLines(`jsprof: ${line}\n`));
  }

  const failed = reports.filter((r) => r.error).length;
  let pages: string[] | undefined;
  let pagesError: string | undefined;
  if (options.sampling) {
    // A sampled page load must run the instrumented copy of every script it loads.
    if (failed) pagesError = '--sampling: no page changed, because a file failed';
    else {
      const copies = new Map(files.map((f, i) => [f.file, outputs[i]]));
      pages = directories.flatMap((d) => addSamplingSnippets(d, outDir!, copies, options.sampling!).map((page) => path.relative(process.cwd(), path.join(d, page))));
      if (!pages.length) pagesError = `--sampling: no page under ${directories.map((d) => fromCwd(d)).join(', ')} loads an instrumented script`;
      else for (const d of directories) copySiteAssets(d, outDir!);
    }
  }
  if (pagesError) process.stderr.write(`jsprof: ${pagesError}\n`);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ files: reports, ...(pages && { pages }) }, null, 2)}\n`);
  } else {
    const instrumented = reports.reduce((n, r) => n + r.instrumented, 0);
    const functions = reports.reduce((n, r) => n + r.functions, 0);
    const done = reports.length - failed;
    process.stderr.write(`jsprof: instrumented ${instrumented} of ${counted(functions, 'function')} in ${counted(done, 'file')}${failed ? `; ${failed} failed` : ''}\n`);
    if (pages?.length) process.stderr.write(printableLines(`jsprof: the sampling snippet is in ${pages.join(', ')}\n`));
  }
  return failed || pagesError ? 1 : 0;
}

/** A file to instrument, the directory its output's path is relative to (one given, or its own), and that path. */
interface Input {
  file: string;
  root: string;
  relative: string;
}

/**
 * The files named, and the script files under the directories named (not in node_modules, nor in
 * the output directory), with their paths relative to the argument.
 */
function collect(inputs: string[], outDir: string | null): Input[] {
  const out: Input[] = [];
  for (const input of inputs) {
    const full = path.resolve(input);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(full);
    } catch {
      throw new UserError(`no such file or directory: ${input}`);
    }
    if (stat.isDirectory()) {
      for (const file of filesUnder(full, SCRIPT, outDir)) out.push({ file, root: full, relative: path.relative(full, file) });
    } else {
      out.push({ file: full, root: path.dirname(full), relative: path.basename(full) });
    }
  }
  return out;
}

/** Carries the package.json files that make the copies load as ES modules or CommonJS, as their files do; what it could not, one line each. */
function carryModuleTypes(copies: Copy[], outDir: string): string[] {
  try {
    return carryPackageScopes(copies, outDir);
  } catch (error) {
    return [`cannot write the package.json that makes the copies in ${fromCwd(outDir)} load as their files do: ${describeFsError(error)}`];
  }
}

/** Strict, and keeping a byte order mark: the text must be the file's, character for character. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function instrumentOne(file: string, output: string, options: BundleOptions): FileReport {
  const started = performance.now();
  const shown = fromCwd(file);
  const report: FileReport = { file: shown, output: null, functions: 0, instrumented: 0, bytesIn: 0, bytesOut: 0, ms: 0 };
  const finish = () => {
    report.ms = Math.round((performance.now() - started) * 10) / 10;
    return report;
  };
  let bytes: Buffer;
  let code: string;
  try {
    // Named on the command line, a pipe would block the read for ever, and a symbolic link's target is another file.
    const stat = fs.lstatSync(file);
    if (stat.isSymbolicLink() && output === file) {
      report.error = `cannot instrument ${shown} in place: it is a symbolic link (name the file it points to)`;
      return finish();
    }
    if (!stat.isFile() && !fs.statSync(file).isFile()) {
      report.error = `cannot instrument ${shown}: it is not a regular file`;
      return finish();
    }
    // Replaced atomically, a file with other names would keep its old text under them.
    if (output === file && stat.nlink > 1) {
      report.error = `cannot instrument ${shown} in place: it has ${stat.nlink} hard links (use --out-dir)`;
      return finish();
    }
    bytes = fs.readFileSync(file);
    report.bytesIn = bytes.length;
  } catch (error) {
    report.error = `cannot read ${shown}: ${describeFsError(error)}`;
    return finish();
  }
  try {
    code = UTF8.decode(bytes);
  } catch {
    // Decoded loosely, a Latin-1 é would become U+FFFD, and the file written back would lose it.
    report.error = `cannot instrument ${shown}: it is not UTF-8 text; jsprof leaves it as it is`;
    return finish();
  }

  let program;
  try {
    program = parseJs(code, file);
  } catch (error) {
    report.error =
      error instanceof TooDeeplyNestedError
        ? `cannot instrument ${shown}:${error.line}:${error.column}: ${error.reason}`
        : error instanceof JsSyntaxError
          ? `syntax error in ${shown}:${error.line}:${error.column}: ${error.reason}`
          : `cannot parse ${shown}: ${(error as Error).message}`;
    return finish();
  }

  const own = loadSourceMap(code, file);
  const input = own && 'map' in own ? own : null;
  let result;
  try {
    result = instrument(
      { code, program, filename: path.basename(file), inputSourceMap: input?.map, sourceMap: !!input || options.sourceMap, functionTable: options.functionTable },
      { ...options.placement, runtime: 'global' },
    );
  } catch (error) {
    if (error instanceof OptionsError) report.error = String(error.message);
    else if (error instanceof JsSyntaxError) report.error = `cannot instrument ${shown}:${error.line}:${error.column}: ${error.reason}`;
    else report.error = `cannot instrument ${shown}: ${(error as Error).message}`;
    return finish();
  }
  report.functions = result.stats.functions;
  report.instrumented = result.stats.instrumented;
  const foreign = protocolWarning(shown, result.protocol);
  // A map that cannot be used is not named by the output, which it would not describe.
  const unusable = own && !input && !foreign ? (own as UnusableSourceMap) : null;
  report.warning = foreign ?? (unusable ? unusableMapWarning(shown, unusable, result.map ? path.basename(file) : null) : undefined);

  // A script with a table says so, for the runtime (once: a second pass finds it there).
  // A file with checks of another protocol keeps its code, without a table (a copy elsewhere takes its map along, below).
  const tables = options.functionTable && !foreign;
  const registers = tables && !result.code.includes(TABLE_REGISTRY);
  let text = registers ? withLineBeforeSourceMappingUrl(result.code, TABLE_REGISTRATION) : result.code;
  const files: [string, string][] = [];
  // A copy elsewhere that got no checks still needs its own map beside it, its sources resolving from there.
  const outputMap = result.map ?? (input && output !== file ? input.map : null);
  if (outputMap) {
    const map = relocateSources(outputMap, input?.dir ?? path.dirname(file), path.dirname(output), path.basename(output));
    if (input?.inline) {
      text = withInlineSourceMap(text, map);
    } else {
      const mapFile = `${output}.map`;
      text = `${splitSourceMappingUrl(text).body}//# sourceMappingURL=${path.basename(mapFile)}\n`;
      files.push([mapFile, JSON.stringify(map)]);
    }
  } else if (unusable) {
    text = splitSourceMappingUrl(text).body;
  }
  // An unchanged file is not rewritten in place (its text is the input's, and it has no new map), nor its table.
  const rewrite = result.changed || registers || output !== file;
  if (rewrite) files.unshift([output, text]);
  const tableFile = output + FUNCTION_TABLE_SUFFIX;
  if (tables && result.table && (rewrite || !fs.existsSync(tableFile))) files.push([tableFile, JSON.stringify(result.table)]);

  try {
    for (const [target, content] of files) writeAtomic(target, content, { like: file });
  } catch (error) {
    report.error = `cannot write ${fromCwd(output)}: ${describeFsError(error)}`;
    return finish();
  }
  report.output = fromCwd(output);
  report.bytesOut = Buffer.byteLength(text);
  return finish();
}

/** What became of a file's source map that cannot be used: no map, or (`--source-map`) one to the file as it is. */
function unusableMapWarning(shown: string, map: UnusableSourceMap, mapTo: string | null): string {
  const which = map.inline ? 'its inline source map' : `its source map ${map.url}`;
  return `${shown}: ${which} cannot be used (${map.problem}), so the output ${mapTo ? `gets a map to ${mapTo} as it is` : 'names none'}`;
}

/** The code with `line` added at its end, before its trailing sourceMappingURL comment if it has one. */
function withLineBeforeSourceMappingUrl(code: string, line: string): string {
  const { body, comment } = splitSourceMappingUrl(code);
  return `${body}${line}\n${comment && `${comment}\n`}`;
}
