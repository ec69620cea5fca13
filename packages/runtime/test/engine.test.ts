/**
 * The shared sampler on a simulated clock: the tick grid, late and missed ticks, idle ticks, full
 * sessions, bounded memory, and the count-down and thread arming, deterministically.
 */
import { BASE_INTERVAL, CHECK, ENTRY_CHECK, EXIT_SLOTS, Engine, Hook, LOOPING_EXIT_CHECK, Platform, REARM, Session, Ticker } from '../src/engine';
import { defaultResolver } from '../src/trace';

interface FakeTicker extends Ticker {
  due: number;
  zeroed: number;
}

function fakeTicker(): FakeTicker {
  return {
    due: Infinity,
    zeroed: 0,
    ready: () => true,
    setDue(time) {
      this.due = time;
    },
    zeroes() {
      return this.zeroed;
    },
    stop() {},
  };
}

/** `coarse`: a clock in 1 ms steps, or in steps of this many ms. */
function setup(options: { ticker?: FakeTicker; coarse?: boolean | number } = {}) {
  let clock = 5000;
  let idle: (() => void) | null = null;
  // The Engine sets `s`, the Proxy the checks delete from; a test may wrap engine.slowPath to count calls.
  const hook = { c: new Int32Array(1 + EXIT_SLOTS) } as Hook;
  hook.c.fill(REARM);
  const platform: Platform = {
    now: () => (options.coarse === true ? Math.floor(clock) : options.coarse ? Math.floor(clock / options.coarse) * options.coarse : clock),
    startIdleTimer(fn) {
      idle = fn;
      return () => {
        idle = null;
      };
    },
    startTicker: options.ticker ? () => options.ticker! : undefined,
  };
  const engine = new Engine(hook, platform);
  const fired: Session[] = [];
  const env = {
    engine,
    hook,
    get clock() {
      return clock;
    },
    advance(ms: number) {
      clock += ms;
    },
    /** The idle timer firing (only when no JavaScript runs). */
    idle() {
      idle?.();
    },
    get idleRunning() {
      return idle !== null;
    },
    start(interval = 10, capacity = 10000) {
      const session: Session = engine.start(interval, capacity, () => fired.push(session));
      return session;
    },
    fired,
    /** The inserted checks, as @jsprof/policy writes them: elsewhere, at an entry, at the exit of a function with loops. */
    check() {
      if (--hook.c[0] < 0) delete (hook.s as any)[CHECK];
    },
    entryCheck() {
      if (--hook.c[0] < 0) delete (hook.s as any)[ENTRY_CHECK];
    },
    loopingExitCheck(slot = 0) {
      if (--hook.c[1 + slot] < 0) delete (hook.s as any)[LOOPING_EXIT_CHECK + slot];
    },
    /** Calls `listener` with the kind of each check that reaches the slow path, until the returned function is called. */
    onSlowPath(listener: (kind: number) => void): () => void {
      const slowPath = engine.slowPath;
      Object.defineProperty(engine, 'slowPath', {
        configurable: true,
        value: (kind: number) => {
          listener(kind);
          slowPath(kind);
        },
      });
      return () => Object.defineProperty(engine, 'slowPath', { configurable: true, value: slowPath });
    },
    /** A check whose count-down has run out: it reaches the slow path. */
    checkRunsOut() {
      hook.c[0] = 0;
      env.check();
    },
    /**
     * Runs checks for `ms` of simulated time, `perMs` checks per ms; a fake thread zeroes the counter
     * when due (unless it is `lossy`: then its zero is always overwritten, as by the check's own decrement).
     */
    run(ms: number, perMs: number, thread?: { ticker: FakeTicker; lossy?: boolean; stale?: boolean }) {
      const step = 1 / perMs;
      const end = clock + ms;
      let slow = 0;
      const restore = env.onSlowPath(() => slow++);
      let staleFor = Infinity;
      while (clock < end) {
        clock += step;
        if (thread && clock >= thread.ticker.due) {
          thread.ticker.zeroed++;
          if (!thread.lossy) hook.c.fill(0);
          staleFor = thread.ticker.due;
        }
        env.check();
        if (thread?.stale && staleFor !== Infinity && thread.ticker.due !== staleFor) {
          // The thread read the old due before the main thread re-armed: its zero lands after.
          hook.c.fill(0);
          thread.ticker.zeroed++;
          staleFor = Infinity;
        }
      }
      restore();
      return slow;
    },
  };
  return env;
}

