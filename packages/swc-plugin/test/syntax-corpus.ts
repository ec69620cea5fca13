/**
 * Small programs covering the syntax of ES2025 JavaScript, as Node and current browsers run it
 * (with `using` declarations and class `accessor`s), for front ends to instrument and run: each
 * sets `globalThis.result` to a value, or to a promise of one, that must be the same after
 * instrumentation (compared as JSON).
 *
 * `lower`: Node 20 cannot run it (`using`, `accessor`); run both programs after SWC lowers them.
 */
export interface SyntaxCase {
  name: string;
  code: string;
  sourceType: 'script' | 'module';
  lower?: boolean;
}

export const SYNTAX_CORPUS: SyntaxCase[] = [
  {
    name: 'object spread and rest',
    sourceType: 'script',
    code: `
      const base = { a: 1, b: 2 };
      function merge(extra) {
        const copy = { ...base, ...extra, c: 3 };
        const { a, ...rest } = copy;
        return { a, rest, spreadNull: { ...null, ...'hi' } };
      }
      globalThis.result = merge({ b: 5 });`,
  },
  {
    name: 'spread in calls, new and arrays; rest parameters',
    sourceType: 'script',
    code: `
      function sum(first, ...others) { let total = first; for (const n of others) total += n; return total; }
      class Point { constructor(x, y) { this.x = x; this.y = y; } }
      const args = [2, 3];
      const p = new Point(...args);
      const joined = [0, ...args, ...'ab', , 9];
      globalThis.result = [sum(1, ...args, 4), p.x + p.y, joined, Math.max(...joined.filter(Number.isFinite))];`,
  },
  {
    name: 'destructuring with defaults, holes, nesting and computed keys',
    sourceType: 'script',
    code: `
      const key = 'k';
      function pick({ a = 1, b: { c = 2 } = {}, [key]: k = 3, ...others } = {}, [x, , y = 5, ...zs] = []) {
        return [a, c, k, others, x, y, zs];
      }
      let m, n;
      [m, n = 7] = [6];
      ({ m, n: [n] = [8] } = { m: m * 2 });
      globalThis.result = [pick(), pick({ a: 10, b: { c: 20 }, k: 30, d: 40 }, [1, 2, undefined, 4, 5]), m, n];`,
  },
  {
    name: 'optional chaining: members, calls, computed, short-circuits',
    sourceType: 'script',
    code: `
      const o = { a: { b: { c: 1, f() { return this.c + 1; } } }, list: [10, 20] };
      function probe(obj, k) {
        return [obj?.a?.b?.c, obj?.a?.[k]?.c, obj?.a?.b.f(), obj?.a?.b?.g?.(), obj?.list?.[1], obj?.missing?.deep.deeper.call(), (obj?.a)?.b.c];
      }
      const deleted = delete o?.a?.b?.c;
      globalThis.result = [probe(o, 'b'), probe(null, 'b').length, deleted, o.a.b.c];`,
  },
  {
    name: 'logical assignment, nullish coalescing and exponentiation',
    sourceType: 'script',
    code: `
      function settle(state) {
        state.a ||= 'filled';
        state.b &&= state.b * 2;
        state.c ??= 'default';
        state.d = state.d ?? 0;
        state.e **= 2;
        return state;
      }
      let x = null;
      x ??= 4;
      globalThis.result = [settle({ a: '', b: 3, c: 0, e: 3 }), settle({ a: 'kept', b: 0, c: null, e: 2 }), x ** 2 ** 2, (-2) ** 2];`,
  },
  {
    name: 'private fields, methods, accessors, static privates and #x in o',
    sourceType: 'script',
    code: `
      class Counter {
        #count = 0;
        static #instances = 0;
        static #registry = [];
        constructor(start) { this.#count = start; Counter.#instances++; Counter.#registry.push(this); }
        #bump(by) { this.#count += by; return this; }
        get #doubled() { return this.#count * 2; }
        set #value(v) { this.#count = v; }
        step() { return this.#bump(1).#doubled; }
        reset() { this.#value = 0; return this.#count; }
        static isCounter(o) { return #count in o; }
        static get instances() { return Counter.#instances; }
        static #secret() { return 'secret'; }
        static reveal() { return Counter.#secret(); }
      }
      const c = new Counter(5);
      globalThis.result = [c.step(), c.step(), c.reset(), Counter.isCounter(c), Counter.isCounter({}), Counter.instances, Counter.reveal()];`,
  },
  {
    name: 'class fields, static blocks, inheritance, super and computed members',
    sourceType: 'script',
    code: `
      const name = 'dyn';
      class Base {
        static created = [];
        label = 'base';
        [name + 'Field'] = 1;
        static { this.created.push('Base static block'); }
        constructor() { Base.created.push(new.target.name); }
        describe() { return this.label; }
        static make() { return new this(); }
      }
      class Derived extends Base {
        label = 'derived';
        arrow = () => this.label;
        static count;
        static {
          let n = 0;
          for (const k of ['a', 'b']) n += k.length;
          Derived.count = n;
        }
        describe() { return super.describe() + '+' + super['describe'].call({ label: 'other' }); }
        [name]() { return 'computed method'; }
        static get 'quoted name'() { return 'q'; }
        ['constructor']() { return 'a method named constructor'; }
      }
      const d = Derived.make();
      globalThis.result = [d.describe(), d.arrow(), d.dynField, d.dyn(), d.constructor === Derived, Derived.count, Derived['quoted name'], Base.created];`,
  },
  {
    name: 'accessor fields',
    sourceType: 'script',
    lower: true,
    code: `
      class Box {
        accessor value = 1;
        static accessor count = 0;
        accessor
        plain = 'a field named accessor, then plain';
        bump() { Box.count++; this.value += 1; return this.value; }
      }
      const b = new Box();
      globalThis.result = [b.bump(), b.bump(), Box.count, b.accessor, b.plain];`,
  },
  {
    name: 'getters and setters in objects and classes',
    sourceType: 'script',
    code: `
      const log = [];
      const o = {
        _v: 1,
        get v() { log.push('get'); return this._v; },
        set v(x) { log.push('set'); this._v = x * 10; },
        get ['comp' + 'uted']() { return 'computed getter'; },
        get() { return 'a method named get'; },
        set: 'a property named set',
        async: 1, static: 2, await: 3,
      };
      class T { static #n = 0; static get n() { return T.#n; } static set n(v) { T.#n = v; } }
      o.v = 2;
      T.n = 7;
      globalThis.result = [o.v, o.computed, o.get(), o.set, o.async + o.static + o.await, T.n, log];`,
  },
  {
    name: 'generators and async generators, for await',
    sourceType: 'script',
    code: `
      function* count(n) { for (let i = 0; i < n; i++) { const back = yield i; if (back) return back; } return 'done'; }
      function* delegate() { const r = yield* count(2); yield r; }
      async function* ticks(n) { for (let i = 0; i < n; i++) { await null; yield i * 10; } }
      const obj = { async *[Symbol.asyncIterator]() { yield* ticks(2); yield 99; } };
      async function collect() {
        const out = [];
        for await (const t of ticks(3)) out.push(t);
        for await (const t of obj) out.push(t);
        for await (const v of [Promise.resolve('p'), 'q']) out.push(v);
        return out;
      }
      const g = count(5);
      const early = [g.next().value, g.next().value, g.next('stop')];
      globalThis.result = collect().then((async) => [[...count(3)], [...delegate()], early, async]);`,
  },
  {
    name: 'async generators: a bare return settles a tick before `return undefined`',
    sourceType: 'script',
    code: `
      const ticks = [];
      async function* implicit() { ticks.push('implicit'); }
      async function* bare() { ticks.push('bare'); return; }
      async function* explicit() { ticks.push('explicit'); return undefined; }
      Promise.resolve().then(() => ticks.push('tick 1')).then(() => ticks.push('tick 2')).then(() => ticks.push('tick 3'));
      implicit().next().then(() => ticks.push('implicit done'));
      bare().next().then(() => ticks.push('bare done'));
      explicit().next().then(() => ticks.push('explicit done'));
      globalThis.result = new Promise((resolve) => setTimeout(resolve, 10)).then(() => ticks);`,
  },
  {
    name: 'async functions and arrows, await in loops and try',
    sourceType: 'script',
    code: `
      const wait = (v) => new Promise((resolve) => setTimeout(() => resolve(v), 0));
      async function pipeline(values) {
        const out = [];
        for (const v of values) {
          try {
            if (v < 0) throw new Error('negative ' + v);
            out.push(await wait(v * 2));
          } catch ({ message }) {
            out.push(message);
          } finally {
            out.push('.');
          }
        }
        return out;
      }
      const twice = async (x) => (await wait(x)) * 2;
      const obj = { async method() { return twice(21); } };
      globalThis.result = Promise.all([pipeline([1, -2, 3]), obj.method(), (async () => { await null; return 'iife'; })()]);`,
  },
  {
    name: 'labelled loops, continue and break, labelled blocks',
    sourceType: 'script',
    code: `
      function search(grid, target) {
        const visited = [];
        outer: for (let r = 0; r < grid.length; r++) {
          inner: for (let c = 0; c < grid[r].length; c++) {
            if (grid[r][c] === 0) continue outer;
            if (grid[r][c] < 0) continue inner;
            visited.push(grid[r][c]);
            if (grid[r][c] === target) break outer;
          }
        }
        block: {
          if (visited.length > 2) break block;
          visited.push('short');
        }
        let i = 0;
        loop: while (true) { do { i++; if (i > 3) break loop; } while (i % 2); }
        return [visited, i];
      }
      globalThis.result = [search([[1, 2, 0, 9], [-1, 3, 4], [5, 6]], 5), search([[7]], 7)];`,
  },
  {
    name: 'braceless bodies: if, else, loops, with returns in them',
    sourceType: 'script',
    code: `
      function first(list, wanted) {
        for (const item of list) if (item === wanted) return 'found ' + item;
        for (let i = 0; i < list.length; i++) if (list[i] > 100) return 'big';
        return 'none';
      }
      function classify(n) {
        if (n < 0) return 'negative';
        else if (n === 0) return 'zero';
        else if (n < 10) return 'small';
        else return 'large';
      }
      function countDown(n) { const out = []; while (n > 0) out.push(n--); do n++; while (n < 2); return [out, n]; }
      globalThis.result = [first([1, 2, 3], 3), first([1, 200], 5), first([], 1), [-1, 0, 5, 50].map(classify), countDown(3)];`,
  },
  {
    name: 'semicolon-less code around moved function declarations',
    sourceType: 'script',
    code: `
      function brackets(x) {
        var list = [x, 2]
        function helper(v) { return v * 2 }
        [3, 4].forEach(v => list.push(helper(v)))
        if (x > 5) return list.concat('big')
        return list
      }
      function parens(x) {
        var out = [x]
        function g() { return 'g' }
        (function () { out.push(g()) })()
        if (x) return out
        return []
      }
      function template(x) {
        var s = String(x)
        function h() { return 'h' }
        \`\${s}\`.split('').forEach(c => s += c + h())
        if (!x) return 'none'
        return s
      }
      function regex(x) {
        var n = 4
        function k() { return 2 }
        /2/g.test(String(n * k())) || (n = 0)
        if (x) return n
        return -n
      }
      function unary(x) {
        var a = x
        function m() { return 1 }
        -m() < 0 && a++
        if (a > 100) return 'huge'
        return a
      }
      let a = 1
      let b = a
      ;[a, b] = [b, a + 1]
      globalThis.result = [brackets(1), brackets(9), parens(1), template(12), regex(1), unary(1), a, b]`,
  },
  {
    name: 'template literals and tagged templates',
    sourceType: 'script',
    code: `
      function tag(strings, ...values) { return { cooked: [...strings], raw: strings.raw, values }; }
      function render(user) {
        const nested = \`outer \${\`inner \${user.name.toUpperCase()}\`} end\`;
        const multi = \`line1
      line2 \${user.age + 1}\`;
        return [nested, multi, tag\`a\${1}b\${2}\\unicode\`, String.raw\`\\n\${user.name}\`, \`\`];
      }
      globalThis.result = render({ name: 'ada', age: 36 });`,
  },
  {
    name: 'numbers: BigInt, separators, radix literals, exponent',
    sourceType: 'script',
    code: `
      function big(n) { let acc = 1n; for (let i = 1n; i <= n; i++) acc *= i; return acc; }
      const values = [1_000_000, 0xFF, 0o17, 0b1010, 1e3, .5, 5., 1_0.0_1, 0.1 + 0.2, 1e400];
      globalThis.result = [String(big(25n)), String(0x1Fn + 1_000n + 0b11n + 0o7n), typeof 1n, values.map(String)];`,
  },
  {
    name: 'regular expressions: flags v, d, s, y, named groups, slashes in classes',
    sourceType: 'script',
    code: `
      function scan(text) {
        const words = text.match(/[\\p{L}--[aeiou]]+/gv);
        const dates = /(?<y>\\d{4})-(?<m>\\d{2})/d.exec(text);
        const dotAll = /a.b/s.test('a\\nb');
        const sticky = /x/y;
        sticky.lastIndex = 1;
        const slash = /[/]+/.test('a/b') && /\\//.source;
        return [words, dates.groups.y, dates.indices.groups.m, dotAll, sticky.test('ax'), slash, 'a/b'.split(/[/]/)];
      }
      let n = 10, g = 2, ratio = n /g/ 1;
      globalThis.result = [scan('bcd 2024-05 aeb'), ratio];`,
  },
  {
    name: 'hashbang',
    sourceType: 'script',
    code: `#!/usr/bin/env node
      function main(args) { const out = []; for (const a of args) out.push(a * 2); return out; }
      globalThis.result = main([1, 2]);`,
  },
  {
    name: 'HTML-like comments in a script',
    sourceType: 'script',
    code: `<!-- an HTML open comment: the rest of the line is a comment
      function f(a) { const b = a + 1; <!-- also here
        return b * 2;
      }
      /* a comment */ --> an HTML close comment at the start of a line
      --> and another
      var x = 3; x
      -->1;
      globalThis.result = [f(1), x];`,
  },
  {
    name: 'sloppy mode: with, direct eval, arguments, this, octal',
    sourceType: 'script',
    code: `
      var scope = { a: 1, b: 2 };
      function useWith(o) { with (o) { var sum = a + b; } return sum; }
      function useEval(code) { var local = 10; eval(code); return local; }
      function mapped(a) { arguments[0] = 'changed'; return a; }
      function sloppyThis() { return this === globalThis; }
      label: function labelled() { return 'labelled function'; }
      globalThis.result = [useWith(scope), useEval('local += 5'), mapped('original'), sloppyThis(), 010 + 0o10, '\\101', labelled()];`,
  },
  {
    name: 'directives and strict mode',
    sourceType: 'script',
    code: `'use strict';
      function strictThis() { 'use strict'; return this === undefined; }
      function directives() { 'a directive'; "another"; const s = 'not a directive'; return s; }
      function notDirective() { ('in parentheses'); return typeof this; }
      globalThis.result = [strictThis(), directives(), notDirective()];`,
  },
  {
    name: 'new.target, arguments, this in arrows and nested functions',
    sourceType: 'script',
    code: `
      function Maker(x) {
        if (!new.target) return new Maker(x);
        this.x = x;
        this.args = (() => arguments.length)(1, 2, 3);
        this.self = (() => this.x)();
      }
      function outer() { const inner = function () { return typeof this; }; return [inner(), inner.call({}), new.target === undefined]; }
      const made = Maker(4);
      globalThis.result = [made instanceof Maker, made.x, made.args, made.self, outer()];`,
  },
  {
    name: 'switch with fallthrough, try/catch/finally, optional catch binding',
    sourceType: 'script',
    code: `
      function kind(c) {
        switch (c) {
          case 'a': case 'e': case 'i':
            return 'vowel';
          case ' ':
            c = 'space';
          case '\\t': {
            const w = 'white';
            return w + ':' + c;
          }
          default:
            if (c >= '0' && c <= '9') return 'digit';
        }
        return 'other';
      }
      function risky(n) {
        try { if (n) throw new TypeError('bad'); return 'fine'; }
        catch { return 'caught'; }
        finally { risky.calls = (risky.calls || 0) + 1; }
      }
      function overridden() { try { return 1; } finally { return 2; } }
      globalThis.result = [[...'ae 9x\\t'].map(kind), risky(0), risky(1), risky.calls, overridden()];`,
  },
  {
    name: 'arrows: parameters, bodies, immediately invoked, returning objects',
    sourceType: 'script',
    code: `
      const id = x => x;
      const pair = (a, b = a * 2, ...rest) => ({ a, b, rest });
      const asyncArrow = async x => x + 1;
      const curried = a => b => c => a + b + c;
      const seq = () => (id(1), id(2));
      const value = ((n) => { let f = 1; while (n > 1) f *= n--; return f; })(5);
      globalThis.result = asyncArrow(1).then((r) => [id('x'), pair(1), pair(1, 2, 3, 4), curried(1)(2)(3), seq(), value, r]);`,
  },
  {
    name: 'non-ASCII identifiers, strings and comments before functions',
    sourceType: 'script',
    code: `
      const café = 'é𝒳日本'; /* ü — 𝒳 */
      const \\u0061bc = 'escaped identifier';
      function 𝒻(ä) { const ß = ä + café; return ß + '✓'; }
      const obj = { 'ключ'(v) { return v * 2; }, ['\\uD800'.length + 'k']() { return 'lone surrogate key'; } };
      globalThis.result = [𝒻('→'), abc, obj.ключ(21), obj['1k']()];`,
  },
  {
    name: 'keywords as property names, comma, in, instanceof, typeof, void, delete',
    sourceType: 'script',
    code: `
      const o = { if: 1, class: 2, new: 3, function: 4, return: 5, default: 6, typeof: 7 };
      function ops(x) {
        const t = (x++, x++, x);
        delete o.new;
        return [o.if + o.class, 'new' in o, o.function, [] instanceof Array, typeof undefinedName, void 0, t];
      }
      globalThis.result = ops(1);`,
  },
  {
    name: 'object literals: __proto__, super in methods, shorthand, computed and numeric keys',
    sourceType: 'script',
    code: `
      const proto = { greet() { return 'proto hello'; } };
      const key = 'computed';
      const x = 1;
      const o = {
        __proto__: proto,
        x,
        [key]: 2,
        1.5: 'numeric key',
        0x10: 'hex key',
        'quoted key': 3,
        greet() { return super.greet() + ' via super'; },
        *gen() { yield 1; },
        async am() { return 'async method'; },
      };
      globalThis.result = o.am().then((am) => [o.greet(), o.x, o.computed, o['1.5'], o[16], o['quoted key'], [...o.gen()], am, Object.getPrototypeOf(o) === proto]);`,
  },
  {
    name: 'class expressions, anonymous classes and functions named from where they stand',
    sourceType: 'script',
    code: `
      const Named = class Inner { static who() { return Inner.name; } };
      const Anon = class { m() { return 'anon'; } };
      const fns = { f: function () {}, g: () => {}, ['h' + 1]: function () {} };
      let assigned;
      assigned = function () {};
      const [d = function () {}] = [];
      globalThis.result = [Named.who(), Named.name, Anon.name, new Anon().m(), fns.f.name, fns.g.name, fns.h1.name, assigned.name, d.name];`,
  },
  {
    name: 'closures, IIFEs, recursion and functions in expressions',
    sourceType: 'script',
    code: `
      var counter = (function () { var n = 0; return { inc: function () { return ++n; }, get: () => n }; })();
      const fib = function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); };
      const handlers = { click: function () { return 'clicked'; }, ['dyn' + 1]: () => 'dyn' };
      !function () { counter.inc(); }();
      void function () { counter.inc(); }();
      globalThis.result = [counter.inc(), counter.get(), fib(10), handlers.click(), handlers.dyn1(), [3, 1, 2].sort((a, b) => a - b)];`,
  },
  {
    name: 'using declarations',
    sourceType: 'script',
    lower: true,
    code: `
      const log = [];
      function resource(name) { return { name, [Symbol.dispose]() { log.push('dispose ' + name); } }; }
      function work() {
        using a = resource('a');
        using b = resource('b'), c = null;
        log.push('body ' + a.name + b.name);
        for (using r of [resource('loop1'), resource('loop2')]) log.push('loop ' + r.name);
        return 'returned';
      }
      async function asyncWork() {
        await using x = { async [Symbol.asyncDispose]() { await null; log.push('async dispose'); } };
        log.push('async body');
        return 'async returned';
      }
      globalThis.result = asyncWork().then((r) => [work(), r, log]);`,
  },
  {
    name: 'module: imports with attributes, exports, import.meta, dynamic import with options',
    sourceType: 'module',
    code: `
      import data from 'data:application/json,{"answer":42}' with { type: 'json' };
      import * as ns from 'data:text/javascript,export const x = 1; export default function () { return 2; }';
      export function exported(n) { const doubled = n * 2; return doubled; }
      export default class { method() { return 'default class'; } }
      export const arrow = (x) => { const y = x + 1; return y; };
      const meta = typeof import.meta === 'object' && import.meta.url.startsWith('data:');
      const dynamic = await import('data:application/json,[1,2]', { with: { type: 'json' } });
      globalThis.result = [data.answer, ns.x, ns.default(), exported(4), arrow(1), meta, dynamic.default];`,
  },
  {
    name: 'module: top-level await, for await and await using at the top level',
    sourceType: 'module',
    lower: true,
    code: `
      const log = [];
      async function* source() { for (let i = 0; i < 3; i++) { await null; yield i; } }
      const first = await Promise.resolve('awaited');
      for await (const v of source()) log.push(v);
      {
        await using handle = { async [Symbol.asyncDispose]() { log.push('disposed'); } };
        log.push('in block');
      }
      export const done = true;
      globalThis.result = [first, log];`,
  },
  {
    name: 'module: strict code, classes and functions',
    sourceType: 'module',
    code: `
      export class Stack {
        #items = [];
        push(...xs) { for (const x of xs) this.#items.push(x); return this; }
        pop() { return this.#items.pop(); }
        get size() { return this.#items.length; }
      }
      function thisIsUndefined() { return this === undefined; }
      export { thisIsUndefined as strict };
      const s = new Stack().push(1, 2, 3);
      globalThis.result = [s.pop(), s.size, thisIsUndefined()];`,
  },
];
