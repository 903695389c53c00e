/**
 * The index of an agent's HTTP tasks, so a task list or a context's next
 * message reads this agent's tasks alone, never every run in the store: one
 * write-once note per task beside an id of the agent's own that no journal is
 * made under (`a2a-tasks-<identity>`), keyed `c-<context digest>-<task digest>`
 * and naming the task, its context, its run and whether it opens its context.
 * Written before the task's run is made, so every run of a task is indexed;
 * the run and its own notes stay the truth (a task whose run is gone, or that
 * another agent's notes claim, is passed over by the reader).
 */
import { createHash } from 'node:crypto';
import { isValidId } from '../../core/index.js';
import { noteObject } from '../../store/run-notes.js';
import type { Store } from '../../store/store.js';

/** One task in the index. */
export interface IndexedTask {
  task: string;
  context: string;
  run: string;
  /** It opens its context: the first task of it, which the context's later tasks continue. */
  opens: boolean;
}

const digest = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 24);

/** The prefix of the keys of context `context`'s tasks. */
const contextPrefix = (context: string): string => `c-${digest(context)}-`;

/** The id the index of agent `identity`'s tasks is kept beside. */
export function taskIndexId(identity: string): string {
  const plain = `a2a-tasks-${identity}`;
  return isValidId(plain) ? plain : `a2a-tasks-${digest(identity)}`;
}

function parseEntry(text: string): IndexedTask | null {
  const o = noteObject(text);
  if (o === null || typeof o.task !== 'string' || typeof o.context !== 'string' || typeof o.run !== 'string') return null;
  return { task: o.task, context: o.context, run: o.run, opens: o.opens === true };
}

export class TaskIndex {
  private readonly id: string;
  /** The notes read so far, by key (null: not an entry). */
  private readonly read = new Map<string, IndexedTask | null>();

  constructor(
    private readonly store: Store,
    identity: string,
  ) {
    this.id = taskIndexId(identity);
  }

  /** Indexes a task (once: writing it again changes nothing). */
  async add(entry: IndexedTask): Promise<void> {
    const text = JSON.stringify({ task: entry.task, context: entry.context, run: entry.run, ...(entry.opens ? { opens: true } : {}) });
    await this.store.putNote(this.id, `${contextPrefix(entry.context)}${digest(entry.task)}`, text);
  }

  /**
   * The agent's tasks, or context `context`'s alone. Notes are written once,
   * so each is read once: a later call lists the keys and reads the new ones.
   */
  async tasks(context?: string): Promise<IndexedTask[]> {
    const prefix = context === undefined ? 'c-' : contextPrefix(context);
    const unread = await this.store.notesWith(this.id, prefix, { skip: (k) => this.read.has(k) });
    for (const [k, text] of unread) this.read.set(k, parseEntry(text));
    const tasks: IndexedTask[] = [];
    for (const k of [...this.read.keys()].filter((key) => key.startsWith(prefix)).sort()) {
      const entry = this.read.get(k);
      if (entry && (context === undefined || entry.context === context)) tasks.push(entry);
    }
    return tasks;
  }
}
