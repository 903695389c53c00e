import { appendFileSync, closeSync, linkSync, mkdirSync, openSync, readdirSync, writeSync, readFileSync, renameSync, statSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStore, LogbookError, defaultStateDir, encodeRecord, runsDir } from '../../src/index.js';
import { FileBackend, fileBackendFromOptions } from '../../src/store/file/file-backend.js';
import { computeFingerprint, journalLines } from '../../src/core/index.js';
import { assistant, at, completed, meta, storeRun, toolResult } from '../helpers/records.js';
import { acquireLock } from '../../src/store/file/flock.js';
import { killLockHolders, startLockHolder } from '../helpers/lock-holders.js';
import { tempDir } from '../helpers/tmp.js';
import { storeContract } from './contract.js';
import { encodeListingIndex, parseListingIndex, type EndsFacts } from '../../src/store/listing-index.js';

const root = tempDir();
let stores = 0;
/** A directory no other test uses. */
function freshDir(): string {
  return join(root, `s${stores++}`, 'runs');
}

storeContract('file', async () => new FileBackend(freshDir()));

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as LogbookError).code;
  }
  return 'no error';
}

/** A listing as `session ls` makes it: runs no mark vouches for are read whole. */
const WHOLE = { checkWhole: true };

/** The version of the journal at `path` as the file backend names it: inode, size, change time. */
function versionOf(path: string): string {
  const st = statSync(path, { bigint: true });
  return `${st.ino}-${st.size}-${st.ctimeNs}`;
}

/** The versions run `id` is marked checked at in `dir`. */
function marks(dir: string, id: string): string[] {
  return readdirSync(dir)
    .filter((n) => n.startsWith(`${id}.`) && n.endsWith('.checked'))
    .map((n) => n.slice(id.length + 1, -'.checked'.length));
}

/** A run with a few records, closed; returns the journal path and its lines. */
async function seeded(store: FileStore, id: string): Promise<{ path: string; lines: string[] }> {
  const j = await store.create(id, meta(id));
  await j.append(at(2, assistant(0, ['t1', 't2'])));
  await j.append(at(3, toolResult('t1', 'tool output with <html> & "quotes"')));
  await j.close();
  const path = join(store.directory, `${id}.jsonl`);
  return { path, lines: readFileSync(path, 'utf8').split('\n').slice(0, -1) };
}