describe('the tick grid', () => {
  test('a check before the tick records nothing; the first check after it records it', () => {
    const env = setup();
    const session = env.start();
    env.advance(5);
    env.checkRunsOut();
    expect(session.samples).toHaveLength(0);
    env.advance(6); // 11 ms: tick 1 (10 ms) is due
    env.checkRunsOut();
    expect(session.samples).toHaveLength(1);
    expect(session.samples[0].timestamp).toBe(env.clock);
    expect(session.samples[0].stack).toBeGreaterThanOrEqual(0);
    env.advance(1);
    env.checkRunsOut();
    expect(session.samples).toHaveLength(1);
  });

  test('ticks missed by a late check are made up for with its stack, stamped on the grid', () => {
    const env = setup();
    const session = env.start();
    const origin = env.clock;
    env.advance(42); // ticks at 10, 20, 30, 40 are due
    env.checkRunsOut();
    expect(session.samples.map((s) => s.timestamp)).toEqual([origin + 10, origin + 20, origin + 30, env.clock]);
    expect(new Set(session.samples.map((s) => s.stack)).size).toBe(1);
    expect(session.samples[0].stack).toBeGreaterThanOrEqual(0);
  });

  test('every tick missed while the thread was busy (no check, no idle timer) is charged to the next check\'s stack', () => {
    // A 2 s loop without loop checks: its exit check's stack for all of it (only the last 500 ms had one).
    const env = setup();
    const session = env.start();
    env.advance(200 * BASE_INTERVAL + 1);
    env.checkRunsOut();
    expect(session.samples).toHaveLength(200);
    expect(session.samples.every((s) => s.stack >= 0)).toBe(true);
  });

  test('the idle timer records ticks without a stack', () => {
    const env = setup();
    const session = env.start();
    expect(env.idleRunning).toBe(true);
    env.advance(9);
    env.idle();
    expect(session.samples).toHaveLength(0);
    env.advance(25);
    env.idle();
    expect(session.samples).toHaveLength(3);
    expect(session.samples.every((s) => s.stack === -1)).toBe(true);
  });

  test('sessions of 10 and 30 ms share ticks and timestamps', () => {
    const env = setup();
    const fine = env.start(10);
    env.advance(3);
    const coarse = env.start(30);
    for (let i = 0; i < 40; i++) {
      env.advance(BASE_INTERVAL * 0.7);
      env.checkRunsOut();
    }
    const times = new Set(fine.samples.map((s) => s.timestamp));
    expect(coarse.samples.length).toBeGreaterThanOrEqual(8);
    expect(coarse.samples.every((s) => times.has(s.timestamp))).toBe(true);
    expect(fine.samples.length).toBeGreaterThanOrEqual(3 * coarse.samples.length - 3);
  });

  test('a session started later takes ticks from the next one on', () => {
    const env = setup();
    const first = env.start(10);
    env.advance(25);
    env.checkRunsOut(); // ticks 1, 2
    const second = env.start(20); // starts at tick 3
    env.advance(60);
    env.checkRunsOut(); // ticks 3..8
    expect(first.samples).toHaveLength(8);
    expect(second.samples).toHaveLength(3); // ticks 3, 5, 7
  });
});

