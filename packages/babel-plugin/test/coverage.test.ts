/**
 * A coverage tool after the plugin (babel-jest puts babel-plugin-istanbul last) counts the program's
 * statements as it would without jsprof: returns rewritten into the labelled body and arrows given
 * a block keep their place, and the checks, which have none, are passed over.
 */
import * as vm from 'node:vm';
import { programVisitor } from 'istanbul-lib-instrument';
import { transformSync } from '@babel/core';
import plugin from '../src/index';
import { instrument, plain } from './helpers';

/** babel-plugin-istanbul, as it drives istanbul-lib-instrument. */
const istanbul = ({ types }: { types: any }) => ({
  visitor: {
    Program: {
      enter(this: any, path: any) {
        this.visitor = programVisitor(types, 'find.js', { coverageVariable: '__coverage__' });
        this.visitor.enter(path);
      },
      exit(this: any, path: any) {
        this.visitor.exit(path);
      },
    },
  },
});

const SOURCE = `function find(list, x) {
  for (const v of list) {
    if (v === x) return true;
  }
  return false;
}
const unused = (v) => v + 1;
const used = (v) => v * 2;
find([1, 2], 2);
used(3);
`;

/** Statements, functions and branches by line, with how often each ran. */
function coverage(code: string) {
  const sandbox: any = {};
  vm.runInNewContext(code, sandbox);
  const file: any = Object.values(sandbox.__coverage__)[0];
  const byLine = (map: Record<string, any>, counts: Record<string, unknown>, start: (entry: any) => any) =>
    Object.entries(map)
      .map(([id, entry]) => [start(entry).line, start(entry).column, counts[id]])
      .sort((a: any, b: any) => a[0] - b[0] || a[1] - b[1]);
  return {
    statements: byLine(file.statementMap, file.s, (loc) => loc.start),
    functions: byLine(file.fnMap, file.f, (fn) => fn.loc.start),
    branches: byLine(file.branchMap, file.b, (branch) => branch.loc.start),
  };
}

test.each([{}, { threshold: 1 }, { threshold: 1, loops: true }])('with jsprof %p first, istanbul counts the same statements, functions and branches, run as often', (options) => {
  const without = coverage(plain(SOURCE, { plugins: [istanbul] }));
  // Before: the uncovered `return false` (line 5) and the unused arrow's body (line 7) were not counted at all.
  expect(without.statements.map(([line, , count]) => [line, count])).toEqual(expect.arrayContaining([[5, 0], [7, 0]]));
  expect(coverage(instrument(SOURCE, options, { plugins: [istanbul] }).code)).toEqual(without);
});

test('with istanbul listed first, the checks go where the source says, and istanbul counts the same', () => {
  const classifier = `function kind(c) {
  if (c < 48) return 'low';
  if (c < 58) return 'digit';
  return 'high';
}
kind(50);
`;
  const source = SOURCE + classifier;
  const istanbulFirst = transformSync(source, { babelrc: false, configFile: false, plugins: [istanbul, [plugin, { threshold: 2 }]] })!;
  const jsprofFirst = instrument(source, { threshold: 2 });
  // The guard clauses count nothing: kind runs 1 statement, and gets no checks either way.
  expect((istanbulFirst.metadata as any).jsprof.functions).toEqual(jsprofFirst.jsprof.functions);
  expect(jsprofFirst.jsprof.functions.find((f: any) => f.name === 'kind')).toMatchObject({ instrumented: false });
  expect(coverage(istanbulFirst.code!)).toEqual(coverage(plain(source, { plugins: [istanbul] })));
});
