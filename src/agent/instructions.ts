/**
 * Project instructions: the first AGENTS.md or LOGBOOK.md found walking up
 * from the directory logbook runs in to the repository root, given to the
 * model after the system prompt. Like the reference's memory index they are
 * outside the fingerprint and never stored: what was given (the file and its
 * sha-256) is a note beside the run (run-notes.ts `instructions-SEQ-HASH`),
 * so a changed file never blocks a resume, and is never silent either.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { nodeCrypto } from '../core/index.js';
import { INSTRUCTIONS_NOTE_PREFIX, encodeInstructions, instructionsNoteKey, parseInstructions, type InstructionsNote } from '../store/run-notes.js';
import type { Store } from '../store/store.js';

/** The file names looked for in each directory, in this order. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'LOGBOOK.md'] as const;

/** The most of an instructions file given: a larger one is not read (and said so). */
export const MAX_INSTRUCTIONS_BYTES = 256 * 1024;

/** Project instructions found: the file (absolute), its text and sha-256. */
export interface ProjectInstructions {
  path: string;
  text: string;
  sha256: string;
}

/** The directories looked in from `dir`: up to the one holding `.git`; outside a repository, `dir` alone. */
function searchedDirs(dir: string): string[] {
  const dirs: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    dirs.push(at);
    if (existsSync(join(at, '.git'))) return dirs;
    if (dirname(at) === at) return [dir];
  }
}

/**
 * The project instructions for a run in `dir`, or null when there are none;
 * `warn` is told of a file found and not given (too large, unreadable).
 */
export function findInstructions(dir: string, warn: (message: string) => void = () => {}): ProjectInstructions | null {
  for (const at of searchedDirs(dir)) {
    for (const name of INSTRUCTION_FILES) {
      const path = join(at, name);
      let size: number;
      try {
        const stat = statSync(path);
        if (!stat.isFile()) continue;
        size = stat.size;
      } catch {
        continue;
      }
      if (size > MAX_INSTRUCTIONS_BYTES) {
        warn(`${path} is ${size} bytes, over the ${MAX_INSTRUCTIONS_BYTES} an instructions file may have; the model is not given it`);
        return null;
      }
      try {
        const bytes = readFileSync(path);
        return { path, text: bytes.toString('utf8'), sha256: nodeCrypto().createHash('sha256').update(bytes).digest('hex') };
      } catch (err) {
        warn(`cannot read ${path} (${err instanceof Error ? err.message : String(err)}); the model is not given it`);
        return null;
      }
    }
  }
  return null;
}

/** The system prompt a run's model is given: the agent's, then the project instructions, if any. */
export function withInstructions(system: string, instructions: ProjectInstructions | undefined): string {
  if (instructions === undefined || instructions.text.trim() === '') return system;
  const block = `<project-instructions file="${instructions.path}">\n${instructions.text.trim()}\n</project-instructions>`;
  return system === '' ? block : `${system}\n\n${block}`;
}

/** What a run's notes say its model was given, in the order given (by seq); `keys`: its note keys as listed (NoteReadOptions.keys). */
export async function instructionsGiven(store: Store, id: string, keys?: readonly string[]): Promise<InstructionsNote[]> {
  const notes = [...(await store.notesWith(id, INSTRUCTIONS_NOTE_PREFIX, keys !== undefined ? { keys } : {})).values()].map(parseInstructions).filter((n): n is InstructionsNote => n !== null);
  return notes.sort((a, b) => a.seq - b.seq);
}

/**
 * Notes what run `id` is given from seq `seq` on, when it differs from what
 * its notes say it was last given; the change, in words, when there was one
 * to say (a run given none before, and none now, says nothing).
 */
export async function noteInstructions(store: Store, id: string, seq: number, instructions: ProjectInstructions | undefined, keys?: readonly string[]): Promise<string | null> {
  const last = (await instructionsGiven(store, id, keys)).at(-1);
  const given = instructions === undefined ? null : { path: instructions.path, sha256: instructions.sha256 };
  const same = last === undefined ? given === null : last.given?.sha256 === given?.sha256 && last.given?.path === given?.path;
  if (same) return null;
  const note: InstructionsNote = { seq, given };
  await store.putNote(id, instructionsNoteKey(note), encodeInstructions(note));
  if (last === undefined) return null; // the first: nothing changed
  const was = last.given === null ? 'none' : `${last.given.path} (sha256 ${last.given.sha256.slice(0, 12)})`;
  const now = given === null ? 'none' : `${given.path} (sha256 ${given.sha256.slice(0, 12)})`;
  return `the project instructions changed since run ${id} last ran: ${was} then, ${now} now; the model is given them as they are now`;
}

/** What a run was given, in words, for `session show`; null when its notes say nothing. */
export function instructionsText(notes: readonly InstructionsNote[]): string | null {
  if (notes.length === 0) return null;
  return notes
    .map((n) => `${n.given === null ? 'none' : `${n.given.path} (sha256 ${n.given.sha256.slice(0, 12)})`}${n.seq > 1 ? ` from seq ${n.seq}` : ''}`)
    .join('; ');
}
