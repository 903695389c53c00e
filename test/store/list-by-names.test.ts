import { describe, expect, it } from 'vitest';
import type { RunNames, RunSummary } from '../../src/store/backend.js';
import { listByNames } from '../../src/store/journal-store.js';

/** Runs named as a directory read names them, summarized as a backend reads their ends; `gone`: removed between the two. */
function backend(names: RunNames[], gone: readonly string[] = [], order: (ids: string[]) => string[] = (ids) => ids) {
  const asked: { ids: readonly string[]; known: unknown }[] = [];
  return {
    asked,
    runNames: async (): Promise<RunNames[]> => names,
    summaries: async (ids: readonly string[], known?: (id: string, version: string) => boolean): Promise<RunSummary[]> => {
      asked.push({ ids, known });
      return order(ids.filter((id) => !gone.includes(id))).map((id) => ({ id, first: null, last: null, updated: new Date(0), version: `v-${id}` }));
    },
  };
}

describe('a listing composed of the runs named and their summaries (listByNames)', () => {
  it('gives each run summarized with the notes and check mark it was named with, in the order named, and passes on what the caller knows', async () => {
    const b = backend([
      { id: 'b', notes: ['fork'], checkedVersion: 'v-b' },
      { id: 'a', notes: [] },
    ]);
    const known = (): boolean => false;
    const runs = await listByNames(b, known);
    expect(runs.map((r) => [r.id, r.notes, r.checkedVersion])).toEqual([
      ['b', ['fork'], 'v-b'],
      ['a', [], undefined],
    ]);
    expect(runs[1]).not.toHaveProperty('checkedVersion');
    expect(b.asked).toEqual([{ ids: ['b', 'a'], known }]);
  });

  it('leaves out a run removed between its naming and its summary', async () => {
    const runs = await listByNames(backend([{ id: 'a', notes: [] }, { id: 'b', notes: ['n'] }, { id: 'c', notes: [] }], ['b']));
    expect(runs.map((r) => [r.id, r.notes])).toEqual([
      ['a', []],
      ['c', []],
    ]);
  });

  it('gives each run its notes when a backend summed them up in another order than it named them', async () => {
    const runs = await listByNames(backend([{ id: 'a', notes: ['x'] }, { id: 'b', notes: ['y'] }, { id: 'c', notes: [] }], [], (ids) => [...ids].reverse()));
    expect(runs.map((r) => [r.id, r.notes])).toEqual([
      ['c', []],
      ['b', ['y']],
      ['a', ['x']],
    ]);
  });
});