describe('the checks', () => {
  test("a sample leaves out the runtime's frames; an entry check leaves out the function it enters too", () => {
    const env = setup();
    const session = env.start();
    const top = (i: number) => env.engine.store.frames[env.engine.store.stacks[2 * session.samples[i].stack + 1]].name;
    const { hook } = env;
    function looping() {
      if (--hook.c[0] < 0) delete (hook.s as any)[CHECK];
    }
    function exiting() {
      if (--hook.c[1] < 0) delete (hook.s as any)[LOOPING_EXIT_CHECK];
    }
    function entered() {
      if (--hook.c[0] < 0) delete (hook.s as any)[ENTRY_CHECK];
    }
    function caller() {
      entered();
    }
    env.advance(11);
    env.hook.c[0] = 0;
    looping();
    env.advance(10);
    env.hook.c[1] = 0;
    exiting();
    env.advance(10);
    env.hook.c[0] = 0;
    caller();
    expect([0, 1, 2].map(top)).toEqual(['looping', 'exiting', 'caller']);
  });
});

describe('full sessions and memory', () => {
  test('a session keeps at most its capacity; onFull once; the others go on', () => {
    const env = setup();
    const small = env.start(10, 3);
    const large = env.start(10, 10000);
    for (let i = 0; i < 20; i++) {
      env.advance(10);
      env.checkRunsOut();
    }
    expect(small.samples).toHaveLength(3);
    expect(small.full).toBe(true);
    expect(env.fired).toEqual([small]);
    expect(large.samples).toHaveLength(20);
    // Both count towards the limit of 100 until stopped.
    expect(env.engine.open).toBe(2);
  });

  test.each([1e9, 1e12])('a clock jumping %d ms records the last minute of ticks at most (MAX_GAP_MS), within the buffers', (jump) => {
    const env = setup();
    const small = env.start(10, 100);
    const large = env.start(30, 200_000);
    env.advance(10);
    env.checkRunsOut();
    const started = performance.now();
    env.advance(jump);
    env.checkRunsOut();
    env.idle();
    expect(performance.now() - started).toBeLessThan(5_000); // it took 13.5 s and 2.4 GB at 1e9 ms, and died at 4e9
    expect(small.samples).toHaveLength(100); // a minute at 10 ms is more than it holds
    expect(large.samples.length).toBeGreaterThan(60_000 / 30 - 2); // the minute before the jump's end, at 30 ms
    expect(large.samples.length).toBeLessThanOrEqual(60_000 / 30 + 2);
    expect(env.fired).toEqual([small]);
    for (const s of [small, large]) {
      const times = s.samples.map((sample) => sample.timestamp);
      expect(times.every((t, i) => Number.isFinite(t) && (i === 0 || t > times[i - 1]))).toBe(true);
    }
  });

  test('a clock giving NaN or Infinity records nothing and throws nothing', () => {
    const env = setup();
    const session = env.start(10, 100);
    env.advance(Infinity);
    expect(() => env.checkRunsOut()).not.toThrow();
    expect(() => env.idle()).not.toThrow();
    expect(session.samples).toHaveLength(0);
  });

  test('a finer grid (setBaseInterval, for jsprof run): ticks every 1 ms; not while a profiler samples', () => {
    const env = setup();
    expect(env.engine.setBaseInterval(1)).toBe(true);
    const session = env.start(1, 10000);
    expect(env.engine.setBaseInterval(10)).toBe(false);
    for (let i = 0; i < 20; i++) {
      env.advance(1);
      env.checkRunsOut();
    }
    expect(session.samples).toHaveLength(20);
    // 800 ms without a check: every tick gets its stack.
    env.advance(800);
    env.checkRunsOut();
    const late = session.samples.slice(20);
    expect(late).toHaveLength(800);
    expect(late.every((sample) => sample.stack >= 0)).toBe(true);
    expect(env.engine.setBaseInterval(0)).toBe(false);
  });

  test('a long session with a small buffer holds only its buffer', () => {
    const env = setup();
    const session = env.start(10, 50);
    for (let i = 0; i < 2000; i++) {
      env.advance(10);
      env.checkRunsOut();
    }
    expect(session.samples).toHaveLength(50);
  });

  test('capacity 0: full at the first tick, no samples', () => {
    const env = setup();
    const session = env.start(10, 0);
    env.advance(11);
    env.checkRunsOut();
    expect(session.samples).toHaveLength(0);
    expect(env.fired).toEqual([session]);
  });

  test('the stack store is cleared when no profiler holds samples', () => {
    const env = setup();
    const full = env.start(10, 2);
    const running = env.start(10, 10000);
    for (let i = 0; i < 5; i++) {
      env.advance(10);
      env.checkRunsOut();
    }
    expect(env.engine.store.frames.length).toBeGreaterThan(0);
    env.engine.stop(running);
    // The full one still holds samples that point into the store.
    expect(env.engine.store.frames.length).toBeGreaterThan(0);
    expect(env.idleRunning).toBe(false);
    expect(env.hook.c[0]).toBe(REARM);
    const trace = env.engine.stop(full, defaultResolver);
    expect(trace.samples).toHaveLength(2);
    expect(trace.samples.every((s) => s.stackId !== undefined)).toBe(true);
    expect(env.engine.store.frames).toHaveLength(0);
    expect(env.engine.store.stacks).toHaveLength(0);
  });

  test('a new profiler after all stopped starts from an empty store', () => {
    const env = setup();
    const a = env.start();
    env.advance(11);
    env.checkRunsOut();
    env.engine.stop(a);
    env.start();
    expect(env.engine.store.frames).toHaveLength(0);
  });

  test('without sessions the slow path disarms the counter', () => {
    const env = setup();
    env.checkRunsOut();
    expect(env.hook.c[0]).toBe(REARM);
  });
});

