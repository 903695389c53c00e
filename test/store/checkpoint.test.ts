import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import {
  CHECKPOINT_LAYOUT,
  LinesDigest,
  heldRun,
  encodeFoldCheckpoint,
  encodeRecord,
  fold,
  modelCallOf,
  parseFoldCheckpoint,
  parseJournal,
  stateToJson,
  step,
  type JournalRecord,
  type ModelCall,
} from '../../src/core/index.js';
import { CHECKPOINT_MIN_BYTES } from '../../src/store/checkpoint.js';
import { BIN } from '../helpers/cli.js';
import { journal } from '../helpers/journals.js';
import { assistant, at, meta, toolResult } from '../helpers/records.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { buildIdentity } from '../../src/store/package-version.js';

const BUILD = buildIdentity();

const root = tempDir();
afterAll(removeTempDirs);
let dirs = 0;
function freshDir(): string {
  const dir = join(root, `s${dirs++}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const linesOf = (records: readonly JournalRecord[]): string => records.map((r) => `${encodeRecord(r)}\n`).join('');

/**
 * The checkpoint of the first `n` records, with a marker in its prompt when
 * `marked`: a load that returns the marker took its state from the checkpoint.
 */
function checkpointText(records: readonly JournalRecord[], n: number, marked = false): string {
  const digest = new LinesDigest();
  for (const r of records.slice(0, n)) digest.addLine(encodeRecord(r));
  const state = fold(records.slice(0, n));
  if (marked) state.prompt = 'FROM THE CHECKPOINT';
  const calls = records
    .slice(0, n)
    .map(modelCallOf)
    .filter((c): c is ModelCall => c !== null);
  return encodeFoldCheckpoint({ lines: digest.lines, length: digest.length, digest: digest.hex(), metaLine: encodeRecord(records[0]!), state, calls }, BUILD);
}

/** A file store holding `records` as run `id`'s journal, with `checkpoint` beside it. */
function storeWith(id: string, records: readonly JournalRecord[], checkpoint?: string): { store: FileStore; path: string } {
  const dir = freshDir();
  const store = new FileStore(dir);
  writeFileSync(join(dir, `${id}.jsonl`), linesOf(records));
  if (checkpoint !== undefined) writeFileSync(join(dir, `${id}.fold`), checkpoint);
  return { store, path: join(dir, `${id}.jsonl`) };
}

/** A run of `turns` turns (an assistant record and its tool result each), of about 200 bytes a turn. */
function longRun(id: string, turns: number): JournalRecord[] {
  const records: JournalRecord[] = [at(1, { meta: meta(id) })];
  for (let i = 0; i < turns; i++) {
    records.push(at(records.length + 1, assistant(i, [`t${i}`], `turn ${i} ${'x'.repeat(60)}`)));
    records.push(at(records.length + 1, toolResult(`t${i}`, `output of turn ${i} ${'y'.repeat(60)}`)));
  }
  return records;
}

describe('a load from a fold checkpoint (file store)', () => {
  it('folds a journal with a checkpoint of any prefix, and lines after it, to exactly what the whole fold gives', async () => {
    await fc.assert(
      fc.asyncProperty(
        journal.chain((j) => fc.record({ records: fc.constant(j.records), n: fc.integer({ min: 1, max: j.records.length }) })),
        async ({ records: generated, n }) => {
          const records = parseJournal(linesOf(generated)); // as stored: a zero a writer leaves out is not read back
          const id = records[0]!.seq === 1 && 'meta' in records[0]! ? records[0].meta.run_id : 'x';
          const { store } = storeWith(id, records, checkpointText(records, n));
          const loaded = await store.loadState(id, { calls: true });
          const whole = fold(records);
          expect(loaded.state).toEqual(whole);
          expect(stateToJson(loaded.state)).toBe(stateToJson(whole));
          expect(loaded.lastSeq).toBe(whole.last_seq);
          expect(loaded.metaLine).toBe(encodeRecord(records[0]!));
          expect(loaded.calls).toEqual(records.map(modelCallOf).filter((c) => c !== null));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('holds the conversation it takes from a checkpoint as its text, each message parsed only where it is read', async () => {
    const records = longRun('r', 5);
    const { store } = storeWith('r', records, checkpointText(records, records.length - 2));
    const { state } = await store.loadState('r');
    // The last turn was folded in after the checkpoint: its two messages are objects, the eight before them held.
    const held = state.messages.map((_, i) => heldRun(state.messages, i, i + 1) !== null);
    expect(held).toEqual([...Array<boolean>(state.messages.length - 2).fill(true), false, false]);
    expect(state.messages).toEqual(fold(records).messages);
    expect(state.messages.every((_, i) => heldRun(state.messages, i, i + 1) === null)).toBe(true);
  });

  it('takes the state from a checkpoint whose lines are the journal\'s first lines as stored', async () => {
    const records = longRun('r', 5);
    const { store } = storeWith('r', records, checkpointText(records, 7, true));
    expect((await store.loadState('r')).state.prompt).toBe('FROM THE CHECKPOINT');
    // Its lines after it are folded in: their seqs are checked against its last.
    expect((await store.loadState('r')).lastSeq).toBe(records.length);
  });

  const ignored: [string, (path: string, text: string) => string | void][] = [
    ['the journal edited within its lines', (path) => writeFileSync(path, readFileSync(path, 'utf8').replace('turn 1 ', 'turn 9 '))],
    ['the journal cut short of them', (path) => truncateSync(path, 300)],
    [
      'the last of its lines torn (cut mid-line)',
      (path) => {
        const text = readFileSync(path, 'utf8');
        const ends = [...text.matchAll(/\n/g)].map((m) => m.index);
        truncateSync(path, ends[6]! - 5);
      },
    ],
    [
      'the journal rewound and written again otherwise',
      (path) => {
        const again = longRun('r', 5);
        again[3] = at(4, assistant(1, ['t1'], 'another turn 1'));
        writeFileSync(path, linesOf(again));
      },
    ],
    ['the journal written with other line ends (CRLF)', (path) => writeFileSync(path, readFileSync(path, 'utf8').replaceAll('\n', '\r\n'))],
    ['the checkpoint damaged', (_path, text) => text.replace('FROM THE CHECKPOINT', 'FROM THE CHECKPOINX')],
    ['the checkpoint cut short', (_path, text) => text.slice(0, text.length - 10)],
    ['the checkpoint of another layout', (_path, text) => text.replace(`"layout":${CHECKPOINT_LAYOUT}`, `"layout":${CHECKPOINT_LAYOUT + 1}`)],
    ['the checkpoint of another run', (_path, text) => text.replace('"run_id":"r"', '"run_id":"q"')],
  ];
  for (const [what, change] of ignored) {
    it(`ignores the checkpoint, and folds the run whole as before, with ${what}`, async () => {
      const records = longRun('r', 5);
      const text = checkpointText(records, 7, true);
      const { store, path } = storeWith('r', records, text);
      const changed = change(path, text);
      if (typeof changed === 'string') writeFileSync(path.replace(/\.jsonl$/, '.fold'), changed);
      const withIt = await store.loadState('r').then(
        (l) => stateToJson(l.state),
        (err: Error) => `error: ${err.message.replace(join(path, '..'), '…')}`,
      );
      // The same store without the checkpoint reads the same: the checkpoint changed nothing.
      const bare = freshDir();
      writeFileSync(join(bare, 'r.jsonl'), readFileSync(path));
      const without = await new FileStore(bare).loadState('r').then(
        (l) => stateToJson(l.state),
        (err: Error) => `error: ${err.message.replace(bare, '…')}`,
      );
      expect(withIt).toBe(without);
      expect(withIt).not.toContain('FROM THE CHECKPOINT');
    });
  }

  it('is written by a writer that went on with a long run, once it grew enough, and used by the next load', async () => {
    const records = longRun('w', Math.ceil(CHECKPOINT_MIN_BYTES / 150));
    const { store, path } = storeWith('w', records);
    const checkpoint = (): ReturnType<typeof parseFoldCheckpoint> => parseFoldCheckpoint(readFileSync(path.replace(/\.jsonl$/, '.fold'), 'utf8'), BUILD);
    // A resume: read whole, held, a record appended, then its checkpoint kept while it waits.
    const goOn = async (seq: number): Promise<JournalRecord[]> => {
      const loaded = await store.loadState('w', { forWriting: true });
      const j = await store.open('w', { checkedThrough: loaded.lastSeq, trail: loaded.trail! });
      const more = at(seq, assistant(seq, [], 'and then'));
      await j.append(more);
      step(loaded.state, more);
      await j.keepCheckpoint(loaded.state);
      await j.close();
      return [more];
    };
    const all = [...records, ...(await goOn(records.length + 1))];
    expect(checkpoint()?.lines).toBe(all.length);
    expect(checkpoint()?.length).toBe(readFileSync(path).length);
    expect(checkpoint()?.state).toEqual(fold(all));
    expect((await store.loadState('w')).state).toEqual(fold(all));
    // The next writer takes it, and writes none again until the run grew enough since.
    all.push(...(await goOn(all.length + 1)));
    expect(checkpoint()?.lines).toBe(all.length - 1);
    expect((await store.loadState('w', { calls: true })).calls).toEqual(all.map(modelCallOf).filter((c) => c !== null));
    // Removed with its run.
    await store.delete('w');
    expect(existsSync(path.replace(/\.jsonl$/, '.fold'))).toBe(false);
  });

  it('is never written for a short run', async () => {
    const dir = freshDir();
    const store = new FileStore(dir);
    const records = longRun('s', 20);
    const j = await store.create('s', (records[0] as { meta: ReturnType<typeof meta> }).meta);
    for (const r of records.slice(1)) await j.append(r);
    await j.keepCheckpoint(fold(records));
    await j.close();
    expect(existsSync(join(dir, 's.fold'))).toBe(false);
  });

  it('leaves none or a whole one when its writer is killed while writing it', async () => {
    const dir = freshDir();
    const records = longRun('k', 400);
    writeFileSync(join(dir, 'k.jsonl'), linesOf(records));
    const texts = [checkpointText(records, 401), checkpointText(records, 801)];
    writeFileSync(join(dir, 'texts.json'), JSON.stringify(texts));
    const backend = resolve(dirname(BIN), '../dist/index.js'); // the build, as a process of its own runs it
    const script = `import { FileBackend } from ${JSON.stringify(backend)};
import { readFileSync } from 'node:fs';
const texts = JSON.parse(readFileSync(${JSON.stringify(join(dir, 'texts.json'))}, 'utf8'));
const b = new FileBackend(${JSON.stringify(dir)});
process.stdout.write('go\\n');
for (let i = 0; ; i++) await b.writeCheckpoint('k', texts[i % 2]);`;
    for (let round = 0; round < 3; round++) {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      await new Promise((r) => setTimeout(r, 20 + round * 15));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const kept = existsSync(join(dir, 'k.fold')) ? readFileSync(join(dir, 'k.fold'), 'utf8') : null;
      if (kept !== null) expect(texts).toContain(kept);
      // Whatever the crash left, a load folds the run as it is.
      expect((await new FileStore(dir).loadState('k')).state).toEqual(fold(records));
    }
    // A crash before the rename leaves a hidden temporary file, never read as the checkpoint.
    appendFileSync(join(dir, '.k.fold.0123.tmp'), texts[0]!.slice(0, 100));
    expect((await new FileStore(dir).loadState('k')).state).toEqual(fold(records));
  });
});

