/** `1 trace`, `2,000 traces`: a count with its noun, as messages print them. */
export const counted = (n: number, noun: string): string => `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
