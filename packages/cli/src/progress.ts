/**
 * The progress line of a cold cache, on stderr when it is a terminal: while a module is being
 * instrumented, `jsprof: instrumenting module 120 (3.2 s so far; cached for the next run)`,
 * rewritten in place; erased as soon as that module is done, so the program's own output never
 * lands on it. The counts are shared by the main thread (CommonJS) and the module hooks thread (ES
 * modules) through a SharedArrayBuffer, so both show the same totals and `register` knows at exit
 * whether anything was written to the cache.
 */
import * as fs from 'node:fs';
import { isatty } from 'node:tty';

const FILES = 0;
const MILLISECONDS = 1;

export class Progress {
  readonly shared: SharedArrayBuffer;
  private readonly counts: Int32Array;
  private readonly shown = isatty(2);

  constructor(shared = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT)) {
    this.shared = shared;
    this.counts = new Int32Array(shared);
  }

  /** Modules instrumented so far in this process (cache misses). */
  get files(): number {
    return Atomics.load(this.counts, FILES);
  }

  /** Milliseconds spent instrumenting them. */
  get milliseconds(): number {
    return Atomics.load(this.counts, MILLISECONDS);
  }

  /** Instruments one module with `work`, showing the line meanwhile. */
  around<T>(work: () => T): T {
    const start = performance.now();
    this.draw();
    try {
      return work();
    } finally {
      Atomics.add(this.counts, FILES, 1);
      Atomics.add(this.counts, MILLISECONDS, Math.round(performance.now() - start));
      this.erase();
    }
  }

  private draw() {
    if (!this.shown) return;
    const seconds = (this.milliseconds / 1000).toFixed(1);
    write(`\r\x1b[Kjsprof: instrumenting module ${this.files + 1} (${seconds} s so far; cached for the next run)`);
  }

  private erase() {
    if (this.shown) write('\r\x1b[K');
  }
}

function write(text: string) {
  try {
    fs.writeSync(2, text);
  } catch {
    // stderr closed: nothing to show
  }
}
