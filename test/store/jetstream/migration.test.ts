/**
 * Runs move between the file and JetStream backends unchanged, and both fold the
 * same journal identically. Against a real nats-server this file starts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore, copyRun, fold, parseJournal, type JournalRecord, type MetaPayload, type Payload, type Store } from '../../../src/index.js';
import { stateToJson } from '../../../src/core/index.js';
import { fixtures } from '../../helpers/fixtures.js';
import { freshJetStreamStore } from '../../helpers/jetstream.js';
import { describeEachNatsServer, natsServerOfBlock } from '../../helpers/nats-server.js';
import { newerWriterLines } from '../../helpers/newer-writer.js';
import { assistant, at, completed, meta, toolResult } from '../../helpers/records.js';
import { tempDir } from '../../helpers/tmp.js';

const nats = natsServerOfBlock();
const root = tempDir();
let dirs = 0;

function freshFileStore(): FileStore {
  return new FileStore(join(root, `s${dirs++}`));
}

/** Writes records through a store's own create and append. */
async function write(store: Store, records: JournalRecord[]): Promise<string> {
  const [first, ...rest] = records;
  const id = (first as { meta: MetaPayload }).meta.run_id;
  const j = await store.create(id, (first as { meta: MetaPayload }).meta);
  for (const { seq, ...payload } of rest) await j.append(at(seq, payload as Payload));
  await j.close();
  return id;
}

describeEachNatsServer('moving runs between backends', (binary) => {
  nats.start({ binary });
  it('copies file -> JetStream -> file with every byte unchanged', async () => {
    const source = freshFileStore();
    const j = await source.create('trip', meta('trip', { prompt: 'escapes <&> \u2028 and "quotes"' }));
    await j.append(at(2, assistant(0, ['t1', 't2'], 'raw and <tags>')));
    await j.append(at(3, toolResult('t1', 'first\nresult')));
    await j.append(at(4, toolResult('t2')));
    await j.append(at(5, completed));
    await j.close();
    const middle = await freshJetStreamStore(nats.server().url);
    const back = freshFileStore();
    await copyRun(source, middle, 'trip');
    await copyRun(middle, back, 'trip');
    const original = readFileSync(join(source.directory, 'trip.jsonl'));
    expect(readFileSync(join(back.directory, 'trip.jsonl')).equals(original)).toBe(true);
    expect((await middle.list()).map((r) => [r.runId, r.status])).toEqual([['trip', 'completed']]);
    await middle.close();
  });

  it("copies a newer writer's journal file -> JetStream -> file with its unknown fields", async () => {
    const source = freshFileStore();
    mkdirSync(source.directory, { recursive: true });
    const text = `${newerWriterLines('newer').join('\n')}\n`;
    writeFileSync(join(source.directory, 'newer.jsonl'), text);
    const middle = await freshJetStreamStore(nats.server().url);
    const back = freshFileStore();
    await copyRun(source, middle, 'newer');
    expect(await middle.lines('newer')).toEqual(newerWriterLines('newer'));
    await copyRun(middle, back, 'newer');
    expect(readFileSync(join(back.directory, 'newer.jsonl'), 'utf8')).toBe(text);
    expect((await middle.list()).map((r) => [r.runId, r.status])).toEqual([['newer', 'handed_off']]);
    await middle.close();
  });

  it('refuses to overwrite a run in the target', async () => {
    const source = freshFileStore();
    await (await source.create('taken', meta('taken'))).close();
    const target = await freshJetStreamStore(nats.server().url);
    const there = await target.create('taken', meta('taken', { prompt: 'already here' }));
    await there.append(at(2, assistant(0)));
    await there.close();
    await expect(copyRun(source, target, 'taken')).rejects.toMatchObject({ code: 'exists' });
    const kept = await target.load('taken');
    expect(kept.state.prompt).toBe('already here');
    expect(kept.lastSeq).toBe(2);
    await target.close();
  });

  it('leaves no partial copy when the target refuses a record', async () => {
    const source = freshFileStore();
    const j = await source.create('huge', meta('huge'));
    await j.append(at(2, assistant(0, ['t1'])));
    await j.append(at(3, toolResult('t1', 'x'.repeat(2 * 1024 * 1024)))); // over the server's max payload
    await j.close();
    const target = await freshJetStreamStore(nats.server().url);
    await expect(copyRun(source, target, 'huge')).rejects.toMatchObject({ code: 'unavailable' });
    await expect(target.load('huge')).rejects.toMatchObject({ code: 'not_found' });
    expect(await target.list()).toEqual([]);
    await target.close();
  });

  describe('both backends fold every conformance journal identically', () => {
    const foldable = fixtures().filter((fx) => {
      try {
        fold(parseJournal(fx.journal));
        return true;
      } catch {
        return false;
      }
    });

    it('has journals to compare', () => {
      expect(foldable.length).toBeGreaterThanOrEqual(5);
    });

    for (const fx of foldable) {
      it(fx.name, async () => {
        const records = parseJournal(fx.journal);
        const file = freshFileStore();
        const js = await freshJetStreamStore(nats.server().url);
        try {
          const id = await write(file, records);
          await write(js, records);
          const [a, b] = [await file.load(id), await js.load(id)];
          expect(stateToJson(b.state)).toBe(stateToJson(a.state));
          expect(stateToJson(a.state)).toBe(stateToJson(fold(records)));
          expect(b.records).toEqual(a.records);
        } finally {
          await js.close();
        }
      });
    }
  });
});
