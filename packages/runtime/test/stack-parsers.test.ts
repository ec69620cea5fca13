/**
 * The stack-string parsers, on strings real engines produced. Sources:
 * - [node]    captured here with Node 20.20 (V8 11.3), `new Error().stack` in a CommonJS file;
 * - [design]  docs/design.md, "Firefox and WebKit" (Firefox ESR 153, WebKitGTK 2.50, measured on this machine);
 * - [esp]     stacktracejs/error-stack-parser, spec/fixtures/captured-errors.js (strings captured from
 *             real browsers);
 * - [sentry]  getsentry/sentry-javascript, packages/browser/test/tracekit/{chromium,firefox,safari}.test.ts
 *             (strings captured from real browsers).
 */
import { ParsedFrame, parseAtStack, parseStack, parseV8Stack } from '../src';
import { framesOf } from '../src/capture';

/** [name, url, line, column] per frame, innermost first; native frames as [name, 'native']. */
function brief(frames: ParsedFrame[]): Array<[string, string | null, number, number] | [string, 'native']> {
  return frames.map((f) => (f.native ? [f.name, 'native'] : [f.name, f.url, f.line, f.column]));
}

describe('V8', () => {
  test('[node] a constructor, called from an anonymous function at module top level', () => {
    const stack =
      'Error: x\n    at new Foo (/tmp/exp/v8.js:1:38)\n    at /tmp/exp/v8.js:10:23\n    at Object.<anonymous> (/tmp/exp/v8.js:12:3)\n' +
      '    at Module._compile (node:internal/modules/cjs/loader:1521:14)\n' +
      '    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)\n' +
      '    at node:internal/main/run_main_module:28:49';
    expect(brief(parseV8Stack(stack))).toEqual([
      ['Foo', '/tmp/exp/v8.js', 1, 38],
      ['', '/tmp/exp/v8.js', 10, 23],
      ['', '/tmp/exp/v8.js', 12, 3],
      ['_compile', 'node:internal/modules/cjs/loader', 1521, 14],
      ['executeUserEntryPoint', 'node:internal/modules/run_main', 164, 12],
      ['', 'node:internal/main/run_main_module', 28, 49],
    ]);
  });

  test('[node] getters, static and object methods', () => {
    expect(brief(parseV8Stack('Error: g\n    at get g [as g] (/tmp/exp/v8.js:1:79)\n    at /tmp/exp/v8.js:10:54'))).toEqual([
      ['get g', '/tmp/exp/v8.js', 1, 79],
      ['', '/tmp/exp/v8.js', 10, 54],
    ]);
    expect(brief(parseV8Stack('Error: s\n    at Foo.st (/tmp/exp/v8.js:1:124)'))).toEqual([['st', '/tmp/exp/v8.js', 1, 124]]);
    expect(brief(parseV8Stack('Error: o\n    at Object.method (/tmp/exp/v8.js:5:33)'))).toEqual([['method', '/tmp/exp/v8.js', 5, 33]]);
  });

  test('[node] a native frame between JavaScript frames', () => {
    const stack = 'Error: m\n    at /tmp/exp/v8.js:2:41\n    at Array.map (<anonymous>)\n    at named (/tmp/exp/v8.js:2:31)';
    expect(brief(parseV8Stack(stack))).toEqual([
      ['', '/tmp/exp/v8.js', 2, 41],
      ['map', 'native'],
      ['named', '/tmp/exp/v8.js', 2, 31],
    ]);
  });

  test('[node] eval and new Function frames have no URL', () => {
    const evalStack =
      'Error: e\n    at inEval (eval at <anonymous> (/tmp/exp/v8.js:3:19), <anonymous>:1:29)\n    at Object.<anonymous> (/tmp/exp/v8.js:3:79)';
    expect(brief(parseV8Stack(evalStack))).toEqual([
      ['inEval', null, 1, 29],
      ['', '/tmp/exp/v8.js', 3, 79],
    ]);
    const fnStack = 'Error: f\n    at eval (eval at <anonymous> (/tmp/exp/v8.js:4:17), <anonymous>:3:8)\n    at Object.<anonymous> (/tmp/exp/v8.js:4:60)';
    expect(brief(parseV8Stack(fnStack))).toEqual([
      ['eval', null, 3, 8],
      ['', '/tmp/exp/v8.js', 4, 60],
    ]);
  });

  test('[sentry] nested eval in Chrome 48', () => {
    const stack =
      'Error: message string\n' +
      'at baz (eval at foo (eval at speak (http://localhost:8080/file.js:21:17)), <anonymous>:1:30)\n' +
      'at foo (eval at speak (http://localhost:8080/file.js:21:17), <anonymous>:2:96)\n' +
      'at eval (eval at speak (http://localhost:8080/file.js:21:17), <anonymous>:4:18)\n' +
      'at Object.speak (http://localhost:8080/file.js:21:17)\n' +
      'at http://localhost:8080/file.js:31:13\n';
    expect(brief(parseV8Stack(stack))).toEqual([
      ['baz', null, 1, 30],
      ['foo', null, 2, 96],
      ['eval', null, 4, 18],
      ['speak', 'http://localhost:8080/file.js', 21, 17],
      ['', 'http://localhost:8080/file.js', 31, 13],
    ]);
  });

  test('[node] async frames end the synchronous stack', () => {
    const awaited = 'Error: a\n    at inner (/tmp/exp/v8.js:6:45)\n    at async outerA (/tmp/exp/v8.js:7:34)\n    at async /tmp/exp/v8.js:10:136';
    expect(brief(parseV8Stack(awaited))).toEqual([['inner', '/tmp/exp/v8.js', 6, 45]]);
    const all =
      'Error: a\n    at inner (/tmp/exp/v8.js:6:45)\n    at async Promise.all (index 0)\n    at async all (/tmp/exp/v8.js:8:32)\n    at async /tmp/exp/v8.js:10:157';
    expect(brief(parseV8Stack(all))).toEqual([['inner', '/tmp/exp/v8.js', 6, 45]]);
  });

  test('[esp] [sentry] URLs with ports, query strings and schemes', () => {
    const stack =
      'Error: Default error\n' +
      '    at dumpExceptionError (http://localhost:8080/file.js:41:27)\n' +
      '    at HTMLButtonElement.onclick (http://localhost:8080/file.js:107:146)\n' +
      '    at I.e.fn.(anonymous function) [as index] (http://localhost:8080/file.js:10:3651)\n' +
      '    at s (blob:http%3A//localhost%3A8080/abfc40e9-4742-44ed-9dcd-af8f99a29379:31:29146)\n' +
      '    at examplescheme://examplehost/cd351f7250857e22ceaa.worker.js:70179:15\n' +
      '    at render (https://example.com:8443/app.js?v=3&x=y:5:7)';
    expect(brief(parseV8Stack(stack))).toEqual([
      ['dumpExceptionError', 'http://localhost:8080/file.js', 41, 27],
      ['onclick', 'http://localhost:8080/file.js', 107, 146],
      ['', 'http://localhost:8080/file.js', 10, 3651],
      ['s', 'blob:http%3A//localhost%3A8080/abfc40e9-4742-44ed-9dcd-af8f99a29379', 31, 29146],
      ['', 'examplescheme://examplehost/cd351f7250857e22ceaa.worker.js', 70179, 15],
      ['render', 'https://example.com:8443/app.js?v=3&x=y', 5, 7],
    ]);
  });

  test('[sentry] old native frames and "(async url)" call sites of Chrome 109', () => {
    expect(brief(parseV8Stack('error\n at Array.forEach (native)'))).toEqual([['forEach', 'native']]);
    const stack =
      'Error: bad\n          at callAnotherThing (http://localhost:5000/:20:16)\n' +
      '          at Object.callback (async http://localhost:5000/:25:7)\n          at test (http://localhost:5000/:33:23)';
    expect(brief(parseV8Stack(stack))).toEqual([
      ['callAnotherThing', 'http://localhost:5000/', 20, 16],
      ['callback', 'http://localhost:5000/', 25, 7],
      ['test', 'http://localhost:5000/', 33, 23],
    ]);
  });

  test('[esp] paths with spaces and parentheses', () => {
    const stack =
      'Error\n    at Object.<anonymous> (/var/app/scratch/my project (top secret)/index.js:2:9)\n' +
      '    at Module._compile (internal/modules/cjs/loader.js:774:30)\n    at internal/main/run_main_module.js:17:11';
    expect(brief(parseV8Stack(stack))).toEqual([
      ['', '/var/app/scratch/my project (top secret)/index.js', 2, 9],
      ['_compile', 'internal/modules/cjs/loader.js', 774, 30],
      ['', 'internal/main/run_main_module.js', 17, 11],
    ]);
  });
});