describe('file store', () => {
  it('writes exactly the encoded lines, one per record, newline-terminated', async () => {
    const store = new FileStore(freshDir());
    const { path, lines } = await seeded(store, 'bytes');
    const loaded = await store.load('bytes');
    expect(readFileSync(path, 'utf8')).toBe(loaded.records.map((r) => `${encodeRecord(r)}\n`).join(''));
    expect(lines).toHaveLength(3);
  });

  it('keeps runs private: directory 0700, journal 0600', async () => {
    const dir = freshDir();
    const store = new FileStore(dir);
    await seeded(store, 'modes');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'modes.jsonl')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'modes.lock')).mode & 0o777).toBe(0o600);
  });

  it('loads the records before a torn final line, whatever byte the tear is at, and the state they fold to', async () => {
    const store = new FileStore(freshDir());
    const { path, lines } = await seeded(store, 'torn');
    const whole = Buffer.from(readFileSync(path));
    const lastLine = Buffer.from(`${lines[2]}\n`);
    const lastStart = whole.length - lastLine.length;
    // Every cut strictly inside the last line, including one that keeps all but its newline.
    for (let cut = 1; cut < lastLine.length; cut++) {
      writeFileSync(path, whole.subarray(0, lastStart + cut));
      const loaded = await store.load('torn');
      const expected = cut === lastLine.length - 1 ? 3 : 2; // only the newline missing: the record is whole
      expect(loaded.records.length, `cut at byte ${cut}`).toBe(expected);
      expect(await store.loadState('torn'), `cut at byte ${cut}`).toEqual({ state: loaded.state, metaLine: lines[0], lastSeq: expected });
    }
  });

  it('cuts a torn tail away on open, so the same seq is appended again', async () => {
    const store = new FileStore(freshDir());
    const { path, lines } = await seeded(store, 'retorn');
    const intact = readFileSync(path, 'utf8');
    appendFileSync(path, lines[2]!.slice(0, 17)); // half of a would-be seq 4
    const j = await store.open('retorn');
    expect(j.lastSeq).toBe(3);
    expect(readFileSync(path, 'utf8')).toBe(intact);
    await j.append(at(4, toolResult('t2')));
    await j.close();
    expect((await store.load('retorn')).records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
  });

  it('finishes a final record that lost only its newline before appending after it', async () => {
    const store = new FileStore(freshDir());
    const { path } = await seeded(store, 'nonl');
    truncateSync(path, statSync(path).size - 1);
    const j = await store.open('nonl');
    expect(j.lastSeq).toBe(3);
    await j.append(at(4, toolResult('t2')));
    await j.close();
    expect((await store.load('nonl')).records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
  });

  it('refuses a journal with a broken interior line as corrupt, naming the line', async () => {
    const store = new FileStore(freshDir());
    const { path, lines } = await seeded(store, 'broken');
    writeFileSync(path, `${lines[0]}\n${lines[1]!.slice(0, 30)}\n${lines[2]}\n`);
    try {
      await store.load('broken');
      expect.unreachable();
    } catch (err) {
      expect((err as LogbookError).code).toBe('corrupt');
      expect((err as Error).message).toContain('line 2');
    }
  });

  it('loads a run read in many batches whole, and names a corrupt line past the first batch by its own number', async () => {
    const store = new FileStore(freshDir());
    const lines = [encodeRecord({ seq: 1, meta: meta('long') })];
    for (let i = 0; lines.length < 3001; i++) {
      lines.push(encodeRecord(at(lines.length + 1, assistant(i, [`t${i}`], 'x'.repeat(100)))));
      lines.push(encodeRecord(at(lines.length + 1, toolResult(`t${i}`))));
    }
    const path = join(store.directory, 'long.jsonl');
    mkdirSync(store.directory, { recursive: true });
    writeFileSync(path, `${lines.join('\n')}\n`);
    expect(statSync(path).size).toBeGreaterThan(4 * 64 * 1024);
    const loaded = await store.load('long');
    expect(loaded.records.map(encodeRecord)).toEqual(lines);
    expect(loaded.metaLine).toBe(lines[0]);
    expect(loaded.state.counters.tool_calls).toBe(1500);
    lines[2500] = lines[2500]!.slice(0, 40);
    writeFileSync(path, `${lines.join('\n')}\n`);
    const err = (await store.load('long').catch((e: unknown) => e)) as LogbookError;
    expect(err.code).toBe('corrupt');
    expect(err.message).toMatch(/long\.jsonl line 2501 is corrupt/);
  });

  it('refuses to report a record durable once its journal was removed or replaced under the writer', async () => {
    const store = new FileStore(freshDir());
    const gone = await store.create('gone', meta('gone'));
    await gone.append(at(2, assistant(0, ['t1'])));
    unlinkSync(store.journalPath('gone'));
    const removed = (await gone.append(at(3, toolResult('t1'))).catch((e: unknown) => e)) as LogbookError;
    expect(removed.code).toBe('journal_gone');
    expect(removed.message).toContain(`${store.journalPath('gone')} was removed`);
    expect(gone.lastSeq).toBe(2);
    await gone.close();

    const swapped = await store.create('swapped', meta('swapped'));
    const path = store.journalPath('swapped');
    writeFileSync(`${path}.new`, readFileSync(path));
    renameSync(`${path}.new`, path); // another file now has the name
    expect(await code(swapped.append(at(2, assistant(0))))).toBe('journal_gone');
    await swapped.close();
    expect((await store.load('swapped')).lastSeq).toBe(1);
  });

  it('excludes a second open of the same run in this process', async () => {
    const store = new FileStore(freshDir());
    const j = await store.create('mine', meta('mine'));
    const other = new FileStore(store.directory); // a separate store object changes nothing
    expect(await code(other.open('mine'))).toBe('locked');
    // The refusal names the run, and claims no holder: flock cannot say who it is.
    await expect(other.open('mine')).rejects.toThrow(/^run mine is locked by another writer; wait for it to finish, or stop it first$/);
    await j.close();
    await (await other.open('mine')).close();
  });

  it('says a run exists to a create that finds its lock held by the creator that won the id', async () => {
    const store = new FileStore(freshDir());
    await (await store.create('first', meta('first'))).close();
    // The winner has taken the lock and not yet linked its journal in.
    const winner = acquireLock(join(store.directory, 'race.lock'), 'race');
    const loser = code(store.create('race', meta('race')));
    await new Promise((wake) => setTimeout(wake, 50));
    writeFileSync(join(store.directory, 'race.jsonl'), `${encodeRecord({ seq: 1, meta: meta('race') })}\n`);
    expect(await loser).toBe('exists');
    winner.release();
    // A held lock with no journal that then comes free (that creator failed) lets the create go on.
    const failed = acquireLock(join(store.directory, 'retry.lock'), 'retry');
    const next = store.create('retry', meta('retry'));
    setTimeout(() => failed.release(), 50);
    await (await next).close();
    expect((await store.load('retry')).lastSeq).toBe(1);
  });

  it('lists a run from its ends unless asked to read it whole', async () => {
    const store = new FileStore(freshDir());
    const { path, lines } = await seeded(store, 'lazy');
    writeFileSync(path, `${lines[0]}\n{"garbage\n${lines[2]}\n${encodeRecord({ seq: 4, ...completed })}\n`);
    expect((await store.list())[0]!.status).toBe('completed'); // a prefix to resolve, a search: ids and ends only
    expect((await store.list(WHOLE))[0]!.status).toBe('unreadable');
  });

  it('lists a long interior line that is not JSON as damage, never reading it whole', async () => {
    const store = new FileStore(freshDir());
    const { path, lines } = await seeded(store, 'holed');
    // A sparse hole of 3 GB between two records: NUL bytes, which no JSON holds, and more than one buffer or string can.
    writeFileSync(path, `${lines[0]}\n${lines[1]}\n`);
    const fd = openSync(path, 'r+');
    writeSync(fd, `\n${lines[2]}\n`, 3 * 2 ** 30);
    closeSync(fd);
    expect((await store.list(WHOLE))[0]).toMatchObject({ status: 'unreadable', problem: expect.stringMatching(/^run holed line 3 is corrupt/) });
  });

  it('lists damage anywhere in a run as loading it would, and a missing meta', async () => {
    const store = new FileStore(freshDir());
    const { path, lines } = await seeded(store, 'damaged');
    // An interior line broken: the run's ends are whole, but it is listed as show would report it.
    writeFileSync(path, `${lines[0]}\n{"garbage\n${lines[2]}\n${encodeRecord({ seq: 4, ...completed })}\n`);
    writeFileSync(join(store.directory, 'not a run.jsonl'), 'x');
    writeFileSync(join(store.directory, 'empty.jsonl'), '');
    const byId = Object.fromEntries((await store.list(WHOLE)).map((r) => [r.runId, r]));
    expect(Object.keys(byId).sort()).toEqual(['damaged', 'empty']);
    expect(byId.damaged).toMatchObject({ status: 'unreadable', problem: expect.stringMatching(/^run damaged line 2 is corrupt/) });
    expect(byId.empty!.status).toBe('unreadable');
    // Mended, it is listed by its last record again.
    writeFileSync(path, `${lines.join('\n')}\n${encodeRecord({ seq: 4, ...completed })}\n`);
    expect((await store.list(WHOLE)).find((r) => r.runId === 'damaged')?.status).toBe('completed');
  });

  it('reads a run whole for a listing only until it is marked checked at the bytes it has', async () => {
    const dir = freshDir();
    const store = new FileStore(dir);
    const { path, lines } = await seeded(store, 'marked');
    // Its writer created it and encoded every line: it marked it checked as it let go.
    expect(marks(dir, 'marked')).toEqual([versionOf(path)]);
    // A mark naming the journal's bytes as they are is trusted: damage it does not name is not looked for.
    writeFileSync(path, `${lines[0]}\n{"garbage\n${lines[2]}\n`);
    unlinkSync(join(dir, `marked.${marks(dir, 'marked')[0]}.checked`));
    writeFileSync(join(dir, `marked.${versionOf(path)}.checked`), '');
    expect((await store.list(WHOLE))[0]!.status).toBe('interrupted');
    // Any write changes the bytes' version: the stale mark is ignored, and the damage found.
    appendFileSync(path, `${encodeRecord({ seq: 4, ...completed })}\n`);
    expect((await store.list(WHOLE))[0]).toMatchObject({ status: 'unreadable', problem: expect.stringMatching(/line 2/) });
    // Mended and listed, the listing marks it: one mark per run, renamed to the new version.
    writeFileSync(path, `${lines.join('\n')}\n${encodeRecord({ seq: 4, ...completed })}\n`);
    expect((await store.list(WHOLE))[0]!.status).toBe('completed');
    expect(marks(dir, 'marked')).toEqual([versionOf(path)]);
    // Removing the run removes its mark.
    expect(await store.delete('marked')).toBe(true);
    expect(marks(dir, 'marked')).toEqual([]);
  });

  it("keeps what a listing read of each run's ends in an index beside the runs, trusted only at the bytes it was read from", async () => {
    const dir = freshDir();
    const store = new FileStore(dir);
    const { path, lines } = await seeded(store, 'indexed');
    const first = await store.list(WHOLE);
    expect(first[0]).toMatchObject({ runId: 'indexed', status: 'interrupted', model: 'test-model', lastSeq: 3 });
    const indexPath = join(dir, '.listing-index.json');
    const indexed = parseListingIndex(readFileSync(indexPath, 'utf8'));
    expect(indexed.get('indexed')).toEqual({ version: versionOf(path), facts: expect.objectContaining({ model: 'test-model', lastSeq: 3, foldStatus: 'open' }) });
    // At the version it was read at, the index stands for the ends: the journal is not read (an index edited by hand says what is listed).
    const entry = indexed.get('indexed')!;
    const edited = (facts: Partial<EndsFacts>, version = entry.version): string =>
      encodeListingIndex(new Map([['indexed', { version, facts: { ...entry.facts, ...facts } }]]));
    writeFileSync(indexPath, edited({ model: 'from-the-index' }));
    expect((await store.list(WHOLE))[0]!.model).toBe('from-the-index');
    // Any change to the journal changes its version: the entry is ignored, the ends are read again and the index rewritten.
    appendFileSync(path, `${encodeRecord({ seq: 4, ...completed })}\n`);
    expect((await store.list(WHOLE))[0]).toMatchObject({ status: 'completed', model: 'test-model', lastSeq: 4 });
    expect(parseListingIndex(readFileSync(indexPath, 'utf8')).get('indexed')).toMatchObject({ version: versionOf(path), facts: { foldStatus: 'completed', lastSeq: 4 } });
    // Damage since the index was written is found: the meta broken in place, the same length, is another version.
    writeFileSync(path, `#${readFileSync(path, 'utf8').slice(1)}`);
    expect((await store.list(WHOLE))[0]).toMatchObject({ status: 'unreadable', problem: expect.stringMatching(/first line|corrupt/) });
    expect(parseListingIndex(readFileSync(indexPath, 'utf8')).has('indexed')).toBe(false); // what cannot be read is never kept
    // An index that does not parse, or of another layout, is ignored whole.
    writeFileSync(path, `${lines.join('\n')}\n`);
    const now = versionOf(path);
    for (const text of ['{"format":', edited({ model: 'from-the-index' }, now).replace('listing-index-', 'another-'), edited({ model: 'from-the-index', lastSeq: 0 }, now)]) {
      writeFileSync(indexPath, text);
      expect((await store.list(WHOLE))[0]).toMatchObject({ status: 'interrupted', model: 'test-model', lastSeq: 3 });
    }
    // A run removed leaves the index at the next listing.
    await seeded(store, 'second');
    await store.delete('indexed');
    expect((await store.list(WHOLE)).map((r) => r.runId)).toEqual(['second']);
    expect([...parseListingIndex(readFileSync(indexPath, 'utf8')).keys()]).toEqual(['second']);
  });

  it('keeps in the listing index what runs share once, and ignores an entry naming an agent it does not hold', async () => {
    const dir = freshDir();
    const store = new FileStore(dir);
    await seeded(store, 'one');
    await seeded(store, 'two');
    const listed = await store.list(WHOLE);
    const indexPath = join(dir, '.listing-index.json');
    const stored = JSON.parse(readFileSync(indexPath, 'utf8')) as { agents: unknown[]; runs: unknown[] };
    expect(stored.agents).toHaveLength(1); // one model and fingerprint for both runs
    const indexed = parseListingIndex(readFileSync(indexPath, 'utf8'));
    expect(indexed.get('one')!.facts).toEqual({ ...indexed.get('two')!.facts, fingerprint: listed[0]!.fingerprint });
    // An entry whose agent is not in the index is not one a listing wrote: ignored, the run's ends read again.
    writeFileSync(indexPath, JSON.stringify({ ...stored, agents: [] }));
    expect(parseListingIndex(readFileSync(indexPath, 'utf8')).size).toBe(0);
    expect((await store.list(WHOLE)).map((r) => [r.runId, r.model])).toEqual(expect.arrayContaining([['one', 'test-model'], ['two', 'test-model']]));
    expect(parseListingIndex(readFileSync(indexPath, 'utf8')).size).toBe(2);
  });

  it('keeps one mark per run when another process moved it since this one listed the store', async () => {
    const dir = freshDir();
    const [here, there] = [new FileStore(dir), new FileStore(dir)];
    const { path } = await seeded(here, 'shared');
    await here.list(WHOLE); // this store now knows the run's mark
    const other = await there.open('shared', { checkedThrough: 3 });
    await other.append(at(4, assistant(1, ['t3'])));
    await other.close(); // the other store renamed the mark
    const loaded = await here.load('shared');
    const again = await here.open('shared', { checkedThrough: loaded.lastSeq });
    await again.append(at(5, toolResult('t3', 'out')));
    await again.close();
    expect(marks(dir, 'shared')).toEqual([versionOf(path)]);
  });

  it('marks a resumed run checked only when it was loaded whole just before it was held', async () => {
    const dir = freshDir();
    const store = new FileStore(dir);
    const { path } = await seeded(store, 'reopened');
    const clear = () => {
      for (const v of marks(dir, 'reopened')) unlinkSync(join(dir, `reopened.${v}.checked`));
    };
    clear();
    const blind = await store.open('reopened');
    await blind.append(at(4, assistant(1, ['t3'])));
    await blind.close();
    expect(marks(dir, 'reopened')).toEqual([]);
    const loaded = await store.load('reopened');
    const resumed = await store.open('reopened', { checkedThrough: loaded.lastSeq });
    await resumed.append(at(5, toolResult('t3', 'out')));
    await resumed.close();
    expect(marks(dir, 'reopened')).toEqual([versionOf(path)]);
    // A load that no longer matches the run's end (another writer went on) marks nothing.
    clear();
    const stale = await store.open('reopened', { checkedThrough: loaded.lastSeq });
    await stale.close();
    expect(marks(dir, 'reopened')).toEqual([]);
  });

  it('lists a run with a line of several mebibytes by checking the line a chunk at a time', async () => {
    const store = new FileStore(freshDir());
    await storeRun(store, 'long', [assistant(0, ['t1']), toolResult('t1', 'é'.repeat(3 * 1024 * 1024)), completed]);
    const path = join(store.directory, 'long.jsonl');
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text); // unmarked: the listing reads it whole
    expect((await store.list(WHOLE))[0]!.status).toBe('completed');
    // A broken escape deep inside the long line is found.
    const at2m = text.indexOf('é', 2 * 1024 * 1024);
    writeFileSync(path, `${text.slice(0, at2m)}\\x${text.slice(at2m)}`);
    expect((await store.list(WHOLE))[0]).toMatchObject({ status: 'unreadable', problem: expect.stringMatching(/line 3/) });
  });

  it('never writes the system prompt text to disk', async () => {
    const secret = 'SECRET-SYSTEM-PROMPT: the vault code is 4711';
    const store = new FileStore(freshDir());
    const fingerprint = computeFingerprint({
      provider: 'script',
      model: 'm',
      systemPrompt: secret,
      tools: [],
      thinkingMode: 'off',
      maxTokens: 1,
      maxIterations: 1,
    });
    const j = await store.create('secret', meta('secret', { fingerprint }));
    await j.append(at(2, assistant(0)));
    await j.close();
    const onDisk = readFileSync(join(store.directory, 'secret.jsonl'), 'utf8');
    expect(onDisk).toContain(fingerprint.system_hash);
    expect(onDisk).not.toContain('vault code');
  });

  it('removes the half-made journal when the meta cannot be written', async () => {
    const store = new FileStore(freshDir());
    const bad = meta('halfmade', { version: 4 });
    expect(await code(store.create('halfmade', bad))).toBe('version');
    expect(await code(store.load('halfmade'))).toBe('not_found');
    await (await store.create('halfmade', meta('halfmade'))).close();
  });
});

