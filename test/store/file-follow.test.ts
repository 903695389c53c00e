/**
 * The file backend's streamed reads: the same lines a whole read gives, by the
 * torn-tail rule, whatever the chunking; and a follower that waits on a torn
 * last line instead of giving it, sees through a resume's repair, and fails
 * when the journal goes away under it.
 */
import { appendFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore, encodeRecord, type Streamed } from '../../src/index.js';
import { FileBackend } from '../../src/store/file/file-backend.js';
import { journalLines } from '../../src/core/index.js';
import { assistant, at, completed, meta, toolResult } from '../helpers/records.js';
import { tempDir } from '../helpers/tmp.js';

const root = tempDir();
let dirs = 0;
const freshDir = (): string => join(root, `d${dirs++}`);

async function streamed(backend: FileBackend, id: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const step of backend.stream(id, { follow: false })) if ('lines' in step) lines.push(...step.lines);
  return lines;
}

/** A follower driven step by step, each step bounded so a hang fails instead of stalling. */
function follower(backend: FileBackend, id: string) {
  const controller = new AbortController();
  const it = backend.stream(id, { follow: true, signal: controller.signal })[Symbol.asyncIterator]();
  /** A step asked for that had not come when the last wait gave up: the next wait takes it. */
  let asked: Promise<Streamed | 'done'> | null = null;
  return {
    async next(ms = 10_000): Promise<Streamed | 'quiet' | 'done'> {
      let timer: NodeJS.Timeout | undefined;
      const quiet = new Promise<'quiet'>((resolve) => (timer = setTimeout(() => resolve('quiet'), ms)));
      const step = (asked ??= it.next().then((r) => (r.done ? 'done' : r.value)));
      try {
        const got = await Promise.race([step, quiet]);
        if (got !== 'quiet') asked = null;
        return got;
      } finally {
        clearTimeout(timer);
      }
    },
    /** The next step, which must come. */
    async take(): Promise<Streamed> {
      const step = await this.next();
      if (step === 'quiet' || step === 'done') throw new Error(`the follower gave nothing (${step})`);
      return step;
    },
    stop: () => controller.abort(),
    it,
  };
}

const lines3 = (id: string): string[] => [at(1, { meta: meta(id) }), at(2, assistant(0, ['t1'])), at(3, toolResult('t1'))].map(encodeRecord);