describe('SpiderMonkey (Firefox)', () => {
  test('[design] a→b→c from top-level code', () => {
    const url = 'http://127.0.0.1:40201/tests.js';
    const stack = `c@${url}:4:23\nb@${url}:3:23\na@${url}:2:23\n@${url}:318:30\n`;
    expect(brief(parseAtStack(stack))).toEqual([
      ['c', url, 4, 23],
      ['b', url, 3, 23],
      ['a', url, 2, 23],
      ['', url, 318, 30],
    ]);
  });

  test('async* frames (Firefox under puppeteer) end the synchronous stack', () => {
    // [design]: "Firefox under puppeteer adds async* frames"; the async parents follow the first one.
    const url = 'http://127.0.0.1:40201/tests.js';
    const stack = `c@${url}:4:23\nasync*b@${url}:3:23\na@${url}:2:23\n@${url}:318:30\n`;
    expect(brief(parseAtStack(stack))).toEqual([['c', url, 4, 23]]);
    const timer = `onTick@${url}:9:5\nsetTimeout handler*start@${url}:12:3\n@${url}:20:1\n`;
    expect(brief(parseAtStack(timer))).toEqual([['onTick', url, 9, 5]]);
  });

  test('[sentry] eval frames have no URL; the eval\'d code\'s own position is kept', () => {
    const stack =
      'baz@http://localhost:8080/file.js line 26 > eval line 2 > eval:1:30\n' +
      'foo@http://localhost:8080/file.js line 26 > eval:2:96\n' +
      '@http://localhost:8080/file.js line 26 > eval:4:18\n' +
      'speak@http://localhost:8080/file.js:26:17\n' +
      '@http://localhost:8080/file.js:33:9';
    expect(brief(parseAtStack(stack))).toEqual([
      ['baz', null, 1, 30],
      ['foo', null, 2, 96],
      ['', null, 4, 18],
      ['speak', 'http://localhost:8080/file.js', 26, 17],
      ['', 'http://localhost:8080/file.js', 33, 9],
    ]);
  });

  test('new Function frames', () => {
    // Written in SpiderMonkey's form for code from eval ([design]: "line 27 > eval:1:29"), which it also
    // uses for `new Function` ("> Function"); not a captured string.
    expect(brief(parseAtStack('anonymous@http://127.0.0.1:40201/tests.js line 27 > Function:1:29\n@http://127.0.0.1:40201/tests.js:27:5'))).toEqual([
      ['anonymous', null, 1, 29],
      ['', 'http://127.0.0.1:40201/tests.js', 27, 5],
    ]);
  });

  test('[sentry] anonymous functions are named by their place ("test/<"): anonymous here', () => {
    const stack =
      'aha@http://localhost:5000/:19:13\n          callAnotherThing@http://localhost:5000/:20:15\n          callback@http://localhost:5000/:25:7\n' +
      '          test/<@http://localhost:5000/:34:7\n          test@http://localhost:5000/:33:23\n' +
      '          @http://localhost:5000/ line 39 > eval:1:1\n          aha@http://localhost:5000/:39:5\n' +
      '          testMethod@http://localhost:5000/:44:7\n          @http://localhost:5000/:50:19';
    expect(brief(parseAtStack(stack))).toEqual([
      ['aha', 'http://localhost:5000/', 19, 13],
      ['callAnotherThing', 'http://localhost:5000/', 20, 15],
      ['callback', 'http://localhost:5000/', 25, 7],
      ['', 'http://localhost:5000/', 34, 7],
      ['test', 'http://localhost:5000/', 33, 23],
      ['', null, 1, 1],
      ['aha', 'http://localhost:5000/', 39, 5],
      ['testMethod', 'http://localhost:5000/', 44, 7],
      ['', 'http://localhost:5000/', 50, 19],
    ]);
    const ns =
      '[2]</Bar.prototype._baz/</<@http://path/to/file.js:703:28\nApp.prototype.foo@file:///path/to/file.js:15:2\n' +
      '.plugin/e.fn[c]/<@http://path/to/file.js:1:1\n@file:///path/to/index.html:23:1\n';
    expect(brief(parseAtStack(ns))).toEqual([
      ['', 'http://path/to/file.js', 703, 28],
      ['App.prototype.foo', 'file:///path/to/file.js', 15, 2],
      ['', 'http://path/to/file.js', 1, 1],
      ['', 'file:///path/to/index.html', 23, 1],
    ]);
  });

  test('[esp] "@" in URLs and in function names', () => {
    expect(brief(parseAtStack('who@http://localhost:5000/misc/@stuff/foo.js:3:9\n@http://localhost:5000/misc/@stuff/foo.js:15:1\n'))).toEqual([
      ['who', 'http://localhost:5000/misc/@stuff/foo.js', 3, 9],
      ['', 'http://localhost:5000/misc/@stuff/foo.js', 15, 1],
    ]);
    expect(brief(parseAtStack('obj["@who"]@http://localhost:5000/misc/@stuff/foo.js:4:9\nwhat@http://localhost:5000/misc/@stuff/foo.js:8:3\n'))).toEqual([
      ['obj["@who"]', 'http://localhost:5000/misc/@stuff/foo.js', 4, 9],
      ['what', 'http://localhost:5000/misc/@stuff/foo.js', 8, 3],
    ]);
  });

  test('[sentry] resource: URLs, parentheses and brackets in paths, ports', () => {
    expect(
      brief(
        parseAtStack(
          'render@resource://path/data/content/bundle.js:5529:16\n' +
            'onClick@http://localhost:3002/_next/static/chunks/app/(group)/[route]/script.js:1:644\n' +
            'foo@http://127.0.0.1:8000/js/file.js?v=2:24:1',
        ),
      ),
    ).toEqual([
      ['render', 'resource://path/data/content/bundle.js', 5529, 16],
      ['onClick', 'http://localhost:3002/_next/static/chunks/app/(group)/[route]/script.js', 1, 644],
      ['foo', 'http://127.0.0.1:8000/js/file.js?v=2', 24, 1],
    ]);
  });

  test('[esp] Firefox 14: lines without columns', () => {
    expect(brief(parseAtStack('@http://path/to/file.js:48\ndumpException3@http://path/to/file.js:52\nonclick@http://path/to/file.js:1\n'))).toEqual([
      ['', 'http://path/to/file.js', 48, 0],
      ['dumpException3', 'http://path/to/file.js', 52, 0],
      ['onclick', 'http://path/to/file.js', 1, 0],
    ]);
  });
});