describe('pausing (a hidden page)', () => {
  test('no tick is recorded while paused, with or without a stack; sampling resumes on the grid after', () => {
    const env = setup();
    const session = env.start();
    env.run(50, 100);
    const before = session.samples.length;
    expect(before).toBeGreaterThanOrEqual(4);
    env.engine.setPaused(true);
    const pausedAt = env.clock;
    env.run(100, 100);
    env.idle();
    expect(session.samples.length).toBe(before);
    expect(env.idleRunning).toBe(false);
    env.engine.setPaused(false);
    const resumedAt = env.clock;
    env.run(50, 100);
    const after = session.samples.slice(before);
    expect(after.length).toBeGreaterThanOrEqual(4);
    for (const s of after) expect(s.timestamp).toBeGreaterThanOrEqual(resumedAt);
    expect(session.samples.every((s) => s.timestamp <= pausedAt || s.timestamp >= resumedAt)).toBe(true);
  });

  test('a profiler started while paused records nothing until resumed', () => {
    const env = setup();
    env.engine.setPaused(true);
    const session = env.start();
    env.run(50, 100);
    env.idle();
    expect(session.samples).toHaveLength(0);
    env.engine.setPaused(false);
    env.run(50, 100);
    expect(session.samples.length).toBeGreaterThanOrEqual(4);
  });
});

