/**
 * The start of a typed text shown where the whole could be megabytes: at most
 * `lines` lines and `chars` characters, and how many characters were left out.
 */
export function textHead(text: string, limits: { lines: number; chars: number }): { text: string; left: number } {
  const head = text.split('\n', limits.lines).join('\n').slice(0, limits.chars);
  return { text: head, left: text.length - head.length };
}
