/**
 * What is inserted. Every front end emits exactly these texts, so instrumented code is the same
 * whichever tool produced it, and a second pass recognises the first.
 *
 * A check is `if (--C[i] < 0) delete S[key];`, written inline: `C` is the runtime's counter and
 * `S` a Proxy whose `deleteProperty` trap is the slow path. Entry checks and the others count on
 * `C[0]`; the exit of a function with loops counts on one of EXIT_SLOTS counters after it,
 * `C[1 + slot]`. The sampler thread sets every element to 0 when a sample is due
 * (SharedArrayBuffer). Without a thread, the runtime sets `C[0]` to the number of checks expected
 * before the next sample (a count-down), and each exit slot to the number of its exits expected in
 * the next millisecond or so, so that the exits of functions with loops read the clock: a count of
 * checks cannot see time pass while such a function loops between sparse checks, and its exit is
 * where that time is charged. The slow path captures the stack when a sample is due and re-arms `C`.
 *
 * Inline, a check costs an optimising compiler a load, a decrement, a store and a branch, and takes
 * none of a function's inlining budget, as a called check does. A check that only reads the counter
 * (`if (C[i] < 0) …`, which a thread setting it below 0 would serve, but not a count-down) costs
 * the same: 0.82 ns per check either way in a tight loop on Node 20, and no difference beyond the
 * noise in the bench programs. The slow path is reached by a `delete`, not a call, because V8
 * compiles an operation that records feedback (a call, a property read) as a deoptimisation while
 * it has never run: a call would deoptimise each function at the first sample taken at each of
 * its checks, and at each check of every function inlined into it, and the function would be
 * optimised again, for as long as a profiler runs. `delete` records no
 * feedback, so it is compiled in from the start. By V8's instructions on acorn's workload sampled
 * every 160,000 checks, a sample cost 9.8 million instructions with a call (a scratch harness) and
 * 2.0 million with `delete` (bench/instructions.js over rounds 1 to 3, before it skipped tier-up);
 * while no profiler runs, checks cost 1.7% more with `delete`. In wall time the compiled-in call
 * costs more than its instructions: js-yaml's optimised rounds ran +8 to +10% with the checks,
 * +4 to +7% with a store in place of the `delete` (bench/rounds.js's harness;
 * docs/cost-and-accuracy.md): V8 has no branch hints for a program's `if`s, so the call `delete`
 * makes is compiled inline, and every check jumps over it (a never-run store is compiled as a
 * deoptimisation, placed at the function's end; cachegrind: instruction-cache misses +24% with
 * `delete`, +13% with the store).
 *
 * The kind tells the slow path where the check is: at a function's entry (after the guard clauses
 * its body starts with, if any: see guardPrefixLength; the function has not run yet, or only a few
 * statements, so the time since the sample fell due was spent by its callers, and the sample leaves
 * the function's own frame out), at the exit of a function with loops (on `C[1 + slot]`), or
 * elsewhere (loop back-edges, exits of functions without loops), keeping the whole stack. Without
 * the runtime, the prelude binds `C` to an object without a prototype (`--C[0]` is NaN, never below 0)
 * and `S` to a plain object.
 */

import type { PolicyOptions } from './options';
import { v8FunctionStart, waitingFunctions } from './functions';
import { CALL_TYPES, forEachChild, isFunctionNode, withoutParentheses } from './statements';
import {
  CHECK_KIND,
  CHECK_PROTOCOL,
  COUNTER_ID,
  ENTRY_CHECK_KIND,
  EXIT_SLOTS,
  HOOK_COUNTER,
  HOOK_SLOW_PATH,
  IMPORTED_COUNTER,
  IMPORTED_SLOW_PATH,
  LOOPING_EXIT_CHECK_KIND,
  RUNTIME_GLOBAL,
  SLOW_PATH_ID,
} from './protocol';

export * from './protocol';

function counterTest(element: number): string {
  return `if (--${COUNTER_ID}[${element}] < 0)`;
}

function slowPathCall(key: number): string {
  return `delete ${SLOW_PATH_ID}[${key}];`;
}

function checkSource(element: number, key: number): string {
  return `${counterTest(element)} ${slowPathCall(key)}`;
}

/**
 * A hook's `S` whose trap calls `slowPath` with the kind of each check that reaches it (and, for
 * the exit of a function with loops, its exit slot), as the runtime's does: for stand-ins of the
 * runtime.
 */
