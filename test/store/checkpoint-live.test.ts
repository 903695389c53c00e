import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { fold, initialState, parseJournal, stateToJson, step, type JournalRecord } from '../../src/core/index.js';
import { CHECKPOINT_MIN_BYTES } from '../../src/store/checkpoint.js';
import { assistant, at, meta, toolResult } from '../helpers/records.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

const root = tempDir();
afterAll(removeTempDirs);

describe('a fold checkpoint a live writer keeps', () => {
  it('holds the fold of the journal as stored, even where the model text held a lone surrogate (written as U+FFFD)', async () => {
    const dir = join(root, 'lone');
    mkdirSync(dir, { recursive: true });
    const store = new FileStore(dir);
    const first = at(1, { meta: meta('s') });
    const j = await store.create('s', (first as { meta: ReturnType<typeof meta> }).meta);
    const state = initialState(first);
    // The live loop steps its own records, as the recorder does; one turn's text holds a lone surrogate.
    let seq = 1;
    const add = async (r: JournalRecord): Promise<void> => {
      await j.append(r);
      step(state, r);
    };
    await add(at(++seq, assistant(0, ['t0'], 'lone \ud800 surrogate')));
    await add(at(++seq, toolResult('t0', 'ok')));
    for (let i = 1; seq * 150 < CHECKPOINT_MIN_BYTES + 20000; i++) {
      await add(at(++seq, assistant(i, [`t${i}`], `turn ${i} ${'x'.repeat(60)}`)));
      await add(at(++seq, toolResult(`t${i}`, `output ${'y'.repeat(60)}`)));
    }
    await j.keepCheckpoint(state);
    await j.close();
    const stored = parseJournal(readFileSync(join(dir, 's.jsonl'), 'utf8'));
    const whole = fold(stored);
    const loaded = await store.loadState('s');
    expect(stateToJson(loaded.state)).toBe(stateToJson(whole));
    expect(loaded.state).toEqual(whole);
  });
});