describe('file backend, streamed', () => {
  it('gives what the torn-tail rule keeps of the whole text, as a read does, for a journal torn at every byte of its last line and with blank lines at its end', async () => {
    const dir = freshDir();
    const backend = new FileBackend(dir);
    await (await backend.create('torn', lines3('torn')[0]!)).release();
    const last = encodeRecord(at(4, completed));
    const variants: string[] = [];
    // A short journal, and one whose end lies past the first chunk the reader takes (64 KiB).
    for (const output of ['short', 'y'.repeat(70_000)]) {
      const lines = lines3('torn');
      lines[2] = encodeRecord(at(3, toolResult('t1', output)));
      const whole = `${lines.join('\n')}\n`;
      for (let cut = 0; cut <= last.length + 1; cut++) variants.push(whole + `${last}\n`.slice(0, cut));
      variants.push(`${whole}\n\n  \n`, `${whole}{"seq":4,"prot\n\n`, `${whole}\n${last}\n`, `${whole}not json\n${last}\n`, `${whole}${last}`);
      variants.push(`${whole}{"seq":4,"prot\n{"seq":4,"prot\n`, `${whole}not json\n  `);
    }
    for (const text of variants) {
      writeFileSync(backend.journalPath('torn'), text);
      const kept = journalLines(text).lines;
      expect(await streamed(backend, 'torn'), JSON.stringify(text.slice(-80))).toEqual(kept);
      expect((await backend.read('torn'))!.lines, JSON.stringify(text.slice(-80))).toEqual(kept);
    }
  });

  it('reads lines across chunk boundaries and lines longer than a chunk', async () => {
    const store = new FileStore(freshDir());
    await (await store.create('long', meta('long'))).close();
    const big = 'x'.repeat(200_000);
    const body: string[] = [];
    for (let i = 0; i < 300; i++) {
      body.push(encodeRecord(at(2 * i + 2, assistant(i, [`t${i}`]))), encodeRecord(at(2 * i + 3, toolResult(`t${i}`, i % 50 === 0 ? big : `short ${i}`))));
    }
    appendFileSync(store.journalPath('long'), `${body.join('\n')}\n`);
    const lines: string[] = [];
    for await (const { line } of store.records('long')) lines.push(line);
    expect(lines).toEqual(await store.lines('long'));
    expect(lines).toHaveLength(601);
  });

  it('waits on a torn last line without giving it, and gives the record a resume then writes', async () => {
    const dir = freshDir();
    const store = new FileStore(dir);
    const backend = new FileBackend(dir);
    const journal = await store.create('crashed', meta('crashed'));
    await journal.append(at(2, assistant(0, ['t1'])));
    await journal.close();
    const f = follower(backend, 'crashed');
    expect(await f.take()).toEqual({ lines: [encodeRecord(at(1, { meta: meta('crashed') })), encodeRecord(at(2, assistant(0, ['t1'])))] });
    expect(await f.take()).toEqual({ caughtUp: true });
    // A writer dies halfway through seq 3: its torn line is waited on, never given.
    const torn = encodeRecord(at(3, toolResult('t1', 'lost')));
    appendFileSync(store.journalPath('crashed'), torn.slice(0, torn.length >> 1));
    expect(await f.next(600)).toBe('quiet');
    // The resume cuts the torn line away and writes seq 3 again, differently.
    const resumed = await store.open('crashed');
    await resumed.append(at(3, toolResult('t1', 'kept')));
    expect(await f.take()).toEqual({ lines: [encodeRecord(at(3, toolResult('t1', 'kept')))] });
    expect(await f.take()).toEqual({ caughtUp: true });
    await resumed.close();
    f.stop();
    expect(await f.next()).toBe('done');
  });

  it('sees a resume repair through: the newline rewritten, and blank lines it never gave cut away', async () => {
    const dir = freshDir();
    const backend = new FileBackend(dir);
    await (await backend.create('repaired', encodeRecord(at(1, { meta: meta('repaired') })))).release();
    const path = backend.journalPath('repaired');
    appendFileSync(path, '\n  \n'); // blank lines at the end: held, never given
    const f = follower(backend, 'repaired');
    expect(await f.take()).toEqual({ lines: [encodeRecord(at(1, { meta: meta('repaired') }))] });
    expect(await f.take()).toEqual({ caughtUp: true });
    // The repair cuts the file to the end of the last whole record, its newline included, and writes that newline
    // again: for a moment the file is one byte short of what was given. That is no loss.
    const size = Buffer.byteLength(`${encodeRecord(at(1, { meta: meta('repaired') }))}\n`);
    truncateSync(path, size - 1);
    expect(await f.next(600)).toBe('quiet');
    appendFileSync(path, `\n${encodeRecord(at(2, assistant(0)))}\n`);
    expect(await f.take()).toEqual({ lines: [encodeRecord(at(2, assistant(0)))] });
    f.stop();
  });

  it('gives a record whose newline comes in a later write only once it is whole', async () => {
    const dir = freshDir();
    const backend = new FileBackend(dir);
    await (await backend.create('slow', encodeRecord(at(1, { meta: meta('slow') })))).release();
    const f = follower(backend, 'slow');
    await f.take();
    expect(await f.take()).toEqual({ caughtUp: true });
    const line = encodeRecord(at(2, assistant(0)));
    appendFileSync(backend.journalPath('slow'), line); // whole JSON, but no newline yet
    expect(await f.next(600)).toBe('quiet');
    appendFileSync(backend.journalPath('slow'), '\n');
    expect(await f.take()).toEqual({ lines: [line] });
    f.stop();
  });

  it('fails when the journal is replaced, cut short or removed under it', async () => {
    const backend = new FileBackend(freshDir());
    const make = async (id: string): Promise<ReturnType<typeof follower>> => {
      const held = await backend.create(id, encodeRecord(at(1, { meta: meta(id) })));
      await held.write(2, encodeRecord(at(2, assistant(0))));
      await held.release();
      const f = follower(backend, id);
      expect(await f.take()).toMatchObject({ lines: [expect.any(String), expect.any(String)] });
      expect(await f.take()).toEqual({ caughtUp: true });
      return f;
    };
    const failure = async (f: ReturnType<typeof follower>): Promise<{ code: string; message: string }> =>
      (await f.next().then(
        () => ({ code: 'no error', message: '' }),
        (e: { code: string; message: string }) => e,
      ));

    const replaced = await make('replaced');
    const other = join(root, 'other.jsonl');
    writeFileSync(other, `${encodeRecord(at(1, { meta: meta('replaced') }))}\n`);
    renameSync(other, backend.journalPath('replaced'));
    expect(await failure(replaced)).toMatchObject({ code: 'journal_gone', message: expect.stringMatching(/replaced by another file/) });

    const cut = await make('cut');
    truncateSync(backend.journalPath('cut'), 10);
    expect(await failure(cut)).toMatchObject({ code: 'journal_gone', message: expect.stringMatching(/cut short/) });

    const removed = await make('removed');
    expect(await backend.delete('removed')).toBe(true);
    expect(await failure(removed)).toMatchObject({ code: 'journal_gone', message: expect.stringMatching(/was removed/) });
  });

  it('waits for a journal that does not exist yet, even in a directory that does not exist yet', async () => {
    const dir = freshDir();
    const backend = new FileBackend(dir);
    const f = follower(backend, 'later');
    expect(await f.take()).toEqual({ caughtUp: true });
    const step = f.take();
    await (await new FileBackend(dir).create('later', encodeRecord(at(1, { meta: meta('later') })))).release();
    expect(await step).toEqual({ lines: [encodeRecord(at(1, { meta: meta('later') }))] });
    f.stop();
  });
});
