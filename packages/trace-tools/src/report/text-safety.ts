/**
 * Frame names, URLs, file names and file contents come from strangers. Printed as they are, control
 * characters (escape sequences) would drive a terminal, and bidirectional formatting characters
 * (U+202E and its kin) would reorder the text around them, in a terminal or a page.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every control and bidirectional formatting character written as a `\uXXXX` escape. */
export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Like `printable`, keeping line breaks and tabs: for messages of several lines. */
export function printableLines(text: string): string {
  return text.split('\n').map((line) => line.split('\t').map(printable).join('\t')).join('\n');
}
