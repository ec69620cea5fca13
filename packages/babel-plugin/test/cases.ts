/**
 * Programs covering every function form, run before and after instrumentation.
 *
 * `code` declares things; `result` is an expression (a promise is awaited) whose value must be the
 * same either way. `checks` is how many checks run with `threshold: 1` and exit checks on: two per
 * call of a function with a non-empty body (entry and exit) unless the case says otherwise.
 * `sloppy` cases rely on sloppy-mode semantics and are not run as modules.
 */
export interface Case {
  name: string;
  code: string;
  result: string;
  checks: number;
  sloppy?: boolean;
}

export const CASES: Case[] = [
  {
    name: 'function declaration',
    code: 'function add(a, b) { return a + b; }',
    result: 'add(1, 2)',
    checks: 2,
  },
  {
    name: 'function expression, named and recursive',
    code: 'var fact = function me(n) { return n <= 1 ? 1 : n * me(n - 1); };',
    result: 'fact(5)',
    checks: 10,
  },
  {
    name: 'arrow with a block body',
    code: 'var f = (a) => { const b = a + 1; return b * 2; };',
    result: 'f(1)',
    checks: 2,
  },
  {
    name: 'arrows with expression bodies, converted to blocks',
    code: 'var inc = a => a + 1; var obj = () => ({ x: inc(1) }); var seq = () => (inc(0), inc(5));',
    result: 'JSON.stringify([obj(), seq()])',
    // obj, seq, and inc three times
    checks: 10,
  },
  {
    name: 'object methods, getters and setters',
    code: 'var o = { v: 2, m(x) { return this.v * x; }, get g() { return this.v; }, set g(x) { this.v = x * 10; } };',
    result: '(o.g = 3, [o.m(2), o.g].join())',
    checks: 6,
  },
  {
    name: 'class constructor, accessors, private and static methods',
    code: `class A {
      #p = 1;
      constructor(x) { this.x = x; }
      get y() { return this.x + this.#p; }
      set y(v) { this.x = v; }
      #priv() { return this.x * 2; }
      m() { return this.#priv(); }
      static s() { return 'S'; }
    }
    var a = new A(1);`,
    result: '(a.y = 5, [a.y, a.m(), A.s()].join())',
    // constructor, set y, get y, m, #priv, s
    checks: 12,
  },
  {
    name: 'derived constructors: nothing before super() touches this',
    code: `class B { constructor(v) { this.v = v; } }
    class D extends B { constructor(v) { const w = v + 1; super(w); this.w = w; } }
    class E extends B { constructor() { super(new.target.name); } }
    class F extends B { constructor() { try { this.early = 1; } catch (e) { super(e.constructor.name); } } }
    class G extends B { constructor() { return { own: true }; } }
    class H extends B { constructor() { super(1); return undefined; } }`,
    result: 'JSON.stringify([new D(1), new E(), new F(), new G(), new H()])',
    // D + B, E + B, F + B, G, H + B
    checks: 18,
  },
  {
    name: 'derived constructor that never calls super()',
    code: 'class B {} class D extends B { constructor() { void 0; } }',
    result: '(() => { try { new D(); return "no error"; } catch (e) { return e.constructor.name; } })()',
    // the arrow and D (B has an implicit constructor, no checks)
    checks: 4,
  },
  {
    name: 'class field arrows and static fields',
    code: `class C { v = 3; get = () => this.v; #h = () => this.v + 1; h() { return this.#h(); } static sf = () => 'static'; }
    var c = new C();`,
    result: '[c.get(), c.h(), C.sf()].join()',
    // get, h, #h, sf
    checks: 8,
  },
  {
    name: 'static blocks',
    code: `var log = [];
    class S { static x = 1; static { log.push('a'); log.push(this.name + this.x); } static { var v = 2; log.push(v); } }`,
    result: 'log.join()',
    checks: 4,
  },
  {
    name: 'async function and async arrow',
    code: 'async function f(x) { const y = await x; return y + 1; } var g = async (x) => (await f(x)) * 2;',
    result: 'g(Promise.resolve(1))',
    checks: 4,
  },
  {
    name: 'async function that rejects',
    code: 'async function f() { await null; throw new TypeError("nope"); }',
    result: 'f().then(() => "resolved", (e) => e.name + ": " + e.message)',
    // f, and the rejection handler
    checks: 4,
  },
  {
    name: 'generator run to completion',
    code: 'function* g(n) { for (let i = 0; i < n; i++) yield i; }',
    result: '[...g(3)].join()',
    checks: 2,
  },
  {
    name: 'generator closed early: the exit check runs in finally',
    code: 'function* g() { yield 1; yield 2; yield 3; } var it = g();',
    result: 'JSON.stringify([it.next(), it.return(7), it.next()])',
    checks: 2,
  },
  {
    name: 'generator methods and delegation',
    code: 'var o = { *inner() { yield 1; yield 2; }, *outer() { yield 0; yield* this.inner(); } };',
    result: '[...o.outer()].join()',
    checks: 4,
  },
  {
    name: 'async generator',
    code: 'async function* ag() { yield 1; yield await Promise.resolve(2); }',
    result: '(async () => { const out = []; for await (const v of ag()) out.push(v); return out.join(); })()',
    checks: 4,
  },
  {
    name: 'directive prologue stays first: strict function in sloppy code',
    code: 'function s() { "use strict"; return this === undefined; } function l() { return this === undefined; }',
    result: '[s(), l()].join()',
    checks: 4,
    sloppy: true,
  },
  {
    name: 'this and arguments',
    code: 'function f() { return [this.tag, arguments.length, Array.prototype.slice.call(arguments).join("+")].join("|"); }',
    result: 'f.call({ tag: "t" }, 1, 2)',
    checks: 2,
  },
  {
    name: 'sloppy arguments stay mapped to parameters',
    code: 'function g(a) { arguments[0] = 9; return a; } function h(a) { a = 5; return arguments[0]; }',
    result: '[g(1), h(1)].join()',
    checks: 4,
    sloppy: true,
  },
  {
    name: 'sloppy this is the global object',
    code: 'function who() { return this === globalThis; }',
    result: 'who()',
    checks: 2,
    sloppy: true,
  },
  {
    name: 'arrows see the enclosing this and arguments',
    code: 'function outer() { const inner = () => [this.tag, arguments[0]].join(); return inner(); }',
    result: 'outer.call({ tag: "o" }, "arg")',
    checks: 4,
  },
  {
    name: 'new.target',
    code: 'function N() { if (!new.target) return "call"; this.t = new.target === N ? "new" : "other"; }',
    result: '[N(), new N().t].join()',
    checks: 4,
  },
  {
    name: 'function declarations called before their definition',
    code: 'function h() { var r = g(); return r + typeof later; function g() { return "hoisted:"; } function later() {} }',
    result: 'h()',
    checks: 4,
  },
  {
    name: 'function declarations that use the body\'s let, const and class',
    code: `function h(n) {
      const base = 10;
      let extra = n;
      class K { get v() { return base; } }
      return add() + new K().v;
      function add() { return base + extra; }
    }`,
    result: 'h(1)',
    // h, add, get v
    checks: 6,
  },
  {
    name: 'TDZ: a function declaration reaching a class before its definition',
    code: 'function h() { try { return make(); } catch (e) { return e.constructor.name + ": " + e.message; } function make() { return new K(); } class K {} }',
    result: 'h()',
    checks: 4,
  },
  {
    name: 'TDZ of let in the same body',
    code: 'function t() { try { x; } catch (e) { return e.constructor.name + ": " + e.message; } let x = 1; return x; }',
    result: 't()',
    checks: 2,
  },
  {
    name: 'a var and a function of the same name: entry check only',
    code: 'function v() { var g = 1; function g() {} const k = 2; return typeof g + k; }',
    result: 'v()',
    checks: 1,
  },
  {
    name: 'a parameter and a function of the same name: entry check only',
    code: 'function p(g) { function g() {} const k = 1; return typeof g + arguments.length + typeof arguments[0]; }',
    result: 'p(5)',
    checks: 1,
    sloppy: true,
  },
  {
    name: 'two functions of the same name in sloppy code: entry check only',
    code: 'function d() { function g() { return 1; } function g() { return 2; } const k = 0; return g() + k; }',
    result: 'd()',
    // d's entry, then g with both checks
    checks: 3,
    sloppy: true,
  },
  {
    name: 'sloppy function declarations moved into the try keep working',
    code: 'function m() { const k = 1; var t = typeof g; function g() { return k; } return t + g(); }',
    result: 'm()',
    checks: 4,
    sloppy: true,
  },
  {
    name: 'strict mode: this is undefined in plain calls',
    code: '"use strict"; function f() { return String(this); }',
    result: 'f()',
    checks: 2,
  },
  {
    name: 'exceptions pass through the exit check',
    code: 'function thrower() { throw new Error("boom"); } function catcher() { try { thrower(); } catch (e) { return e.message; } }',
    result: 'catcher()',
    checks: 4,
  },
  {
    name: 'finally blocks and return values are untouched',
    code: 'var log = []; function r() { try { return "try"; } finally { log.push("finally"); } }',
    result: 'r() + log.join()',
    checks: 2,
  },
  {
    name: 'closures over loop variables, labels, break and continue',
    code: `function f() {
      const fns = [];
      outer: for (let i = 0; i < 5; i++) {
        fns.push(() => i);
        for (let j = 0; j < 5; j++) { if (j > i) continue outer; if (i === 3) break outer; }
      }
      return fns.map((g) => g()).join();
    }`,
    result: 'f()',
    // f, then the map callback and the pushed arrows four times each
    checks: 18,
  },
  {
    name: 'default parameters and destructuring',
    code: 'function f({ a = 1, b } = {}, [c] = [b], ...rest) { return [a, b, c, rest.length].join(); }',
    result: '[f(), f({ b: 2 }), f({ a: 3, b: 4 }, [5], 6, 7)].join("|")',
    checks: 6,
  },
  {
    name: 'a function whose parameter defaults see the body not',
    code: 'var x = "outer"; function f(g = () => x) { var x = "inner"; return g(); }',
    result: 'f()',
    checks: 4,
  },
  {
    name: 'empty functions get no checks',
    code: 'function noop() {} var arrow = () => {}; class K { constructor() {} m() {} }',
    result: '(noop(), arrow(), new K().m(), "ok")',
    checks: 0,
  },
];
