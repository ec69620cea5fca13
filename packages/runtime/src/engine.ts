/**
 * The sampler all profilers of a realm share (Blink's ProfilerGroup): one grid of ticks every
 * BASE_INTERVAL ms; each profiler takes every n-th tick from its start, so a 30 ms profiler's
 * samples are also in a concurrent 10 ms profiler's trace.
 *
 * A tick falls due on the grid; the next inserted check then calls `slowPath`, which captures the
 * stack and records it for that tick (and for ticks missed since, up to a bound). How the check
 * learns a tick is due:
 * - count-down mode (no SharedArrayBuffer): the counter holds the number of checks expected before
 *   the tick, measured from the rate of recent checks, undershot so the tick is not overrun: each
 *   arming covers a tenth of the time left, closing in on the tick, and in its FINAL_STRETCH every
 *   check calls the slow path, so that the tick is taken at the first check after it falls due, as
 *   the thread would have it; the exit checks of functions with loops count on counters of their
 *   own (EXIT_SLOTS of them, each function on one), each reading the clock about every
 *   EXIT_READ_INTERVAL (see armExits), for time that passes in loops between sparse checks;
 * - thread mode: a sampler thread sees the time pass and sets every counter to 0, which follows
 *   changes of the check rate at once; a count-down overshooting the tick stays armed as a backup.
 * Ticks that pass while no check runs are recorded without a stack by a timer on this thread, which
 * only fires when no JavaScript is running.
 */
import { RawFrame, captureStack, forgetCallSites } from './capture';
import { FrameResolver, HeldSample, StackStore, StoredStacks, buildTrace, defaultResolver, ProfilerTrace } from './trace';
import { OwnSet, append, fillWith, floor, isFiniteNumber, isSafeInteger, max, min, round, sortBy } from './builtins';

export const BASE_INTERVAL = 10;
export const REARM = 1 << 30;
/**
 * Count-down mode arms for this share of the checks expected before the tick: better early than
 * late, and early unless the checks slow down more than tenfold before the tick.
 */
const UNDERSHOOT = 0.1;
/**
 * Thread mode keeps a count-down too, for this many times the checks expected: the thread's zero can
 * be overwritten by the check's own decrement, or not be seen for long (an optimised loop may keep the
 * counter in a register), so the count-down takes the tick when the thread is late.
 */
const BACKUP = 1.5;
/**
 * Ticks missed for longer than this (ms) before the one recorded are not recorded at all: no check
 * and no idle timer ran for a minute, so the machine slept or the clock jumped (fake timers move
 * it by years), and native Chromium, whose thread samples the present, has no samples there
 * either. Without the bound, a jump of 1e12 ms filled `jsprof run`'s buffer of a million samples.
 */
const MAX_GAP_MS = 60_000;
/** How long (ms) a tick overdue at `stop()` shows the thread was busy, the idle timer having missed several beats. */
const BUSY_AT_STOP_MS = 50;
/** A rate of checks is learnt from at least this many milliseconds. */
const RATE_WINDOW = 1;
/** ...or from the last arming, if at least this long ago (ms) and faster. */
const MIN_ELAPSED = 0.02;
/**
 * Without a thread, the exit checks counting on one exit slot read the clock about this often (ms)
 * at most: at each one where they are rarer (a function that loops for long), every few where they
 * are frequent (short functions called in a hot path), so that the reads cost little. Tens of slots
 * are busy at once: acorn's workload made 142,000 reads in 3.3 s at 0.1 ms a slot (Chromium's
 * count-down +18.6% over the plain page), 40,000 at 1 ms (+11.0%), and 13,000 with one counter for
 * all exits read every 0.1 ms (+15.1%, another day).
 */
const EXIT_READ_INTERVAL = 1;
/**
 * Without a thread, every check calls the slow path once a clock read finds the tick this close
 * (ms), so that the first check after the tick takes it, whatever its kind: the exit of a function
 * with loops too, which would otherwise wait for its next clock read, and leave a tick that fell
 * due inside it to the next entry check, which leaves it out.
 */
