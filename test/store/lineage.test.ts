import { describe, expect, it } from 'vitest';
import { MemoryStore, groupLineages, lineageOf, lineageRoot, listLineage, ownFrom, writtenIn, type ForkOrigin, type RunInfo } from '../../src/index.js';
import { byId, continuedPath, copiedThrough, lastAlong } from '../../src/store/lineage.js';
import { forkRun } from '../../src/store/fork.js';
import { meta, storeRun } from '../helpers/records.js';

const run = (runId: string, forkedFrom?: ForkOrigin): RunInfo => ({
  runId,
  created: '',
  updated: '',
  model: 'm',
  prompt: 'p',
  interactive: false,
  status: 'completed',
  ...(forkedFrom ? { forkedFrom } : {}),
});

describe('lineages', () => {
  // a <- b <- c (follow-ups), a <- d (a fork cut early); x alone; y and z forked from a run no longer there.
  const runs = [
    run('c', { from: 'b', at: 6 }),
    run('z', { from: 'gone', at: 3 }),
    run('d', { from: 'a', at: 2 }),
    run('x'),
    run('b', { from: 'a', at: 4 }),
    run('y', { from: 'gone', at: 3 }),
    run('a'),
  ];
  const all = byId(runs);

  it('are a root and every run forked or continued from it, transitively, whichever run is asked about', () => {
    for (const id of ['a', 'b', 'c', 'd']) expect(lineageRoot(all, id)).toBe('a');
    expect(lineageOf(runs, 'c').map((r) => r.runId)).toEqual(['c', 'd', 'b', 'a']);
    expect(lineageOf(runs, 'a').map((r) => r.runId)).toEqual(['c', 'd', 'b', 'a']);
    expect(lineageOf(runs, 'x').map((r) => r.runId)).toEqual(['x']);
  });

  it('have the missing origin as their root: forks of a removed run stay one conversation', () => {
    expect(lineageRoot(all, 'y')).toBe('gone');
    expect(lineageOf(runs, 'z').map((r) => r.runId)).toEqual(['z', 'y']);
  });

  it('group a listing in its order, each run in exactly one lineage', () => {
    const groups = groupLineages(runs);
    expect(groups.map((g) => [g.root, g.runs.map((r) => r.runId)])).toEqual([
      ['a', ['c', 'd', 'b', 'a']],
      ['gone', ['z', 'y']],
      ['x', ['x']],
    ]);
    expect(groups.flatMap((g) => g.runs).length).toBe(runs.length);
  });

  it('stop at a cycle no fork makes, rather than loop', () => {
    const looped = byId([run('p', { from: 'q', at: 1 }), run('q', { from: 'p', at: 1 })]);
    expect(['p', 'q']).toContain(lineageRoot(looped, 'p'));
    expect(writtenIn(looped, 'p', 1)).toMatch(/^[pq]$/);
  });

  it("say which run wrote a record a fork holds: its origin's, at or below the cut, followed back", () => {
    expect(writtenIn(all, 'c', 7)).toBe('c');
    expect(writtenIn(all, 'c', 6)).toBe('b');
    expect(writtenIn(all, 'c', 3)).toBe('a');
    expect(writtenIn(all, 'd', 3)).toBe('d'); // cut at 2: seq 3 is its own
    expect(writtenIn(all, 'y', 2)).toBe('gone');
    expect(ownFrom(all.get('c')!)).toBe(7);
    expect(ownFrom(all.get('a')!)).toBe(1);
  });

  it('say a continuation copied none of its origin\'s records: every one is its own', () => {
    const continued = byId([run('long'), run('cont', { from: 'long', at: 40, compacted: true })]);
    expect(copiedThrough(continued.get('cont')!.forkedFrom)).toBe(0);
    expect(copiedThrough({ from: 'a', at: 4 })).toBe(4);
    expect(copiedThrough(null)).toBe(0);
    expect(ownFrom(continued.get('cont')!)).toBe(1);
    expect(writtenIn(continued, 'cont', 3)).toBe('cont');
  });

  it('are read from a store by its origin notes (follow-ups continued as new runs)', async () => {
    const store = new MemoryStore();
    await storeRun(store, 'first');
    await forkRun(store, 'first', { id: 'second' });
    await forkRun(store, 'second', { id: 'third' });
    await (await store.create('other', meta('other'))).close();
    expect((await listLineage(store, 'first')).map((r) => r.runId).sort()).toEqual(['first', 'second', 'third']);
    expect((await listLineage(store, 'other')).map((r) => r.runId)).toEqual(['other']);
  });
});

describe('a conversation shown whole', () => {
  // a <- b (b continues a compacted) <- c (c a fork of b) <- d (d continues c compacted); e forked from a run no longer there.
  const runs = [
    run('d', { from: 'c', at: 9, compacted: true }),
    run('c', { from: 'b', at: 5 }),
    run('b', { from: 'a', at: 7, compacted: true }),
    run('a'),
    run('e', { from: 'gone', at: 3, compacted: true }),
  ];

  it("is each run a continuation summarized, oldest first, and not a fork's origin, whose records the fork holds", () => {
    expect(continuedPath(runs, 'd')).toEqual(['a', 'c', 'd']);
    expect(continuedPath(runs, 'c')).toEqual(['a', 'c']);
    expect(continuedPath(runs, 'a')).toEqual(['a']);
  });

  it('stops at an origin no longer there', () => {
    expect(continuedPath(runs, 'e')).toEqual(['e']);
  });
});

describe('following a lineage forward', () => {
  it('ends at the last run with no successor, and never goes round a cycle', async () => {
    const next: Record<string, string> = { a: 'b', b: 'c', x: 'y', y: 'x' };
    const step = async (id: string): Promise<string | null> => next[id] ?? null;
    expect(await lastAlong('a', step)).toBe('c');
    expect(await lastAlong('c', step)).toBe('c');
    expect(await lastAlong('x', step)).toBe('y');
  });
});
