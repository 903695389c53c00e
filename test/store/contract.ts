/**
 * The backend contract (src/store/backend.ts), run against each backend: every
 * backend, wrapped in the journal rules, must behave the same.
 */
import { describe, expect, it } from 'vitest';
import { JournalStore, MemoryStore, copyRun, encodeRecord, lineageOf, type Backend, type Store, type RunState, type StreamedRecord } from '../../src/index.js';
import { forkRun } from '../../src/store/fork.js';
import { resolveRunId } from '../../src/store/resolve.js';
import { newerWriterLines } from '../helpers/newer-writer.js';
import { assistant, at, completed, meta, storeRun, toolResult } from '../helpers/records.js';

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
  return 'no error';
}

/** A bound on how long a watch step may take in these tests: a hang fails the test instead of stalling it. */
const STEP_MS = 10_000;

/**
 * A watch driven one record at a time: `next()` is the next record (or null when
 * the watch ended), failing after STEP_MS.
 */
function driven(iterable: AsyncIterable<StreamedRecord>): { next(): Promise<StreamedRecord | null>; stop(): Promise<void> } {
  const it = iterable[Symbol.asyncIterator]();
  return {
    async next() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no record within ${STEP_MS} ms`)), STEP_MS);
      });
      try {
        const r = await Promise.race([it.next(), timeout]);
        return r.done ? null : r.value;
      } finally {
        clearTimeout(timer);
      }
    },
    async stop() {
      await it.return?.();
    },
  };
}

async function collect(iterable: AsyncIterable<StreamedRecord>): Promise<string[]> {
  const lines: string[] = [];
  for await (const { line } of iterable) lines.push(line);
  return lines;
}

export function storeContract(name: string, makeBackend: () => Promise<Backend>): void {
  const makeStore = async (): Promise<Store> => new JournalStore(await makeBackend());
  describe(`${name} store contract`, () => {
    it('creates a run with meta as seq 1 and folds appended records back', async () => {
      const store = await makeStore();
      const j = await store.create('run-1', meta('run-1'));
      expect(j.lastSeq).toBe(1);
      await j.append(at(2, assistant(0, ['t1', 't2'])));
      await j.append(at(3, toolResult('t1')));
      expect(j.lastSeq).toBe(3);
      const loaded = await store.load('run-1');
      expect(loaded.lastSeq).toBe(3);
      expect(loaded.created).toBe('2026-11-30T01:02:03.123Z');
      expect(loaded.state.pending?.answered).toEqual(['t1']);
      expect(await store.lines('run-1')).toEqual(loaded.records.map(encodeRecord));
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
      await j.append(at(2, assistant(0)));
      await j.append(at(2, assistant(0, [], 'a different body')));
      await j.append(at(1, assistant(0)));
      expect(j.lastSeq).toBe(2);
      expect(await code(j.append(at(4, completed)))).toBe('seq_gap');
      expect(j.lastSeq).toBe(2);
      await j.append(at(3, completed));
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
      await again.append(at(2, assistant(0)));
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
      await storeRun(store, 'list-a', [assistant(0), completed], { prompt: 'first prompt' });
      const b = await store.create('list-b', meta('list-b', { prompt: 'second' }));
      await b.close();
      const runs = (await store.list()).filter((r) => r.runId.startsWith('list-')).sort((x, y) => x.runId.localeCompare(y.runId));
      expect(runs.map((r) => [r.runId, r.status, r.model, r.prompt, r.created])).toEqual([
        ['list-a', 'completed', 'test-model', 'first prompt', '2026-11-30T01:02:03.123Z'],
        // Ends on no terminal record and nobody holds it: interrupted, where the backend can tell.
        ['list-b', runs[1]!.held === undefined ? 'open' : 'interrupted', 'test-model', 'second', '2026-11-30T01:02:03.123Z'],
      ]);
      for (const r of runs) expect(Number.isNaN(Date.parse(r.updated))).toBe(false);
      expect(await store.delete('list-a')).toBe(true);
      expect(await store.delete('list-a')).toBe(false);
      expect(await code(store.load('list-a'))).toBe('not_found');
      expect((await store.list()).map((r) => r.runId)).not.toContain('list-a');
      await store.close();
    });

    it('tells whether a writer holds a run where it can, and never says so where it cannot', async () => {
      const store = await makeStore();
      const j = await store.create('held-now', meta('held-now'));
      const listed = async () => (await store.list()).find((r) => r.runId === 'held-now')!;
      const whileHeld = await listed();
      if (whileHeld.held === undefined) {
        // A backend that cannot tell says nothing, before and after, and the status stays `open`.
        expect(whileHeld.status).toBe('open');
        expect((await store.load('held-now')).held).toBeUndefined();
        await j.close();
        expect(await listed()).toMatchObject({ status: 'open' });
        expect((await listed()).held).toBeUndefined();
      } else {
        expect(whileHeld).toMatchObject({ held: true, status: 'running' });
        expect((await store.load('held-now')).held).toBe(true);
        // Looking took nothing from the writer: it still appends, and a second writer is still refused.
        await j.append(at(2, assistant(0, ['t1'])));
        expect(await code(store.open('held-now'))).toBe('locked');
        await j.close();
        expect(await listed()).toMatchObject({ held: false, status: 'interrupted' });
        expect((await store.load('held-now')).held).toBe(false);
        const done = await store.open('held-now');
        await done.append(at(3, toolResult('t1')));
        await done.append(at(4, completed));
        await done.close();
        expect(await listed()).toMatchObject({ held: false, status: 'completed' });
      }
      await store.close();
    });

    it('reads one line of a run alone, and lists a chat opened without a prompt by its first typed turn', async () => {
      const backend = await makeBackend();
      const store = new JournalStore(backend);
      const j = await store.create('chat', meta('chat', { prompt: '', interactive: true }));
      const listed = async () => (await store.list()).find((r) => r.runId === 'chat')!;
      expect(await listed()).toMatchObject({ prompt: '', interactive: true });
      const typed = at(2, { user: { message: { role: 'user', content: [{ text: { text: 'first words\ntyped' } }] } } });
      await j.append(typed);
      await j.append(at(3, assistant(1)));
      await j.close();
      expect(await listed()).toMatchObject({ prompt: 'first words\ntyped', interactive: true });
      expect(await backend.readLine('chat', 1)).toBe(encodeRecord(at(1, { meta: meta('chat', { prompt: '', interactive: true }) })));
      expect(await backend.readLine('chat', 2)).toBe(encodeRecord(typed));
      expect(await backend.readLine('chat', 4)).toBeNull();
      expect(await backend.readLine('absent', 1)).toBeNull();
      await store.close();
    });

    it('says whether a run exists without listing the store, and resolves a whole id so, a prefix by the listing', async () => {
      const backend = await makeBackend();
      const store = new JournalStore(backend);
      await (await store.create('known-run', meta('known-run'))).close();
      expect(await store.has('known-run')).toBe(true);
      expect(await store.has('known')).toBe(false);
      expect(await store.has('absent')).toBe(false);
      await expect(store.has('../escape')).rejects.toMatchObject({ code: 'invalid_id' });
      let listings = 0;
      const list = store.list.bind(store);
      store.list = async () => {
        listings++;
        return list();
      };
      expect(await resolveRunId(store, 'known-run')).toBe('known-run');
      expect(listings).toBe(0);
      expect(await resolveRunId(store, 'known')).toBe('known-run');
      expect(listings).toBe(1);
      await expect(resolveRunId(store, 'absent')).rejects.toMatchObject({ code: 'not_found' });
      await store.close();
    });

    it('refuses a meta naming another run: when creating it, and when it is found stored', async () => {
      const backend = await makeBackend();
      const store = new JournalStore(backend);
      expect(await code(store.create('one', meta('two')))).toBe('invalid_meta');
      // Bytes a backend holds under one id whose meta names another (a renamed file, a hand-made subject).
      await (await backend.create('renamed', encodeRecord(at(1, { meta: meta('original') })))).release();
      // One at a time: a refusal made before it is awaited would be an unhandled rejection.
      for (const refused of [() => store.load('renamed'), () => store.open('renamed')]) {
        const err = (await refused().catch((e: unknown) => e)) as Error & { code: string };
        expect(err.code).toBe('corrupt');
        expect(err.message).toMatch(/run original, not run renamed/);
      }
      const listed = (await store.list()).find((r) => r.runId === 'renamed');
      expect(listed).toMatchObject({ status: 'unreadable', problem: expect.stringMatching(/run original, not run renamed/) });
      await store.close();
    });

    it('appends nothing after close, and closes twice without complaint', async () => {
      const store = await makeStore();
      const j = await store.create('closed', meta('closed'));
      await j.close();
      await j.close();
      expect(await code(j.append(at(2, assistant(0))))).toBe('journal_closed');
      expect((await store.load('closed')).lastSeq).toBe(1);
      await store.close();
    });

    it("keeps a newer writer's lines as they are, unknown fields and all, and lists its unknown terminal reason as the status", async () => {
      const store = await makeStore();
      const lines = newerWriterLines('newer');
      await (await store.createFromLines('newer', lines)).close();
      expect(await store.lines('newer')).toEqual(lines);
      const loaded = await store.load('newer');
      expect(loaded.state.status).toBe('handed_off');
      expect(loaded.records.map(encodeRecord)).not.toEqual(lines); // re-encoding drops what this build does not know
      const [listed] = (await store.list()).filter((r) => r.runId === 'newer');
      expect(listed?.status).toBe('handed_off');
      await store.close();
    });

    it('copies stored lines byte for byte, the whole run or none of it', async () => {
      const store = await makeStore();
      const lines = [at(1, { meta: meta('copied') }), at(2, assistant(0, ['t1'])), at(3, toolResult('t1')), at(4, completed)].map(encodeRecord);
      await (await store.createFromLines('copied', lines)).close();
      expect(await store.lines('copied')).toEqual(lines);
      const broken = [...lines.slice(0, 2).map((l) => l.replace('copied', 'partial')), '{"seq":3,"protocol":"nonsense"}'];
      expect(await code(store.createFromLines('partial', broken))).toBe('corrupt');
      expect(await code(store.load('partial'))).toBe('not_found');
      await store.close();
    });

    it('keeps notes beside a run, written once, and removes them with it', async () => {
      const store = await makeStore();
      await (await store.create('noted', meta('noted'))).close();
      expect(await store.getNote('noted', 'tools-abc')).toBeNull();
      await store.putNote('noted', 'tools-abc', '{"a":"1"}');
      await store.putNote('noted', 'tools-abc', '{"a":"2"}'); // a key names content: the first stays
      expect(await store.getNote('noted', 'tools-abc')).toBe('{"a":"1"}');
      expect((await store.list()).map((r) => r.runId).filter((id) => id.startsWith('noted'))).toEqual(['noted']);
      expect(await store.lines('noted')).toHaveLength(1); // a note is no part of the journal
      expect(await code(store.putNote('noted', '../x', 'no'))).toBe('usage');
      expect(await store.delete('noted')).toBe(true);
      await (await store.create('noted', meta('noted'))).close();
      expect(await store.getNote('noted', 'tools-abc')).toBeNull();
      await store.close();
    });

    it("gives a run's notes of one family by key, none of another run's, and the first of two racing writes", async () => {
      const store = await makeStore();
      await (await store.create('family', meta('family'))).close();
      await (await store.create('family2', meta('family2'))).close();
      expect(await store.notesWith('family', 'sent-')).toEqual(new Map());
      await store.putNote('family', 'sent-2-b', '{"n":2}');
      await store.putNote('family', 'sent-1-a', '{"n":1}');
      await store.putNote('family', 'cost-1-a', '{"c":1}');
      await store.putNote('family2', 'sent-9-z', '{"n":9}');
      await Promise.all([store.putNote('family', 'sent-3-c', '{"first":true}'), store.putNote('family', 'sent-3-c', '{"first":false}')]);
      const sent = await store.notesWith('family', 'sent-');
      expect([...sent.keys()]).toEqual(['sent-1-a', 'sent-2-b', 'sent-3-c']);
      expect(sent.get('sent-1-a')).toBe('{"n":1}');
      expect(sent.get('sent-3-c')).toBe(await store.getNote('family', 'sent-3-c')); // one of the two, the same to every reader
      expect([...(await store.notesWith('family', 'cost-')).keys()]).toEqual(['cost-1-a']);
      expect(await store.delete('family')).toBe(true);
      expect(await store.notesWith('family', 'sent-')).toEqual(new Map());
      await store.close();
    });

    it("shows a writer's live text to a watcher as it grows, whole, and clears it when the call ends", async () => {
      const store = await makeStore();
      await (await store.create('lively', meta('lively'))).close();
      const stop = new AbortController();
      const seen: (string | null)[] = [];
      const watching = (async () => {
        for await (const live of store.watchLive('lively', { signal: stop.signal })) seen.push(live === null ? null : `${live.after}:${live.text}`);
      })();
      const until = async (what: string, ok: () => boolean) => {
        for (const end = Date.now() + STEP_MS; !ok(); await new Promise((r) => setTimeout(r, 20))) if (Date.now() > end) throw new Error(`never saw ${what}: ${JSON.stringify(seen)}`);
      };
      const writer = store.liveText('lively');
      writer.begin(1, 0);
      writer.text('Hello');
      writer.text(', world');
      await until('the text so far', () => seen.includes('1:Hello, world'));
      await writer.end();
      await until('the text cleared', () => seen.at(-1) === null);
      expect(await store.lines('lively')).toHaveLength(1); // never journaled
      stop.abort();
      await watching;
      await store.close();
    });

    it('keeps a note kept before its run exists, and the run made after it has it', async () => {
      const store = await makeStore();
      await store.putNote('later', 'forked', '{"from":"x","at":3,"compacted":true}');
      expect(await store.getNote('later', 'forked')).toBe('{"from":"x","at":3,"compacted":true}');
      expect((await store.list()).map((r) => r.runId)).not.toContain('later');
      await (await store.create('later', meta('later'))).close();
      expect(await store.forkOrigin('later')).toEqual({ from: 'x', at: 3, compacted: true });
      expect((await store.list({ origins: true })).find((r) => r.runId === 'later')?.forkedFrom).toEqual({ from: 'x', at: 3, compacted: true });
      await store.close();
    });

    it('resolves an id by any unique part of it, a unique start first; a part several ids share is a usage error that names them', async () => {
      const store = await makeStore();
      for (const id of ['20261130-091500-i8dj2k', '20261130-091501-k3x9qa', 'i8dj-other']) await (await store.create(id, meta(id))).close();
      expect(await resolveRunId(store, 'k3x9')).toBe('20261130-091501-k3x9qa');
      expect(await resolveRunId(store, 'i8dj')).toBe('i8dj-other'); // the one it starts wins over the one it is inside
      expect(await resolveRunId(store, 'dj2k')).toBe('20261130-091500-i8dj2k');
      const ambiguous = await resolveRunId(store, '091').catch((err: unknown) => err as { code: string; message: string });
      expect(ambiguous).toMatchObject({ code: 'usage', message: expect.stringMatching(/^091 is part of 2 run ids \(20261130-091500-i8dj2k, 20261130-091501-k3x9qa\); give more of it$/) });
      expect(await code(resolveRunId(store, 'zz9'))).toBe('not_found');
      await store.close();
    });

    it('keeps the text of each typed turn beside the run as it becomes durable, and lists the last one without reading the journal', async () => {
      const backend = await makeBackend();
      const store = new JournalStore(backend);
      const typed = (seq: number, text: string) => at(seq, { user: { message: { role: 'user', content: [{ text: { text } }] } } });
      const j = await store.create('typing', meta('typing', { prompt: 'first question' }));
      await j.append(at(2, assistant(1)));
      const listed = async () => (await store.list({ lastTurns: true })).find((r) => r.runId === 'typing')!;
      expect(await listed()).toMatchObject({ prompt: 'first question', lastTurn: 'first question' });
      await j.append(typed(3, 'second question'));
      await j.append(at(4, assistant(2)));
      await j.append(typed(5, 'x'.repeat(2000)));
      await j.close();
      expect(await store.getNote('typing', 'turn-3')).toBe('second question');
      expect((await store.getNote('typing', 'turn-5'))!.length).toBe(500); // cut: a listing shows one line of it
      const summary = (await backend.list()).find((s) => s.id === 'typing')!;
      expect([...(summary.notes ?? [])].sort()).toEqual(['turn-3', 'turn-5']);
      expect(await listed()).toMatchObject({ prompt: 'first question', lastTurn: 'x'.repeat(500) });
      // A copy between stores keeps them as it copies the lines.
      const copy = await store.createFromLines('typing-copy', [encodeRecord(at(1, { meta: meta('typing-copy') })), ...(await store.lines('typing')).slice(1, 3)]);
      await copy.close();
      expect((await store.list({ lastTurns: true })).find((r) => r.runId === 'typing-copy')).toMatchObject({ lastTurn: 'second question' });
      await store.close();
    });

    it('keeps where a run was started, and a fork its origin and that place; a listing reads them when asked, for every run', async () => {
      const store = await makeStore();
      await storeRun(store, 'origin');
      await store.markPlace('origin', { dir: '/work/project', config: '/work/project/agent.yaml' });
      expect(await store.placeOf('origin')).toEqual({ dir: '/work/project', config: '/work/project/agent.yaml' });
      await forkRun(store, 'origin', { id: 'kept-place' });
      await forkRun(store, 'origin', { id: 'new-place', place: { dir: '/elsewhere' } });
      // The fork that went on: its origin stays once it has records of its own.
      const ran = await store.open('new-place');
      await ran.append(at(3, { user: { message: { role: 'user', content: [{ text: { text: 'and then?' } }] } } }));
      await ran.append(at(4, completed));
      await ran.close();
      const runs = await store.list({ origins: true, places: true });
      const get = (id: string) => runs.find((r) => r.runId === id)!;
      expect(get('origin')).toMatchObject({ place: { dir: '/work/project' } });
      expect(get('origin').forkedFrom).toBeUndefined();
      expect(get('kept-place')).toMatchObject({ status: 'forked', forkedFrom: { from: 'origin', at: 2 }, place: { dir: '/work/project', config: '/work/project/agent.yaml' } });
      expect(get('new-place')).toMatchObject({ status: 'completed', forkedFrom: { from: 'origin', at: 2 }, place: { dir: '/elsewhere' } });
      // Without asking, a listing reads an origin only where the run may be listed forked, and no place.
      const plain = await store.list();
      expect(plain.find((r) => r.runId === 'new-place')!.forkedFrom).toBeUndefined();
      expect(plain.find((r) => r.runId === 'kept-place')).toMatchObject({ status: 'forked', forkedFrom: { from: 'origin', at: 2 } });
      expect(plain.every((r) => r.place === undefined)).toBe(true);
      await store.close();
    });

    it("lists a run's lineage alone as the whole listing has it: forks, a continuation, a missing origin, an unreadable run, a note without its run", async () => {
      const backend = await makeBackend();
      const store = new JournalStore(backend);
      await storeRun(store, 'lin-root');
      await forkRun(store, 'lin-root', { id: 'lin-a' });
      await forkRun(store, 'lin-a', { id: 'lin-a2' });
      await forkRun(store, 'lin-root', { id: 'lin-b', at: 2 });
      const made = async (id: string, from?: { from: string; at: number; compacted?: true }): Promise<void> => {
        await (await store.create(id, meta(id))).close();
        if (from !== undefined) await store.markFork(id, from);
      };
      await made('lin-cont', { from: 'lin-a2', at: 3, compacted: true });
      await made('lin-alone');
      await made('lin-orphan-x', { from: 'lin-gone', at: 1 });
      await made('lin-orphan-y', { from: 'lin-gone', at: 1 });
      // Unreadable (its meta names another run), though its note names an origin: listed with none, the root of its own forks.
      await (await backend.create('lin-bad', encodeRecord(at(1, { meta: meta('lin-elsewhere') })))).release();
      await store.markFork('lin-bad', { from: 'lin-a', at: 1 });
      await made('lin-under-bad', { from: 'lin-bad', at: 1 });
      await store.markFork('lin-ghost', { from: 'lin-root', at: 1 }); // a note kept before its run, which never came
      const whole = await store.list({ origins: true, noteKeys: true });
      const ids = (runs: readonly { runId: string }[]): string[] => runs.map((r) => r.runId).filter((id) => id.startsWith('lin-'));
      expect(ids(lineageOf(whole, 'lin-a2')).sort()).toEqual(['lin-a', 'lin-a2', 'lin-b', 'lin-cont', 'lin-root']);
      expect(ids(lineageOf(whole, 'lin-under-bad')).sort()).toEqual(['lin-bad', 'lin-under-bad']);
      for (const id of [...ids(whole), 'lin-gone', 'lin-ghost', 'lin-none']) {
        const alone = await store.list({ origins: true, noteKeys: true, lineage: id });
        expect(alone, id).toEqual(lineageOf(whole, id));
      }
      for (const run of await store.list({ noteKeys: true, lineage: 'lin-root' })) {
        if (run.noteKeys !== undefined) expect([...run.noteKeys].sort(), run.runId).toEqual((await store.noteKeys(run.runId)).sort());
      }
      await store.close();
    });

    it('keeps when each record became durable and when a writer took the run up again, beside the journal, where it keeps times', async () => {
      const backend = await makeBackend();
      const store = new JournalStore(backend);
      // Clocks: the backend's (a server's) and this process's agree on one machine, within SLACK.
      const SLACK = 5;
      const before = Date.now();
      const j = await store.create('timed', meta('timed'));
      await j.append(at(2, assistant(0, ['t1'])));
      await j.close();
      const closed = Date.now();
      await new Promise((wake) => setTimeout(wake, 20)); // the resume starts visibly later
      const again = await store.open('timed');
      const opened = Date.now();
      await again.append(at(3, toolResult('t1')));
      await again.append(at(4, completed));
      await again.close();
      const after = Date.now();
      const loaded = await store.load('timed');
      expect(await store.lines('timed')).toHaveLength(4); // times are no part of the journal
      if (backend.times === undefined) {
        // A backend that keeps no times gives none: nothing is made up.
        expect(loaded.times.records.size + loaded.times.resumed.size).toBe(0);
        expect((await store.times('timed')).records.size).toBe(0);
        await store.close();
        return;
      }
      const times = [1, 2, 3, 4].map((seq) => loaded.times.records.get(seq)!);
      for (const t of times) {
        expect(t).toBeGreaterThanOrEqual(before - SLACK);
        expect(t).toBeLessThanOrEqual(after + SLACK);
      }
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      expect(times[1]!).toBeLessThanOrEqual(closed + SLACK);
      const resumed = loaded.times.resumed.get(2)!;
      expect(resumed).toBeGreaterThanOrEqual(closed - SLACK + 15);
      expect(resumed).toBeLessThanOrEqual(Math.min(opened, times[2]!) + SLACK);
      expect([...loaded.times.resumed.keys()]).toEqual([2]);
      // The same times without reading the records, and with each streamed line where the backend reads them together.
      expect(await store.times('timed')).toEqual(loaded.times);
      for await (const { record, time } of store.watch('timed')) if (time !== undefined) expect(time).toBe(loaded.times.records.get(record.seq));
      // They go with the run.
      expect(await store.delete('timed')).toBe(true);
      await (await store.create('timed', meta('timed'))).close();
      expect([...(await store.times('timed')).records.keys()]).toEqual([1]);
      expect((await store.times('timed')).resumed.size).toBe(0);
      await store.close();
    });

    it('gives a run made from stored lines (a copy, a fork) no times for what it copied, only for what was written to it since', async () => {
      const store = await makeStore();
      const lines = [at(1, { meta: meta('copied') }), at(2, assistant(0, ['t1']))].map(encodeRecord);
      await (await store.createFromLines('copied', lines)).close();
      const resumed = await store.open('copied');
      await resumed.append(at(3, toolResult('t1')));
      await resumed.close();
      const times = await store.times('copied');
      expect((await store.load('copied')).times).toEqual(times);
      expect([...times.records.keys()]).toEqual(times.records.size === 0 ? [] : [3]); // the copy's own
      expect([...times.resumed.keys()]).toEqual(times.records.size === 0 ? [] : [2]);
      await store.close();
    });

    it('gives a copy made with its source\'s times and notes those times for what it copied, and keeps the notes', async () => {
      const store = await makeStore();
      const lines = [at(1, { meta: meta('carried') }), at(2, assistant(0, ['t1']))].map(encodeRecord);
      const source = { records: new Map([[1, 1_000], [2, 2_000]]), resumed: new Map([[1, 1_500]]) };
      await (await store.createFromLines('carried', lines, { times: source, notes: new Map([['forked', '{"from":"x","at":1}']]) })).close();
      const resumed = await store.open('carried');
      await resumed.append(at(3, toolResult('t1')));
      await resumed.close();
      const times = await store.times('carried');
      expect((await store.load('carried')).times).toEqual(times);
      if (times.records.size > 0) {
        // A backend that keeps times: the copied records' own, then the copy's.
        expect(times.records.get(1)).toBe(1_000);
        expect(times.records.get(2)).toBe(2_000);
        expect(times.resumed.get(1)).toBe(1_500);
        expect([...times.records.keys()]).toEqual([1, 2, 3]);
      }
      const note = await store.getNote('carried', 'forked');
      expect(note === null || note === '{"from":"x","at":1}').toBe(true); // null where the backend keeps no notes
      await store.close();
    });

    it('finishes a run made from stored lines that a crash left at its meta: the records it copies then keep their source\'s times, and finishing it again adds nothing', async () => {
      const backend = await makeBackend();
      const store = new JournalStore(backend);
      const lines = [at(1, { meta: meta('cut') }), at(2, assistant(0, ['t1'])), at(3, toolResult('t1'))].map(encodeRecord);
      const source = { records: new Map([[1, 1_000], [2, 2_000], [3, 3_000]]), resumed: new Map<number, number>() };
      await (await backend.create('cut', lines[0]!)).release(); // createFromLines cut short after the meta, before its notes
      await store.finishFromLines('cut', lines, { times: source });
      await store.finishFromLines('cut', lines, { times: source });
      expect(await store.lines('cut')).toEqual(lines);
      const times = await store.times('cut');
      if (times.records.size > 0) {
        // A backend that keeps times: the copied records' own, never the moment they were finished.
        expect([2, 3].map((seq) => times.records.get(seq))).toEqual([2_000, 3_000]);
      }
      await store.close();
    });

    it('names a run\'s bytes by a version that changes with them, and keeps a check mark at a version until it is replaced', async () => {
      const backend = await makeBackend();
      const store = new JournalStore(backend);
      const summary = async (id: string) => (await backend.list()).find((s) => s.id === id)!;
      const j = await store.create('versioned', meta('versioned'));
      await j.append(at(2, assistant(0, ['t1'])));
      const before = await summary('versioned');
      if (backend.markChecked === undefined) {
        // A backend without marks names no versions: a listing describes its runs from their ends.
        expect(before.version).toBeUndefined();
        await j.close();
        await store.close();
        return;
      }
      expect(before.version).toEqual(expect.any(String));
      await j.append(at(3, toolResult('t1')));
      const after = await summary('versioned');
      expect(after.version).not.toBe(before.version);
      await j.close(); // its writer encoded every line: it marks the run checked as it lets go
      expect((await summary('versioned')).checkedVersion).toBe(after.version);
      await backend.markChecked('versioned', before.version!);
      expect((await summary('versioned')).checkedVersion).toBe(before.version);
      expect(await backend.delete('versioned')).toBe(true);
      expect((await backend.list()).some((s) => s.id === 'versioned')).toBe(false);
      await store.close();
    });

    it('streams a run one record at a time, the stored lines exactly, and can pass lines over undecoded', async () => {
      const store = await makeStore();
      const lines = [at(1, { meta: meta('streamed') }), at(2, assistant(0, ['t1'])), at(3, toolResult('t1')), at(4, completed)].map(encodeRecord);
      await (await store.createFromLines('streamed', lines)).close();
      const streamed: StreamedRecord[] = [];
      for await (const r of store.records('streamed')) streamed.push(r);
      expect(streamed.map((r) => r.line)).toEqual(lines);
      expect(streamed.map((r) => r.record.seq)).toEqual([1, 2, 3, 4]);
      // The meta record is always read; the rest only where select says so.
      const selected = await collect(store.records('streamed', { select: (line) => line.includes('tool_result') }));
      expect(selected).toEqual([lines[0], lines[2]]);
      expect(await code(collect(store.records('absent')))).toBe('not_found');
      expect(await code(collect(store.records('../x')))).toBe('invalid_id');
      await store.close();
    });

    it('refuses a streamed run whose meta names another run, or whose seqs do not increase', async () => {
      const backend = await makeBackend();
      const store = new JournalStore(backend);
      await (await backend.create('renamed', encodeRecord(at(1, { meta: meta('original') })))).release();
      expect(await code(collect(store.records('renamed')))).toBe('corrupt');
      expect(await code(collect(store.watch('renamed')))).toBe('corrupt');
      const held = await backend.create('backwards', encodeRecord(at(1, { meta: meta('backwards') })));
      // Stored out of order (seq 3 before seq 2), as only a broken writer could.
      await held.write(3, encodeRecord(at(3, assistant(0))));
      await held.write(2, encodeRecord(at(2, assistant(1))));
      await held.release();
      const err = (await collect(store.records('backwards')).catch((e: unknown) => e)) as Error & { code: string };
      expect(err.code).toBe('corrupt');
      expect(err.message).toBe(`${(await backend.read('backwards'))!.source} line 3 is corrupt: seq 2 does not increase after seq 3`);
      await store.close();
    });

    it('loads a run\'s state as a load folds it, and refuses what a load refuses', async () => {
      const backend = await makeBackend();
      const store = new JournalStore(backend);
      const lines = [at(1, { meta: meta('state') }), at(2, assistant(0, ['t1', 't2'])), at(3, toolResult('t1')), at(4, toolResult('t2')), at(5, assistant(1, ['t3']))].map(encodeRecord);
      await (await store.createFromLines('state', lines)).close();
      const loaded = await store.load('state');
      const state = await store.loadState('state');
      expect(state).toEqual({ state: loaded.state, metaLine: lines[0], lastSeq: 5 });
      expect(state.state.pending?.answered).toEqual([]);
      expect(await code(store.loadState('absent'))).toBe('not_found');
      expect(await code(store.loadState('../x'))).toBe('invalid_id');
      await (await backend.create('renamed', encodeRecord(at(1, { meta: meta('original') })))).release();
      expect(await code(store.loadState('renamed'))).toBe('corrupt');
      // An interior line that does not decode, and seqs that do not increase, as only a broken writer leaves them.
      const broken = await backend.create('broken', lines[0]!.replace('"state"', '"broken"'));
      await broken.write(2, '{"seq":2,"protocol":"nonsense"}');
      await broken.write(3, encodeRecord(at(3, assistant(0))));
      await broken.release();
      const err = (await store.loadState('broken').catch((e: unknown) => e)) as Error & { code: string };
      expect(err).toMatchObject({ code: 'corrupt', message: expect.stringMatching(/ line 2 is corrupt: /) });
      expect(err.message.startsWith(`${(await backend.read('broken'))!.source} line 2`), err.message).toBe(true);
      const backwards = await backend.create('backwards', lines[0]!.replace('"state"', '"backwards"'));
      await backwards.write(3, encodeRecord(at(3, assistant(0))));
      await backwards.write(2, encodeRecord(at(2, assistant(1))));
      await backwards.release();
      expect(await store.loadState('backwards').catch((e: unknown) => e)).toMatchObject({
        code: 'corrupt',
        message: `${(await backend.read('backwards'))!.source} line 3 is corrupt: seq 2 does not increase after seq 3`,
      });
      await store.close();
    });

    it('loads a run folded as it is read, without its records: all else a load gives, and the same refusals', async () => {
      const backend = await makeBackend();
      const store = new JournalStore(backend);
      const lines = [at(1, { meta: meta('folded') }), at(2, assistant(0, ['t1'])), at(3, toolResult('t1')), at(4, assistant(1))].map(encodeRecord);
      await (await store.createFromLines('folded', lines)).close();
      const { records, ...loaded } = await store.load('folded');
      const seen: number[] = [];
      const folded: [number, number][] = [];
      const onFolded = (state: RunState) => folded.push([state.last_seq, state.counters.llm_calls]);
      expect(await store.loadFolded('folded', { onRecord: (record) => seen.push(record.seq), onFolded })).toEqual(loaded);
      expect(seen).toEqual(records.map((r) => r.seq));
      // The state as each record leaves it: folded in by then.
      expect(folded).toEqual([[1, 0], [2, 1], [3, 1], [4, 2]]);
      const refusal = async (id: string) => [await store.load(id).catch((e: unknown) => e), await store.loadFolded(id).catch((e: unknown) => e)] as const;
      expect(await code(store.loadFolded('absent'))).toBe('not_found');
      expect(await code(store.loadFolded('../x'))).toBe('invalid_id');
      await (await backend.create('renamed', encodeRecord(at(1, { meta: meta('original') })))).release();
      // An interior line that does not decode, and seqs that do not increase: refused with a load's very error.
      const broken = await backend.create('broken', lines[0]!.replace('"folded"', '"broken"'));
      await broken.write(2, '{"seq":2,"protocol":"nonsense"}');
      await broken.release();
      const backwards = await backend.create('backwards', lines[0]!.replace('"folded"', '"backwards"'));
      await backwards.write(3, encodeRecord(at(3, assistant(0))));
      await backwards.write(2, encodeRecord(at(2, assistant(1))));
      await backwards.release();
      // A record that does not fold, then a line that does not decode: a load decodes all before it folds, so the line is the error.
      const both = await backend.create('both', lines[0]!.replace('"folded"', '"both"'));
      await both.write(3, encodeRecord(at(3, assistant(0))));
      await both.write(2, encodeRecord(at(2, assistant(1))));
      await both.write(4, '{"seq":4,"protocol":"nonsense"}');
      await both.release();
      expect(await store.load('both').catch((e: unknown) => e)).toMatchObject({ message: expect.stringMatching(/line 4 is corrupt/) });
      for (const id of ['renamed', 'broken', 'backwards', 'both']) {
        const [byLoad, folded] = await refusal(id);
        expect(folded).toMatchObject({ code: 'corrupt', message: (byLoad as Error).message });
      }
      await store.close();
    });

    it('names the line of a record the fold refuses, as a line that does not decode is, on every path that folds what it read', async () => {
      const backend = await makeBackend();
      const store = new JournalStore(backend);
      // Every line decodes; line 3 answers a call the assistant turn did not make.
      const lines = [at(1, { meta: meta('misfold') }), at(2, assistant(0, ['t1'])), at(3, toolResult('nope')), at(4, toolResult('t1'))].map(encodeRecord);
      const held = await backend.create('misfold', lines[0]!);
      for (let i = 1; i < lines.length; i++) await held.write(i + 1, lines[i]!);
      await held.release();
      const reason = 'seq 3: tool result for nope, which the assistant turn did not call';
      const source = (await backend.read('misfold'))!.source;
      const refusal = async (p: () => Promise<unknown>) => (await p().then(() => new Error('no error'), (e: unknown) => e)) as Error & { code: string; details: object; cause: unknown };
      const paths: [string, () => Promise<unknown>, string][] = [
        ['load', () => store.load('misfold'), source],
        ['loadFolded', () => store.loadFolded('misfold'), source],
        ['loadState', () => store.loadState('misfold'), source],
        ['forkRun', () => forkRun(store, 'misfold', { id: 'misfold-fork' }), source],
        ['watch', () => collect(store.watch('misfold', { signal: AbortSignal.timeout(STEP_MS) })), source],
        ['copyRun', () => copyRun(store, new MemoryStore(), 'misfold'), `run misfold in the ${store.location}`],
      ];
      for (const [path, refused, named] of paths) {
        const err = await refusal(refused);
        expect.soft(err, path).toMatchObject({ code: 'corrupt', message: `${named} line 3 is corrupt: ${reason}`, details: { runId: 'misfold' } });
        expect.soft(err.cause, path).toMatchObject({ code: 'corrupt', message: reason });
      }
      // A line that does not decode names the run too (the command's advice names it).
      const broken = await backend.create('undecoded', encodeRecord(at(1, { meta: meta('undecoded') })));
      await broken.write(2, '{"seq":2,"protocol":"nonsense"}');
      await broken.release();
      for (const [i, refused] of [() => store.load('undecoded'), () => store.loadFolded('undecoded'), () => store.loadState('undecoded'), () => collect(store.records('undecoded'))].entries()) {
        expect.soft(await refusal(refused), `path ${i}`).toMatchObject({ code: 'corrupt', message: expect.stringMatching(/ line 2 is corrupt: /), details: { runId: 'undecoded' } });
      }
      expect(await store.has('misfold-fork')).toBe(false);
      await store.close();
    });

    it('watches a finished run to its end: every record, then done', async () => {
      const store = await makeStore();
      const lines = [at(1, { meta: meta('finished') }), at(2, assistant(0)), at(3, completed)].map(encodeRecord);
      await (await store.createFromLines('finished', lines)).close();
      expect(await collect(store.watch('finished'))).toEqual(lines);
      await store.close();
    });

    it('follows a run as it is written, from before it exists to its terminal record, without holding it', async () => {
      const store = await makeStore();
      let absent = 0;
      let told = (): void => {};
      const waiting = new Promise<void>((resolve) => (told = resolve));
      const watch = driven(
        store.watch('followed', {
          onAbsent: () => {
            absent++;
            told();
          },
        }),
      );
      const first = watch.next();
      await waiting; // the watch waits for the run to appear
      const writer = await store.create('followed', meta('followed'));
      expect((await first)?.record.seq).toBe(1);
      expect(absent).toBe(1);
      await writer.append(at(2, assistant(0, ['t1'])));
      expect((await watch.next())?.line).toBe(encodeRecord(at(2, assistant(0, ['t1']))));
      // A writer that comes and goes while a watcher waits: the watcher holds nothing.
      await writer.close();
      const again = await store.open('followed');
      await again.append(at(3, toolResult('t1')));
      await again.append(at(4, { terminal: { reason: 'suspended', message: 'stopped' } }));
      expect((await watch.next())?.record.seq).toBe(3);
      expect((await watch.next())?.record.seq).toBe(4);
      // Caught up on a terminal record: the watch has ended.
      expect(await watch.next()).toBeNull();
      await again.close();
      await store.close();
    });

    it('goes on past a terminal record that more records follow (a resumed run), and ends on the last one', async () => {
      const store = await makeStore();
      const journal = await store.create('resumed', meta('resumed'));
      await journal.append(at(2, assistant(0)));
      await journal.append(at(3, { terminal: { reason: 'suspended' } }));
      await journal.append(at(4, assistant(1)));
      const watch = driven(store.watch('resumed'));
      for (const seq of [1, 2, 3, 4]) expect((await watch.next())?.record.seq).toBe(seq);
      const pending = watch.next(); // caught up on an assistant record: it waits
      await journal.append(at(5, completed));
      expect((await pending)?.record.seq).toBe(5);
      expect(await watch.next()).toBeNull();
      await journal.close();
      await store.close();
    });

    it('ends a watch when its signal aborts, and fails one whose run is removed under it', async () => {
      const store = await makeStore();
      await (await store.create('watched', meta('watched'))).close();
      const controller = new AbortController();
      const aborted = driven(store.watch('watched', { signal: controller.signal }));
      expect((await aborted.next())?.record.seq).toBe(1);
      const ended = aborted.next();
      controller.abort();
      expect(await ended).toBeNull();

      const removed = driven(store.watch('watched'));
      expect((await removed.next())?.record.seq).toBe(1);
      const failing = removed.next();
      expect(await store.delete('watched')).toBe(true);
      expect(await code(failing)).toBe('journal_gone');
      await store.close();
    });
  });
}