const FINAL_STRETCH = 0.005;
/**
 * Without a thread, every check calls the slow path too once an arming would count fewer checks
 * than this (UNDERSHOOT's share of those expected before the tick): checks are then sparse, the
 * count-down cannot tell where among them the tick falls, and a tick falling due in the loop of a
 * hot function called over and over from a one-line arrow went to the arrow's next check, after the
 * function returned (issue 24's page: each hot function got 0–2 of its 20 samples, the arrows the
 * rest; with 1, about half; with 8, about all). Costs at most ten times this many slow paths a tick.
 */
const FEW_CHECKS = 8;
/**
 * A page that is not cross-origin isolated reads a coarse clock: 100 µs steps in Chromium, 1 ms in
 * Firefox and WebKit. The tick falls due when the clock steps onto it, and nothing tells where in
 * the step before it the program is. In that last step the count-down reads the clock this many
 * times, so that the first read after the step takes the tick...
 */
const LAST_STEP_READS = 64;
/**
 * ...but at most one every this many ms, at the rate of checks learnt: a read costs about a
 * microsecond (the trap, the clock, the arming), and in Chromium's 100 µs step 64 reads came every
 * 1.6 µs, fewer than FEW_CHECKS checks apart, so that every check of code dense with checks (ten a
 * microsecond) read the clock there. That code then ran several times slower in the last step before
 * each tick, and the tick fell due in it out of proportion to its time: the example app's
 * countPrimes, 68% of the time by the page's own clock, got 45–66% of the samples (24 runs, 58% on
 * average); with this bound, 63–75% (8 runs, 67%). Checks sparser than this still read at every check.
 */
const LAST_STEP_READ_GAP = 0.01;
/**
 * ...and at least this many checks apart, whatever the rate learnt, while that leaves
 * LAST_STEP_MIN_READS reads a step at that rate. The rate is an average over a millisecond or more;
 * where code dense with checks alternates with a loop without any (the example app), the dense code
 * makes its checks several times faster than that. Firefox's and WebKit's 1 ms step was then read
 * every 3 µs of the dense code, which ran a third slower in the last step before each tick and took
 * the tick out of proportion to its time. Simulated (a read costs 1 µs; a loop of 1.6–2.4 ms, then
 * 0.5 ms of checks 0.1 µs apart), the loop got 67% of the samples for 79% of the time, 78% with this
 * bound; with checks 1 µs apart, 59% and 77%. Sparser code, whose step holds fewer checks, still
 * reads LAST_STEP_MIN_READS times a step or more.
 */
const LAST_STEP_MIN_CHECKS = 96;
const LAST_STEP_MIN_READS = 8;
/**
 * ...and the exits of functions with loops whose exits are fewest read it at every exit, up to this
 * many reads a millisecond in all: a tick falling due in the loop of a function called over and
 * over from a one-line arrow is then taken at its exit, not at the arrow's next check (issue 24's
 * page in Firefox and WebKit: 2–6 of each hot function's 20 samples before, 16–20 after).
 */
const LAST_STEP_EXIT_READS = 512;
/**
 * ...and, with any clock, in the last EXIT_READ_INTERVAL before the tick, the slots whose exits read
 * it every this many exits or fewer (functions with loops that run for long) read it at every exit:
 * the example app (countPrimes, 0.5 ms calls read every other exit, then renderRows, dense with
 * checks) gave countPrimes 6–29% of the samples in Node against 68% by its own timers; 61–73% after.
 */
const SPARSE_EXITS = 2;
export const MAX_SESSIONS = 100;

export interface Ticker {
  /** Whether the thread runs yet (until then, count-down mode samples). */
  ready(): boolean;
  /** Sets when the thread zeroes the counter next. */
  setDue(time: number): void;
  /** How many times the thread zeroed the counter so far. */
  zeroes(): number;
  stop(): void;
}

