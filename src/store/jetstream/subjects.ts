/**
 * Where a run's records live in the stream: meta at `<prefix>.<run>._meta`, every
 * other record at `<prefix>.<run>.<seq>`. A run id is a valid subject token
 * (validateId guarantees it), so a run is exactly the subjects under
 * `<prefix>.<run>.>`.
 */
import { LogbookError, isValidId } from '../../core/index.js';

export const META_TOKEN = '_meta';

export function metaSubject(prefix: string, id: string): string {
  return `${prefix}.${id}.${META_TOKEN}`;
}

/** Seq 1 is the meta record; every later record has its own numbered subject. */
export function recordSubject(prefix: string, id: string, seq: number): string {
  return seq === 1 ? metaSubject(prefix, id) : `${prefix}.${id}.${seq}`;
}

/** Every subject of one run. */
export function runFilter(prefix: string, id: string): string {
  return `${prefix}.${id}.>`;
}

/**
 * Notes beside run `id` live at `<prefix>._notes.<id>.<key>`: outside the run's
 * own subjects (a run's reads never meet them), and never taken for a run, since
 * `_notes` is not a valid run id.
 */
export function noteSubject(prefix: string, id: string, key: string): string {
  return `${prefix}._notes.${id}.${key}`;
}

/**
 * The live text of run `id` (Backend.putLive): a core subject beside the
 * run's, `<prefix>-live.<id>`, outside the stream's `<prefix>.>`, so it is never stored.
 */
export function liveSubject(prefix: string, id: string): string {
  return `${prefix}-live.${id}`;
}

/** Every note of run `id`. */
export function notesFilter(prefix: string, id: string): string {
  return `${prefix}._notes.${id}.>`;
}

/** Every note of every run. */
export function allNotesFilter(prefix: string): string {
  return `${prefix}._notes.>`;
}

/** The run and key a note subject names, or null when it names none. */
export function noteOfSubject(prefix: string, subject: string): { id: string; key: string } | null {
  const head = `${prefix}._notes.`;
  if (!subject.startsWith(head)) return null;
  const [id, key, ...rest] = subject.slice(head.length).split('.');
  return id !== undefined && key !== undefined && rest.length === 0 && isValidId(id) ? { id, key } : null;
}

/** Every note of run `id` whose key is one token (every key is: see noteSubject). */
export function notesKeysFilter(prefix: string, id: string): string {
  return `${prefix}._notes.${id}.*`;
}

/** The seq a record subject names (`<prefix>.<run>._meta` is 1), or null when it names none. */
export function seqOfRecordSubject(subject: string): number | null {
  const token = subject.slice(subject.lastIndexOf('.') + 1);
  if (token === META_TOKEN) return 1;
  return /^[1-9]\d{0,14}$/.test(token) ? Number(token) : null;
}

/** The meta subject of every run. */
export function allMetaFilter(prefix: string): string {
  return `${prefix}.*.${META_TOKEN}`;
}

/** The run id of a meta subject, or null when it is not one or the id is invalid. */
export function runIdOfMetaSubject(prefix: string, subject: string): string | null {
  const head = `${prefix}.`;
  const tail = `.${META_TOKEN}`;
  if (!subject.startsWith(head) || !subject.endsWith(tail)) return null;
  const id = subject.slice(head.length, subject.length - tail.length);
  return isValidId(id) ? id : null;
}

/** The seq a stored line starts with (`{"seq":N`), or null when it does not start so. */
function leadingSeq(line: string): number | null {
  const m = /^\s*\{\s*"seq"\s*:\s*(\d{1,15})\b/.exec(line);
  return m === null ? null : Number(m[1]);
}

/**
 * A record must sit on the subject its seq names; anything else is corrupt. The
 * seq is read from the line's head (the format writes it first), so the line is
 * checked here without being decoded; decoding it is the journal layer's job.
 */
export function checkRecordSubject(subject: string, line: string, stream: string): void {
  const seq = leadingSeq(line);
  const token = subject.slice(subject.lastIndexOf('.') + 1);
  const want = seq === 1 ? META_TOKEN : String(seq);
  if (seq === null || token !== want) {
    throw new LogbookError('corrupt', `stream ${stream}: subject ${subject} holds ${seq === null ? 'a line that is not a record' : `record seq ${seq}`}`);
  }
}
