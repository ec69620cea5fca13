/**
 * SWC's parser recurses on the native stack and crashes the whole process (SIGSEGV) on code nested
 * deeply enough. On Node 20's 8 MB main thread it survived 2,783 nested `if (a) {` (not 2,832),
 * 2,929 nested parentheses, 2,588 nested `(a ? b :`, 1,465 nested `f(function () {`, 1,514 nested
 * `(a) => (`, 5,857 nested `if (a)` without braces, 6,199 nested labels, 22,744 chained `a ? b :`,
 * 27,526 chained `else if`, 26,110 `!`, 58,125 chained `a +`; on a worker's 4 MB about half of each.
 * So the text is measured first, without parsing, and a file nested too deeply is refused.
 *
 * The measure is in units of about 2.8 kB of SWC's stack, counting generously:
 * - 1 for each open bracket (`(`, `[`, `{`, `${`) and each `=>`;
 * - 1/2 for each `if`, `for`, `while`, `with`, `do` and label of a statement not yet ended;
 * - 1/8 for each operator character, operator keyword, and closed `(…)` or `[…]` of an expression
 *   not yet ended (at a `,`, a `;`, or a `}`), and for each `else if`, which goes on the statement
 *   that the `if` started.
 * Strings, comments, templates and regular expressions are skipped. A `/` starts a regular
 * expression where an expression can start; after `)` or a name it is taken as a division.
 */

/** Units at most: about 2.8 MB of SWC's stack, safe on a thread with 4 MB. */
export const NESTING_LIMIT = 1000;

const BRACKET_COST = 1;
const STATEMENT_COST = 1 / 2;
const OPERATOR_COST = 1 / 8;

const [SLASH, STAR, BACKSLASH, LESS, MINUS, EQUALS, GREATER, DOT, COMMA, SEMICOLON, COLON, DOLLAR] = [...'/*\\<-=>.,;:$'].map((ch) => ch.charCodeAt(0));
const [DOUBLE_QUOTE, SINGLE_QUOTE, BACKTICK] = [...'"\'`'].map((ch) => ch.charCodeAt(0));
const [OPEN_PAREN, CLOSE_PAREN, OPEN_BRACKET, CLOSE_BRACKET, OPEN_BRACE, CLOSE_BRACE] = [...'()[]{}'].map((ch) => ch.charCodeAt(0));

const STATEMENT_KEYWORDS = new Set(['if', 'for', 'while', 'with', 'do']);
const OPERATOR_KEYWORDS = new Set(['typeof', 'instanceof', 'in', 'new', 'delete', 'void', 'yield', 'await']);
/** Words after which a `/` starts a regular expression. */
const BEFORE_EXPRESSION = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

