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
  BODY_LABEL,
  bodyEndReturn,
  CHECK_SOURCE,
  canKeepReturnValue,
  COUNTER_ID,
  ENTRY_CHECK_SOURCE,
  EXIT_CHECK_SOURCE,
  ExitReturn,
  guardPrefixLength,
  exitCheckSource,
  exitSlot,
  FunctionRecord,
  LineIndex,
  PolicyOptions,
  RETURN_VALUE_ID,
  ecmaScriptName,
  functionName,
  normalizeOptions,
  needsPrelude,
  preludeSource,
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
  const checkNode = api.template.statement.ast(CHECK_SOURCE);
  const exitCheckNodes = new Map<string, any>();
  const checks: Checks = {
    entry: () => t.cloneNode(entryCheckNode, true, true),
    exit: (hasOwnLoops, returns, slot) => {
      const source = exitCheckSource(hasOwnLoops, returns, slot);
      if (!exitCheckNodes.has(source)) exitCheckNodes.set(source, api.template.statement.ast(source));
      return t.cloneNode(exitCheckNodes.get(source), true, true);
    },
    loop: () => t.cloneNode(checkNode, true, true),
  };
  const prelude = (isModule: boolean): any[] => api.template.statements.ast(preludeSource(options, isModule));

  return {
    name: '@jsprof/babel-plugin',
    visitor: {
      Program(program: NodePath, state: any) {
        const metadata: JsprofMetadata = { functions: [], instrumented: 0, changed: false };
        state.file.metadata.jsprof = metadata;
        const src: string = state.file.code ?? '';
        const lines = new LineIndex(src);
        const isModule = program.node.sourceType === 'module';
        // Instrumented already: the prelude binds the counter, or a module's checks read it as a global.
        const instrumented = program.scope.hasBinding(COUNTER_ID) || (isModule && program.scope.hasGlobal(COUNTER_ID));
        // Files left alone still list their functions: tools name frames with them.
        const enabled = shouldInstrumentFile(options, state.filename) && !instrumented;
        const toInstrument: NodePath[] = [];

        program.traverse({
          'Function|Class|StaticBlock'(path: NodePath) {
            const node = path.node;
            if (node.start == null) return; // inserted by another plugin: not in the source
            const ancestors = ancestorsOf(path);
            const instrument = enabled && !path.isClass() && shouldInstrumentFunction(node, options, ancestors);
            if (instrument) toInstrument.push(path);
            // A class stands for its implicit constructor; static blocks are no function of their own.
            if (path.isClass() ? !node.body.body.some((m: any) => m.kind === 'constructor') : !path.isStaticBlock()) {
              metadata.functions.push(record(src, lines, node, ancestors, instrument));
            }
          },
        });

        metadata.functions.sort((a, b) => a.start - b.start);
        if (!enabled || !needsPrelude(options, isModule, toInstrument.length)) return;
        for (const path of toInstrument) instrument(path, src, t, checks, options);
        program.unshiftContainer('body', prelude(isModule));
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
  exit: (hasOwnLoops: boolean, returns: ExitReturn, slot: number) => any;
  loop: () => any;
}

/**
 * Adds the entry check (after the guard clauses the body starts with, if any), the exit check (last
 * in the body, after a labelled block where the function has `return`s: see @jsprof/policy's
 * check.ts) and (with `loops`) a check at the top of every loop body.
 */
function instrument(path: NodePath, src: string, t: Types, checks: Checks, options: PolicyOptions) {
  const node = path.node;
  const { loops, returns } = ownLoopsAndReturns(path);
  if (options.loops) addLoopChecks(loops, t, checks.loop);
  const hasOwnLoops = loops.length > 0;
  const exitCheck = (returnsAt: ExitReturn) => checks.exit(hasOwnLoops, returnsAt, exitSlot(src, node));
  if (node.type === 'ArrowFunctionExpression' && node.body.type !== 'BlockStatement') {
    // `a => expr` becomes `a => { entry; let r = expr; exit; return r; }`.
    const body = options.exits && canKeepReturnValue(node.body)
      ? [t.variableDeclaration('let', [t.variableDeclarator(t.identifier(RETURN_VALUE_ID), node.body)]), exitCheck('value'), t.returnStatement(t.identifier(RETURN_VALUE_ID))]
      : [t.returnStatement(node.body)];
    node.body = t.blockStatement([checks.entry(), ...body]);
    node.expression = false;
    return;
  }
  // Directives ("use strict") live in `block.directives` and stay first.
  const block = node.type === 'StaticBlock' ? node : node.body;
  // A call that leaves at one of the guard clauses the body starts with runs no check (@jsprof/policy).
  const prefix: any[] = block.body.slice(0, guardPrefixLength(block.body));
  const bodyReturns = returns.filter((ret) => !ret.findParent((parent: NodePath) => prefix.includes(parent.node)));
  let statements: any[] = block.body.slice(prefix.length);
  if (options.exits && bodyReturns.length === 0) statements = [...statements, exitCheck(bodyEndReturn(node))];
  else if (options.exits) statements = withLabelledBody(path, block, prefix.length, bodyReturns, t, exitCheck('value'));
  block.body = [...prefix, checks.entry(), ...statements];
}

/** The function's own loops, and its `return`s whose value the exit check may keep (not those of nested functions or classes). */
function ownLoopsAndReturns(fnPath: NodePath): { loops: NodePath[]; returns: NodePath[] } {
  const loops: NodePath[] = [];
  const returns: NodePath[] = [];
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
    ReturnStatement(ret: NodePath) {
      if (canKeepReturnValue(ret.node.argument)) returns.push(ret);
    },
  });
  return { loops, returns };
}

/**
 * The body in a labelled block whose `return`s break out of it to the exit check, which then
 * returns their value. Function declarations stay outside the block, at the top, so they hoist
 * exactly as before — unless the body declares let/const/class at its top level, which declarations
 * outside the block could not see. Then they move into the block, where it hoists them too, if a
 * block may hold them; if not, the function gets no exit check.
 */
function withLabelledBody(path: NodePath, block: any, from: number, returns: NodePath[], t: Types, exitCheck: any): any[] {
  const isFunction = (s: any) => s.type === 'FunctionDeclaration';
  const functions = block.body.slice(from).filter(isFunction);
  const outside = functions.length === 0 || !block.body.slice(from).some(isLexicalDeclaration);
  if (!outside && !canMoveIntoBlock(path, functions)) return block.body.slice(from);
  const value = () => t.identifier(RETURN_VALUE_ID);
  for (const ret of returns) {
    const argument = ret.node.argument ?? t.unaryExpression('void', t.numericLiteral(0));
    ret.replaceWith(t.blockStatement([t.expressionStatement(t.assignmentExpression('=', value(), argument)), t.breakStatement(t.identifier(BODY_LABEL))]));
  }
  const statements: any[] = block.body.slice(from);
  const others = statements.filter((s) => !isFunction(s));
  const labelled = [
    t.variableDeclaration('let', [t.variableDeclarator(value())]),
    t.labeledStatement(t.identifier(BODY_LABEL), t.blockStatement(outside ? others : statements)),
    exitCheck,
    t.returnStatement(value()),
  ];
  return outside ? [...functions, ...labelled] : labelled;
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
