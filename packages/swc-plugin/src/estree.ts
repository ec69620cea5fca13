/**
 * SWC's AST (from `@swc/core`'s `parseSync`) as the ESTree that acorn gives for the same code, which
 * `@jsprof/estree-instrument` and the policy read: node types and fields renamed, spans (1-based
 * UTF-8 byte offsets, counted without a leading BOM) turned into UTF-16 offsets into the code,
 * directives marked, parentheses dropped. Every node SWC 1.16 produces for ECMAScript has a rule;
 * an unknown one (from a newer SWC) keeps its type and has its children converted, so functions
 * nested anywhere are still found.
 */
import { JsSyntaxError, TooDeeplyNestedError } from '@jsprof/estree-instrument';
import { LineIndex, skipTrivia } from '@jsprof/policy';

type Swc = { type: string; span?: Span; [key: string]: any };
type Span = { start: number; end: number };
export type EstreeNode = { type: string; start: number; end: number; [key: string]: any };

/** Byte offset (as SWC counts it) → UTF-16 index into `code`. */
function offsetConverter(code: string): (byte: number) => number {
  const bom = code.charCodeAt(0) === 0xfeff ? 1 : 0;
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(code.slice(bom))) return (byte) => byte - 1 + bom;
  const table = new Uint32Array(Buffer.byteLength(code) + 2);
  let byte = 0;
  for (let i = bom; i < code.length; i++) {
    const c = code.codePointAt(i)!;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    for (let k = 0; k < size; k++) table[byte + k] = i;
    byte += size;
    if (c >= 0x10000) i++;
  }
  table[byte] = code.length;
  return (b) => table[Math.min(b - 1, byte)];
}

/**
 * Where a node really starts: SWC starts the first token after an HTML-like comment (`<!--`, or
 * `-->` at the start of a line) where the comment starts. No node starts with either.
 */
function afterHtmlComments(code: string, at: number): number {
  while (code.startsWith('<!--', at) || code.startsWith('-->', at)) {
    while (at < code.length && !/[\n\r\u2028\u2029]/.test(code[at])) at++;
    at = skipTrivia(code, at);
  }
  return at;
}

const LOGICAL_OPERATORS = new Set(['&&', '||', '??']);

/**
 * The value of a string literal's or template's text, escapes and line continuations read: SWC's own
 * value spells lone surrogates, and backslashes before a `u`, as escapes.
 */
function unescapeText(text: string): string {
  const escapes: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
  return text.replace(/\\(?:u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|([0-7]{1,3})|(\r\n|[\n\r\u2028\u2029])|(.))/gs, (_, codePoint, unit, hex, octal, lineBreak, other) => {
    if (codePoint) return String.fromCodePoint(parseInt(codePoint, 16));
    if (unit || hex) return String.fromCharCode(parseInt(unit || hex, 16));
    if (octal) {
      // A legacy octal escape takes at most the digits that keep it under 256.
      const digits = parseInt(octal, 8) > 255 ? octal.slice(0, 2) : octal;
      return String.fromCharCode(parseInt(digits, 8)) + octal.slice(digits.length);
    }
    if (lineBreak) return '';
    return escapes[other] ?? other;
  });
}

