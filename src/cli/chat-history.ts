/**
 * The turns typed in chats, kept per project so that Up and Ctrl-R find them
 * in the next chat: one file per directory a run records (RunPlace.dir) under
 * the state directory's `history/`, a JSON string a line, appended as each
 * turn is sent. It is the operator's convenience, not the run's record (the
 * journal holds every turn): a file that cannot be read or written loses
 * recall, never a turn, and is said once.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Turns kept per project; the file is cut back to them once it holds twice as many. */
export const HISTORY_KEPT = 1000;

export interface ChatHistory {
  /** The turns typed before, oldest first. */
  readonly turns: readonly string[];
  /** Keeps a turn just sent (an empty one, or the one before repeated, is not kept). */
  add(turn: string): void;
}

/** The file that keeps the turns typed in `dir`, under `stateDir`. */
export function historyFile(stateDir: string, dir: string): string {
  return join(stateDir, 'history', `${createHash('sha256').update(dir).digest('hex').slice(0, 32)}.jsonl`);
}

/**
 * The history of chats in `dir`; `warn` hears, once, that the file could not be
 * read or written. `keep: false` (an --ephemeral chat, which leaves nothing
 * behind) recalls the turns kept before and keeps its own in memory alone.
 */
export function chatHistory(stateDir: string, dir: string, warn: (message: string) => void, keep = true): ChatHistory {
  const file = historyFile(stateDir, dir);
  let warned = false;
  const failed = (what: string, err: unknown): void => {
    if (warned) return;
    warned = true;
    warn(`the chat history in ${file} could not be ${what} (${(err as NodeJS.ErrnoException).code ?? String(err)}): Up and Ctrl-R recall this chat's turns only`);
  };
  const all = read(file, (err) => failed('read', err));
  if (all.length >= 2 * HISTORY_KEPT) cutBack(file, all.slice(-HISTORY_KEPT), (err) => failed('written', err));
  const turns = all.slice(-HISTORY_KEPT);
  return {
    turns,
    add(turn) {
      if (turn.trim() === '' || turns[turns.length - 1] === turn) return;
      turns.push(turn);
      if (!keep) return;
      try {
        mkdirSync(join(stateDir, 'history'), { recursive: true, mode: 0o700 });
        appendFileSync(file, `${JSON.stringify(turn)}\n`, { mode: 0o600 });
      } catch (err) {
        failed('written', err);
      }
    },
  };
}

/** The turns a history file holds; a line that is not a JSON string (one cut by a crash) is passed over. */
function read(file: string, failed: (err: unknown) => void): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') failed(err);
    return [];
  }
  const turns: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const turn: unknown = JSON.parse(line);
      if (typeof turn === 'string') turns.push(turn);
    } catch {
      /* a line cut short */
    }
  }
  return turns;
}

/** Rewrites the file with `turns` alone, by a rename, so a reader sees the old file or the new one. */
function cutBack(file: string, turns: string[], failed: (err: unknown) => void): void {
  void import('./session/export.js')
    .then(({ writeFileAtomically }) => writeFileAtomically(file, turns.map((t) => `${JSON.stringify(t)}\n`).join('')))
    .catch(failed);
}
