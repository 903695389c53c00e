import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore, JournalStore, MemoryStore, copyRun, encodeRecord } from '../../src/index.js';
import { FileBackend } from '../../src/store/file/file-backend.js';
import { newerWriterLines } from '../helpers/newer-writer.js';
import { assistant, at, completed, meta, storeRun, toolResult } from '../helpers/records.js';
import { tempDir } from '../helpers/tmp.js';

const root = tempDir();

describe('copyRun', () => {
  it('copies a run record by record, byte for byte, between any two stores', async () => {
    const file = new FileStore(join(root, 'a'));
    await storeRun(file, 'mv', [assistant(0, ['t1']), toolResult('t1', 'result with <markup> & \u2029'), completed], { interactive: true });
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

  it("carries the notes that say what a run is, a served task's among them", async () => {
    const from = new MemoryStore();
    await (await from.create('task-run', meta('task-run'))).close();
    const notes = { task: '{"request":"r1","conversation":"c1","sender":"caller"}', canceled: '{"by":"caller","reason":"enough"}', forked: '{"from":"x","at":1}' };
    for (const [key, value] of Object.entries(notes)) await from.putNote('task-run', key, value);
    const to = new MemoryStore();
    await copyRun(from, to, 'task-run');
    for (const [key, value] of Object.entries(notes)) expect(await to.getNote('task-run', key), key).toBe(value);
  });

  it('copies the stored bytes, not a re-encoding: fields this build does not know survive', async () => {
    const text = `${newerWriterLines('newer').join('\n')}\n`;
    const file = new FileStore(join(root, 'newer-a'));
    mkdirSync(file.directory, { recursive: true });
    writeFileSync(join(file.directory, 'newer.jsonl'), text);
    const memory = new MemoryStore();
    expect((await copyRun(file, memory, 'newer')).records).toBe(5);
    const back = new FileStore(join(root, 'newer-b'));
    await copyRun(memory, back, 'newer');
    expect(readFileSync(join(back.directory, 'newer.jsonl'), 'utf8')).toBe(text);
    expect(text).toContain('"speed":"fast"');
  });

  it('refuses to overwrite an existing run and leaves it as it was', async () => {
    const from = new MemoryStore();
    await (await from.create('same', meta('same'))).close();
    const to = new FileStore(join(root, 'c'));
    const there = await to.create('same', meta('same', { prompt: 'keep me' }));
    await there.append(at(2, assistant(0)));
    await there.close();
    await expect(copyRun(from, to, 'same')).rejects.toMatchObject({ code: 'exists' });
    const kept = await to.load('same');
    expect(kept.state.prompt).toBe('keep me');
    expect(kept.lastSeq).toBe(2);
  });

  it('returns how many records it copied, and an aborted copy leaves no run behind', async () => {
    const from = new MemoryStore();
    const j = await from.create('long', meta('long'));
    // Tool results large enough that the file backend writes the copy in more than one batch.
    const ids = ['t1', 't2', 't3', 't4'];
    await j.append(at(2, assistant(0, ids)));
    for (const [k, id] of ids.entries()) await j.append(at(3 + k, toolResult(id, 'x'.repeat(1536 * 1024))));
    await j.close();
    expect((await copyRun(from, new MemoryStore(), 'long')).records).toBe(6);

    const controller = new AbortController();
    // A file backend that aborts the copy once it holds its first batch of records.
    const files = new FileBackend(join(root, 'aborted'));
    const create = files.create.bind(files);
    let batches = 0;
    files.create = async (id, line) => {
      const held = await create(id, line);
      const writeCopied = held.writeCopied!.bind(held);
      held.writeCopied = async (first, lines) => {
        await writeCopied(first, lines);
        batches++;
        controller.abort();
      };
      return held;
    };
    const target = new JournalStore(files);
    await expect(copyRun(from, target, 'long', { signal: controller.signal })).rejects.toMatchObject({ code: 'interrupted' });
    expect(batches).toBe(1);
    expect(await target.list()).toEqual([]);
    expect(await copyRun(from, new MemoryStore(), 'long', { signal: controller.signal }).catch((e: { code: string }) => e.code)).toBe('interrupted');
  });

  it('refuses a run a writer holds, and with force copies what is durable now, saying so', async () => {
    const from = new MemoryStore();
    const writer = await from.create('live', meta('live'));
    await writer.append(at(2, assistant(0, ['t1'])));
    const to = new MemoryStore();
    const refused = await copyRun(from, to, 'live').catch((e: { code: string; message: string }) => e);
    expect(refused).toMatchObject({
      code: 'locked',
      message: 'run live is being written: a writer holds it in the memory store (this process only), and a copy now would end at seq 2, where it happens to be',
    });
    expect(await to.has('live')).toBe(false);
    expect(await copyRun(from, to, 'live', { force: true })).toEqual({ records: 2, lastSeq: 2, held: true, open: true });
    await writer.append(at(3, toolResult('t1')));
    await writer.close();
    // What the writer appended after the copy is not in it; a copy once it let go is whole and says nothing was held.
    expect((await to.load('live')).lastSeq).toBe(2);
    expect(await copyRun(from, new MemoryStore(), 'live')).toEqual({ records: 3, lastSeq: 3, held: false, open: true });
  });

  it('reports a missing source run', async () => {
    await expect(copyRun(new MemoryStore(), new MemoryStore(), 'nope')).rejects.toMatchObject({ code: 'not_found' });
  });
});
