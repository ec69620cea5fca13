/** Writing files so that a reader never sees half of one, and nothing a user had is widened or lost. */
import * as fs from 'node:fs';
import * as path from 'node:path';
// The small module alone: this file is loaded inside profiled programs (module-cache.ts), where trace-tools is not.
import { printable } from '@jsprof/trace-tools/printable';

export interface WriteOptions {
  /**
   * The file whose owner and permissions a new file takes (a map or function table derived from
   * a source): never wider than the file it was made from.
   */
  like?: string;
}

/** The end of the name of writeAtomic's temporary files, `<file>.<pid>.<random>.tmp`, with the writer's pid. */
export const TEMP_FILE = /\.(\d+)\.[0-9a-z]*\.tmp$/;
const STALE_TEMP_MS = 60 * 60 * 1000;

/** Removes from `dir` the temporary files of writes that were killed (their process is gone, or an hour has passed). */
export function removeStaleTempFiles(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    const pid = TEMP_FILE.exec(name)?.[1];
    if (!pid) continue;
    const file = path.join(dir, name);
    let alive = Number(pid) !== process.pid;
    try {
      process.kill(Number(pid), 0);
    } catch (error) {
      alive = (error as NodeJS.ErrnoException).code === 'EPERM';
    }
    const age = Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (!alive || age > STALE_TEMP_MS) fs.rmSync(file, { force: true });
  }
}

/**
 * Writes `target` through a temporary file and a rename, keeping an existing file's owner and mode
 * (never wider than `options.like`'s, if given: a new file takes that file's); through a symlink,
 * the file it names is replaced (or made, where it is not there yet). A character device or a pipe (/dev/null, /dev/stdout) is written to
 * directly: there is nothing to replace, and a rename would put a file in its place. A block device
 * or a socket is refused.
 */
export function writeAtomic(target: string, data: string | Iterable<string>, options: WriteOptions = {}): void {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (stat?.isBlockDevice() || stat?.isSocket()) throw new Error(`it is a ${stat.isSocket() ? 'socket' : 'block device'}, not a file`);
  if (stat && !stat.isFile() && !stat.isDirectory()) {
    writeAll(target, data, 'w');
    return;
  }
  const file = stat ? fs.realpathSync(target) : danglingLinkTarget(target);
  const like = options.like ? fs.statSync(options.like, { throwIfNoEntry: false }) : undefined;
  const model = stat ? { uid: stat.uid, gid: stat.gid, mode: like ? stat.mode & like.mode : stat.mode } : like;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    // Private until it is complete; then the model's permissions, or the default ones of a new file.
    writeAll(tmp, data, 'w', 0o600);
    if (model) {
      try {
        fs.chownSync(tmp, model.uid, model.gid);
      } catch {
        // only root may give a file away; others' files keep their owner as far as they can
      }
      fs.chmodSync(tmp, model.mode & 0o7777);
    } else {
      fs.chmodSync(tmp, 0o666 & ~process.umask());
    }
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}

/** The file a symbolic link names that is not there yet (following links to links), or `target` itself where it is no link. */
function danglingLinkTarget(target: string): string {
  let file = target;
  for (let hops = 0; hops < 40; hops++) {
    let link: string;
    try {
      link = fs.readlinkSync(file);
    } catch {
      return file; // not a link
    }
    file = path.resolve(path.dirname(file), link);
  }
  return file;
}

