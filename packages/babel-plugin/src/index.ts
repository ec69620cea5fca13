/**
 * `@jsprof/babel-plugin`: inserts jsprof's sampling checks, following `@jsprof/policy`.
 *
 *   plugins: [['@jsprof/babel-plugin', { threshold: 10 }]]
 *
 * It records every function of the file (name and start as V8 reports them) in
 * `file.metadata.jsprof`, so tools that run the output can name frames in the original file.
 */
import {
  CHECK_SOURCE,
  COUNTER_ID,
  FunctionRecord,
  HOOK_COUNTER,
  HOOK_SLOW_PATH,
  IMPORTED_COUNTER,
  IMPORTED_SLOW_PATH,
  LineIndex,
  PolicyOptions,
  RUNTIME_GLOBAL,
  SLOW_PATH_ID,
  countFunctionBody,
  countStatement,
  functionName,
  normalizeOptions,
  shouldInstrumentFile,
  v8FunctionStart,
} from '@jsprof/policy';

export interface JsprofMetadata {
  /** Every function of the file, sorted by start, in the coordinates of the code Babel parsed. */
  functions: FunctionRecord[];
  /** How many of them carry checks. */
  instrumented: number;
  /** False when the file was skipped (excluded, or instrumented already). */
  changed: boolean;
}

const REARM = 1073741824;

type Types = any;
type NodePath = any;

export default function jsprofBabelPlugin(api: any, rawOptions: unknown) {
  api.assertVersion('^7.0.0 || ^8.0.0');
  const options = normalizeOptions(rawOptions);
  const t: Types = api.types;
  const build = builders(t, options);

  return {
    name: '@jsprof/babel-plugin',
    visitor: {
      Program(program: NodePath, state: any) {
        const metadata: JsprofMetadata = { functions: [], instrumented: 0, changed: false };
        state.file.metadata.jsprof = metadata;
        if (!shouldInstrumentFile(options, state.filename)) return;
        if (program.scope.hasBinding(COUNTER_ID)) return;
        const src: string = state.file.code ?? '';
        const lines = new LineIndex(src);
        const toInstrument: NodePath[] = [];

        program.traverse({
          'Function|Class|StaticBlock'(path: NodePath) {
            const node = path.node;
            if (node.start == null) return;
            if (path.isClass()) {
              const hasConstructor = node.body.body.some((m: any) => m.kind === 'constructor');
              if (!hasConstructor) metadata.functions.push(record(src, lines, node, ancestorsOf(path), false));
              return;
            }
            const instrumented = isAboveThreshold(node, options.threshold);
            if (!path.isStaticBlock()) metadata.functions.push(record(src, lines, node, ancestorsOf(path), instrumented));
            if (instrumented) toInstrument.push(path);
          },
        });

        for (const path of toInstrument) instrument(path, t, build, options);
        metadata.instrumented = toInstrument.length;
        metadata.functions.sort((a, b) => a.start - b.start);
        if (toInstrument.length === 0) return;
        program.unshiftContainer('body', build.prelude(program.node.sourceType === 'module'));
        metadata.changed = true;
      },
    },
  };
}

function isAboveThreshold(node: any, threshold: number): boolean {
  const count = node.type === 'StaticBlock' ? countStatement(node) : countFunctionBody(node.body);
  return count >= threshold && count > 0;
}

function ancestorsOf(path: NodePath): any[] {
  const out: any[] = [];
  for (let p = path.parentPath; p && out.length < 4; p = p.parentPath) out.push(p.node);
  return out;
}

function record(src: string, lines: LineIndex, node: any, ancestors: any[], instrumented: boolean): FunctionRecord {
  const at = v8FunctionStart(src, node);
  const { line, column } = lines.position(at < 0 ? node.start : at);
  const body = node.type.startsWith('Class') && !node.type.includes('Method') ? node.body : node.body;
  return {
    start: node.start,
    end: node.end,
    bodyStart: body?.start ?? node.end,
    name: functionName(node, ancestors),
    line,
    column,
    instrumented,
  };
}

