/**
 * How often a copy into the file store waits for the disk: a run made from
 * stored lines (a copy, a fork, a follow-up of a completed run) is written in
 * large batches, each made durable by one fsync, not one fsync per record.
 * fsyncSync is counted through the module the store imports it from.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { FileStore, encodeRecord } from '../../../src/index.js';
import { assistant, at, meta, toolResult } from '../../helpers/records.js';
import { tempDir } from '../../helpers/tmp.js';

const fsyncs = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:fs', async (original) => {
  const real = await original<typeof fs>();
  const fsyncSync = (fd: number): void => {
    fsyncs.count++;
    real.fsyncSync(fd);
  };
  return { ...real, fsyncSync, default: { ...real, fsyncSync } };
});

describe('a copy into the file store', () => {
  it('makes its records durable in a few fsyncs, not one per record, and stores them byte for byte', async () => {
    const store = new FileStore(join(tempDir(), 'runs'));
    const lines = [encodeRecord(at(1, { meta: meta('copied') }))];
    for (let turn = 0; turn < 200; turn++) {
      lines.push(encodeRecord(at(lines.length + 1, assistant(turn, [`t${turn}`]))));
      lines.push(encodeRecord(at(lines.length + 1, toolResult(`t${turn}`, `result ${turn}`))));
    }
    fsyncs.count = 0;
    await (await store.createFromLines('copied', lines)).close();
    // The meta and the directory entry, the notes a copy keeps, and one for the records: far fewer than the 400 records.
    expect(fsyncs.count).toBeGreaterThan(0);
    expect(fsyncs.count).toBeLessThan(20);
    expect(fs.readFileSync(store.journalPath('copied'), 'utf8')).toBe(`${lines.join('\n')}\n`);
  });
});