export function slowPathTrap(slowPath: (kind: number, slot: number) => void): object {
  return new Proxy(
    {},
    {
      deleteProperty(_target, key) {
        const n = Number(key);
        if (n > LOOPING_EXIT_CHECK_KIND) slowPath(LOOPING_EXIT_CHECK_KIND, n - LOOPING_EXIT_CHECK_KIND);
        else slowPath(n, 0);
        return true;
      },
    },
  );
}

/** A counter for stand-ins of the runtime: the count-down, then the exit slots. */
export function newCounter(): Int32Array {
  return new Int32Array(1 + EXIT_SLOTS);
}

/**
 * The counter a function with loops counts its exits on: spread by where V8 places the function,
 * so that two functions share one once in EXIT_SLOTS, and every front end picks the same.
 */
export function exitSlot(src: string, fn: { type: string; start?: number | null; [key: string]: any }): number {
  // A class static block is no function: it counts on the slot where it starts.
  const at = fn.type === 'StaticBlock' ? -1 : v8FunctionStart(src, fn);
  return (at < 0 ? (fn.start ?? 0) : at) % EXIT_SLOTS;
}

/** The check at a function's entry. */
export const ENTRY_CHECK_SOURCE = checkSource(0, ENTRY_CHECK_KIND);

/**
 * An entry check as written, or after a minifier renamed `C` and `S` and turned the `if` into `&&`
 * (`--e[0]<0&&delete t[1]`): how a function table tells a function that carries checks.
 */
export const ENTRY_CHECK_PATTERN = new RegExp(`--\\s*[\\w$]+\\s*\\[\\s*0\\s*\\]\\s*<\\s*0\\s*(?:\\)|&&)\\s*delete\\s+[\\w$]+\\s*\\[\\s*${ENTRY_CHECK_KIND}\\s*\\]`);
/** The check at the exit of a function with loops of its own, on exit slot 0 (`C[1]`). */
export const EXIT_CHECK_SOURCE = checkSource(1, LOOPING_EXIT_CHECK_KIND);
/** The check at loop back-edges, and at the exit of a function without loops. */
export const CHECK_SOURCE = checkSource(0, CHECK_KIND);

/**
 * What a function returns where its exit check runs: the value kept in `R` (after a labelled body,
 * or an arrow's expression), `undefined` (the end of a body without `return`s), or nothing (a class
 * static block, which cannot return).
 */
export type ExitReturn = 'value' | 'undefined' | 'none';

/** What the exit check ending a body without `return`s returns: nothing in a class static block, which cannot return. */
export function bodyEndReturn(node: { type: string }): ExitReturn {
  return node.type === 'StaticBlock' ? 'none' : 'undefined';
}

/**
 * The check at a function's exit, given whether the function has loops of its own (not in nested
 * functions or classes) and what the function returns there. Its slow path returns that itself:
 * `if (--C[i] < 0) { delete S[k]; return R; }`, then `return R;`. V8 compiles the call that
 * `delete` makes inline where the paths meet again after it (see above), but puts a path that
 * ends, as this one does, after the rest of the function. In cachegrind's simulated caches (two
 * seeds) this took the instruction-cache misses the checks add from +23–24% to +9–10% on js-yaml's
 * optimised rounds and from +8–9% to +4–6% on markdown-it's, with the instructions the same; acorn's
 * got slightly worse (instructions +1.1% to +2.6–4.5%, misses +15% to +16–18%). In wall time,
 * js-yaml's optimised rounds went from +8–10% to +5–8% with the checks (bench/rounds.js;
 * docs/cost-and-accuracy.md).
 */
export function exitCheckSource(hasOwnLoops: boolean, returns: ExitReturn, slot = 0): string {
  const element = hasOwnLoops ? 1 + slot : 0;
  const key = hasOwnLoops ? LOOPING_EXIT_CHECK_KIND + slot : CHECK_KIND;
  if (returns === 'none') return checkSource(element, key);
  return `${counterTest(element)} { ${slowPathCall(key)} return${returns === 'value' ? ` ${RETURN_VALUE_ID}` : ''}; }`;
}

/**
 * The check before an `await` or `yield` of a function with loops of its own (plan.ts): its exit
 * check, as a statement before the statement it starts, if it starts one of a statement list, else
 * as an expression, written `(check, await x)`.
 */
export function suspensionCheckSource(slot: number, asStatement: boolean): string {
  if (asStatement) return exitCheckSource(true, 'none', slot);
  return `--${COUNTER_ID}[${1 + slot}] < 0 && delete ${SLOW_PATH_ID}[${LOOPING_EXIT_CHECK_KIND + slot}]`;
}