describe('notes of one family beside a file-store run', () => {
  it('leave out a note that cannot be read, unless read strictly: then the read fails', async () => {
    const dir = freshDir();
    const store = new FileStore(dir);
    await (await store.create('noted', meta('noted'))).close();
    await store.putNote('noted', 'ws-2-aa11', '{"a":1}');
    mkdirSync(join(dir, 'noted.ws-3-bb22.note')); // a directory where a note should be: it cannot be read
    expect([...(await store.notesWith('noted', 'ws-')).keys()]).toEqual(['ws-2-aa11']);
    await expect(store.notesWith('noted', 'ws-', { strict: true })).rejects.toThrow(/noted\.ws-3-bb22\.note/);
    await store.close();
  });
});

describe('the times note beside a file-store run', () => {
  const timed = async (store: FileStore, id: string): Promise<void> => {
    const j = await store.create(id, meta(id));
    await j.append(at(2, assistant(0, ['t1'])));
    await j.append(at(3, toolResult('t1')));
    await j.close();
  };

  it('is appended beside the journal, one entry a record, and loses times, never records, when torn, damaged or removed', async () => {
    const store = new FileStore(freshDir());
    await timed(store, 'notes');
    const note = join(store.directory, 'notes.times');
    expect(readFileSync(note, 'utf8')).toMatch(/^1 \d+\n2 \d+\n3 \d+\n$/);
    expect(statSync(note).mode & 0o777).toBe(0o600);
    // A crash tore the last entry, and something scribbled in the middle: those two times are lost.
    writeFileSync(note, readFileSync(note, 'utf8').replace(/^2 .*$/m, '2 garbage').replace(/\n$/, '').slice(0, -3));
    const damaged = await store.load('notes');
    expect([...damaged.times.records.keys()]).toEqual([1]);
    expect(damaged.records).toHaveLength(3);
    unlinkSync(note);
    const bare = await store.load('notes');
    expect(bare.times.records.size).toBe(0);
    expect(bare.state.counters.tool_calls).toBe(1);
    // A resume goes on, and times what it writes from then on.
    const resumed = await store.open('notes');
    await resumed.append(at(4, completed));
    await resumed.close();
    expect([...(await store.times('notes')).records.keys()]).toEqual([4]);
    expect([...(await store.times('notes')).resumed.keys()]).toEqual([3]);
  });

  it('never follows a link planted where the note goes, nor writes to a file with a second name', async () => {
    const dir = freshDir();
    const store = new FileStore(dir);
    await timed(store, 'linked');
    const outside = join(root, `outside-${Date.now()}`);
    writeFileSync(outside, 'precious\n');
    const note = join(dir, 'linked.times');
    unlinkSync(note);
    symlinkSync(outside, note);
    const j = await store.open('linked');
    await j.append(at(4, completed));
    await j.close();
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
    expect((await store.times('linked')).records.size).toBe(0); // read through no link either
    expect((await store.load('linked')).records).toHaveLength(4);
    unlinkSync(note);
    linkSync(outside, note); // a hard link: the same file under a second name
    const k = await store.open('linked');
    await k.append(at(5, { user: { message: { role: 'user', content: [{ text: { text: 'more' } }] } } }));
    await k.close();
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
  });
});

