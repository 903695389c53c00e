/**
 * A changed workspace file as every rendering shows it (`session diff`, the
 * exports, the web view): its name quoted as git's diff headers quote it and
 * safe for a terminal, and what changed in it (line counts, binary, a mode).
 */
import { modeChange, quotedPath, type ModeSides } from '../core/index.js';
import { sanitizeLine } from './sanitize.js';

/** A changed file, as far as a rendering reads it. */
export interface ShownFile extends ModeSides {
  path: string;
  added?: number;
  removed?: number;
  binary: boolean;
}

/** A file's name on one line: git's quoting (a control character, `"` or `\` quoted C-style), then nothing a terminal acts on. */
export function shownFileName(path: string): string {
  return sanitizeLine(quotedPath(path));
}

/** What changed in a file: `binary` or its line counts, and its mode where only that changed or that too (`mode 100644 → 100755`). */
export function fileCounts(f: ShownFile): string {
  const mode = modeChange(f);
  const modeText = mode === null ? null : `mode ${mode.from} \u2192 ${mode.to}`;
  const counts = f.binary ? 'binary' : mode !== null && (f.added ?? 0) === 0 && (f.removed ?? 0) === 0 ? null : `+${f.added ?? 0} -${f.removed ?? 0}`;
  return [counts, modeText].filter((x) => x !== null).join(', ');
}
