/**
 * What decides whether Node loads a `.js` file as an ES module or as CommonJS: the `"type"` of the
 * nearest package.json above it (its package scope). `jsprof instrument --out-dir` writes copies
 * elsewhere, and they must load as the files do.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fromCwd, writeAtomic } from './files';

export interface PackageScope {
  /** The package.json that decides, or null where none does. */
  manifest: string | null;
  /** The `"type"` it declares, or undefined where it declares none or there is none. */
  type: string | undefined;
}

/** The package scope of `file`, looked up as Node does: up from its directory, never into or past a node_modules directory. */
export function packageScope(file: string): PackageScope {
  for (let dir = path.dirname(file); path.basename(dir) !== 'node_modules'; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) return { manifest, type: declaredType(manifest) };
    if (path.dirname(dir) === dir) break;
  }
  return { manifest: null, type: undefined };
}

function declaredType(manifest: string): string | undefined {
  try {
    const type = JSON.parse(fs.readFileSync(manifest, 'utf8'))?.type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}

/** A `.js` file, the directory its copy's path is relative to (one given, or the file's own), and its copy. */
export interface Copy {
  file: string;
  root: string;
  output: string;
}

/**
 * Makes each copy of a `.js` file load as the file does. The package.json that decides the file's
 * type is copied to the same place among the copies where it lies under `root`. The copies no
 * package.json in `outDir` decides for, where their scope declares another type than their files',
 * get one at the top of `outDir` declaring the files' (`{}` for none), if they all want the same.
 * Returns, one line each, the copies that still would not load as their files do.
 */
export function carryPackageScopes(copies: Copy[], outDir: string): string[] {
  const carried = new Set<string>();
  for (const { file, root } of copies) {
    const { manifest } = packageScope(file);
    if (!manifest || !isUnder(manifest, root)) continue;
    const target = path.join(outDir, path.relative(root, manifest));
    if (carried.has(target)) continue;
    writeAtomic(target, fs.readFileSync(manifest, 'utf8'), { like: manifest });
    carried.add(target);
  }
  const wanted = (copy: Copy) => packageScope(copy.file).type;
  const differs = (copy: Copy) => packageScope(copy.output).type !== wanted(copy);
  const undecided = copies.filter((copy) => !isUnder(packageScope(copy.output).manifest, outDir));
  const types = new Set(undecided.map(wanted));
  if (types.size === 1 && undecided.some(differs)) {
    const [type] = types;
    writeAtomic(path.join(outDir, 'package.json'), `${JSON.stringify(type === undefined ? {} : { type })}\n`);
  }
  return copies.filter(differs).map((copy) => {
    const { manifest, type } = packageScope(copy.output);
    return `${fromCwd(copy.output)} will not load as ${fromCwd(copy.file)} does: ${manifest ? fromCwd(manifest) : 'its package scope'} declares ${typeOf(type)}, the file's ${typeOf(wanted(copy))}`;
  });
}

function isUnder(file: string | null, dir: string): boolean {
  return file !== null && !path.relative(dir, file).startsWith('..');
}

const typeOf = (type: string | undefined) => (type === undefined ? 'no "type"' : `"type": ${JSON.stringify(type)}`);
