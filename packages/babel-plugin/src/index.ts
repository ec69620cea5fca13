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
  CHECK_SOURCE,
  instrumentedProtocol,
  ENTRY_CHECK_SOURCE,
  EXIT_CHECK_SOURCE,
  ExitReturn,
  exitCheckSource,
  FunctionRecord,
  LineIndex,
  PolicyOptions,
  RETURN_VALUE_ID,
  ecmaScriptName,
  functionName,
  normalizeOptions,
  needsPrelude,
  planFunction,
  preludeSource,
  protocolWarning,
  shouldInstrumentFile,
  shouldInstrumentFunction,
  suspensionCheckSource,
  v8FunctionStart,
} from '@jsprof/policy';

export interface JsprofMetadata {
  /** Every function of the file, sorted by start, in the coordinates of the code Babel parsed. */
  functions: FunctionRecord[];
  /** How many of them (and of the class static blocks) got checks in this pass. */
  instrumented: number;
  /** False when the file was left alone (excluded, instrumented already, or nothing above the threshold). */
  changed: boolean;
  /** The protocol of the checks the file already carried (see @jsprof/policy's instrumentedProtocol), or null. */
  protocol: number | null;
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
    suspension: (slot, asStatement) => (asStatement ? api.template.statement : api.template.expression).ast(suspensionCheckSource(slot, asStatement)),
  };
  const prelude = (isModule: boolean): any[] => api.template.statements.ast(preludeSource(options, isModule));

  return {
    name: '@jsprof/babel-plugin',
    // Before the traversal every plugin's visitors share: the file as written, whatever the order
    // of plugins (one listed first that works in its Program visitor, as babel-plugin-istanbul
    // does, would otherwise have added statements to every function's count).
    pre(this: { filename?: string }, file: any) {
      // Listed twice (in a preset and in plugins, say): the first one listed runs, once.
      if (file.metadata.jsprof) return;
      const program: NodePath = file.path;
      const src: string = file.code ?? '';
      const protocol = instrumentedProtocol(src);
      const metadata: JsprofMetadata = { functions: [], instrumented: 0, changed: false, protocol };
      file.metadata.jsprof = metadata;
      const lines = new LineIndex(src);
      const isModule = program.node.sourceType === 'module';
      // Babel has no warnings of its own for plugins to add to: the build's log gets it.
      const warning = protocolWarning(this.filename ?? 'a file', protocol);
      if (warning) console.warn(`jsprof: ${warning}`);
      // Files left alone still list their functions: tools name frames with them.
      const enabled = shouldInstrumentFile(options, this.filename) && protocol === null;
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
      // Declarations now in labelled bodies: the plugins after this one must find them there, not in
      // the function's scope (where preset-env's block scoping renamed them, past a direct eval).
      program.scope.crawl();
      metadata.instrumented = toInstrument.length;
      metadata.changed = true;
    },
    visitor: {},
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
  suspension: (slot: number, asStatement: boolean) => any;
}

/** Applies @jsprof/policy's plan for the function (plan.ts) to its Babel nodes. */
function instrument(path: NodePath, src: string, t: Types, checks: Checks, options: PolicyOptions) {
  const node = path.node;
  const plan = planFunction(src, node, options);
  const exitCheck = (returns: ExitReturn) => checks.exit(plan.hasOwnLoops, returns, plan.slot);
  const value = () => t.identifier(RETURN_VALUE_ID);
  if (plan.loopChecks) {
    for (const loop of plan.loops) loop.body = t.blockStatement(loop.body.type === 'BlockStatement' ? [checks.loop(), ...loop.body.body] : [checks.loop(), loop.body]);
  }
  // The program's own code in new statements keeps its place (loc): a coverage tool after this plugin
  // (babel-jest puts istanbul last) counts them, and passes over the checks, which have none.
  const at = <N extends { loc?: unknown }>(statement: N, original: { loc?: unknown }): N => Object.assign(statement, { loc: original.loc });
  if (plan.kind === 'expression') {
    const expression = node.body;
    const body = plan.keepsValue
      ? [at(t.variableDeclaration('let', [at(t.variableDeclarator(value(), expression), expression)]), expression), exitCheck('value'), t.returnStatement(value())]
      : [at(t.returnStatement(expression), expression)];
    node.body = at(t.blockStatement([checks.entry(), ...body]), expression);
    node.expression = false;
    return;
  }
  // Around an `await` (before the body is rebuilt: the statements in front of it are counted).
  const around = new Set(plan.suspensions.filter((s) => !s.statement).map((s) => s.node));
  if (around.size > 0) {
    path.traverse({
      'AwaitExpression|YieldExpression'(at: NodePath) {
        if (around.delete(at.node)) at.replaceWith(t.sequenceExpression([checks.suspension(plan.slot, false), at.node]));
      },
    });
  }
  // Directives ("use strict") live in `block.directives` and stay first.
  const block = node.type === 'StaticBlock' ? node : node.body;
  if (plan.exit === 'value') {
    const returns = new Set(plan.returns);
    path.traverse({
      ReturnStatement(ret: NodePath) {
        if (!returns.has(ret.node)) return;
        const argument = ret.node.argument ?? t.unaryExpression('void', t.numericLiteral(0));
        ret.replaceWith(t.blockStatement([at(t.expressionStatement(t.assignmentExpression('=', value(), argument)), ret.node), t.breakStatement(t.identifier(BODY_LABEL))]));
      },
    });
  }
  // Read after the returns were replaced: a `return` may be a statement of the body itself.
  const prefix = block.body.slice(0, plan.entryAfter);
  let rest = block.body.slice(plan.entryAfter);
  if (plan.exit === 'value') {
    const labelled = t.labeledStatement(t.identifier(BODY_LABEL), t.blockStatement(rest.filter((st: any) => !plan.hoisted.includes(st))));
    rest = [...plan.hoisted, t.variableDeclaration('let', [t.variableDeclarator(value())]), labelled, exitCheck('value'), t.returnStatement(value())];
  } else if (plan.exit !== null) {
    rest = [...rest, exitCheck(plan.exit)];
  }
  block.body = [...prefix, checks.entry(), ...rest];
  // Before a statement an `await` starts (after the body is rebuilt, which counts its statements).
  const before = new Set(plan.suspensions.filter((s) => s.statement).map((s) => s.statement));
  if (before.size > 0) {
    path.traverse({
      ExpressionStatement(statement: NodePath) {
        if (before.delete(statement.node)) statement.insertBefore(checks.suspension(plan.slot, true));
      },
    });
  }
}

export { CHECK_SOURCE, ENTRY_CHECK_SOURCE, EXIT_CHECK_SOURCE };