/**
 * A function with `return`s runs its body in a block with this label; each `return x;` in it
 * becomes `{ R = x; break L; }`, and the exit check follows the block, then `return R;`. An exit
 * check in a `try/finally` would also run on a throw, but costs far more: by bench/instructions.js
 * (over rounds 1 to 3, with tier-up), acorn and markdown-it ran +9.9% and +15.7% more instructions
 * with `try/finally`, +4.1% and +7.8% with the label. A check before each `return` costs more too,
 * as every copy (28 bytes of V8 bytecode) counts against V8's inlining budget:
 * `{ const R = x; check; return R; }` for every `return`, or `{ check; return x; }` where `x` is a
 * name or a literal, ran acorn, markdown-it and js-yaml +4.1/+7.2/+6.3% and +3.9/+6.6/+6.0% more
 * instructions, the label +3.0/+4.1/+5.7% (one run each, rounds 1 to 3: mostly V8 compiling; past
 * tier-up markdown-it's labels cost nothing measurable).
 * A function without `return`s needs neither: the check ends it.
 */
export const BODY_LABEL = `${RUNTIME_GLOBAL}$l`;
/** Where a function with `return`s keeps the value it returns while its exit check runs. */
export const RETURN_VALUE_ID = `${RUNTIME_GLOBAL}$r`;
/** Before the labelled body. */
export const LABELLED_BODY_OPEN = `let ${RETURN_VALUE_ID}; ${BODY_LABEL}: {`;
/** After the labelled body, given whether the function has loops of its own, and its exit slot. */
export function labelledBodyClose(hasOwnLoops: boolean, slot = 0): string {
  return `} ${exitCheckSource(hasOwnLoops, 'value', slot)} return ${RETURN_VALUE_ID};`;
}

/**
 * Whether the exit check may keep this `return`'s value in `R`. Not if `R = value` would name a
 * function or class written there, as V8 infers names (see functions.ts, `waitingFunctions`):
 * `R = function () {}` and `R = [() => 1]` name it `R`, `R = { m() {} }` names the method `R.m`,
 * and so do `R = [new T(function () {})]` and `R = a || f(function () {}, function () {})` the
 * first function. A value that is a call or `new` names none of its arguments, only a function it
 * calls. Such a return leaves without its exit check (at worst, the little time it took goes to the
 * next check).
 */
export function canKeepReturnValue(argument: { type: string } | null | undefined): boolean {
  if (!argument) return true;
  const value: { type: string; [key: string]: any } = withoutParentheses(argument);
  return !holdsFunctionOrClass(CALL_TYPES.has(value.type) ? value.callee : value);
}

function holdsFunctionOrClass(node: { type: string; [key: string]: any }): boolean {
  if (isFunctionNode(node) || node.type === 'ClassExpression') return true;
  if (node.type === 'CallExpression' || node.type === 'OptionalCallExpression') {
    return holdsFunctionOrClass(node.callee) || waitingFunctions(node).length > 0;
  }
  let holds = false;
  forEachChild(node, (child) => {
    holds ||= holdsFunctionOrClass(child);
  });
  return holds;
}

/**
 * What the ESTree front adds so that the runtime can give every function's text back as it was
 * (`Function.prototype.toString`; @jsprof/runtime's source-text.ts reads it). Every insertion is
 * then recognisable in the output, and removing it gives the input back exactly: a check after the
 * program's own `;` is written ` if …`, one that brings its own `;` is written `;if …`; a
 * parenthesis that could be the program's own is followed by INSERTED_PAREN_MARK, and such a
 * closing brace preceded by INSERTED_BRACE_MARK (so that an arrow's text, which ends at the brace,
 * holds it); a function declaration moved
 * before a labelled body goes between movedOpen(n) and movedClose(n), with movedFrom(n) where it
 * was (n counts the file's moves). Babel's output is reprinted, so its text is not given back.
 */
export const INSERTED_PAREN_MARK = `/*${RUNTIME_GLOBAL}$*/`;
export const INSERTED_BRACE_MARK = `/*${RUNTIME_GLOBAL}$}*/`;
export const movedOpen = (n: number): string => `/*${RUNTIME_GLOBAL}$${n}{*/`;
export const movedClose = (n: number): string => `/*${RUNTIME_GLOBAL}$${n}}*/`;
/** Where a moved declaration was; with the `;` that ends the statement before it when a line break did. */
export const movedFrom = (n: number, semicolon: boolean): string => (semicolon ? `;/*${RUNTIME_GLOBAL}$${n};*/` : `/*${RUNTIME_GLOBAL}$${n}*/`);

