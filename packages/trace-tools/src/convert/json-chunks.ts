/**
 * JSON too large for one string: a speedscope file repeats every sample's whole stack, so a trace
 * of a few million samples makes more text than a V8 string can hold (about 512 MB).
 */

/** Whether `value` is a primitive, or an array of primitives only (a sample's stack): JSON to make at once. */
function isFlat(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  return Array.isArray(value) && value.every((element) => element === null || typeof element !== 'object');
}

function flatJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** The text of `value` as JSON, in small pieces: its punctuation, keys and flat values. */
function* jsonPieces(value: unknown): Generator<string> {
  if (isFlat(value)) {
    yield flatJson(value);
  } else if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (isFlat(value[i])) {
        yield (i ? ',' : '') + flatJson(value[i]);
      } else {
        if (i) yield ',';
        yield* jsonPieces(value[i]);
      }
    }
    yield ']';
  } else {
    let separator = '{';
    for (const [key, field] of Object.entries(value as object)) {
      if (field === undefined) continue;
      yield `${separator}${JSON.stringify(key)}:`;
      separator = ',';
      yield* jsonPieces(field);
    }
    yield separator === '{' ? '{}' : '}';
  }
}

/**
 * `JSON.stringify(value)` for JSON data (plain objects, arrays, strings, finite numbers, booleans,
 * null) in pieces of about `pieceSize` characters, to write one after the other: never the whole
 * text as one string.
 */
export function* jsonChunks(value: unknown, pieceSize = 1 << 20): Generator<string> {
  let buffer: string[] = [];
  let length = 0;
  for (const piece of jsonPieces(value)) {
    buffer.push(piece);
    length += piece.length;
    if (length < pieceSize) continue;
    yield buffer.join('');
    buffer = [];
    length = 0;
  }
  if (buffer.length) yield buffer.join('');
}
