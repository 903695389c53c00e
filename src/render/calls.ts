/**
 * A tool call shown without loading any tool: its name and its JSON arguments.
 * Numbers and structure are shown as carried (big integers stay exact); string
 * values are shown as JSON of their value, so `<` reads as `<`, not `\u003c`.
 */
import { sanitizeLine } from './sanitize.js';

type Segment = { text: string } | { value: string; key: boolean };

const STRING = /"(?:[^"\\]|\\.)*"/g;

/** Splits compact JSON text into string literals and everything between them. */
function segments(json: string): Segment[] {
  const out: Segment[] = [];
  let at = 0;
  for (const m of json.matchAll(STRING)) {
    if (m.index > at) out.push({ text: json.slice(at, m.index) });
    const end = m.index + m[0].length;
    out.push({ value: JSON.parse(m[0]) as string, key: json[end] === ':' });
    at = end;
  }
  if (at < json.length) out.push({ text: json.slice(at) });
  return out;
}

const ELLIPSIS = '\u2026';
/** Elided strings keep at least this many characters. */
const MIN_KEEP = 9;

/** Keeps the head and the tail of `s`, `cap` characters in all. */
export function elideMiddle(s: string, cap: number): string {
  const chars = [...s];
  if (chars.length <= cap) return s;
  const keep = Math.max(cap - 1, 2);
  const head = Math.ceil(keep / 2);
  return chars.slice(0, head).join('') + ELLIPSIS + chars.slice(chars.length - (keep - head)).join('');
}

function render(segs: Segment[], cap: number): string {
  return segs.map((s) => ('text' in s ? s.text : JSON.stringify(s.key ? s.value : elideMiddle(s.value, cap)))).join('');
}

const width = (s: string): number => [...s].length;

/**
 * `name {"arg":...}` on one line. With a `width` (a terminal's), long string
 * values are elided in the middle until the line fits, as far as they can be;
 * without one (piped output) the arguments are always shown in full.
 */
export function formatCall(name: string, inputJson: string, maxWidth?: number): string {
  let segs: Segment[];
  try {
    segs = segments(inputJson);
  } catch {
    return sanitizeLine(`${name} ${inputJson}`);
  }
  const line = (cap: number): string => sanitizeLine(`${name} ${render(segs, cap)}`);
  const full = line(Infinity);
  if (maxWidth === undefined || width(full) <= maxWidth) return full;
  const longest = segs.reduce((n, s) => ('value' in s && !s.key ? Math.max(n, [...s.value].length) : n), 0);
  let lo = MIN_KEEP;
  let hi = longest;
  if (hi <= lo) return full;
  // The largest cap that fits; the line shrinks as the cap does.
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (width(line(mid)) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return line(lo);
}

export interface CallLineOptions {
  /** What the call actually runs (a resolved command line), when its tool is known and can say. */
  resolved?: string | undefined;
  /** The width to fit (a terminal's); omit for the arguments in full. */
  width?: number | undefined;
  /** Text after the call (a note such as ` (answered)`), counted in the width. */
  suffix?: string;
}

/**
 * The one line a tool call shows as, in every rendering: `» ` and the resolved
 * command line when there is one, else the tool's name and its JSON arguments
 * (elided to fit `width`), then the suffix. Sanitized.
 */
export function callLine(name: string, inputJson: string, options: CallLineOptions = {}): string {
  const suffix = options.suffix ?? '';
  const room = options.width === undefined ? undefined : options.width - 2 - [...suffix].length;
  const body = options.resolved !== undefined ? sanitizeLine(options.resolved) : formatCall(name, inputJson, room);
  return `\u00bb ${body}${suffix}`;
}
