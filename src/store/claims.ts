/**
 * Who goes on with a run that writers of a store whose open is not exclusive
 * (JetStream) opened at the same end: each writer that opened it claims it in
 * a write-once note (`holding-SEQ-N`, run-notes.ts) holding its writer id,
 * taking the next N; a writer whose note was not kept, or that finds an
 * earlier claim at the same seq whose writer still answers (Backend.holder),
 * lets the run go. Since a writer answers from its open on and claims after
 * it, of two live claimants the later always sees the earlier: exactly one
 * goes on. A claimant that died leaves a claim no writer answers for, and the
 * next writer to open the run goes on past it.
 */
import { holdingClaimPrefix } from './run-notes.js';

/** What a claim reads and writes: the run's notes, and whether a writer answers. */
export interface ClaimPlace {
  notesWith(prefix: string): Promise<Map<string, string>>;
  putNote(key: string, text: string): Promise<void>;
  getNote(key: string): Promise<string | null>;
  answers(writer: string): Promise<boolean | undefined>;
}

/** The claim numbers among `keys` of claims made at one seq. */
function claimNumbers(notes: Map<string, string>, prefix: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const [key, writer] of notes) {
    const n = Number(key.slice(prefix.length));
    if (Number.isSafeInteger(n) && n >= 0) found.set(n, writer);
  }
  return found;
}

/** Whether `writer`, which opened the run at seq `at`, goes on with it. */
export async function claimRunEnd(place: ClaimPlace, at: number, writer: string): Promise<boolean> {
  const prefix = holdingClaimPrefix(at);
  const before = claimNumbers(await place.notesWith(prefix), prefix);
  const n = before.size === 0 ? 0 : Math.max(...before.keys()) + 1;
  await place.putNote(`${prefix}${n}`, writer);
  if ((await place.getNote(`${prefix}${n}`)) !== writer) return false;
  const claims = claimNumbers(await place.notesWith(prefix), prefix);
  for (const [m, other] of [...claims].sort(([a], [b]) => a - b)) {
    if (m >= n) break;
    if (other !== writer && (await place.answers(other)) !== false) return false;
  }
  return true;
}
