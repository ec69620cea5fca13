/** Frame names and URLs come from untrusted traces: control characters must not reach a terminal. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** `text` with every control character (escape sequences included) written as a `\uXXXX` escape. */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