describe('where journals live', () => {
  it('defaults to $XDG_STATE_HOME/logbook/runs, else ~/.local/state/logbook/runs', () => {
    expect(runsDir(defaultStateDir({ XDG_STATE_HOME: '/xdg' }, '/home/u'))).toBe('/xdg/logbook/runs');
    expect(runsDir(defaultStateDir({}, '/home/u'))).toBe('/home/u/.local/state/logbook/runs');
    expect(runsDir(defaultStateDir({ XDG_STATE_HOME: 'relative' }, '/home/u'))).toBe('/home/u/.local/state/logbook/runs');
  });

  it('uses the directory option against the config dir, else D/runs for a state dir, and needs one of them', async () => {
    expect((await fileBackendFromOptions({ directory: 'j' }, { configDir: '/etc/lb', stateDir: '/s' })).directory).toBe('/etc/lb/j');
    expect((await fileBackendFromOptions({ directory: '/abs' }, { configDir: '/etc/lb' })).directory).toBe('/abs');
    expect((await fileBackendFromOptions({}, { stateDir: '/s' })).directory).toBe(runsDir('/s'));
    await expect(fileBackendFromOptions({}, {})).rejects.toMatchObject({ code: 'backend_options' });
  });

  it('refuses unknown or mistyped options at construction', async () => {
    await expect(fileBackendFromOptions({ dir: 'x' }, {})).rejects.toThrowError(/unknown file backend option "dir"/);
    await expect(fileBackendFromOptions({ directory: 3 }, {})).rejects.toThrowError(/must be a string/);
  });
});