describe('JavaScriptCore (WebKit)', () => {
  test('[design] a→b→c from global code', () => {
    const url = 'http://127.0.0.1:39773/tests.js';
    const stack = `c@${url}:4:32\nb@${url}:3:24\na@${url}:2:24\nglobal code@${url}:318:31`;
    expect(brief(parseAtStack(stack))).toEqual([
      ['c', url, 4, 32],
      ['b', url, 3, 24],
      ['a', url, 2, 24],
      ['', url, 318, 31],
    ]);
  });

  test('[sentry] native code frames and global code', () => {
    const stack =
      'fooIterator@http://localhost:5000/test:20:26\n          map@[native code]\n          foo@http://localhost:5000/test:19:22\n' +
      '          global code@http://localhost:5000/test:24:10';
    expect(brief(parseAtStack(stack))).toEqual([
      ['fooIterator', 'http://localhost:5000/test', 20, 26],
      ['map', 'native'],
      ['foo', 'http://localhost:5000/test', 19, 22],
      ['', 'http://localhost:5000/test', 24, 10],
    ]);
  });

  test('[sentry] anonymous functions without "@", eval code, [native code] frames', () => {
    const stack =
      'aha@http://localhost:5000/:19:22\n          aha@[native code]\n          callAnotherThing@http://localhost:5000/:20:16\n' +
      '          callback@http://localhost:5000/:25:23\n          http://localhost:5000/:34:25\n          map@[native code]\n' +
      '          test@http://localhost:5000/:33:26\n          eval code\n          eval@[native code]\n' +
      '          aha@http://localhost:5000/:39:9\n          testMethod@http://localhost:5000/:44:10\n          http://localhost:5000/:50:29';
    expect(brief(parseAtStack(stack))).toEqual([
      ['aha', 'http://localhost:5000/', 19, 22],
      ['aha', 'native'],
      ['callAnotherThing', 'http://localhost:5000/', 20, 16],
      ['callback', 'http://localhost:5000/', 25, 23],
      ['', 'http://localhost:5000/', 34, 25],
      ['map', 'native'],
      ['test', 'http://localhost:5000/', 33, 26],
      ['', null, 0, 0],
      ['eval', 'native'],
      ['aha', 'http://localhost:5000/', 39, 9],
      ['testMethod', 'http://localhost:5000/', 44, 10],
      ['', 'http://localhost:5000/', 50, 29],
    ]);
  });

  test('[esp] functions of eval\'d code carry only their names (Safari 9)', () => {
    const stack = 'baz\nfoo\neval code\neval@[native code]\nspeak@http://localhost:8080/file.js:26:21\nglobal code@http://localhost:8080/file.js:33:18';
    expect(brief(parseAtStack(stack))).toEqual([
      ['baz', null, 0, 0],
      ['foo', null, 0, 0],
      ['', null, 0, 0],
      ['eval', 'native'],
      ['speak', 'http://localhost:8080/file.js', 26, 21],
      ['', 'http://localhost:8080/file.js', 33, 18],
    ]);
  });

  test('[esp] Safari 6: lines without columns and a trailing [native code]', () => {
    expect(brief(parseAtStack('@http://path/to/file.js:48\ndumpException3@http://path/to/file.js:52\nonclick@http://path/to/file.js:82\n[native code]'))).toEqual([
      ['', 'http://path/to/file.js', 48, 0],
      ['dumpException3', 'http://path/to/file.js', 52, 0],
      ['onclick', 'http://path/to/file.js', 82, 0],
      ['', 'native'],
    ]);
  });

  test('[sentry] extension URLs', () => {
    const stack =
      'isClaimed@safari-extension://com.grammarly.safari.extension.ext2-W8F64X92K3/ee7759dd/Grammarly.js:2:929865\n' +
      '        safari-extension://com.grammarly.safari.extension.ext2-W8F64X92K3/ee7759dd/Grammarly.js:2:1588410\n' +
      '        promiseReactionJob@[native code]';
    expect(brief(parseAtStack(stack))).toEqual([
      ['isClaimed', 'safari-extension://com.grammarly.safari.extension.ext2-W8F64X92K3/ee7759dd/Grammarly.js', 2, 929865],
      ['', 'safari-extension://com.grammarly.safari.extension.ext2-W8F64X92K3/ee7759dd/Grammarly.js', 2, 1588410],
      ['promiseReactionJob', 'native'],
    ]);
  });

  test('constructors are plain names; module code is top level', () => {
    // Written in the [design] format, not captured: JavaScriptCore names a constructor frame by its
    // class ("Foo@url"), and a module's top level "module code".
    const url = 'http://127.0.0.1:39773/mod.js';
    expect(brief(parseAtStack(`Foo@${url}:2:19\nmodule code@${url}:5:8`))).toEqual([
      ['Foo', url, 2, 19],
      ['', url, 5, 8],
    ]);
  });
});

