/**
 * `@jsprof/babel-plugin`: inserts jsprof's sampling checks, following `@jsprof/policy`.
 *
 *   plugins: [['@jsprof/babel-plugin', { threshold: 10 }]]
 *
 * It records every function of the file (name and start as V8 reports them) in
 * `file.metadata.jsprof`, so tools that run the output can name frames in the original file.
 * Written against `api.types` and `api.template` only, so it runs under Babel 7 and Babel 8.
 */
import {
  CHECK_SOURCE,
  ENTRY_CHECK_ID,
  ENTRY_CHECK_SOURCE,
  EXIT_CHECK_SOURCE,
  exitCheckSource,
  FunctionRecord,
  GLOBAL_PRELUDE_SOURCE,
  LineIndex,
  PolicyOptions,
  ecmaScriptName,
  functionName,
  importPreludeSource,
  normalizeOptions,
  requirePreludeSource,
  shouldInstrumentFile,
  shouldInstrumentFunction,
  v8FunctionStart,
} from '@jsprof/policy';

export interface JsprofMetadata {
  /** Every function of the file, sorted by start, in the coordinates of the code Babel parsed. */
  functions: FunctionRecord[];
  /** How many of them (and of the class static blocks) got checks in this pass. */
  instrumented: number;
  /** False when the file was left alone (excluded, instrumented already, or nothing above the threshold). */
  changed: boolean;
}

type Types = any;
type NodePath = any;

export default function jsprofBabelPlugin(api: any, rawOptions: unknown) {
  api.assertVersion('^7.0.0 || ^8.0.0');
  const options = normalizeOptions(rawOptions);
  const t: Types = api.types;
  // Parsed once from the policy's texts, so every front end inserts exactly the same code.
  const entryCheckNode = api.template.statement.ast(ENTRY_CHECK_SOURCE);
  const loopingExitCheckNode = api.template.statement.ast(exitCheckSource(true));
  const checkNode = api.template.statement.ast(CHECK_SOURCE);
  const checks: Checks = {
    entry: () => t.cloneNode(entryCheckNode, true, true),
    exit: (hasOwnLoops) => t.cloneNode(hasOwnLoops ? loopingExitCheckNode : checkNode, true, true),
    loop: () => t.cloneNode(checkNode, true, true),
  };
  const prelude = (isModule: boolean): any[] => {
    const source =
      options.runtime === 'global'
        ? GLOBAL_PRELUDE_SOURCE
        : isModule
          ? importPreludeSource(options.importSource)
          : requirePreludeSource(options.importSource);
    return api.template.statements.ast(source);
  };

  return {
    name: '@jsprof/babel-plugin',
    visitor: {
      Program(program: NodePath, state: any) {
        const metadata: JsprofMetadata = { functions: [], instrumented: 0, changed: false };
        state.file.metadata.jsprof = metadata;
        const src: string = state.file.code ?? '';
        const lines = new LineIndex(src);
        // Files left alone still list their functions: tools name frames with them.
        const enabled = shouldInstrumentFile(options, state.filename) && !program.scope.hasBinding(ENTRY_CHECK_ID);
        const toInstrument: NodePath[] = [];

        program.traverse({
          'Function|Class|StaticBlock'(path: NodePath) {
            const node = path.node;
            if (node.start == null) return; // inserted by another plugin: not in the source
            const instrument = enabled && !path.isClass() && shouldInstrumentFunction(node, options);
            if (instrument) toInstrument.push(path);
            // A class stands for its implicit constructor; static blocks are no function of their own.
            if (path.isClass() ? !node.body.body.some((m: any) => m.kind === 'constructor') : !path.isStaticBlock()) {
              metadata.functions.push(record(src, lines, node, ancestorsOf(path), instrument));
            }
          },
        });

        metadata.functions.sort((a, b) => a.start - b.start);
        if (toInstrument.length === 0) return;
        for (const path of toInstrument) instrument(path, t, checks, options);
        program.unshiftContainer('body', prelude(program.node.sourceType === 'module'));
        metadata.instrumented = toInstrument.length;
        metadata.changed = true;
      },
    },
  };
}

/** The nodes above a path, nearest first. */
function ancestorsOf(path: NodePath): any[] {
  const out: any[] = [];
  for (let p = path.parentPath; p; p = p.parentPath) out.push(p.node);
  return out;
}

