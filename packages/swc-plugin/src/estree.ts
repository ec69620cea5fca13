/**
 * SWC's AST (from `@swc/core`'s `parseSync`) as the ESTree that `@jsprof/estree-instrument` and the
 * policy read: node types and fields renamed, spans (1-based UTF-8 byte offsets, counted without a
 * leading BOM) turned into UTF-16 offsets into the code, directives marked, parentheses dropped (as
 * acorn drops them). Node types without a rule keep their type and have their children converted,
 * so functions nested anywhere are still found.
 */
import { skipTrivia } from '@jsprof/policy';

type Swc = { type: string; span?: { start: number; end: number }; [key: string]: any };
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

export function toEstree(program: Swc, code: string): EstreeNode {
  const at = offsetConverter(code);
  const pos = (n: Swc) => ({ start: at(n.span!.start), end: at(n.span!.end) });

  const list = (items: any[] | undefined | null): any[] => (items ?? []).map((i) => convert(i));
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

  const key = (k: Swc): { key: EstreeNode; computed: boolean } =>
    k.type === 'Computed' ? { key: convert(k.expression), computed: true } : { key: convert(k), computed: false };

  const fnFields = (f: Swc) => ({
    params: (f.params ?? []).map((p: Swc) => convert(p.type === 'Parameter' ? p.pat : p)),
    body: f.body ? functionBody(f.body) : null,
    async: !!f.async,
    generator: !!f.generator,
  });

  const functionBody = (b: Swc): EstreeNode => ({ type: 'BlockStatement', ...pos(b), body: statements(b.stmts) });

  /** The function of a method, starting at its parameter list as ESTree's does. */
  const methodFunction = (f: Swc, from: number): EstreeNode => {
    const end = at(f.span!.end);
    const next = skipTrivia(code, from);
    const open = code[next] === '(' ? next : code.indexOf('(', from);
    return { type: 'FunctionExpression', start: open, end, id: null, expression: false, ...fnFields(f) };
  };

  const convert = (n: Swc): any => {
    if (!n || typeof n !== 'object') return n;
    switch (n.type) {
      case 'Module':
      case 'Script':
        return { type: 'Program', start: 0, end: code.length, sourceType: n.type === 'Module' ? 'module' : 'script', body: statements(n.body) };
      case 'Identifier':
        return { type: 'Identifier', ...pos(n), name: n.value };
      case 'PrivateName':
        return { type: 'PrivateIdentifier', ...pos(n), name: n.value ?? n.id?.value };
      case 'StringLiteral':
      case 'NumericLiteral':
      case 'BooleanLiteral':
      case 'NullLiteral':
      case 'BigIntLiteral':
      case 'RegExpLiteral': {
        const node = pos(n);
        return { type: 'Literal', ...node, value: n.value ?? null, raw: code.slice(node.start, node.end) };
      }
      case 'ParenthesisExpression':
        return convert(n.expression);
      case 'BlockStatement':
        return { type: 'BlockStatement', ...pos(n), body: list(n.stmts) };
      case 'FunctionDeclaration':
        return { type: 'FunctionDeclaration', ...pos(n), id: opt(n.identifier), expression: false, ...fnFields(n) };
      case 'FunctionExpression':
        return { type: 'FunctionExpression', ...pos(n), id: opt(n.identifier), expression: false, ...fnFields(n) };
      case 'ArrowFunctionExpression': {
        const block = n.body.type === 'BlockStatement' || n.body.type === 'FunctionBody';
        return {
          type: 'ArrowFunctionExpression',
          ...pos(n),
          id: null,
          params: list(n.params),
          body: block ? functionBody(n.body) : convert(n.body),
          expression: !block,
          async: !!n.async,
          generator: false,
        };
      }
      case 'ClassDeclaration':
      case 'ClassExpression':
        return {
          type: n.type,
          ...pos(n),
          id: opt(n.identifier),
          superClass: opt(n.superClass),
          body: { type: 'ClassBody', ...pos(n), body: list(n.body) },
        };
      case 'Constructor': {
        const node = pos(n);
        return { type: 'MethodDefinition', ...node, kind: 'constructor', static: false, ...key(n.key), value: methodFunction(n, at(n.key.span.end)) };
      }
      case 'ClassMethod':
      case 'PrivateMethod': {
        const k = key(n.key);
        const kind = n.kind === 'getter' ? 'get' : n.kind === 'setter' ? 'set' : 'method';
        return { type: 'MethodDefinition', ...pos(n), kind, static: !!n.isStatic, ...k, value: methodFunction(n.function, at(n.key.span.end)) };
      }
      case 'ClassProperty':
      case 'PrivateProperty':
        return { type: 'PropertyDefinition', ...pos(n), static: !!n.isStatic, ...key(n.key), value: opt(n.value) };
      case 'StaticBlock':
        return { type: 'StaticBlock', ...pos(n), body: list(n.body.stmts) };
      case 'KeyValueProperty':
        return { type: 'Property', ...spanOf(n.key, n.value), kind: 'init', method: false, shorthand: false, ...key(n.key), value: convert(n.value) };
      case 'AssignmentProperty':
        return { type: 'Property', ...spanOf(n.key, n.value), kind: 'init', method: false, shorthand: false, key: convert(n.key), computed: false, value: convert(n.value) };
      case 'MethodProperty': {
        const k = key(n.key);
        return { type: 'Property', ...pos(n), kind: 'init', method: true, shorthand: false, ...k, value: methodFunction(n, at(n.key.span.end)) };
      }
      case 'GetterProperty':
      case 'SetterProperty': {
        const k = key(n.key);
        const fn = n.function ? { ...n.function, span: n.function.span ?? n.span } : { params: n.param ? [n.param] : [], body: n.body, span: n.span };
        return { type: 'Property', ...pos(n), kind: n.type === 'GetterProperty' ? 'get' : 'set', method: false, shorthand: false, ...k, value: methodFunction(fn, at(n.key.span.end)) };
      }
      case 'ObjectExpression':
        return { type: 'ObjectExpression', ...pos(n), properties: (n.properties ?? []).map((p: Swc) => (p.type === 'Identifier' ? shorthand(p) : convert(p))) };
      case 'SpreadElement':
        return { type: 'SpreadElement', ...pos(n), argument: convert(n.arguments) };
      case 'BinaryExpression':
        return { type: ['&&', '||', '??'].includes(n.operator) ? 'LogicalExpression' : 'BinaryExpression', ...pos(n), operator: n.operator, left: convert(n.left), right: convert(n.right) };
      case 'CallExpression':
      case 'NewExpression':
        return { type: n.type, ...pos(n), callee: convert(n.callee), arguments: (n.arguments ?? []).map(argument) };
      case 'MemberExpression':
      case 'SuperPropExpression': {
        const object = n.object ?? n.obj;
        const computed = n.property.type === 'Computed';
        return { type: 'MemberExpression', ...pos(n), object: object.type === 'Super' ? generic(object) : convert(object), property: convert(computed ? n.property.expression : n.property), computed };
      }
      case 'OptionalChainingExpression':
        return { type: 'ChainExpression', ...pos(n), expression: convert(n.base) };
      case 'OptionalCall':
        return { type: 'CallExpression', ...pos(n), callee: convert(n.callee), arguments: (n.arguments ?? []).map(argument), optional: true };
      case 'AssignmentExpression':
        return { type: 'AssignmentExpression', ...pos(n), operator: n.operator, left: convert(n.left), right: convert(n.right) };
      case 'VariableDeclaration':
        return { type: 'VariableDeclaration', ...pos(n), kind: n.kind, declarations: list(n.declarations) };
      case 'VariableDeclarator':
        return { type: 'VariableDeclarator', ...pos(n), id: convert(n.id), init: opt(n.init) };
      case 'ExportDefaultDeclaration': {
        const decl = n.decl;
        const declaration = convert(decl);
        if (declaration.type === 'FunctionExpression') declaration.type = 'FunctionDeclaration';
        if (declaration.type === 'ClassExpression') declaration.type = 'ClassDeclaration';
        return { type: 'ExportDefaultDeclaration', ...pos(n), declaration };
      }
      case 'ExportDefaultExpression':
        return { type: 'ExportDefaultDeclaration', ...pos(n), declaration: convert(n.expression) };
      case 'ExportDeclaration':
        return { type: 'ExportNamedDeclaration', ...pos(n), declaration: convert(n.declaration), specifiers: [] };
      case 'ForInStatement':
      case 'ForOfStatement':
        return { type: n.type, ...pos(n), left: convert(n.left), right: convert(n.right), body: convert(n.body), await: !!(n.await ?? n.isAwait) };
      case 'TryStatement':
        return { type: 'TryStatement', ...pos(n), block: convert(n.block), handler: opt(n.handler), finalizer: opt(n.finalizer) };
      case 'CatchClause':
        return { type: 'CatchClause', ...pos(n), param: opt(n.param), body: convert(n.body) };
      case 'ArrayExpression':
        return { type: 'ArrayExpression', ...pos(n), elements: (n.elements ?? []).map((e: Swc | null) => (e ? argument(e) : null)) };
      case 'TemplateLiteral':
        return { type: 'TemplateLiteral', ...pos(n), expressions: list(n.expressions), quasis: [] };
      case 'TaggedTemplateExpression':
        return { type: 'TaggedTemplateExpression', ...pos(n), tag: convert(n.tag), quasi: convert(n.template) };
      case 'AssignmentPattern':
        return { type: 'AssignmentPattern', ...pos(n), left: convert(n.left), right: convert(n.right) };
      case 'RestElement':
        return { type: 'RestElement', ...pos(n), argument: convert(n.argument) };
      case 'ObjectPattern':
        return { type: 'ObjectPattern', ...pos(n), properties: list(n.properties) };
      case 'KeyValuePatternProperty':
        return { type: 'Property', ...spanOf(n.key, n.value), kind: 'init', method: false, shorthand: false, ...key(n.key), value: convert(n.value) };
      case 'AssignmentPatternProperty': {
        const id = convert(n.key);
        const value = n.value ? { type: 'AssignmentPattern', start: id.start, end: at(n.value.span.end), left: id, right: convert(n.value) } : id;
        return { type: 'Property', ...pos(n), kind: 'init', method: false, shorthand: true, key: id, computed: false, value };
      }
      case 'ArrayPattern':
        return { type: 'ArrayPattern', ...pos(n), elements: (n.elements ?? []).map((e: Swc | null) => (e ? convert(e) : null)) };
      default:
        return generic(n);
    }
  };

  const shorthand = (id: Swc) => {
    const node = convert(id);
    return { type: 'Property', start: node.start, end: node.end, kind: 'init', method: false, shorthand: true, key: node, computed: false, value: node };
  };

  const argument = (a: Swc) => (a.spread ? { type: 'SpreadElement', start: at(a.spread.start), end: at(a.expression.span.end), argument: convert(a.expression) } : convert(a.expression ?? a));

  const spanOf = (from: Swc, to: Swc) => ({ start: at(from.span!.start), end: at(to.span!.end) });

  /** The same fields, children converted; `stmts` become `body`. */
  const generic = (n: Swc): EstreeNode => {
    const out: any = { type: n.type };
    if (n.span) Object.assign(out, pos(n));
    for (const k of Object.keys(n)) {
      if (k === 'type' || k === 'span' || k === 'ctxt') continue;
      const v = n[k];
      const name = k === 'stmts' ? 'body' : k;
      if (Array.isArray(v)) out[name] = v.map((x) => (x && typeof x === 'object' && 'type' in x ? convert(x) : x && typeof x === 'object' && 'expression' in x ? argument(x) : x));
      else if (v && typeof v === 'object' && typeof v.type === 'string') out[name] = convert(v);
      else out[name] = v;
    }
    return out;
  };

  return convert(program);
}