describe('parseStack', () => {
  test('picks the parser by the format', () => {
    expect(parseStack('Error: x\n    at f (http://a/b.js:1:2)')).toEqual(parseV8Stack('Error: x\n    at f (http://a/b.js:1:2)'));
    expect(parseStack('f@http://a/b.js:1:2\n@http://a/b.js:3:4')).toEqual(parseAtStack('f@http://a/b.js:1:2\n@http://a/b.js:3:4'));
    expect(parseStack('')).toEqual([]);
  });

  test('a real stack of this engine', () => {
    function named() {
      return new Error('here').stack!;
    }
    const frames = parseStack(named());
    expect(frames[0].name).toBe('named');
    expect(frames[0].url).toBe(__filename);
    expect(frames[0].line).toBeGreaterThan(1);
  });
});

describe('framesOf (the runtime reads stack strings once per line)', () => {
  const STACKS = [
    'Error: x\n    at f (http://a/b.js:1:2)\n    at new G (http://a/b.js:3:4)\n    at async h (http://a/b.js:5:6)\n    at i (http://a/b.js:7:8)',
    'f@http://a/b.js:1:2\n@http://a/b.js:3:4\nasync*g@http://a/b.js:5:6\nh@http://a/b.js:7:8',
    'f@http://a/b.js:1:2\nmap@[native code]\nglobal code@http://a/b.js:9:1',
    'h@http://a/b.js:7:8\nf@http://a/b.js:1:2',
  ];

  test('gives what the parsers give, and the same frame objects for a line read before', () => {
    for (const stack of STACKS) {
      const expected = parseStack(stack);
      const first = framesOf(stack);
      expect(first).toEqual(expected);
      const again = framesOf(stack);
      expect(again).toEqual(expected);
      again.forEach((frame, i) => expect(frame).toBe(first[i]));
    }
    // A line is read by the parser of the stack it is in: not a frame in a V8 stack, a frame in a SpiderMonkey one.
    expect(framesOf('Error\n    at g (http://a/b.js:3:4)\nk@http://a/b.js:1:2').map((f) => f.name)).toEqual(['g']);
    expect(framesOf('k@http://a/b.js:1:2').map((f) => f.name)).toEqual(['k']);
  });

  test("never calls a program's replacements of the String and RegExp methods it uses (core-js replaces some)", () => {
    // Before: split, trim, exec, test, slice, startsWith… were the program's, called from inside its code.
    // Lines no test has read yet: a line read before is a Map lookup, not parsed again.
    const stacks = [
      ...STACKS.map((stack) => stack.replace(/http:\/\/a\//g, 'http://fresh.example/')),
      'obj["@fn"]@http://a/b.js:1:2\nouter/<@http://a/b.js:2:3\nh@http://a/b.js line 27 > eval:1:29\n[native code]',
      'Error\n    at Foo.bar [as baz] (http://a/b.js:1:2)\n    at eval (eval at f (http://a/b.js:1:2), <anonymous>:3:4)\n    at Array.map (<anonymous>)',
    ];
    const expected = stacks.map(parseStack);
    const reached: string[] = [];
    const patched: [any, string][] = [
      [String.prototype, 'split'], [String.prototype, 'trim'], [String.prototype, 'slice'], [String.prototype, 'startsWith'],
      [String.prototype, 'endsWith'], [String.prototype, 'lastIndexOf'], [RegExp.prototype, 'exec'], [RegExp.prototype, 'test'],
      [Array.prototype, 'findIndex'], [Array.prototype, 'slice'],
    ];
    const originals = patched.map(([proto, key]) => proto[key]);
    patched.forEach(([proto, key], i) => {
      proto[key] = function (this: unknown, ...args: unknown[]) {
        reached.push(key);
        return originals[i].apply(this, args);
      };
    });
    let read: ReturnType<typeof framesOf>[];
    try {
      read = stacks.map((stack) => framesOf(stack));
    } finally {
      patched.forEach(([proto, key], i) => (proto[key] = originals[i]));
    }
    expect(reached).toEqual([]);
    expect(read).toEqual(expected);
  });
});