export interface Platform {
  now(): number;
  startTicker?(counter: Int32Array, now: () => number): Ticker | null;
  startIdleTimer(fn: () => void, ms: number): () => void;
}

export interface Hook {
  /** [count-down of entry and loop checks, then the exit slots: counts of exit checks]. */
  c: Int32Array;
  /**
   * What the inserted checks `delete` a property of when their counter runs out, the key being
   * their kind (see @jsprof/policy's check.ts): a Proxy, whose trap calls the engine's slow path.
   * The Engine sets it.
   */
  s: object;
}

/**
 * The kinds of check (@jsprof/policy's check.ts; a test keeps them equal). The exit of a function
 * with loops counts on `c[1 + slot]` and reaches the slow path with `LOOPING_EXIT_CHECK + slot`.
 */
export const CHECK = 0;
export const ENTRY_CHECK = 1;
export const LOOPING_EXIT_CHECK = 2;
export const EXIT_SLOTS = 256;

export class Session {
  readonly samples: HeldSample[] = [];
  full = false;
  constructor(
    readonly every: number,
    readonly startTick: number,
    readonly capacity: number,
    readonly onFull: () => void,
  ) {}

  takes(tick: number): boolean {
    return tick >= this.startTick && (tick - this.startTick) % this.every === 0;
  }

  nextTickAfter(tick: number): number {
    if (tick < this.startTick) return this.startTick;
    return this.startTick + (floor((tick - this.startTick) / this.every) + 1) * this.every;
  }
}

export class Engine {
  readonly store = new StackStore();
  /** The grid's step (ms): BASE_INTERVAL, as native Chromium has it, unless a tool sets another (setBaseInterval). */
  #base = BASE_INTERVAL;
  /** Profilers that are sampling. */
  readonly #sessions = new OwnSet<Session>();
  /** Profilers not yet stopped (sampling, or full and holding their samples). */
  readonly #held = new OwnSet<Session>();
  #origin = 0;
  #nextTick = Infinity;
  #ticker: Ticker | null = null;
  #stopIdleTimer: (() => void) | null = null;
  /** Runtime code is running (a capture, or the program's code called by the runtime): no sampling. */
  #busy = 0;
  /** The page is hidden: no tick is recorded. */
  #paused = false;
  #armedAt = 0;
  #armedCount = 0;
  #armedZeroes = 0;
  #rate = 0;
  /** The window the next rate is learnt from: since when, and the checks counted in it. */
  #rateFrom = 0;
  #rateChecks = 0;
  /** Per exit slot: the count it was armed with, and when. */
  readonly #exitsArmed: Int32Array;
  readonly #exitsArmedAt: Float64Array;
  /** The exit slots were set to REARM (disarmed, or left to a thread): without a thread, they are armed afresh. */
  #exitsDisarmed = true;
  /** Count-down mode: every check calls the slow path (the final stretch, or a tick left to the next check). */
  #everyCheck = false;
  /** The smallest step seen between two different readings of the clock (ms): its resolution. */
  #clockStep = Infinity;
  #lastNow = 0;
  /** The exit slots reading the clock at every exit in the clock's last step before the tick (1), and for which tick. */
  readonly #everyExit: Uint8Array;
  #everyExitTick = -1;
  /** The widest `maxPace` of the slots marked for #everyExitTick. */
  #everyExitPace = 0;
  resolver: FrameResolver = defaultResolver;
  /** Loads what the resolver needs for these frames before a trace is built (see stopAsync). */
  prepareFrames?: (frames: RawFrame[]) => Promise<void>;
  /** Called on the program's thread after each sample a check took, even while its event loop cannot turn (see afterEachSample). */
  afterSample: (() => void) | null = null;
  /** Samples recorded and ticks that fell due, for the benchmark's "taken vs due". */
  readonly stats = { ticks: 0, withStack: 0 };

  /** The Proxy trap the checks reach: the stack below it is the sample's. */
  readonly #trap: (target: object, key: string | symbol) => boolean;

