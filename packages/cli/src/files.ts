/** Writing files so that a reader never sees half of one. */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Writes `file` through a temporary file and a rename, keeping an existing file's mode. */
export function writeAtomic(file: string, data: string): void {
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
