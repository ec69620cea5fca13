/**
 * `Function.prototype.toString()` gives an instrumented function's text as it was written, without
 * the checks jsprof's ESTree front inserted (@jsprof/policy's check.ts, its marks: every
 * insertion can be told from the program's text, and removed). So a function sent as text
 * (Playwright's `page.evaluate(fn)`, a worker built from `fn.toString()`) runs where no runtime
 * is, and a program reading its own functions reads what it wrote. Text that does not come apart
 * exactly into the program's and jsprof's (Babel's output, reprinted; a minifier's) is given as it
 * runs.
 */
const J = '__jsprof\\$';
const EXIT_WITH_VALUE = `if \\(--${J}c\\[\\d+\\] < 0\\) \\{ delete ${J}s\\[\\d+\\]; return ${J}r; \\}`;
const ANY_CHECK = `if \\(--${J}c\\[\\d+\\] < 0\\) (?:delete ${J}s\\[\\d+\\];|\\{ delete ${J}s\\[\\d+\\]; return(?: ${J}r)?; \\})`;
const ENTRY_CHECK = `if \\(--${J}c\\[0\\] < 0\\) delete ${J}s\\[1\\];`;
const LOOP_CHECK = `if \\(--${J}c\\[0\\] < 0\\) delete ${J}s\\[0\\];`;
const PAREN_MARK = `/\\*${J}\\*/`;
const BRACE_MARK = `/\\*${J}\\}\\*/`;

/** Insertions, in three groups: those that stand for the `return` keyword, for a `;`, and for nothing. */
const INSERTED = new RegExp(
  [
    `(\\{ ${J}r = (?:void /\\*return\\*/ 0|/\\*return\\*/))`, // a return, rewritten
    `;( ?)break ${J}l; \\}`,
    `\\{${ENTRY_CHECK} (?:let ${J}r = \\(|return \\()`, // an arrow's expression body
    `\\); ${EXIT_WITH_VALUE} return ${J}r; \\}`,
    `[ )]${BRACE_MARK}\\}`, // an arrow's expression body, a loop's body that is no block
    `[()]${PAREN_MARK}`, // parentheses around a sequence, or a check and an \`await\` or \`yield\`
    `\\(--${J}c\\[\\d+\\] < 0 && delete ${J}s\\[\\d+\\], `, // before an \`await\` or \`yield\`
    `\\{${LOOP_CHECK} `, // a loop's body that is no block
    `let ${J}r; ${J}l: \\{ `, // a labelled body
    ` \\} ${EXIT_WITH_VALUE} return ${J}r; `,
    `[ ;]${ANY_CHECK}`,
  ].join('|'),
  'g',
);

const MOVED = new RegExp(`/\\*${J}(\\d+)\\{\\*/`);

/** The text without jsprof's insertions, or null where it does not come apart exactly. */
export function originalText(text: string): string | null {
  // Function declarations moved before a labelled body go back where they were.
  for (let open = MOVED.exec(text); open; open = MOVED.exec(text)) {
    const n = open[1];
    const close = `/*__jsprof$${n}}*/`;
    const end = text.indexOf(close, open.index);
    if (end < 0) return null;
    const moved = text.slice(open.index + open[0].length, end);
    const rest = text.slice(0, open.index) + text.slice(end + close.length);
    let from = `;/*__jsprof$${n};*/`;
    let at = rest.indexOf(from);
    if (at < 0) at = rest.indexOf((from = `/*__jsprof$${n}*/`));
    if (at < 0) return null;
    text = rest.slice(0, at) + moved + rest.slice(at + from.length);
  }
  const original = text.replace(INSERTED, (_, keyword, semicolon) => (keyword ? 'return' : semicolon ? ';' : ''));
  return original.indexOf('__jsprof$') < 0 ? original : null;
}

/** Has `Function.prototype.toString` give functions' original text; once per realm. */
export function keepSourceText(): void {
  const nativeToString = Function.prototype.toString;
  const { toString } = {
    toString(this: unknown): string {
      const text = nativeToString.call(this === toString ? nativeToString : this);
      if (text.indexOf('__jsprof$') < 0) return text;
      try {
        return originalText(text) ?? text;
      } catch {
        return text;
      }
    },
  };
  try {
    Object.defineProperty(Function.prototype, 'toString', { value: toString });
  } catch {
    // a frozen Function.prototype: instrumented functions show their checks
  }
}
