/**
 * Tree walks without recursion: a trace's stacks may be thousands of frames deep (a recursive
 * parser), deeper than the call stack lets a recursive walk go.
 */

/** Builds a tree from another, children first: `make(node, its children made)`. */
export function mapTree<N, M>(root: N, childrenOf: (node: N) => readonly N[], make: (node: N, children: M[]) => M): M {
  const stack: { node: N; children: readonly N[]; made: M[] }[] = [{ node: root, children: childrenOf(root), made: [] }];
  for (;;) {
    const top = stack[stack.length - 1];
    if (top.made.length < top.children.length) {
      const next = top.children[top.made.length];
      stack.push({ node: next, children: childrenOf(next), made: [] });
      continue;
    }
    stack.pop();
    const made = make(top.node, top.made);
    if (stack.length === 0) return made;
    stack[stack.length - 1].made.push(made);
  }
}

/** Visits every node below `root` in reading order (a node, then its children), with its depth (1 for root's children); `after` follows a node's children. */
export function walkTree<N>(root: N, childrenOf: (node: N) => readonly N[], visit: (node: N, depth: number) => void, after?: (node: N, depth: number) => void): void {
  const stack: { node: N; children: readonly N[]; depth: number; next: number }[] = [{ node: root, children: childrenOf(root), depth: 0, next: 0 }];
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.next < top.children.length) {
      const child = top.children[top.next++];
      visit(child, top.depth + 1);
      stack.push({ node: child, children: childrenOf(child), depth: top.depth + 1, next: 0 });
      continue;
    }
    stack.pop();
    after?.(top.node, top.depth);
  }
}

/** Past this depth, indentation stops growing: a tree thousands of levels deep would be mostly spaces. */
export const MAX_INDENT_DEPTH = 32;

/**
 * `JSON.stringify(value, null, indent)` for JSON data (plain objects, arrays, strings, finite
 * numbers, booleans, null), without recursion: a call tree thousands of levels deep is too deep
 * for JSON.stringify. Undefined properties are left out, as JSON.stringify leaves them; lines
 * deeper than MAX_INDENT_DEPTH are indented as that depth.
 */
export function stringifyDeep(value: unknown, indent = 0): string {
  const out: string[] = [];
  const pad = (depth: number) => (indent ? `\n${' '.repeat(indent * Math.min(depth, MAX_INDENT_DEPTH))}` : '');
  const colon = indent ? ': ' : ':';
  // Work items: a value to write at a depth, or literal text.
  const work: ({ value: unknown; depth: number } | string)[] = [{ value, depth: 0 }];
  while (work.length) {
    const item = work.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const { value: v, depth } = item;
    if (v === null || typeof v !== 'object') {
      out.push(JSON.stringify(v) ?? 'null');
      continue;
    }
    const isArray = Array.isArray(v);
    const entries: [string | null, unknown][] = isArray
      ? (v as unknown[]).map((element) => [null, element === undefined ? null : element])
      : Object.entries(v as object).filter(([, field]) => field !== undefined);
    if (entries.length === 0) {
      out.push(isArray ? '[]' : '{}');
      continue;
    }
    out.push(isArray ? '[' : '{');
    const pending: ({ value: unknown; depth: number } | string)[] = [];
    entries.forEach(([key, field], i) => {
      pending.push(`${i ? ',' : ''}${pad(depth + 1)}${key === null ? '' : JSON.stringify(key) + colon}`);
      pending.push({ value: field, depth: depth + 1 });
    });
    pending.push(`${pad(depth)}${isArray ? ']' : '}'}`);
    for (let i = pending.length - 1; i >= 0; i--) work.push(pending[i]);
  }
  return out.join('');
}