  constructor(
    readonly hook: Hook,
    readonly platform: Platform,
  ) {
    // Named, so that a stack string without Error.captureStackTrace shows where the runtime's frames begin.
    const checkSlowPath = (_target: object, key: string | symbol) => {
      try {
        this.slowPath(typeof key === 'string' ? Number(key) : CHECK);
      } catch {
        // out of stack (a program near its limit): the check goes on as if no sample were due
      }
      return true;
    };
    this.#trap = checkSlowPath;
    hook.s = new Proxy({}, { deleteProperty: checkSlowPath });
    // A realm's hook made by an older runtime may have fewer slots.
    const slots = max(1, hook.c.length - 1);
    this.#exitsArmed = new Int32Array(slots);
    this.#exitsArmedAt = new Float64Array(slots);
    this.#everyExit = new Uint8Array(slots);
  }

  /** Profilers not yet stopped, as native Chromium counts them for its limit of 100. */
  get open(): number {
    return this.#held.size;
  }

  get baseInterval(): number {
    return this.#base;
  }

  /**
   * Sets the grid's step, for tools that sample finer than the API's 10 ms (`jsprof run
   * --sample-interval 1`, as `node --cpu-prof` samples every 1 ms). Only while no profiler
   * samples: their ticks are on the grid. False if it could not be set.
   */
  setBaseInterval(ms: number): boolean {
    if (this.#sessions.size > 0 || !(ms >= 0.1) || !isFiniteNumber(ms)) return false;
    this.#base = ms;
    return true;
  }

  get mode(): 'thread' | 'count-down' {
    return this.#ticker?.ready() ? 'thread' : 'count-down';
  }

  start(intervalMs: number, capacity: number, onFull: () => void): Session {
    const now = this.platform.now();
    if (this.#held.size === 0) {
      this.store.clear();
      forgetCallSites();
    }
    if (this.#sessions.size === 0) {
      this.#origin = now;
      if (!this.#paused) this.#stopIdleTimer = this.platform.startIdleTimer(this.#idleTick, this.#base);
      if (!this.#ticker && this.platform.startTicker) {
        try {
          this.#ticker = this.platform.startTicker(this.hook.c, this.platform.now);
        } catch {
          this.#ticker = null;
        }
      }
    }
    const tick = floor((now - this.#origin) / this.#base) + 1;
    const session = new Session(max(1, round(intervalMs / this.#base)), tick, capacity, onFull);
    this.#sessions.add(session);
    this.#held.add(session);
    this.#nextTick = min(this.#nextTick, tick);
    if (!this.#paused) this.#arm(now);
    return session;
  }

  /**
   * Pauses sampling (a hidden page) or resumes it: ticks that pass meanwhile are not recorded at
   * all, with or without a stack; profilers keep running and take the ticks after.
   */
  setPaused(paused: boolean): void {
    if (paused === this.#paused) return;
    this.#paused = paused;
    if (this.#sessions.size === 0) return;
    if (paused) {
      this.#stopIdleTimer?.();
      this.#stopIdleTimer = null;
      this.#disarm();
      this.#ticker?.setDue(Infinity);
      return;
    }
    const now = this.platform.now();
    this.#nextTick = this.#tickAfter(floor((now - this.#origin) / this.#base));
    this.#stopIdleTimer = this.platform.startIdleTimer(this.#idleTick, this.#base);
    this.#arm(now);
  }

  /**
   * Takes the ticks that fell due since the last check, as a check in the caller of `below` (the
   * profiler's `stop`) would: code without checks that ran up to `stop()` (a page's own loop) leaves
   * its samples, charged to the nearest caller the stack shows, rather than none. Only where the
   * idle timer missed several beats, so the thread was busy: a tick that only just came due may have
   * been idle, and is left to the timer as before. Never throws.
   */
  catchUp(below: Function): void {
    if (this.#busy || this.#paused || this.#sessions.size === 0) return;
    this.#busy++;
    try {
      const now = this.#readClock();
      if (now - this.#dueTime() < BUSY_AT_STOP_MS) return;
      this.#record(now, this.#capture(below));
      this.#arm(now);
    } catch {
      this.#disarm();
    } finally {
      this.#busy--;
    }
  }

  stop(session: Session, resolver: FrameResolver = this.resolver): ProfilerTrace {
    const stacks = this.#detach(session);
    return this.guard(() => buildTrace(session.samples, stacks, resolver));
  }

  /**
   * Stops a session at once; its trace is built once `prepareFrames` (loading what names the frames,
   * such as scripts' function tables in a browser) has settled.
   */
  async stopAsync(session: Session): Promise<ProfilerTrace> {
    const stacks = this.#detach(session);
    try {
      await this.prepareFrames?.(stacks.frames);
    } catch {
      // frames are named without what could not be loaded
    }
    return this.guard(() => buildTrace(session.samples, stacks, this.resolver));
  }

  #detach(session: Session): StoredStacks {
    this.#sessions.delete(session);
    this.#held.delete(session);
    if (this.#sessions.size === 0) this.#quiesceSampling();
    const stacks: StoredStacks = { frames: this.store.frames, stacks: this.store.stacks };
    if (this.#held.size === 0) this.store.clear();
    return stacks;
  }

  /**
   * Runs runtime code that calls the program's (a frame resolver, an option's getter): checks in
   * that code take no sample, which would show the runtime's frames; a tick falling due meanwhile
   * is taken at the first check after.
   */
  guard<T>(fn: () => T): T {
    this.#busy++;
    try {
      return fn();
    } finally {
      if (--this.#busy === 0 && this.#sessions.size && !this.#paused) this.#arm(this.platform.now());
    }
  }

  /**
   * Runs the profiler's own work on this thread (instrumenting a module as it loads): it takes no
   * sample, and ticks falling due meanwhile are recorded without a stack, as while the program
   * waits for Node's off-thread loader, rather than charged to the program's next check.
   */
  ownWork<T>(fn: () => T): T {
    return this.guard(() => {
      try {
        return fn();
      } finally {
        this.#idleTick();
      }
    });
  }

  /**
   * Called (through the hook's `s`) when an inserted check's counter runs out. Without a
   * sampler thread, exit checks call it every few exits (see armExits): when no sample is due it
   * only read the clock, and the count-down stays as it was. Never throws.
   */
  readonly slowPath = (key: number) => {
    const kind = key > LOOPING_EXIT_CHECK ? LOOPING_EXIT_CHECK : key;
    const slot = kind === LOOPING_EXIT_CHECK ? min(key - LOOPING_EXIT_CHECK, this.#exitsArmed.length - 1) : 0;
    if (this.#busy || this.#paused) {
      this.#disarm();
      return;
    }
    this.#busy++;
    try {
      if (this.#sessions.size === 0) {
        this.#disarm();
        return;
      }
      const now = this.#readClock();
      const due = now >= this.#dueTime();
      if (kind === LOOPING_EXIT_CHECK && !due) {
        if (this.#inFinalStretch(now)) this.#arm(now);
        else if (this.#everyExit[slot]) this.hook.c[1 + slot] = 0;
        else this.#armExits(now, slot);
        return;
      }
      if (kind === LOOPING_EXIT_CHECK && this.#lateForThisExit(now, slot)) {
        this.#armEveryCheck(now);
        return;
      }
      if (due) this.#record(now, this.#capture(this.#trap, kind === ENTRY_CHECK ? 1 : 0), kind === ENTRY_CHECK);
      if (this.#sessions.size) this.#arm(now);
      if (due && this.afterSample) this.#callAfterSample(this.afterSample);
    } catch {
      this.#disarm();
    } finally {
      this.#busy--;
    }
  };

  #callAfterSample(callback: () => void) {
    try {
      callback();
    } catch {
      // a tool's callback never disarms sampling nor reaches the program
    }
  }

  /** The stack below `below` in the store (less `unstarted` innermost frames, captureStack); -1, recorded without a stack, if it cannot be had. */
  #capture(below: Function, unstarted = 0): number {
    try {
      return this.store.add(captureStack(below, unstarted));
    } catch {
      return -1;
    }
  }

  /** Checks run, and take no sample, until the counters are armed again. */
  #disarm() {
    fillWith(this.hook.c, REARM);
    this.#exitsDisarmed = true;
  }

  /**
   * Arms an exit slot's counter: with a thread, its exits wait for the thread's zero; without one,
   * they read the clock every so many exits that reads come about every EXIT_READ_INTERVAL ms, learnt
   * from the slot's exits counted since its last read (doubling while they come faster than that).
   */
  #armExits(now: number, slot: number) {
    const counter = this.hook.c;
    if (this.#ticker?.ready()) {
      counter[1 + slot] = REARM;
      return;
    }
    const exits = this.#exitsArmed[slot] - counter[1 + slot];
    const elapsed = now - this.#exitsArmedAt[slot];
    const count = elapsed >= EXIT_READ_INTERVAL ? floor((exits * EXIT_READ_INTERVAL) / elapsed) : max(1, 2 * this.#exitsArmed[slot]);
    counter[1 + slot] = this.#exitsArmed[slot] = min(REARM, max(0, count));
    this.#exitsArmedAt[slot] = now;
  }

  #readClock(): number {
    const now = this.platform.now();
    const step = now - this.#lastNow;
    if (step > 0 && step < this.#clockStep) this.#clockStep = step;
    this.#lastNow = now;
    return now;
  }

  /**
   * Without a thread, in the last `window` ms before the tick: the exit slots whose exits are fewest
   * (and read the clock at most every `maxPace` exits now) read it at every exit, as many as
   * LAST_STEP_EXIT_READS allows. Once a tick for each `maxPace`, the wider one last.
   */
  #readEveryExitBeforeTick(window: number, maxPace: number) {
    if (this.#everyExitTick === this.#nextTick && this.#everyExitPace >= maxPace) return;
    this.#everyExitTick = this.#nextTick;
    this.#everyExitPace = maxPace;
    const counter = this.hook.c;
    const slots: number[] = [];
    for (let slot = 0; slot < this.#everyExit.length; slot++) if (this.#exitsArmed[slot] > 0) append(slots, slot);
    sortBy(slots, (a, b) => this.#exitsArmed[a] < this.#exitsArmed[b]);
    let reads = (LAST_STEP_EXIT_READS * window) / EXIT_READ_INTERVAL;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i];
      if (this.#exitsArmed[slot] > maxPace) break;
      reads -= (this.#exitsArmed[slot] * window) / EXIT_READ_INTERVAL;
      if (reads < 0) break;
      this.#everyExit[slot] = 1;
      counter[1 + slot] = 0;
    }
  }

  /** In the clock's last step before the tick, time between reads that comes to LAST_STEP_MIN_CHECKS checks at the rate learnt, if that leaves LAST_STEP_MIN_READS reads in a step. */
  #lastStepSpan(): number {
    return min(LAST_STEP_MIN_CHECKS / this.#rate, this.#clockStep / LAST_STEP_MIN_READS);
  }

  #inFinalStretch(now: number): boolean {
    return !this.#ticker?.ready() && this.#dueTime() - now < FINAL_STRETCH;
  }

  /**
   * Without a thread, whether an exit of a function with loops that finds the tick already due
   * should leave it to the next check: it should when the tick fell due longer ago than this exit's
   * share of the time since the exits of its slot last read the clock. Such a tick most likely fell due
   * elsewhere, in a pause (a garbage collection) or where the count-down overran it, and the exits
   * of a short function with loops called over and over, which read the clock more often than the
   * count-down runs out, would find most of those ticks (acorn's `skipSpace` got 12–14% of the
   * samples for 2% of the time). A function that looped for long has its exit to itself, and keeps
   * the tick.
   */
  #lateForThisExit(now: number, slot: number): boolean {
    if (this.#ticker?.ready() || this.#everyCheck) return false;
    const exits = this.#exitsArmed[slot] - this.hook.c[1 + slot];
    return (now - this.#dueTime()) * exits > now - this.#exitsArmedAt[slot];
  }

  /** Every check, of any kind, calls the slow path until the next arming. */
  #armEveryCheck(now: number) {
    this.#everyCheck = true;
    // the checks counted since the last arming stay counted, for the rate (see arm)
    this.#armedCount -= this.hook.c[0];
    fillWith(this.hook.c, 0);
    fillWith(this.#exitsArmed, 0);
    fillWith(this.#exitsArmedAt, now);
    this.#exitsDisarmed = false;
  }

  readonly #idleTick = () => {
    try {
      const now = this.platform.now();
      if (this.#sessions.size && !this.#paused && now >= this.#dueTime()) {
        this.#record(now, -1);
        if (this.#sessions.size) this.#arm(now);
      }
    } catch {
      // the timer must never throw into the program
    }
  };

  #dueTime(): number {
    return this.#origin + this.#nextTick * this.#base;
  }

  #record(now: number, stack: number, atEntry = false) {
    const lastTick = floor((now - this.#origin) / this.#base);
    // A clock patched to give nonsense (NaN, or ticks past 2^53, where counting by one stands still) records nothing.
    if (!isSafeInteger(lastTick)) return;
    // Each profiler's ticks since the last one recorded, within MAX_GAP_MS, no more than its buffer
    // still holds (a buffer of 0 is found full at its first): the work is bounded whatever the clock did.
    const ticks = new OwnSet<number>();
    const after = max(this.#nextTick, floor((now - MAX_GAP_MS - this.#origin) / this.#base)) - 1;
    for (const s of this.#sessions) {
      let room = max(1, s.capacity - s.samples.length);
      for (let tick = s.nextTickAfter(after); tick <= lastTick && room-- > 0; tick = s.nextTickAfter(tick)) ticks.add(tick);
    }
    const due: number[] = [];
    for (let tick = after + 1; tick <= lastTick; tick++) if (ticks.has(tick)) append(due, tick);
    // Ticks missed since the last one recorded fell due while no check ran and the idle timer could
    // not (the thread was busy: in code without checks, native code, GC): they all get this check's
    // stack, the function that ran (an exit check) or its caller (an entry check's sample is passed to it).
    for (let i = 0; i < due.length; i++) {
      const last = i === due.length - 1;
      this.#deliver(due[i], last ? now : this.#origin + due[i] * this.#base, stack, atEntry);
    }
    this.#nextTick = this.#tickAfter(lastTick);
  }

  #tickAfter(tick: number): number {
    let next = Infinity;
    for (const s of this.#sessions) next = min(next, s.nextTickAfter(tick));
    return next;
  }

  #deliver(tick: number, timestamp: number, stack: number, atEntry: boolean) {
    this.stats.ticks++;
    if (stack >= 0) this.stats.withStack++;
    for (const s of this.#sessions) {
      if (!s.takes(tick)) continue;
      if (s.samples.length < s.capacity) append(s.samples, { timestamp, stack, atEntry });
      if (s.samples.length >= s.capacity) {
        s.full = true;
        this.#sessions.delete(s);
        s.onFull();
      }
    }
    if (this.#sessions.size === 0) this.#quiesceSampling();
  }

  /** Sampling ends; full profilers keep their samples until stop(). */
  #quiesceSampling() {
    this.#stopIdleTimer?.();
    this.#stopIdleTimer = null;
    this.#nextTick = Infinity;
    this.#disarm();
    this.#ticker?.setDue(Infinity);
  }

  #arm(now: number) {
    if (this.#everyExitTick !== -1 && this.#everyExitTick !== this.#nextTick) {
      // the tick was taken: those exits learn their pace again from their next read
      fillWith(this.#everyExit, 0);
      this.#everyExitTick = -1;
    }
    const due = this.#dueTime();
    const counter = this.hook.c;
    const ticker = this.#ticker?.ready() ? this.#ticker : null;
    // Read before the counter is written: a zero the thread writes from here on (for the tick just
    // taken, racing with this re-arming) counts as fired in the next round, never as our count.
    const zeroes = ticker ? ticker.zeroes() : 0;
    const checks = this.#armedCount - counter[0];
    let count: number;
    if (ticker && zeroes !== this.#armedZeroes) {
      // The thread zeroed the counter: how many checks ran is unknown. Halve the estimate, so that a
      // rate learnt before the program slowed down cannot push the backup far out: the backup soon
      // runs out before the tick, and the rate is measured again.
      this.#rate *= 0.5;
      this.#rateFrom = now;
      this.#rateChecks = 0;
      count = floor(this.#rate * (due - now) * BACKUP);
    } else {
      // The rate is learnt from the checks of at least RATE_WINDOW, over as many armings as that
      // takes (a count reset to REARM counted none).
      this.#rateChecks += max(0, checks);
      if (now - this.#rateFrom >= RATE_WINDOW) {
        this.#rate = this.#rateChecks / (now - this.#rateFrom);
        this.#rateFrom = now;
        this.#rateChecks = 0;
      } else if (now - this.#armedAt >= MIN_ELAPSED && checks / (now - this.#armedAt) > this.#rate) {
        // Checks came faster since the last arming than the window says (a window that took in a
        // stretch without checks): without this, each of them would call the slow path until the
        // window ends.
        this.#rate = checks / (now - this.#armedAt);
      }
      // Each arming covers a share of the time left, so the count-down closes in on the tick and
      // takes it at the first check after it falls due: a count that overran the tick would take it
      // at a check as likely as any other check, not as the time spent there. With no rate yet,
      // probe with twice as many checks as last time, so one quick check cannot arm for millions.
      // With a coarse clock, the tick may fall due anywhere in its last step: read the clock often there.
      const lastStep = !ticker && due - now < 1.5 * this.#clockStep && this.#clockStep > FINAL_STRETCH; // readings are not exact multiples
      const span = lastStep ? max(this.#clockStep / LAST_STEP_READS, LAST_STEP_READ_GAP, this.#lastStepSpan()) : (due - now) * (ticker ? BACKUP : UNDERSHOOT);
      count = this.#rate > 0 ? floor(this.#rate * span) : max(1, checks * 2);
      if (lastStep) this.#readEveryExitBeforeTick(this.#clockStep, Infinity);
      // A function with loops that runs for long, whose exits read the clock every other call,
      // would leave a tick falling due inside it to the next check after it, in the code it returns
      // to: near the tick, its exits read at every call. (Not frequent exits: a short function
      // called over and over would take ticks that fell due in its callers.)
      else if (!ticker && due - now < EXIT_READ_INTERVAL) this.#readEveryExitBeforeTick(EXIT_READ_INTERVAL, SPARSE_EXITS);
    }
    count = min(REARM, max(0, count));
    this.#everyCheck = false;
    counter[0] = this.#armedCount = count;
    if (ticker) {
      fillWith(counter, REARM, 1);
      this.#exitsDisarmed = true;
    } else if (count < FEW_CHECKS || this.#inFinalStretch(now)) {
      this.#armEveryCheck(now);
    } else if (this.#exitsDisarmed) {
      // disarmed meanwhile (or a thread stopped): exits read the clock again from the next one
      this.#exitsDisarmed = false;
      fillWith(counter, 0, 1);
      fillWith(this.#exitsArmed, 0);
      fillWith(this.#exitsArmedAt, now);
    }
    this.#armedAt = now;
    this.#armedZeroes = zeroes;
    // The thread learns the due time even before it runs: it may start while the count-down is long.
    this.#ticker?.setDue(due);
  }
}
