/**
 * How a workspace file's name is shown: as git's diff headers show it (with
 * core.quotePath off), so a name in a file list reads the same as in the diff
 * beside it. A name holding a control character, a double quote or a
 * backslash is written in double quotes with C escapes (octal for the
 * controls C has no letter for); any other name is shown as it is. A name is
 * whatever a tool made it: what a terminal or a page could act on beyond
 * this is escaped where it is shown, as any journal text.
 */

const LETTERS: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\v': '\\v', '\f': '\\f', '\r': '\\r', '"': '\\"', '\\': '\\\\' };

/** The characters git quotes a name for (git's quote.c, sq_lookup with quotePath off). */
const NEEDS_QUOTES = /[\u0000-\u001f"\\\u007f]/;

/** `path` as git's diff headers name it. */
export function quotedPath(path: string): string {
  if (!NEEDS_QUOTES.test(path)) return path;
  return `"${path.replace(/[\u0000-\u001f"\\\u007f]/g, (c) => LETTERS[c] ?? `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`)}"`;
}

/** A changed file as far as its mode goes: its status and its mode before and after (`000000` where it was absent). */
export interface ModeSides {
  status: string;
  before: { mode: string };
  after: { mode: string };
}

/** A file's mode change (`100644` to `100755`, as a chmod makes), where the file is there on both sides and its mode differs. */
export function modeChange(f: ModeSides): { from: string; to: string } | null {
  return f.status === 'modified' && f.before.mode !== f.after.mode ? { from: f.before.mode, to: f.after.mode } : null;
}
