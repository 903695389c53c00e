import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore, MemoryStore, copyRun, encodeRecord } from '../../src/index.js';
import { assistant, completed, meta, toolResult } from '../helpers/records.js';
import { tempDir } from '../helpers/tmp.js';

const root = tempDir();

describe('copyRun', () => {
  it('copies a run record by record, byte for byte, between any two stores', async () => {
    const file = new FileStore(join(root, 'a'));
    const j = await file.create('mv', meta('mv', { interactive: true }));
    await j.append(2, assistant(0, ['t1']));
    await j.append(3, toolResult('t1', 'result with <markup> & \u2029'));
    await j.append(4, completed);
    await j.close();
    const memory = new MemoryStore();
    await copyRun(file, memory, 'mv');
    const back = new FileStore(join(root, 'b'));
    await copyRun(memory, back, 'mv');
    const original = readFileSync(join(file.directory, 'mv.jsonl'), 'utf8');
    expect(readFileSync(join(back.directory, 'mv.jsonl'), 'utf8')).toBe(original);
    expect((await memory.load('mv')).records.map((r) => `${encodeRecord(r)}\n`).join('')).toBe(original);
    // The copy is closed: the target can be opened for appending again.
    await (await back.open('mv')).close();
  });

  it('refuses to overwrite an existing run and leaves it as it was', async () => {
    const from = new MemoryStore();
    await (await from.create('same', meta('same'))).close();
    const to = new FileStore(join(root, 'c'));
    const there = await to.create('same', meta('same', { prompt: 'keep me' }));
    await there.append(2, assistant(0));
    await there.close();
    await expect(copyRun(from, to, 'same')).rejects.toMatchObject({ code: 'exists' });
    const kept = await to.load('same');
    expect(kept.state.prompt).toBe('keep me');
    expect(kept.lastSeq).toBe(2);
  });

  it('returns how many records it copied, and an aborted copy leaves no run behind', async () => {
    const from = new MemoryStore();
    const j = await from.create('long', meta('long'));
    for (let seq = 2; seq <= 6; seq++) await j.append(seq, assistant(seq - 2));
    await j.close();
    expect(await copyRun(from, new MemoryStore(), 'long')).toBe(6);

    // The copy is aborted once the target holds three records.
    const controller = new AbortController();
    const target = new FileStore(join(root, 'aborted'));
    const create = target.create.bind(target);
    target.create = async (id, m) => {
      const journal = await create(id, m);
      const append = journal.append.bind(journal);
      journal.append = async (seq, payload) => {
        await append(seq, payload);
        if (seq === 3) controller.abort();
      };
      return journal;
    };
    await expect(copyRun(from, target, 'long', { signal: controller.signal })).rejects.toMatchObject({ code: 'interrupted' });
    expect(await target.list()).toEqual([]);
    expect(await copyRun(from, new MemoryStore(), 'long', { signal: controller.signal }).catch((e: { code: string }) => e.code)).toBe('interrupted');
  });

  it('reports a missing source run', async () => {
    await expect(copyRun(new MemoryStore(), new MemoryStore(), 'nope')).rejects.toMatchObject({ code: 'not_found' });
  });
});
