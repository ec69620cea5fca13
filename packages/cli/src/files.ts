/** Writing files so that a reader never sees half of one. */
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Writes `file` through a temporary file and a rename, keeping an existing file's mode; through a
 * symlink, the file it names is replaced. A device or a pipe (/dev/stdout) is written to directly:
 * there is nothing to replace, and a rename would put a file in its place.
 */
export function writeAtomic(target: string, data: string): void {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (stat && !stat.isFile() && !stat.isDirectory()) {
    fs.writeFileSync(target, data);
    return;
  }
  const file = stat ? fs.realpathSync(target) : target;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    fs.writeFileSync(tmp, data);
    try {
      fs.chmodSync(tmp, fs.statSync(file).mode);
    } catch {
      // a new file keeps the default mode
    }
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}