/** The offset where the measure first passes `limit`, or -1 if it never does. */
export function tooDeepAt(code: string, limit = NESTING_LIMIT): number {
  const n = code.length;
  // Per open bracket: the cost of what is not yet ended in it, that of the run ended last (an
  // `else` takes it up again), and whether it is a template's `${`.
  const runs: number[] = [0];
  const endedRuns: number[] = [0];
  const templates: boolean[] = [false];
  let total = 0;
  let i = 0;
  let regexAllowed = true;
  let lineStart = true;
  let previousWord = '';

  const add = (cost: number) => {
    runs[runs.length - 1] += cost;
    total += cost;
  };
  const endRun = () => {
    endedRuns[runs.length - 1] = runs[runs.length - 1];
    total -= runs[runs.length - 1];
    runs[runs.length - 1] = 0;
  };
  const resumeRun = () => {
    add(endedRuns[runs.length - 1]);
    endedRuns[runs.length - 1] = 0;
  };
  const open = (template: boolean) => {
    runs.push(0);
    endedRuns.push(0);
    templates.push(template);
    total += BRACKET_COST;
  };
  /** Closes the innermost bracket; true if it was a `${`. */
  const close = (): boolean => {
    if (runs.length === 1) return false;
    total -= BRACKET_COST + runs.pop()!;
    endedRuns.pop();
    return templates.pop()!;
  };
  const skipLine = () => {
    while (i < n && !isLineBreak(code.charCodeAt(i))) i++;
  };
  /** A template's text from `i`, up to its end or a `${`, which opens a bracket. */
  const skipTemplate = () => {
    while (i < n) {
      const c = code.charCodeAt(i);
      if (c === BACKSLASH) i += 2;
      else if (c === BACKTICK) return void i++;
      else if (c === DOLLAR && code.charCodeAt(i + 1) === OPEN_BRACE) {
        i += 2;
        return open(true);
      } else i++;
    }
  };

  if (code.startsWith('#!', code.charCodeAt(0) === 0xfeff ? 1 : 0)) skipLine();
  while (i < n) {
    const start = i;
    const c = code.charCodeAt(i);
    if (isLineBreak(c)) {
      lineStart = true;
      i++;
      continue;
    }
    if (isSpace(c)) {
      i++;
      continue;
    }
    const next = code.charCodeAt(i + 1);
    if ((c === SLASH && next === SLASH) || (c === LESS && code.startsWith('<!--', i)) || (c === MINUS && lineStart && code.startsWith('-->', i))) {
      skipLine();
      continue;
    }
    if (c === SLASH && next === STAR) {
      const close = code.indexOf('*/', i + 2);
      const end = close < 0 ? n : close;
      lineStart ||= /[\n\r\u2028\u2029]/.test(code.slice(i, end));
      i = end + 2;
      continue;
    }
    lineStart = false;
    let word = '';
    if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) {
      for (i++; i < n && code.charCodeAt(i) !== c && !isLineBreak(code.charCodeAt(i)); i++) if (code.charCodeAt(i) === BACKSLASH) i++;
      i++;
      regexAllowed = false;
    } else if (c === BACKTICK) {
      i++;
      skipTemplate();
      regexAllowed = false;
    } else if (c === SLASH && regexAllowed) {
      let inClass = false;
      for (i++; i < n && !isLineBreak(code.charCodeAt(i)); i++) {
        const r = code.charCodeAt(i);
        if (r === BACKSLASH) i++;
        else if (r === OPEN_BRACKET) inClass = true;
        else if (r === CLOSE_BRACKET) inClass = false;
        else if (r === SLASH && !inClass) break;
      }
      i++;
      regexAllowed = false;
    } else if (isDigit(c) || (c === DOT && isDigit(next))) {
      while (i < n && (isWordPart(code.charCodeAt(i)) || code.charCodeAt(i) === DOT)) i++;
      regexAllowed = false;
    } else if (isWordStart(c)) {
      while (i < n && isWordPart(code.charCodeAt(i))) i++;
      // Only lower-case words of 2 to 10 letters can be keywords; a property name (`a.if`) is none.
      if (c >= 97 && c <= 122 && i - start <= 10 && code.charCodeAt(start - 1) !== DOT) word = code.slice(start, i);
      if (word === 'else') {
        resumeRun();
        add(OPERATOR_COST);
      } else if (word === 'if' && previousWord === 'else') add(OPERATOR_COST);
      else if (STATEMENT_KEYWORDS.has(word)) add(STATEMENT_COST);
      else if (OPERATOR_KEYWORDS.has(word)) add(OPERATOR_COST);
      else if (word === 'case' || word === 'default') endRun();
      regexAllowed = BEFORE_EXPRESSION.has(word);
    } else if (c === OPEN_PAREN || c === OPEN_BRACKET || c === OPEN_BRACE) {
      i++;
      open(false);
      regexAllowed = true;
    } else if (c === CLOSE_PAREN || c === CLOSE_BRACKET) {
      i++;
      close();
      add(OPERATOR_COST);
      regexAllowed = false;
    } else if (c === CLOSE_BRACE) {
      i++;
      if (close()) skipTemplate();
      else endRun();
      regexAllowed = true;
    } else if (c === SEMICOLON || c === COMMA) {
      i++;
      endRun();
      regexAllowed = true;
    } else if (c === EQUALS && next === GREATER) {
      i += 2;
      add(BRACKET_COST);
      regexAllowed = true;
    } else {
      i++;
      add(c === COLON ? STATEMENT_COST : OPERATOR_COST);
      regexAllowed = true;
    }
    previousWord = word;
    if (total > limit) return start;
  }
  return -1;
}

function isLineBreak(c: number): boolean {
  return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 0x0b || c === 0x0c || c === 0xa0 || c === 0xfeff || (c > 0x1680 && /\s/.test(String.fromCharCode(c)));
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Letters, `$`, `_`, `\` (escapes), `#` (private names) and any other non-ASCII character. */
function isWordStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 36 || c === 95 || c === 92 || c === 35 || c > 0x7f;
}

function isWordPart(c: number): boolean {
  return isWordStart(c) || isDigit(c);
}