/** What the prelude binds: its name in instrumented code, on the hook, and among the runtime's exports. */
const BINDINGS: { id: string; key: string; imported: string }[] = [
  { id: COUNTER_ID, key: HOOK_COUNTER, imported: IMPORTED_COUNTER },
  { id: SLOW_PATH_ID, key: HOOK_SLOW_PATH, imported: IMPORTED_SLOW_PATH },
];

/** The hook, in the prelude of a script reaching the runtime through the global. */
export const HOOK_ID = `${RUNTIME_GLOBAL}$h`;

/** Where the inert counters start (HOOK_OR_INERT): no program runs a check this often. */
export const INERT_COUNT = 2 ** 30;

/**
 * The runtime's hook, or inert stand-ins where it is not loaded: counters as the runtime's, an
 * Int32Array, that a billion checks of one slot do not bring below 0 (and a check below 0 only
 * deletes from an empty object). A typed array never reaches indexed accessors a program defined on
 * Array.prototype or Object.prototype, where a check in such a getter would call it again without
 * end; an object without a prototype, which checks used to count down to NaN, made every check a
 * slow keyed store (code at threshold 1 ran 4–8 times slower without the runtime than with it).
 * The hook is taken only if its `S` is an object: code instrumented when checks called `S` as a
 * function finds none there, and runs as if the runtime were not loaded.
 */
const HOOK_OR_INERT = `typeof ${RUNTIME_GLOBAL} == "object" && ${RUNTIME_GLOBAL} && typeof ${RUNTIME_GLOBAL}.${HOOK_SLOW_PATH} == "object" ? ${RUNTIME_GLOBAL} : { ${HOOK_COUNTER}: new Int32Array(${1 + EXIT_SLOTS}).fill(${INERT_COUNT}), ${HOOK_SLOW_PATH}: {} }`;

/**
 * The prelude of a script (classic, or CommonJS) reaching the runtime through the global. Nothing
 * can call a script's functions before its first statement runs, so the names are `var`s that are
 * never assigned again, which V8 folds into the code that reads them (its instruction counts on
 * acorn: +3.8% with this prelude, +7.2% where the names are assigned after they are declared).
 */
export const GLOBAL_PRELUDE_SOURCE =
  `var ${HOOK_ID} = ${HOOK_OR_INERT}, ` +
  BINDINGS.map(({ id, key }) => `${id} = ${HOOK_ID}.${key}`).join(', ') +
  ';';

/**
 * The prelude of an ES module reaching the runtime through the global. Its checks read `C` and `S`
 * as globals, which the runtime publishes when it loads (with the hook), and which this prelude
 * sets, from the hook or to the inert objects, where no one has yet. A binding of the module's own
 * would cost far more: engines reload a module's variables at every check, as they do not fold
 * them into the code that reads them. Checks of markdown-it as an ES module cost +9.5% of its
 * instructions reading hoisted module bindings (V8), +3.7% reading globals; the same checks in
 * CommonJS +0.7%, where the bindings are a function's. In Firefox, a module binding read by a
 * check in a hot loop cost twice the loop itself, a global nothing measurable.
 *
 * Through an import cycle, a module's function may run before the module's body. The globals are
 * then there if the runtime loaded, or if another module's prelude ran: every module gets the
 * prelude, checks or not (`needsPrelude`). So only a cycle whose first module to run was left out
 * of instrumentation (by `exclude`), calling into one that has checks, without the runtime, would
 * meet a check before any prelude, and throw a ReferenceError.
 */
export const GLOBAL_MODULE_PRELUDE_SOURCE =
  `typeof ${COUNTER_ID} == "object" && typeof ${SLOW_PATH_ID} == "object" || function (g, h, d) { ` +
  `h = ${HOOK_OR_INERT}; ` +
  // Not enumerable, as the runtime defines them: a program listing the global's keys (a test
  // runner's leak check) finds nothing new.
  `d = function (k, v) { k in g ? g[k] = v : g.Object.defineProperty(g, k, { value: v, writable: true, configurable: true }); }; ` +
  BINDINGS.map(({ id, key }) => `d("${id}", h.${key}); `).join('') +
  `}(typeof globalThis == "object" ? globalThis : self);`;

/** The prelude of an ES module reaching the runtime through an import. */
export function importPreludeSource(importSource: string): string {
  return `import { ${BINDINGS.map(({ id, imported }) => `${imported} as ${id}`).join(', ')} } from ${JSON.stringify(importSource)};`;
}

