/** Layout for command output: tables, aligned fields, times. Text in is already sanitized. */

export type Cell = string | { text: string; paint: (text: string) => string };

const textOf = (c: Cell): string => (typeof c === 'string' ? c : c.text);
/** Length in code points (what `[...s].length` counts), without building the array. */
function len(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
export const cellWidth = (c: Cell): number => len(textOf(c));

/** Columns padded to their widest cell, two spaces apart; the last column is not padded. */
export function table(rows: Cell[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, cellWidth(c))));
  return rows
    .map((row) =>
      row
        .map((c, i) => {
          const text = i === row.length - 1 ? textOf(c) : textOf(c) + ' '.repeat(widths[i]! - len(textOf(c)));
          return typeof c === 'string' ? text : c.paint(text);
        })
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}

/** `label  value` lines with the values aligned. */
export function fields(pairs: [string, string][]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${k.padEnd(width)}  ${v}\n`).join('');
}

/** Cuts `s` to `max` characters, the last one an ellipsis. */
export function truncate(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : `${chars.slice(0, Math.max(0, max - 1)).join('')}\u2026`;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** An RFC 3339 time as local `YYYY-MM-DD HH:MM`; the text as given when it is not a time. */
export function shortTime(rfc3339: string): string {
  const d = new Date(rfc3339);
  if (rfc3339 === '' || Number.isNaN(d.getTime())) return rfc3339;
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}

/** 1234567 -> "1,234,567". */
export const count = (n: number): string => n.toLocaleString('en-US');