/** Writes `data` to `file`, opened with `flags`: text, or pieces of text (more than one string may hold). */
function writeAll(file: string, data: string | Iterable<string>, flags: string, mode?: number): void {
  if (typeof data === 'string') {
    fs.writeFileSync(file, data, { flag: flags, mode });
    return;
  }
  const fd = fs.openSync(file, flags, mode);
  try {
    for (const piece of data) {
      const bytes = Buffer.from(piece);
      for (let written = 0; written < bytes.length; ) written += fs.writeSync(fd, bytes, written);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** A file system error as one line says it to a person. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EISDIR') return 'is a directory';
  if (code === 'ENOTDIR') return 'a part of the path is not a directory';
  if (code === 'EROFS') return 'read-only file system';
  if (code === 'ENOSPC') return 'no space left on the device';
  if (code === 'EFBIG') return 'file too large (for the file system, or the file size limit)';
  return (error as Error)?.message ?? String(error);
}

/** A path as messages show it: relative to the working directory (as given, for that directory itself). */
export function fromCwd(file: string): string {
  return path.relative(process.cwd(), file) || file;
}

/** Where a command writes what it made of `input` by default: beside it, `.gz` and `.json` replaced by `extension`. */
export function outputBeside(input: string, extension: string): string {
  if (input === '-') return '-'; // read from standard input: written to standard output
  return `${input.replace(/\.gz$/i, '').replace(/\.json$/i, '')}${extension}`;
}

/** Bad usage found while a command runs (exit status 2, as commander's own). */
export class UsageError extends Error {
  readonly exitCode = 2;
}

/** A file a command reads, and what it is to the user ("the trace it reads", "the store"). */
export type Input = [file: string, what: string];

/** What names one file whatever the path to it (links too): its device and inode where it is there, else its full path. */
export function fileIdentity(file: string): string {
  const stat = statOrNull(file);
  return stat ? `${stat.dev}:${stat.ino}` : path.resolve(file);
}

/** What is at `file`, or null for nothing there (or a path through a file, or one it may not look at). */
function statOrNull(file: string): fs.Stats | null {
  try {
    return fs.statSync(file);
  } catch {
    return null;
  }
}

/** Why a command may not write to `out` (a directory, or one of its inputs, links included), or null. */
export function refusedOutput(out: string, inputs: Input[]): string | null {
  if (statOrNull(out)?.isDirectory()) return 'it is a directory';
  const id = fileIdentity(out);
  const input = inputs.find(([file]) => fileIdentity(file) === id);
  return input ? `it is ${input[1]}` : null;
}

const TRACE_START = /^\uFEFF?\s*\{\s*("(resources|frames|stacks|samples|meta|trace)"|\}|$)/;

/**
 * Why a trace may not replace `file`: something is there that is not a trace or a `{meta, trace}`
 * document (a module the program loads, a package.json), or null. Only the file's first bytes are read.
 */
export function refusedForTrace(file: string): string | null {
  const stat = statOrNull(file);
  if (!stat?.isFile() || stat.size === 0) return null;
  const start = Buffer.alloc(256);
  try {
    const fd = fs.openSync(file, 'r');
    try {
      fs.readSync(fd, start, 0, start.length, 0);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null; // a file the user may write but not read: writing says what goes wrong, if anything
  }
  return TRACE_START.test(start.toString('utf8').replace(/\0+$/, '')) ? null : 'it is not a trace (a trace replaces only a trace: remove it first)';
}

/** Refuses (bad usage) an output that is one of the command's inputs or a directory: before the work, where it is long. */
export function checkOutput(out: string, inputs: Input[]): void {
  const refused = out === '-' ? null : refusedOutput(out, inputs);
  if (refused) throw new UsageError(`will not write ${out}: ${refused}`);
}

/**
 * Writes a command's result to `out` (through a temporary file and a rename, and says so on stderr),
 * or to stdout for `-`, where a reader that stops early (`| head`) is no error. Never over one of
 * the command's `inputs`, or a directory.
 */
export function writeResult(out: string, text: string | Iterable<string>, inputs: Input[] = []): void {
  checkOutput(out, inputs);
  if (out === '-') {
    // A reader that stopped early has what it wanted: stop writing (other errors: bin/jsprof.js says what, status 1).
    process.stdout.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
    });
    if (typeof text === 'string') process.stdout.write(text);
    else for (const piece of text) process.stdout.write(piece);
    return;
  }
  try {
    writeAtomic(out, text);
  } catch (error) {
    throw new Error(`cannot write ${printable(out)}: ${describeFsError(error)}`);
  }
  process.stderr.write(`jsprof: wrote ${printable(out)}\n`);
}

const SKIPPED_DIRS = new Set(['node_modules', '.git']);

/** The files under `dir` whose name matches `test`, by name, not in `skip` (an output directory), node_modules or .git. */
export function filesUnder(dir: string, test: RegExp, skip: string | null): string[] {
  const files: string[] = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = path.join(at, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && child !== skip) walk(child);
      } else if (entry.isFile() && test.test(entry.name)) {
        files.push(child);
      }
    }
  };
  walk(dir);
  return files;
}