function builders(t: Types, options: PolicyOptions) {
  const counter = () => t.memberExpression(t.identifier(COUNTER_ID), t.numericLiteral(0), true);
  return {
    /** `--__jsprof$c[0] < 0 && __jsprof$s();` — see CHECK_SOURCE. */
    check() {
      return t.expressionStatement(
        t.logicalExpression(
          '&&',
          t.binaryExpression('<', t.updateExpression('--', counter(), true), t.numericLiteral(0)),
          t.callExpression(t.identifier(SLOW_PATH_ID), []),
        ),
      );
    },
    prelude(isModule: boolean): any[] {
      if (options.runtime === 'import') {
        if (isModule) {
          return [
            t.importDeclaration(
              [
                t.importSpecifier(t.identifier(COUNTER_ID), t.identifier(IMPORTED_COUNTER)),
                t.importSpecifier(t.identifier(SLOW_PATH_ID), t.identifier(IMPORTED_SLOW_PATH)),
              ],
              t.stringLiteral(options.importSource),
            ),
          ];
        }
        const required = t.callExpression(t.identifier('require'), [t.stringLiteral(options.importSource)]);
        return [
          t.variableDeclaration('var', [
            t.variableDeclarator(
              t.objectPattern([
                t.objectProperty(t.identifier(IMPORTED_COUNTER), t.identifier(COUNTER_ID)),
                t.objectProperty(t.identifier(IMPORTED_SLOW_PATH), t.identifier(SLOW_PATH_ID)),
              ]),
              required,
            ),
          ]),
        ];
      }
      // var __jsprof$c, __jsprof$s;
      // (function (h) { __jsprof$c = h.c; __jsprof$s = h.s; })(typeof __jsprof == "object" && __jsprof || stand-in);
      const h = t.identifier('h');
      const standIn = t.objectExpression([
        t.objectProperty(t.identifier(HOOK_COUNTER), t.arrayExpression([t.numericLiteral(REARM)])),
        t.objectProperty(
          t.identifier(HOOK_SLOW_PATH),
          t.functionExpression(
            null,
            [],
            t.blockStatement([t.expressionStatement(t.assignmentExpression('=', counter(), t.numericLiteral(REARM)))]),
          ),
        ),
      ]);
      const hook = t.logicalExpression(
        '||',
        t.logicalExpression(
          '&&',
          t.binaryExpression('==', t.unaryExpression('typeof', t.identifier(RUNTIME_GLOBAL)), t.stringLiteral('object')),
          t.identifier(RUNTIME_GLOBAL),
        ),
        standIn,
      );
      return [
        t.variableDeclaration('var', [t.variableDeclarator(t.identifier(COUNTER_ID)), t.variableDeclarator(t.identifier(SLOW_PATH_ID))]),
        t.expressionStatement(
          t.callExpression(
            t.functionExpression(
              null,
              [h],
              t.blockStatement([
                t.expressionStatement(t.assignmentExpression('=', t.identifier(COUNTER_ID), t.memberExpression(h, t.identifier(HOOK_COUNTER)))),
                t.expressionStatement(t.assignmentExpression('=', t.identifier(SLOW_PATH_ID), t.memberExpression(h, t.identifier(HOOK_SLOW_PATH)))),
              ]),
            ),
            [hook],
          ),
        ),
      ];
    },
  };
}

type Builders = ReturnType<typeof builders>;

function instrument(path: NodePath, t: Types, build: Builders, options: PolicyOptions) {
  const node = path.node;
  if (node.type === 'ArrowFunctionExpression' && node.body.type !== 'BlockStatement') {
    node.body = t.blockStatement([t.returnStatement(node.body)]);
    node.expression = false;
  }
  const block = node.type === 'StaticBlock' ? node : node.body;
  if (options.loops) addLoopChecks(path, t, build);
  let statements: any[] = block.body;
  if (options.exits && canWrapInBlock(path, statements)) {
    statements = [t.tryStatement(t.blockStatement(statements), null, t.blockStatement([build.check()]))];
  }
  block.body = [build.check(), ...statements];
}

/**
 * The body moves into `try { … } finally { check }` as it is: function declarations stay with the
 * `let`/`const` they may use, and are hoisted to the top of the block as they were to the top of
 * the body. A block only rejects what a body allows when a function declaration shares its name
 * with another function declaration or a `var`; such functions keep their entry check only.
 */
function canWrapInBlock(fnPath: NodePath, statements: any[]): boolean {
  const functionNames = statements.filter((s) => s.type === 'FunctionDeclaration' && s.id).map((s) => s.id.name as string);
  if (functionNames.length === 0) return true;
  if (new Set(functionNames).size !== functionNames.length) return false;
  const names = new Set(functionNames);
  let clash = false;
  fnPath.traverse({
    Function(inner: NodePath) {
      inner.skip();
    },
    VariableDeclaration(decl: NodePath) {
      if (decl.node.kind !== 'var') return;
      for (const name of Object.keys(decl.getBindingIdentifiers())) if (names.has(name)) clash = true;
    },
  });
  return !clash;
}

function addLoopChecks(fnPath: NodePath, t: Types, build: Builders) {
  fnPath.traverse({
    Function(inner: NodePath) {
      inner.skip();
    },
    Class(inner: NodePath) {
      inner.skip();
    },
    Loop(loop: NodePath) {
      const body = loop.node.body;
      loop.node.body = body.type === 'BlockStatement' ? t.blockStatement([build.check(), ...body.body], body.directives) : t.blockStatement([build.check(), body]);
    },
  });
}

export { CHECK_SOURCE };