function record(src: string, lines: LineIndex, node: any, ancestors: any[], instrumented: boolean): FunctionRecord {
  const at = v8FunctionStart(src, node);
  const { line, column } = lines.position(at < 0 ? node.start : at);
  return {
    start: node.start,
    end: node.end,
    bodyStart: node.body?.start ?? node.end,
    name: functionName(node, ancestors),
    ecmaName: ecmaScriptName(node, ancestors),
    line,
    column,
    instrumented,
  };
}

interface Checks {
  entry: () => any;
  exit: (hasOwnLoops: boolean) => any;
  loop: () => any;
}

/** Adds the entry check, the exit check and (with `loops`) a check at the top of every loop body. */
function instrument(path: NodePath, t: Types, checks: Checks, options: PolicyOptions) {
  const node = path.node;
  if (node.type === 'ArrowFunctionExpression' && node.body.type !== 'BlockStatement') {
    node.body = t.blockStatement([t.returnStatement(node.body)]);
    node.expression = false;
  }
  const loops = ownLoops(path);
  const exitCheck = options.exits ? checks.exit(loops.length > 0) : null;
  if (options.loops) addLoopChecks(loops, t, checks.loop);
  // Directives ("use strict") live in `block.directives` and stay first.
  const block = node.type === 'StaticBlock' ? node : node.body;
  block.body = [checks.entry(), ...(exitCheck ? withExitCheck(path, block.body, t, () => exitCheck) : block.body)];
}

/** The function's own loops (not those of nested functions or classes). */
function ownLoops(fnPath: NodePath): NodePath[] {
  const loops: NodePath[] = [];
  fnPath.traverse({
    Function(inner: NodePath) {
      inner.skip();
    },
    Class(inner: NodePath) {
      inner.skip();
    },
    Loop(loop: NodePath) {
      loops.push(loop);
    },
  });
  return loops;
}

/**
 * The body wrapped in `try { … } finally { check }`. Function declarations stay outside the `try`, at
 * the top, so they hoist exactly as before — unless the body declares let/const/class at its top
 * level, which declarations outside the `try` could not see. Then they move into the `try`, where a
 * block hoists them too, if a block may hold them; if not, the function gets no exit check.
 */
function withExitCheck(path: NodePath, statements: any[], t: Types, check: () => any): any[] {
  const wrap = (inside: any[]) => t.tryStatement(t.blockStatement(inside), null, t.blockStatement([check()]));
  const functions = statements.filter((s) => s.type === 'FunctionDeclaration');
  const others = statements.filter((s) => s.type !== 'FunctionDeclaration');
  if (functions.length === 0 || !others.some(isLexicalDeclaration)) return [...functions, wrap(others)];
  if (canMoveIntoBlock(path, functions)) return [wrap(statements)];
  return statements;
}

function isLexicalDeclaration(node: any): boolean {
  return (
    (node.type === 'VariableDeclaration' && node.kind !== 'var') ||
    node.type === 'ClassDeclaration' ||
    node.type === 'TSEnumDeclaration' ||
    node.type === 'TSModuleDeclaration'
  );
}

/**
 * Whether the body's function declarations keep their meaning inside a block: each name declared
 * once (a block rejects duplicates in strict code), and by no `var` or parameter (a block rejects
 * the first; sloppy `arguments` would stop seeing the second replaced by the function).
 */
function canMoveIntoBlock(path: NodePath, functions: any[]): boolean {
  const names = functions.map((f) => f.id.name);
  if (new Set(names).size !== names.length) return false;
  return names.every((name) => {
    const binding = path.scope.getOwnBinding(name);
    return (
      binding?.kind === 'hoisted' &&
      binding.constantViolations.every((v: NodePath) => !v.isVariableDeclarator() && !v.isFunctionDeclaration())
    );
  });
}

function addLoopChecks(loops: NodePath[], t: Types, check: () => any) {
  for (const loop of loops) {
    const body = loop.node.body;
    loop.node.body = t.blockStatement(body.type === 'BlockStatement' ? [check(), ...body.body] : [check(), body]);
  }
}

export { CHECK_SOURCE, ENTRY_CHECK_SOURCE, EXIT_CHECK_SOURCE };