describe('file lock across processes', () => {
  afterAll(killLockHolders);
  const startHolder = (dir: string, id: string, appendNothing = false) => startLockHolder(dir, id, { appendNothing });

  it('refuses a run another process holds, and gets it once the holder is SIGKILLed', async () => {
    const store = new FileStore(freshDir());
    await (await store.create('shared', meta('shared'))).close();
    const child = await startHolder(store.directory, 'shared');
    expect(await code(store.open('shared'))).toBe('locked');
    const exited = new Promise((ok) => child.once('exit', (_c, signal) => ok(signal)));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const j = await store.open('shared');
    expect(j.lastSeq).toBe(2); // the holder appended seq 2 before announcing itself
    await j.close();
  });

  it('tells a run another process holds from one whose writer was killed, from /proc/locks, without touching a lock', async () => {
    const store = new FileStore(freshDir());
    for (const id of ['alive', 'killed']) await (await store.create(id, meta(id))).close();
    const alive = await startHolder(store.directory, 'alive', true);
    const killed = await startHolder(store.directory, 'killed', true);
    const exited = new Promise((ok) => killed.once('exit', ok));
    killed.kill('SIGKILL');
    await exited;
    // A journal copied in by hand has no lock file; a listing that tried its lock would make one.
    writeFileSync(join(store.directory, 'copied.jsonl'), `${encodeRecord(at(1, { meta: meta('copied') }))}\n`);
    // Locks coming and going elsewhere (another test's churn) can keep the table moving as it is read: then
    // whether a run is held is not known, and it is asked again until the table is read whole.
    const known = async <T>(ask: () => Promise<T>, held: (answer: T) => boolean | undefined): Promise<T> => {
      for (let tries = 1; ; tries++) {
        const answer = await ask();
        if (held(answer) !== undefined || tries === 100) return answer;
      }
    };
    try {
      const listed = async () => new Map((await store.list()).map((r) => [r.runId, r]));
      const runs = await known(listed, (r) => (r.get('killed')!.held === undefined || r.get('copied')!.held === undefined ? undefined : true));
      expect(runs.get('alive')).toMatchObject({ held: true, status: 'running' });
      expect(runs.get('killed')).toMatchObject({ held: false, status: 'interrupted' });
      expect(runs.get('copied')).toMatchObject({ held: false, status: 'interrupted' });
      expect((await store.load('alive')).held).toBe(true);
      expect((await known(() => store.load('killed'), (r) => r.held)).held).toBe(false);
      expect(() => statSync(join(store.directory, 'copied.lock'))).toThrow(/ENOENT/);
      expect(await code(store.open('alive'))).toBe('locked');
    } finally {
      alive.kill('SIGKILL');
    }
  });
});

