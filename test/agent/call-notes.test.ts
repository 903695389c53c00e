/** The calls a run's journal does not hold, from its call notes: read only where a note can add one. */
import { describe, expect, it } from 'vitest';
import { noteCallCost, noteSent, unheldCalls, type UnheldCall } from '../../src/agent/call-notes.js';
import { JournalStore } from '../../src/store/journal-store.js';
import { MemoryBackend } from '../../src/store/memory/memory-store.js';

/** A memory store that tells which notes were read. */
function countingStore(): { store: JournalStore; read: string[] } {
  const read: string[] = [];
  const backend = new MemoryBackend();
  const getNote = backend.getNote.bind(backend);
  backend.getNote = (id: string, key: string) => {
    read.push(key);
    return getNote(id, key);
  };
  return { store: new JournalStore(backend), read };
}

const order = (calls: UnheldCall[]): string[] => calls.map((c) => `${JSON.stringify(c.call)} ${c.why} ${JSON.stringify(c.usage)}`).sort();

describe('the calls a journal does not hold', () => {
  it('are those with a cost note and those sent more often than held, and a held call sent once is not read', async () => {
    const { store, read } = countingStore();
    const held = await noteSent(store, 'r1', { iteration: 0 });
    const retried = [await noteSent(store, 'r1', { iteration: 1 }), await noteSent(store, 'r1', { iteration: 1 })];
    const stopped = await noteSent(store, 'r1', { iteration: 2 });
    await noteCallCost(store, stopped, { in_tokens: 10, out_tokens: 1 }, 'stopped');
    await noteSent(store, 'r1', { iteration: 3 });
    await noteSent(store, 'r1', { summaryOf: 5 });
    read.length = 0;

    const calls = await unheldCalls(store, 'r1', { iterations: new Set([0, 1, 2]) });
    expect(order(calls)).toEqual(
      order([
        { call: { iteration: 1 }, usage: null, why: 'cut' }, // sent twice, held once: a crash cut the first
        { call: { iteration: 2 }, usage: { in_tokens: 10, out_tokens: 1 }, why: 'stopped' },
        { call: { iteration: 3 }, usage: null, why: 'cut' },
        { call: { summaryOf: 5 }, usage: null, why: 'cut' },
      ]),
    );
    expect(read).not.toContain(`sent-${held.part}`);
    for (const t of retried) expect(read).toContain(`sent-${t.part}`);
    expect(read).toContain(`sent-${stopped.part}`);
  });

  it('reads a held call sent once when a note of the same turn is read for its cost', async () => {
    const { store } = countingStore();
    await noteSent(store, 'r2', { iteration: 4 });
    const costed = await noteSent(store, 'r2', { iteration: 4 });
    await noteCallCost(store, costed, null, 'failed');
    // One send is the record's, the other failed without a cost: nothing is unheld.
    expect(await unheldCalls(store, 'r2', { iterations: new Set([4]) })).toEqual([]);
    await noteSent(store, 'r2', { iteration: 4 });
    expect(order(await unheldCalls(store, 'r2', { iterations: new Set([4]) }))).toEqual(order([{ call: { iteration: 4 }, usage: null, why: 'cut' }]));
  });
});
