/**
 * Every paid model call is counted, also one the journal does not hold. Before
 * a call is sent a `sent-CALL` note says so (run-notes.ts); a call that ends
 * without its record (stopped by the operator, failed after the provider
 * reported usage, a summary refused) leaves a `cost-CALL` note with what it
 * cost, or that it is unknown. A sent call with neither its record nor a cost
 * note was cut by a crash: its cost is unknown. The journal never changes shape.
 */
import {
  COST_NOTE_PREFIX,
  SENT_NOTE_PREFIX,
  callKeyPart,
  encodeCost,
  encodeSent,
  keyPartIteration,
  parseCost,
  parseSent,
  type CallUsage,
  type CostNote,
  type SentCall,
  type UnheldWhy,
} from '../store/run-notes.js';
import type { Store } from '../store/store.js';
import { nodeCrypto } from '../core/index.js';

/** A sent call, as its notes name it. */
export interface SentTicket {
  runId: string;
  /** The CALL part of its notes' keys. */
  part: string;
}

/** Notes that call `call` of run `runId` is being sent, before it is: the ticket its cost note, if any, is kept with. */
export async function noteSent(store: Store, runId: string, call: SentCall, now = new Date()): Promise<SentTicket> {
  const part = callKeyPart(call, nodeCrypto().randomBytes(4).toString('hex'));
  await store.putNote(runId, `${SENT_NOTE_PREFIX}${part}`, encodeSent({ call, time: now.toISOString() }));
  return { runId, part };
}

/**
 * Notes what a sent call that no record holds cost: its usage, where the
 * provider reported any, else null (unknown). What the chat calls when its
 * operator stops an answer, and a compaction when its summary is refused.
 */
export async function noteCallCost(store: Store, ticket: SentTicket, usage: CallUsage | null, why: UnheldWhy): Promise<void> {
  const cost: CostNote = { usage, why };
  await store.putNote(ticket.runId, `${COST_NOTE_PREFIX}${ticket.part}`, encodeCost(cost));
}

/** A paid call the run's journal does not hold, and what it cost (null: unknown). `cut`: a crash cut it, nothing said what it cost. */
export interface UnheldCall {
  call: SentCall;
  usage: CallUsage | null;
  why: UnheldWhy | 'cut';
}

/** What a run's journal and compaction note hold of its calls: the iterations of its assistant records, the seq its summary (if any) was made at. */
export interface HeldCalls {
  iterations: ReadonlySet<number>;
  summaryAt?: number;
}

const callName = (call: SentCall): string => ('iteration' in call ? `i${call.iteration}` : `s${call.summaryOf}`);

/**
 * The paid calls of run `id` that its journal does not hold, from its call
 * notes: each with a cost note (a failed call the provider reported no usage
 * for cost nothing and is left out), and for each call sent more often than
 * it has records and cost notes, the rest, cut by a crash.
 *
 * A long run has a sent note for each of its calls, nearly all of them held by
 * a record: a sent note whose key names a held turn (callKeyPart) and which
 * has no cost note is read only when another sent note of that turn is found,
 * for alone it adds nothing; a resume read every one of them.
 */
export async function unheldCalls(store: Store, id: string, held: HeldCalls, listed?: readonly string[]): Promise<UnheldCall[]> {
  // One listing of the run's notes serves every read here (Store.noteKeys): a file store lists its whole runs directory for it.
  const keys = listed ?? (await store.noteKeys(id));
  const costs = await store.notesWith(id, COST_NOTE_PREFIX, { keys });
  const passed = new Map<number, string[]>();
  const passOver = (key: string): boolean => {
    const part = key.slice(SENT_NOTE_PREFIX.length);
    const iteration = keyPartIteration(part);
    if (iteration === null || !held.iterations.has(iteration) || costs.has(`${COST_NOTE_PREFIX}${part}`)) return false;
    const keys = passed.get(iteration);
    if (keys === undefined) passed.set(iteration, [key]);
    else keys.push(key);
    return true;
  };
  const sent = await store.notesWith(id, SENT_NOTE_PREFIX, { skip: passOver, keys });
  const read = [...sent.values()].map(parseSent);
  const again = new Set([...passed].filter(([iteration, keys]) => keys.length > 1 || read.some((n) => n !== null && 'iteration' in n.call && n.call.iteration === iteration)).flatMap(([, keys]) => keys));
  if (again.size > 0) for (const [key, text] of await store.notesWith(id, SENT_NOTE_PREFIX, { skip: (key) => !again.has(key), keys })) sent.set(key, text);
  if (sent.size === 0) return [];
  const out: UnheldCall[] = [];
  const uncosted = new Map<string, { call: SentCall; count: number }>();
  for (const key of [...sent.keys()].sort()) {
    const note = parseSent(sent.get(key)!);
    if (note === null) continue;
    const cost = parseCost(costs.get(`${COST_NOTE_PREFIX}${key.slice(SENT_NOTE_PREFIX.length)}`) ?? null);
    if (cost !== null) {
      if (!(cost.why === 'failed' && cost.usage === null)) out.push({ call: note.call, usage: cost.usage, why: cost.why });
      continue;
    }
    const name = callName(note.call);
    const entry = uncosted.get(name);
    if (entry === undefined) uncosted.set(name, { call: note.call, count: 1 });
    else entry.count++;
  }
  for (const { call, count } of uncosted.values()) {
    const isHeld = 'iteration' in call ? held.iterations.has(call.iteration) : held.summaryAt === call.summaryOf;
    for (let i = isHeld ? 1 : 0; i < count; i++) out.push({ call, usage: null, why: 'cut' });
  }
  return out;
}