/** Throws a TooDeeplyNestedError, at the deepest node, where the tree nests too deeply for the stack. */
export function toEstree(program: Swc, code: string, filename = ''): EstreeNode {
  const at = offsetConverter(code);
  const startOf = (span: Span) => afterHtmlComments(code, at(span.start));
  const pos = (n: Swc) => ({ start: startOf(n.span!), end: at(n.span!.end) });
  const make = (type: string, where: { start: number; end: number }, fields: object): EstreeNode => ({ type, start: where.start, end: where.end, ...fields });

  const list = (items: (Swc | null)[] | undefined | null): any[] => (items ?? []).map((i) => (i ? convert(i) : null));
  const opt = (n: Swc | null | undefined) => (n ? convert(n) : null);

  /** A body's statements, with a leading run of string-literal expression statements marked as directives. */
  const statements = (stmts: Swc[]): EstreeNode[] => {
    let prologue = true;
    return stmts.map((s) => {
      const node = convert(s);
      if (prologue && s.type === 'ExpressionStatement' && s.expression.type === 'StringLiteral') {
        node.directive = code.slice(node.expression.start + 1, node.expression.end - 1);
      } else {
        prologue = false;
      }
      return node;
    });
  };

  /** A property or member key, in ESTree's two fields. */
  const key = (k: Swc) => (k.type === 'Computed' ? { computed: true, key: convert(k.expression) } : { computed: false, key: convert(k) });

  const params = (ps: Swc[] = []) => ps.map((p) => convert(p.type === 'Parameter' ? p.pat : p));

  const functionFields = (f: Swc) => ({
    id: opt(f.identifier),
    expression: false,
    generator: !!f.generator,
    async: !!f.async,
    params: params(f.params),
    body: convert(f.body),
  });

  /** The function of a method, starting at its parameter list as ESTree's does. */
  const methodFunction = (f: Swc, k: Swc): EstreeNode => {
    const from = skipTrivia(code, at(k.span!.end));
    const open = code[from] === '(' ? from : code.indexOf('(', from);
    return make('FunctionExpression', { start: open, end: at(f.span!.end) }, functionFields(f));
  };

  const spread = (from: Span, argument: Swc) => make('SpreadElement', { start: startOf(from), end: at(argument.span!.end) }, { argument: convert(argument) });

  /** An element of an array or an argument list: `{ spread, expression }`. */
  const element = (e: Swc | null) => (!e ? null : e.spread ? spread(e.spread, e.expression) : convert(e.expression));

  /** An import's or export's `with { … }` clause. */
  const attributes = (w: Swc | null) =>
    (w?.properties ?? []).map((p: Swc) => make('ImportAttribute', { start: startOf(p.key.span), end: at(p.value.span.end) }, { key: convert(p.key), value: convert(p.value) }));

  /** One link of an optional chain (SWC wraps each, ESTree only the whole chain). */
  const chainLink = (n: Swc): EstreeNode => {
    if (n.type !== 'OptionalChainingExpression') return convert(n);
    const base = n.base;
    if (base.type === 'CallExpression') {
      return make('CallExpression', pos(base), { callee: chainLink(base.callee), arguments: base.arguments.map(element), optional: n.optional });
    }
    return make('MemberExpression', pos(base), { object: chainLink(base.object), ...member(base.property), optional: n.optional });
  };

  const member = (property: Swc) =>
    property.type === 'Computed' ? { property: convert(property.expression), computed: true } : { property: convert(property), computed: false };

  const classNode = (n: Swc, type: string) => {
    const from = n.superClass ? at(n.superClass.span.end) : n.identifier ? at(n.identifier.span.end) : startOf(n.span!) + 'class'.length;
    const body = make('ClassBody', { start: skipTrivia(code, from), end: at(n.span!.end) }, { body: list(n.body.filter((m: Swc) => m.type !== 'EmptyStatement')) });
    return make(type, pos(n), { id: opt(n.identifier), superClass: opt(n.superClass), body });
  };

  /** `{ a }` and `{ a = 1 }`: key and value are separate nodes, as acorn makes them. */
  const shorthand = (where: { start: number; end: number }, id: Swc, init: Swc | null) => {
    const value = init ? make('AssignmentPattern', { start: startOf(id.span!), end: at(init.span!.end) }, { left: convert(id), right: convert(init) }) : convert(id);
    return make('Property', where, { method: false, shorthand: true, computed: false, key: convert(id), value, kind: 'init' });
  };

  const keyValue = (n: Swc) =>
    make('Property', { start: startOf(n.key.span), end: at(n.value.span.end) }, { method: false, shorthand: false, ...key(n.key), value: convert(n.value), kind: 'init' });

  const metaProperty = (n: Swc) => {
    const { start, end } = pos(n);
    const [meta, property] = n.kind.split('.');
    const id = (name: string, from: number) => make('Identifier', { start: from, end: from + name.length }, { name });
    return make('MetaProperty', { start, end }, { meta: id(meta, start), property: id(property, end - property.length) });
  };

  let deepest = program; // the last node with a span entered: where the stack ran out, if it does
  const convert = (n: Swc): any => {
    if (n.span) deepest = n;
    switch (n.type) {
      case 'Module':
      case 'Script':
        return make('Program', { start: 0, end: code.length }, { body: statements(n.body), sourceType: n.type === 'Module' ? 'module' : 'script' });

      // Statements
      case 'ExpressionStatement': {
        const where = pos(n);
        // SWC reads `let [` at a statement's start as a member expression, which the grammar forbids
        // there; a loop check's braces around it would make the file valid (test262).
        if (code.startsWith('let', where.start) && code[skipTrivia(code, where.start + 3)] === '[') {
          const { line, column } = new LineIndex(code).position(where.start);
          throw new JsSyntaxError(filename, line, column, 'a statement cannot start with `let [`');
        }
        return make(n.type, where, { expression: convert(n.expression) });
      }
      case 'BlockStatement':
        return make(n.type, pos(n), { body: list(n.stmts) });
      case 'FunctionBody':
        return make('BlockStatement', pos(n), { body: statements(n.stmts) });
      case 'EmptyStatement':
      case 'DebuggerStatement':
      case 'ThisExpression':
      case 'Super':
        return make(n.type, pos(n), {});
      case 'WithStatement':
        return make(n.type, pos(n), { object: convert(n.object), body: convert(n.body) });
      case 'ReturnStatement':
      case 'ThrowStatement':
        return make(n.type, pos(n), { argument: opt(n.argument) });
      case 'LabeledStatement':
        return make(n.type, pos(n), { body: convert(n.body), label: convert(n.label) });
      case 'BreakStatement':
      case 'ContinueStatement':
        return make(n.type, pos(n), { label: opt(n.label) });
      case 'IfStatement':
        return make(n.type, pos(n), { test: convert(n.test), consequent: convert(n.consequent), alternate: opt(n.alternate) });
      case 'SwitchStatement':
        return make(n.type, pos(n), { discriminant: convert(n.discriminant), cases: list(n.cases) });
      case 'SwitchCase':
        return make(n.type, pos(n), { consequent: list(n.consequent), test: opt(n.test) });
      case 'TryStatement':
        return make(n.type, pos(n), { block: convert(n.block), handler: opt(n.handler), finalizer: opt(n.finalizer) });
      case 'CatchClause':
        return make(n.type, pos(n), { param: opt(n.param), body: convert(n.body) });
      case 'WhileStatement':
      case 'DoWhileStatement':
        return make(n.type, pos(n), { test: convert(n.test), body: convert(n.body) });
      case 'ForStatement':
        return make(n.type, pos(n), { init: opt(n.init), test: opt(n.test), update: opt(n.update), body: convert(n.body) });
      case 'ForInStatement':
        return make(n.type, pos(n), { left: convert(n.left), right: convert(n.right), body: convert(n.body) });
      case 'ForOfStatement':
        return make(n.type, pos(n), { await: !!n.await, left: convert(n.left), right: convert(n.right), body: convert(n.body) });
      case 'VariableDeclaration':
        return make(n.type, pos(n), { declarations: list(n.declarations), kind: n.kind });
      case 'UsingDeclaration':
        return make('VariableDeclaration', pos(n), { declarations: list(n.decls), kind: n.isAwait ? 'await using' : 'using' });
      case 'VariableDeclarator':
        // Starting at its binding: SWC starts a `using` declaration's first one at `using`.
        return make(n.type, { start: startOf(n.id.span), end: at(n.span!.end) }, { id: convert(n.id), init: opt(n.init) });

      // Functions and classes
      case 'FunctionDeclaration':
      case 'FunctionExpression':
        return make(n.type, pos(n), functionFields(n));
      case 'ArrowFunctionExpression': {
        const expression = n.body.type !== 'BlockStatement' && n.body.type !== 'FunctionBody';
        return make(n.type, pos(n), { id: null, expression, generator: false, async: !!n.async, params: params(n.params), body: convert(n.body) });
      }
      case 'ClassDeclaration':
      case 'ClassExpression':
        return classNode(n, n.type);
      case 'Constructor':
        return make('MethodDefinition', pos(n), { static: false, ...key(n.key), kind: 'constructor', value: methodFunction(n, n.key) });
      case 'ClassMethod':
      case 'PrivateMethod': {
        const kind = n.kind === 'getter' ? 'get' : n.kind === 'setter' ? 'set' : 'method';
        return make('MethodDefinition', pos(n), { static: !!n.isStatic, ...key(n.key), kind, value: methodFunction(n.function, n.key) });
      }
      case 'ClassProperty':
      case 'PrivateProperty':
        return make('PropertyDefinition', pos(n), { static: !!n.isStatic, ...key(n.key), value: opt(n.value) });
      case 'AutoAccessor':
        return make('AccessorProperty', pos(n), { static: !!n.isStatic, ...key(n.key), value: opt(n.value) });
      case 'StaticBlock':
        return make(n.type, pos(n), { body: list(n.body.stmts) });

      // Objects and patterns
      case 'ObjectExpression':
        return make(n.type, pos(n), { properties: n.properties.map((p: Swc) => (p.type === 'Identifier' ? shorthand(pos(p), p, null) : convert(p))) });
      case 'SpreadElement':
        return spread(n.spread, n.arguments);
      case 'KeyValueProperty':
      case 'KeyValuePatternProperty':
        return keyValue(n);
      case 'AssignmentProperty':
      case 'AssignmentPatternProperty':
        return shorthand(pos(n), n.key, n.value);
      case 'MethodProperty':
        return make('Property', pos(n), { method: true, shorthand: false, ...key(n.key), kind: 'init', value: methodFunction(n, n.key) });
      case 'GetterProperty':
      case 'SetterProperty':
        return make('Property', pos(n), { method: false, shorthand: false, ...key(n.key), kind: n.type === 'GetterProperty' ? 'get' : 'set', value: methodFunction(n.function, n.key) });
      case 'ObjectPattern':
        return make(n.type, pos(n), { properties: list(n.properties) });
      case 'ArrayPattern':
        return make(n.type, pos(n), { elements: list(n.elements) });
      case 'ArrayExpression':
        return make(n.type, pos(n), { elements: n.elements.map(element) });
      case 'RestElement':
        // From its `...`: SWC's own span of one in an array assignment pattern starts at its argument.
        return make(n.type, { start: startOf(n.rest), end: at(n.span!.end) }, { argument: convert(n.argument) });
      case 'AssignmentPattern':
        return make(n.type, pos(n), { left: convert(n.left), right: convert(n.right) });

      // Names and literals
      case 'Identifier':
        return make(n.type, pos(n), { name: n.value });
      case 'PrivateName':
        return make('PrivateIdentifier', pos(n), { name: n.value });
      case 'StringLiteral': {
        const where = pos(n);
        const raw = code.slice(where.start, where.end);
        return make('Literal', where, { value: raw.includes('\\') ? unescapeText(raw.slice(1, -1)) : n.value, raw });
      }
      case 'NumericLiteral': {
        const where = pos(n);
        const raw = code.slice(where.start, where.end);
        // SWC's JSON has no Infinity: a literal too large for a double comes as null.
        return make('Literal', where, { value: n.value ?? Infinity, raw });
      }
      case 'BooleanLiteral':
      case 'NullLiteral': {
        const where = pos(n);
        return make('Literal', where, { value: n.type === 'NullLiteral' ? null : n.value, raw: code.slice(where.start, where.end) });
      }
      case 'BigIntLiteral': {
        const where = pos(n);
        const raw = code.slice(where.start, where.end);
        const value = BigInt(raw.slice(0, -1).replace(/_/g, ''));
        return make('Literal', where, { value, raw, bigint: value.toString() });
      }
      case 'RegExpLiteral': {
        const where = pos(n);
        let value: RegExp | null = null;
        try {
          value = new RegExp(n.pattern, n.flags);
        } catch {
          // flags this engine does not know: ESTree's value is null
        }
        return make('Literal', where, { value, raw: code.slice(where.start, where.end), regex: { pattern: n.pattern, flags: n.flags } });
      }
      case 'TemplateLiteral':
        return make(n.type, pos(n), { expressions: list(n.expressions), quasis: list(n.quasis) });
      case 'TemplateElement': {
        // Its text may start with `<!--`: no HTML-like comment there.
        const raw = n.raw.replace(/\r\n?/g, '\n');
        const cooked = n.cooked !== null && raw.includes('\\') ? unescapeText(raw) : n.cooked;
        return make(n.type, { start: at(n.span!.start), end: at(n.span!.end) }, { value: { raw, cooked }, tail: n.tail });
      }

      // Expressions
      case 'ParenthesisExpression':
        return convert(n.expression);
      case 'UnaryExpression':
        return make(n.type, pos(n), { operator: n.operator, prefix: true, argument: convert(n.argument) });
      case 'UpdateExpression':
        return make(n.type, pos(n), { operator: n.operator, prefix: n.prefix, argument: convert(n.argument) });
      case 'BinaryExpression':
        return make(LOGICAL_OPERATORS.has(n.operator) ? 'LogicalExpression' : 'BinaryExpression', pos(n), { left: convert(n.left), operator: n.operator, right: convert(n.right) });
      case 'AssignmentExpression':
        return make(n.type, pos(n), { operator: n.operator, left: convert(n.left), right: convert(n.right) });
      case 'ConditionalExpression':
        return make(n.type, pos(n), { test: convert(n.test), consequent: convert(n.consequent), alternate: convert(n.alternate) });
      case 'SequenceExpression':
        return make(n.type, pos(n), { expressions: list(n.expressions) });
      case 'YieldExpression':
        return make(n.type, pos(n), { delegate: !!n.delegate, argument: opt(n.argument) });
      case 'AwaitExpression':
        return make(n.type, pos(n), { argument: convert(n.argument) });
      case 'CallExpression':
        if (n.callee.type === 'Import') {
          const [source, options] = n.arguments.map(element);
          return make('ImportExpression', pos(n), { source, options: options ?? null });
        }
        return make(n.type, pos(n), { callee: convert(n.callee), arguments: n.arguments.map(element), optional: false });
      case 'NewExpression':
        return make(n.type, pos(n), { callee: convert(n.callee), arguments: (n.arguments ?? []).map(element) });
      case 'MemberExpression':
        return make(n.type, pos(n), { object: convert(n.object), ...member(n.property), optional: false });
      case 'SuperPropExpression':
        return make('MemberExpression', pos(n), { object: convert(n.obj), ...member(n.property), optional: false });
      case 'OptionalChainingExpression':
        return make('ChainExpression', pos(n), { expression: chainLink(n) });
      case 'TaggedTemplateExpression':
        return make(n.type, pos(n), { tag: convert(n.tag), quasi: convert(n.template) });
      case 'MetaProperty':
        return metaProperty(n);

      // Modules
      case 'ImportDeclaration':
        return make(n.type, pos(n), { specifiers: list(n.specifiers), source: convert(n.source), attributes: attributes(n.with) });
      case 'ImportSpecifier':
        return make(n.type, pos(n), { imported: convert(n.imported ?? n.local), local: convert(n.local) });
      case 'ImportDefaultSpecifier':
      case 'ImportNamespaceSpecifier':
        return make(n.type, pos(n), { local: convert(n.local) });
      case 'ExportDeclaration':
        return make('ExportNamedDeclaration', pos(n), { declaration: convert(n.declaration), specifiers: [], source: null, attributes: [] });
      case 'ExportNamedDeclaration': {
        const all = n.specifiers.find((s: Swc) => s.type === 'ExportNamespaceSpecifier');
        if (all) return make('ExportAllDeclaration', pos(n), { exported: convert(all.name), source: convert(n.source), attributes: attributes(n.with) });
        return make(n.type, pos(n), { declaration: null, specifiers: list(n.specifiers), source: opt(n.source), attributes: attributes(n.with) });
      }
      case 'ExportSpecifier':
        return make(n.type, pos(n), { local: convert(n.orig), exported: convert(n.exported ?? n.orig) });
      case 'ExportAllDeclaration':
        return make(n.type, pos(n), { exported: null, source: convert(n.source), attributes: attributes(n.with) });
      case 'ExportDefaultDeclaration': {
        const declaration = convert(n.decl);
        declaration.type = declaration.type === 'ClassExpression' ? 'ClassDeclaration' : 'FunctionDeclaration';
        return make(n.type, pos(n), { declaration });
      }
      case 'ExportDefaultExpression':
        return make('ExportDefaultDeclaration', pos(n), { declaration: convert(n.expression) });

      default:
        return generic(n);
    }
  };

  /** An unknown node: the same fields, children converted. */
  const generic = (n: Swc): EstreeNode => {
    const out: any = { type: n.type, ...(n.span ? pos(n) : {}) };
    for (const [k, v] of Object.entries(n)) {
      if (k === 'type' || k === 'span' || k === 'ctxt') continue;
      if (Array.isArray(v)) out[k] = v.map((x) => (x && typeof x.type === 'string' ? convert(x) : x && typeof x === 'object' && 'expression' in x ? element(x) : x));
      else out[k] = v && typeof v.type === 'string' ? convert(v) : v;
    }
    return out;
  };

  try {
    return convert(program);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const { line, column } = new LineIndex(code).position(startOf(deepest.span!));
    throw new TooDeeplyNestedError(filename, line, column, 'the syntax tree nests too deeply here to convert; jsprof leaves the file as it is');
  }
}