describe('reading one line of a journal', () => {
  it('reads past a long first line, and judges a line the file ends on by the torn-tail rule', async () => {
    const dir = freshDir();
    const backend = new FileBackend(dir);
    const store = new FileStore(dir);
    const first = encodeRecord(at(1, { meta: meta('long', { prompt: 'p'.repeat(20_000) }) }));
    const second = encodeRecord(at(2, assistant(0)));
    await (await store.createFromLines('long', [first, second])).close();
    expect(await backend.readLine('long', 1)).toBe(first);
    expect(await backend.readLine('long', 2)).toBe(second);
    expect(await backend.readLine('long', 3)).toBeNull();
    // A final line without its newline counts when it is a record, not when it is torn.
    writeFileSync(store.journalPath('long'), `${first}\n${second}`);
    expect(await backend.readLine('long', 2)).toBe(second);
    writeFileSync(store.journalPath('long'), `${first}\n${second.slice(0, 30)}`);
    expect(await backend.readLine('long', 2)).toBeNull();
    expect(await backend.readLine('long', 1)).toBe(first);
  });
});

describe('the end of a journal whose last lines are long', () => {
  it('lists and opens it by the torn-tail rule, judging its long lines as they stream by, and repairs what the rule drops', async () => {
    const dir = freshDir();
    const store = new FileStore(dir);
    const long = 'x'.repeat(3 * 1024 * 1024); // past the length the tail reads whole
    const lines = [
      encodeRecord(at(1, { meta: meta('long') })),
      encodeRecord(at(2, assistant(0, ['t1']))),
      encodeRecord(at(3, toolResult('t1', long))),
    ];
    const end = encodeRecord(at(4, { terminal: { reason: 'error', message: `failed: ${long}` } }));
    const whole = `${lines.join('\n')}\n`;
    await (await store.createFromLines('long', lines.slice(0, 1))).close();
    const endings: { text: string; status: string; lastSeq: number }[] = [
      { text: whole, status: 'interrupted', lastSeq: 3 },
      { text: `${whole}${end}\n`, status: 'error', lastSeq: 4 },
      { text: `${whole}${end}`, status: 'error', lastSeq: 4 }, // no final newline: whole all the same
      { text: `${whole}${end}\n\n \n`, status: 'error', lastSeq: 4 },
      { text: `${whole}${end.slice(0, -1)}\n`, status: 'interrupted', lastSeq: 3 }, // torn: not JSON
      { text: `${whole}${end.slice(0, 2 * 1024 * 1024)}`, status: 'interrupted', lastSeq: 3 },
      { text: `${whole}${' '.repeat(2 * 1024 * 1024)}\n`, status: 'interrupted', lastSeq: 3 }, // a long blank line
      { text: `${lines.slice(0, 2).join('\n')}\n${lines[2]!.slice(0, -1)}`, status: 'interrupted', lastSeq: 2 },
    ];
    for (const { text, status, lastSeq } of endings) {
      const what = JSON.stringify(text.slice(-40));
      writeFileSync(store.journalPath('long'), text);
      const [listed] = await store.list();
      expect(listed, what).toMatchObject({ runId: 'long', status });
      const kept = journalLines(text);
      const journal = await store.open('long');
      expect(journal.lastSeq, what).toBe(lastSeq);
      await journal.close();
      // The open repaired the end as the rule says: the kept text and one newline.
      expect(readFileSync(store.journalPath('long'), 'utf8'), what).toBe(`${text.slice(0, kept.keptLength)}\n`);
      expect((await store.load('long')).records.map((r) => r.seq), what).toEqual(kept.lines.map((_, i) => i + 1));
    }
  });
});