describe('arming', () => {
  test('count-down: every tick of a steady program is taken, with few slow-path calls', () => {
    const env = setup();
    const session = env.start();
    const slow = env.run(1000, 2000); // 2000 checks per ms
    expect(session.samples.length).toBeGreaterThanOrEqual(99);
    expect(session.samples.every((s) => s.stack >= 0)).toBe(true);
    // Each call arms for a tenth of the checks left, about ln(checks per tick) / ln(10 / 9) calls per
    // tick, and every check calls it once fewer than 10 * FEW_CHECKS are left: about 150 calls per
    // tick, not 20,000.
    expect(slow).toBeLessThan(100 * 180);
    // Taken close to the grid: never two intervals apart.
    const times = session.samples.map((s) => s.timestamp);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeLessThanOrEqual(2 * BASE_INTERVAL);
  });

  test('count-down: the program slowing down tenfold loses no tick', () => {
    const env = setup();
    const session = env.start();
    env.run(300, 2000);
    env.run(300, 200);
    env.run(300, 2000);
    expect(session.samples.length).toBeGreaterThanOrEqual(89);
    expect(session.samples.every((s) => s.stack >= 0)).toBe(true);
  });

  test('count-down with a clock in 1 ms steps (browsers without isolation)', () => {
    const env = setup({ coarse: true });
    const session = env.start();
    env.run(500, 1000);
    expect(session.samples.length).toBeGreaterThanOrEqual(48);
    expect(session.samples.every((s) => s.stack >= 0)).toBe(true);
  });

  test('count-down with a clock in 100 µs steps (Chromium without isolation): code dense with checks does not take the samples of a loop without checks by reading the clock before each tick', () => {
    // The example app: countPrimes loops 0.65 ms without a check (its exit reads the clock), then
    // renderRows makes 3,200 checks in 0.32 ms. Each read of the clock costs a microsecond.
    const env = setup({ coarse: 0.1 });
    const session = env.start();
    env.onSlowPath(() => env.advance(0.001));
    const start = env.clock;
    let inLoop = 0;
    while (env.clock < start + 3000) {
      env.entryCheck();
      env.advance(0.65);
      const before = session.samples.length;
      env.loopingExitCheck();
      inLoop += session.samples.length - before;
      for (let i = 0; i < 3200; i++) {
        env.advance(0.0001);
        env.check();
      }
    }
    // 67% of the time is the loop's (less what the reads add).
    expect(inLoop / session.samples.length).toBeGreaterThan(0.6);
    expect(inLoop / session.samples.length).toBeLessThan(0.72);
  });

  test('count-down with a clock in 1 ms steps (Firefox and WebKit without isolation): code dense with checks between loops without checks does not take their samples by reading the clock before each tick', () => {
    // A loop of 1.6–2.4 ms without a check (its exit reads the clock), then 5,000 checks in 0.5 ms:
    // the rate learnt over a millisecond is a fifth of the dense code's. Each read costs a microsecond.
    const env = setup({ coarse: true });
    const session = env.start();
    env.onSlowPath(() => env.advance(0.001));
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const start = env.clock;
    let inLoop = 0;
    let loopTime = 0;
    while (env.clock < start + 5000) {
      env.entryCheck();
      const loopStart = env.clock;
      env.advance(1.6 + 0.8 * random());
      const before = session.samples.length;
      env.loopingExitCheck();
      inLoop += session.samples.length - before;
      loopTime += env.clock - loopStart;
      for (let i = 0; i < 5000; i++) {
        env.advance(0.0001);
        env.check();
      }
    }
    const truth = loopTime / (env.clock - start);
    expect(truth).toBeGreaterThan(0.78);
    expect(inLoop / session.samples.length).toBeGreaterThan(truth - 0.05);
    expect(inLoop / session.samples.length).toBeLessThan(truth + 0.05);
  });

  test('count-down: a check right after arming cannot arm for a rate learnt from a moment', () => {
    const env = setup();
    const session = env.start();
    env.advance(0.001);
    env.check(); // the first arming leaves 0: this check calls the slow path a microsecond later
    expect(env.hook.c[0]).toBeLessThan(10);
    // a slow program (one check every 5 ms) still gets its ticks
    for (let i = 0; i < 40; i++) {
      env.advance(5);
      env.check();
    }
    expect(session.samples.length).toBeGreaterThanOrEqual(18);
  });

  test('count-down: exit checks of functions with loops read the clock where exits are rare, and take the tick that fell due while one looped', () => {
    const env = setup();
    const session = env.start();
    let reads = 0;
    env.onSlowPath((kind) => {
      if (kind === LOOPING_EXIT_CHECK) reads++;
    });
    const exitCheck = env.loopingExitCheck;
    env.run(15, 2000); // a dense phase, ending between ticks: the count-down learns 2000 checks per ms
    const armed = env.hook.c[0];
    env.advance(0.5);
    exitCheck(); // not due: the clock is read, the count-down stays as it was
    expect({ count: env.hook.c[0], reads, samples: session.samples.length }).toEqual({ count: armed, reads: 1, samples: 1 });
    env.advance(20); // a loop without checks runs past the next ticks...
    exitCheck(); // ...and its exit takes them, where the count-down would have waited for its count
    expect(session.samples.length).toBe(3);
    expect(session.samples[2].stack).toBeGreaterThanOrEqual(0);
    for (let i = 0; i < 20; i++) {
      env.advance(1.5);
      exitCheck(); // exits 1.5 ms apart: every one reads the clock
    }
    expect(reads).toBe(22);
  });

  test('count-down: it closes in on each tick and takes it at the first check after it falls due', () => {
    const env = setup();
    const session = env.start();
    const origin = env.clock;
    env.run(200, 500); // a check every 2 microseconds
    const late = session.samples.map((s) => s.timestamp - origin - Math.round((s.timestamp - origin) / BASE_INTERVAL) * BASE_INTERVAL);
    expect(late.length).toBeGreaterThanOrEqual(19);
    for (const ms of late.slice(1)) expect(ms).toBeLessThan(0.005);
  });

  test('count-down: each exit slot reads the clock at its own pace, so a function with loops called a few times right after dense code is sampled', () => {
    const env = setup();
    const session = env.start();
    // A short function with loops on slot 3 exits every microsecond: it reads the clock every so many exits.
    for (let i = 0; i < 5000; i++) {
      env.advance(0.001);
      env.loopingExitCheck(3);
    }
    expect(env.hook.c[1 + 3]).toBeGreaterThan(20);
    // Then a function with loops on slot 200 whose calls take 20 ms each, in built-ins: every exit
    // reads the clock and takes the ticks that fell due inside it (on one slot, none would).
    const before = session.samples.length;
    for (let i = 0; i < 5; i++) {
      env.advance(20);
      env.loopingExitCheck(200);
    }
    expect(session.samples.length - before).toBe(10);
    expect(session.samples.slice(before).every((sample) => sample.stack >= 0)).toBe(true);
  });

  test('thread: the slow path re-arms every exit slot', () => {
    const ticker = fakeTicker();
    const env = setup({ ticker });
    const session = env.start();
    env.advance(10.1);
    env.hook.c.fill(0); // the thread's zero
    env.loopingExitCheck(7);
    expect(session.samples).toHaveLength(1);
    expect(env.hook.c.subarray(1).every((count) => count === REARM)).toBe(true);
  });

  test('count-down: an exit that reads the clock takes a tick that fell due since the last check', () => {
    const env = setup();
    const session = env.start();
    env.advance(10.2); // tick 1 (10 ms) fell due while a function looped without checks
    env.hook.c[1] = 0; // this exit reads the clock
    env.loopingExitCheck();
    expect(session.samples).toHaveLength(1);
    expect(session.samples[0].stack).toBeGreaterThanOrEqual(0);
  });

  test('thread: an exit the thread zeroed takes the tick at once', () => {
    const ticker = fakeTicker();
    const env = setup({ ticker });
    const session = env.start();
    env.advance(10.1);
    env.hook.c.fill(0); // the thread's zero
    env.loopingExitCheck();
    expect(session.samples).toHaveLength(1);
  });

  test('count-down: frequent exit checks read the clock about every millisecond, not each time', () => {
    const env = setup();
    env.start();
    let reads = 0;
    env.onSlowPath((kind) => {
      if (kind === LOOPING_EXIT_CHECK) reads++;
    });
    for (let i = 0; i < 20000; i++) {
      env.advance(0.0005); // 2 exits per microsecond, for 10 ms
      env.loopingExitCheck();
    }
    expect(reads).toBeLessThan(60);
    expect(reads).toBeGreaterThan(5);
  });

  /**
   * Runs a caller that calls `f`, a short function with loops, over and over, for `ms` of simulated
   * time: `callerMs(i)` in the caller before the i-th call (with `callerChecks(i)` checks spread over it), `fMs` in f between its
   * entry check and its exit check. Returns the share of the samples taken at f's exit (which keep
   * f's frame) and the slow-path calls per sample. Periods far from dividing the 10 ms grid, so that
   * ticks fall due anywhere in the cycle.
   */
  function shortLoopingFunction(ms: number, callerMs: (i: number) => number, fMs: number, callerChecks = (_i: number) => 1) {
    const env = setup();
    const session = env.start();
    const start = env.clock;
    let slow = 0;
    env.onSlowPath(() => slow++);
    let atExit = 0;
    for (let i = 0; env.clock < start + ms; i++) {
      const checks = callerChecks(i);
      for (let c = 0; c < checks; c++) {
        env.advance(callerMs(i) / checks);
        env.check();
      }
      env.entryCheck();
      env.advance(fMs);
      const before = session.samples.length;
      env.loopingExitCheck();
      atExit += session.samples.length - before;
    }
    expect(session.samples.length).toBeGreaterThanOrEqual(0.99 * (ms / BASE_INTERVAL));
    return { atExit: atExit / session.samples.length, slowPerSample: slow / session.samples.length };
  }

  test('count-down: a short function with loops called over and over gets the ticks that fall due inside it, at its exit', () => {
    // About half the time is spent in f: a tick falling due there is taken at f's exit, with f's frame.
    const { atExit, slowPerSample } = shortLoopingFunction(10_000, () => 0.00053, 0.00051);
    expect(atExit).toBeGreaterThan(0.4);
    expect(atExit).toBeLessThan(0.6);
    // Not every check (19,000 a tick) calls the slow path: the count-down's armings, the exits' clock
    // reads about every millisecond, and every check of the last 5 µs before the tick.
    expect(slowPerSample).toBeLessThan(250);
  });

  test('count-down: a short function with loops that takes little time gets few ticks, however often it runs', () => {
    // acorn's skipSpace: called after every token, 10% of the time, half the checks.
    const { atExit } = shortLoopingFunction(2000, () => 0.000184079, 0.00002);
    expect(atExit).toBeGreaterThan(0.05);
    expect(atExit).toBeLessThan(0.15);
    // The same where the rate of checks changes tenfold every 50 calls.
    expect(shortLoopingFunction(2000, () => 0.000184079, 0.00002, (i) => (Math.floor(i / 50) % 2 ? 10 : 1)).atExit).toBeLessThan(0.15);
  });

  test('count-down: a tick that fell due during a pause in the caller is not charged to the first exit of a function with loops to read the clock', () => {
    // A 0.2 ms pause (a garbage collection) every 1000 calls: half the time, and f's 5%. The exits
    // of f read the clock every 0.1 ms or so, more often than the count-down runs out, and would
    // find many of the ticks that fell due in a pause, which are the caller's (10% at f's exit).
    const { atExit } = shortLoopingFunction(2000, (i) => (i % 1000 === 999 ? 0.2 : 0.000184079), 0.00002);
    expect(atExit).toBeGreaterThan(0.025);
    expect(atExit).toBeLessThan(0.075);
  });

  test('thread: exit checks call the slow path only when the thread says a tick is due', () => {
    const ticker = fakeTicker();
    const env = setup({ ticker });
    env.start();
    expect(env.hook.c[1]).toBe(REARM);
    env.run(100, 100, { ticker });
    expect(env.hook.c[1]).toBe(REARM);
  });

  test('thread: a thread that is not running yet when the counter is armed still learns when the tick is due', () => {
    const ticker = fakeTicker();
    let running = false;
    ticker.ready = () => running;
    const env = setup({ ticker });
    const session = env.start();
    expect(env.engine.mode).toBe('count-down');
    expect(ticker.due).toBe(env.clock + BASE_INTERVAL);
    running = true;
    env.run(200, 0.2, { ticker }); // one check every 5 ms: the thread's zero takes the ticks
    expect(session.samples.length).toBeGreaterThanOrEqual(18);
  });

  test('thread: the thread\'s zero takes the tick', () => {
    const ticker = fakeTicker();
    const env = setup({ ticker });
    const session = env.start();
    expect(env.engine.mode).toBe('thread');
    expect(ticker.due).toBe(env.clock + BASE_INTERVAL); // the first tick
    const slow = env.run(1000, 2000, { ticker });
    expect(session.samples.length).toBeGreaterThanOrEqual(99);
    expect(slow).toBeLessThan(100 * 4);
  });

  test('thread: when the thread\'s zero is lost, the backup count-down takes the tick', () => {
    const ticker = fakeTicker();
    const env = setup({ ticker });
    const session = env.start();
    env.run(200, 2000, { ticker }); // learn the rate while the thread works
    env.run(800, 2000, { ticker, lossy: true });
    expect(session.samples.length).toBeGreaterThanOrEqual(99);
    const times = session.samples.map((s) => s.timestamp);
    // Late by at most half an interval more than the thread would be.
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeLessThanOrEqual(2 * BASE_INTERVAL);
  });

  test('thread: a rate learnt before the program slowed down does not delay the backup for long', () => {
    const ticker = fakeTicker();
    const env = setup({ ticker });
    const session = env.start();
    env.run(100, 20000, { ticker }); // learns about 20000 checks/ms
    env.run(300, 1000, { ticker }); // 20 times slower; the thread takes the ticks
    const from = env.clock;
    env.run(500, 1000, { ticker, lossy: true });
    const times = session.samples.map((s) => s.timestamp).filter((t) => t > from);
    expect(times.length).toBeGreaterThanOrEqual(48);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeLessThanOrEqual(2 * BASE_INTERVAL);
  });

  test('thread: a zero landing just after re-arming is not taken for a count-down run out', () => {
    const ticker = fakeTicker();
    const env = setup({ ticker });
    const session = env.start();
    env.run(300, 2000, { ticker, stale: true });
    const from = env.clock;
    env.run(500, 2000, { ticker, lossy: true });
    const times = session.samples.map((s) => s.timestamp).filter((t) => t > from);
    expect(times.length).toBeGreaterThanOrEqual(48);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeLessThanOrEqual(2 * BASE_INTERVAL);
  });

  test('stopping the last session disarms the thread', () => {
    const ticker = fakeTicker();
    const env = setup({ ticker });
    const session = env.start();
    env.engine.stop(session);
    expect(ticker.due).toBe(Infinity);
    expect(env.hook.c[0]).toBe(REARM);
  });

  test('guard(): checks in the program\'s code called by the runtime take no sample; the next one does', () => {
    const env = setup();
    const session = env.start();
    env.advance(15);
    env.engine.guard(() => {
      env.checkRunsOut();
      expect(session.samples).toHaveLength(0);
    });
    expect(env.hook.c[0]).toBeLessThan(REARM); // armed again
    env.checkRunsOut();
    expect(session.samples).toHaveLength(1);
  });

  test('ownWork(): ticks falling due during the profiler\'s own work have no stack; the next tick is taken as usual', () => {
    const env = setup();
    const session = env.start();
    const origin = env.clock;
    env.advance(5);
    expect(
      env.engine.ownWork(() => {
        env.advance(30); // ticks at 10, 20 and 30 fall due
        env.checkRunsOut();
        return 'instrumented';
      }),
    ).toBe('instrumented');
    expect(session.samples.map((s) => [s.timestamp - origin, s.stack])).toEqual([
      [10, -1],
      [20, -1],
      [35, -1],
    ]);
    expect(env.hook.c[0]).toBeLessThan(REARM);
    env.advance(6);
    env.checkRunsOut();
    expect(session.samples).toHaveLength(4);
    expect(session.samples[3].stack).toBeGreaterThanOrEqual(0);
    expect(() =>
      env.engine.ownWork(() => {
        throw new Error('syntax');
      }),
    ).toThrow('syntax');
  });

  test('guard() returns and rethrows', () => {
    const env = setup();
    expect(env.engine.guard(() => 42)).toBe(42);
    expect(() =>
      env.engine.guard(() => {
        throw new Error('x');
      }),
    ).toThrow('x');
  });
});
