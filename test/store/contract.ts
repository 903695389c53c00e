/**
 * The behaviour every Store must have, run against each backend.
 */
import { describe, expect, it } from 'vitest';
import { encodeRecord, type Store } from '../../src/index.js';
import { assistant, completed, meta, toolResult } from '../helpers/records.js';

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
  return 'no error';
}

export function storeContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`${name} store contract`, () => {
    it('creates a run with meta as seq 1 and folds appended records back', async () => {
      const store = await makeStore();
      const j = await store.create('run-1', meta('run-1'));
      expect(j.lastSeq).toBe(1);
      await j.append(2, assistant(0, ['t1', 't2']));
      await j.append(3, toolResult('t1'));
      expect(j.lastSeq).toBe(3);
      const loaded = await store.load('run-1');
      expect(loaded.lastSeq).toBe(3);
      expect(loaded.created).toBe('2026-11-30T01:02:03.123Z');
      expect(loaded.state.pending?.answered).toEqual(['t1']);
      expect((await j.records()).map(encodeRecord)).toEqual(loaded.records.map(encodeRecord));
      await j.close();
      await store.close();
    });

    it('refuses to create a run that exists, and to open or load one that does not', async () => {
      const store = await makeStore();
      const j = await store.create('dup', meta('dup'));
      await j.close();
      expect(await code(store.create('dup', meta('dup')))).toBe('exists');
      expect(await code(store.open('missing'))).toBe('not_found');
      expect(await code(store.load('missing'))).toBe('not_found');
      await store.close();
    });

    it('skips a duplicate seq and refuses a gap without advancing', async () => {
      const store = await makeStore();
      const j = await store.create('seqs', meta('seqs'));
      await j.append(2, assistant(0));
      await j.append(2, assistant(0, [], 'a different body'));
      await j.append(1, assistant(0));
      expect(j.lastSeq).toBe(2);
      expect(await code(j.append(4, completed))).toBe('seq_gap');
      expect(j.lastSeq).toBe(2);
      await j.append(3, completed);
      const loaded = await store.load('seqs');
      expect(loaded.records.map((r) => r.seq)).toEqual([1, 2, 3]);
      expect(JSON.stringify(loaded.state.messages)).toContain('thinking out loud');
      await j.close();
      await store.close();
    });

    it('lets one writer hold a run at a time, and reading never waits for it', async () => {
      const store = await makeStore();
      const j = await store.create('held', meta('held'));
      expect(await code(store.open('held'))).toBe('locked');
      expect(await code(store.delete('held'))).toBe('locked');
      expect((await store.load('held')).lastSeq).toBe(1);
      await j.close();
      const again = await store.open('held');
      expect(again.lastSeq).toBe(1);
      await again.append(2, assistant(0));
      await again.close();
      await store.close();
    });

    it('validates ids before they become keys', async () => {
      const store = await makeStore();
      for (const bad of ['../x', 'a.b', '', 'a b']) {
        expect(await code(store.create(bad, meta(bad)))).toBe('invalid_id');
        expect(await code(store.open(bad))).toBe('invalid_id');
        expect(await code(store.load(bad))).toBe('invalid_id');
        expect(await code(store.delete(bad))).toBe('invalid_id');
      }
      await store.close();
    });

    it('lists runs with meta fields and status, and deletes them', async () => {
      const store = await makeStore();
      const a = await store.create('list-a', meta('list-a', { prompt: 'first prompt' }));
      await a.append(2, assistant(0));
      await a.append(3, completed);
      await a.close();
      const b = await store.create('list-b', meta('list-b', { prompt: 'second' }));
      await b.close();
      const runs = (await store.list()).filter((r) => r.runId.startsWith('list-')).sort((x, y) => x.runId.localeCompare(y.runId));
      expect(runs.map((r) => [r.runId, r.status, r.model, r.prompt, r.created])).toEqual([
        ['list-a', 'completed', 'test-model', 'first prompt', '2026-11-30T01:02:03.123Z'],
        ['list-b', 'open', 'test-model', 'second', '2026-11-30T01:02:03.123Z'],
      ]);
      for (const r of runs) expect(Number.isNaN(Date.parse(r.updated))).toBe(false);
      expect(await store.delete('list-a')).toBe(true);
      expect(await store.delete('list-a')).toBe(false);
      expect(await code(store.load('list-a'))).toBe('not_found');
      expect((await store.list()).map((r) => r.runId)).not.toContain('list-a');
      await store.close();
    });
  });
}
