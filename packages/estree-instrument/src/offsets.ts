/**
 * Where each character of the input ends up in magic-string's output, when the edits only insert and
 * move text. magic-string has no API for it, so this reads its chunk list (internal, in output
 * order); callers check the positions it gives against the output's characters.
 */
import type MagicString from 'magic-string';

interface Chunk {
  start: number;
  end: number;
  intro: string;
  outro: string;
  content: string;
  edited: boolean;
  next: Chunk | null;
}

export interface OutputOffsets {
  /** Where the input's character at `offset` is in the output. */
  at(offset: number): number;
  /** Where the output is once the input up to `offset` and the text appended to it are written (a node's end). */
  end(offset: number): number;
}

/** Input offsets to output offsets, or null when the chunks are not what it expects. */
export function outputOffsets(s: MagicString): OutputOffsets | null {
  const internal = s as unknown as { intro?: string; firstChunk?: Chunk };
  if (typeof internal.intro !== 'string' || !internal.firstChunk) return null;
  const chunks: { start: number; end: number; at: number; outro: number }[] = [];
  let at = internal.intro.length;
  for (let c: Chunk | null = internal.firstChunk; c; c = c.next) {
    if (c.edited || typeof c.content !== 'string') return null;
    at += c.intro.length;
    chunks.push({ start: c.start, end: c.end, at, outro: c.outro.length });
    at += c.content.length + c.outro.length;
  }
  chunks.sort((a, b) => a.start - b.start);
  const chunkOf = (offset: number) => {
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (chunks[mid].start <= offset) lo = mid;
      else hi = mid - 1;
    }
    return chunks[lo];
  };
  return {
    at(offset) {
      const c = chunkOf(offset);
      return c.at + offset - c.start;
    },
    end(offset) {
      const c = chunkOf(offset - 1);
      return c.at + offset - c.start + (offset === c.end ? c.outro : 0);
    },
  };
}