/** The prelude of a script (CommonJS) reaching the runtime through `require`. */
export function requirePreludeSource(importSource: string): string {
  return `var { ${BINDINGS.map(({ id, imported }) => `${imported}: ${id}`).join(', ')} } = require(${JSON.stringify(importSource)});`;
}

/** The prelude a script or an ES module gets, given how it reaches the runtime. */
export function preludeSource(options: Pick<PolicyOptions, 'runtime' | 'importSource'>, isModule: boolean): string {
  if (options.runtime === 'global') return isModule ? GLOBAL_MODULE_PRELUDE_SOURCE : GLOBAL_PRELUDE_SOURCE;
  return isModule ? importPreludeSource(options.importSource) : requirePreludeSource(options.importSource);
}

/**
 * Whether a file gets the prelude, given how many of its functions get checks: where it has any;
 * and every ES module reaching the runtime through the global, whose prelude sets the globals the
 * checks of other modules read, for a module with no checks of its own may be the first to run and
 * call into them (see above).
 */
export function needsPrelude(options: Pick<PolicyOptions, 'runtime'>, isModule: boolean, checkedFunctions: number): boolean {
  return checkedFunctions > 0 || (isModule && options.runtime === 'global');
}

/**
 * The protocol of the checks code already carries (its prelude, in any of its forms, as written or
 * after a minifier renamed its bindings and another tool moved it: a module's prelude in the
 * CommonJS a module transform made of it), or null if jsprof never instrumented it. Every front end
 * and the Node load hook ask this, and nothing else: code that has checks is left as it is, and
 * checks of another protocol are named in a warning (protocolWarning).
 */
export function instrumentedProtocol(code: string): number | null {
  if (CURRENT_PRELUDE.test(code)) return CHECK_PROTOCOL;
  if (PROTOCOL_1_PRELUDE.test(code)) return 1;
  return null;
}

/** Whether code already carries jsprof's checks, of any protocol: a second pass, by any front end, must change nothing. */
export function isInstrumentedSource(code: string): boolean {
  return instrumentedProtocol(code) !== null;
}

/** The warning for a file whose checks are of another protocol than this jsprof's; null for its own, or none. */
export function protocolWarning(file: string, protocol: number | null): string | null {
  if (protocol === null || protocol === CHECK_PROTOCOL) return null;
  return `${file} was instrumented by ${protocol < CHECK_PROTOCOL ? 'an older' : 'a newer'} jsprof (check protocol ${protocol}; this one arms ${CHECK_PROTOCOL}): it is left as it is and its functions are not sampled; instrument its original source again`;
}

/** `typeof X == "object"`, written either way round (terser swaps it), with any quote (oxc's minifier makes it a template). */
const isObject = (x: string) => `(?:typeof\\s+${x}\\s*==\\s*["'\`]object["'\`]|["'\`]object["'\`]\\s*==\\s*typeof\\s+${x})`;

/**
 * `typeof __jsprof.s` in the hook test of both global preludes, as Babel's typeof-symbol transform
 * (preset-env for engines without Symbol) rewrites it: `_typeof(__jsprof.s)`, minified `o(__jsprof.s)`.
 */
const TYPEOF_HELPER_ON_HOOK = `[\\w$]+\\(\\s*__jsprof\\.s\\s*\\)`;

/**
 * The hook test both global preludes make (HOOK_OR_INERT; minifiers keep the global's name), the
 * runtime's exports imported or required under any local names, the global script prelude's
 * binding and the module prelude's test, the hook test after the typeof-symbol transform, and the
 * checks of a module whose import of the runtime a module transform rewrote.
 */
const CURRENT_PRELUDE = new RegExp(
  [
    `${isObject('__jsprof')}\\s*&&\\s*__jsprof\\s*&&\\s*${isObject('__jsprof\\.s\\b')}`,
    `\\{\\s*checkCounter\\s*(?:as\\s+|:\\s*)[\\w$]+\\s*,\\s*checkTrap\\b`,
    `\\bvar\\s+__jsprof\\$h\\s*=`,
    isObject('__jsprof\\$c\\b'),
    TYPEOF_HELPER_ON_HOOK,
    // The runtime's exports imported, after a module transform made the import a namespace (`_runtime.checkCounter`).
    `--\\s*[\\w$]+\\.checkCounter\\s*\\[`,
  ].join('|'),
);

/** Protocol 1's preludes: checks were functions of the file's own, or imported as `checkEntry`. */
const PROTOCOL_1_PRELUDE = /\bfunction\s+__jsprof\$[cekx]\s*\(|\bas\s+__jsprof\$e\b|\bcheckEntry\s*:\s*__jsprof\$e\b/;
