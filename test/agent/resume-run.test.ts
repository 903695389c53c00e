/**
 * resumeRun reads the run it resumes once: from the store, or as the caller has
 * just read it; either way it is read again when it changed before the hold.
 */
import { describe, expect, it } from 'vitest';
import fs, { type PathLike } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { FileStore, ToolRegistry, followUpRun, loadPriceBook, resumeRun, startRun, type Agent, type RunResult, type Store } from '../../src/index.js';
import { ScriptProvider } from '../../src/agent/providers/script.js';
import { FileBackend } from '../../src/store/file/file-backend.js';
import { JournalStore } from '../../src/store/journal-store.js';
import { tempDir } from '../helpers/tmp.js';

function agent(): Agent {
  const provider = new ScriptProvider('m', 'inline', [{ text: 'first answer' }, { text: 'second answer' }]);
  return { provider, tools: new ToolRegistry(), system: 's', maxTokens: 100, maxIterations: 5, thinking: 'off', promptCache: false };
}

/** The store, counting its whole reads of a run's state. */
function counted(store: FileStore): { store: Store; reads: () => number } {
  let reads = 0;
  const loadState = store.loadState.bind(store);
  store.loadState = async (id: string) => {
    reads++;
    return loadState(id);
  };
  return { store, reads: () => reads };
}

describe('resumeRun given the run as read', () => {
  it('does not read it again when it did not change before the hold', async () => {
    const { store, reads } = counted(new FileStore(tempDir()));
    const a = agent();
    await (await startRun(store, a, { id: 'once', prompt: '', interactive: true })).close();
    const loaded = await store.loadState('once');
    const run = await resumeRun(store, a, 'once', { loaded, followUp: 'and then?' });
    expect(reads()).toBe(1);
    expect(run.state.last_seq).toBe(1);
    await run.close();
    await resumeRun(store, a, 'once').then((r) => r.close()); // without it, the resume reads the run itself
    expect(reads()).toBe(2);
  });

  it('reads it again when another writer added to it meanwhile, and resumes from what is stored', async () => {
    const { store, reads } = counted(new FileStore(tempDir()));
    const a = agent();
    await (await startRun(store, a, { id: 'moved', prompt: '', interactive: true })).close();
    const stale = await store.loadState('moved');
    const other = await resumeRun(store, a, 'moved', { followUp: 'one more' });
    await other.execute(); // a chat with no input: it answers the follow-up, then is suspended
    const run = await resumeRun(store, a, 'moved', { loaded: stale });
    expect(reads()).toBe(3);
    expect(run.state.last_seq).toBeGreaterThan(1);
    expect(run.state.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    await run.close();
  });

  it('refuses a run read under another id', async () => {
    const store = new FileStore(tempDir());
    const a = agent();
    await (await startRun(store, a, { id: 'one', prompt: 'hello' })).close();
    await (await startRun(store, a, { id: 'two', prompt: 'hello' })).close();
    await expect(resumeRun(store, a, 'two', { loaded: await store.loadState('one') })).rejects.toMatchObject({ code: 'usage' });
  });
});

describe('a resume of a run in a file store', () => {
  it('lists the notes beside the run once before its first model request, priced and with its instructions noted', async () => {
    // Each listing of a run's notes reads the whole runs directory: the notes a resume reads before its request share one.
    const backend = new FileBackend(tempDir());
    const listNotes = backend.noteKeys.bind(backend);
    let listings = 0;
    backend.noteKeys = (id: string) => {
      listings++;
      return listNotes(id);
    };
    const store = new JournalStore(backend);
    let listedAtRequest: number | undefined;
    const provider = new ScriptProvider('m', 'inline', [{ text: 'first answer' }, { text: 'second answer' }]);
    const complete = provider.complete.bind(provider);
    provider.complete = (...args: Parameters<ScriptProvider['complete']>) => {
      listedAtRequest ??= listings;
      return complete(...args);
    };
    const a: Agent = { ...agent(), provider, prices: await loadPriceBook({ table: false }) };
    await (await startRun(store, a, { id: 'noted', prompt: 'hello' })).close(); // its request not sent: a resume sends it
    listings = 0;
    const run = await resumeRun(store, a, 'noted');
    await run.execute();
    expect(listedAtRequest).toBe(1);
  });
});

/** Counts the reads of directory `dir` (node:fs readdirSync, as the file store lists its runs directory) until stopped. */
function countDirectoryReads(dir: string): { count: () => number; stop: () => void } {
  let reads = 0;
  const readdir = fs.readdirSync;
  fs.readdirSync = ((path: PathLike, ...rest: unknown[]) => {
    if (String(path) === dir) reads++;
    return (readdir as (...a: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.readdirSync;
  syncBuiltinESMExports();
  return {
    count: () => reads,
    stop: () => {
      fs.readdirSync = readdir;
      syncBuiltinESMExports();
    },
  };
}

describe('a follow-up of a completed run in a file store of many runs', () => {
  it('reads no other run and the runs directory once before its first model request, its conversation priced', async () => {
    const dir = tempDir();
    const backend = new FileBackend(dir);
    const store = new JournalStore(backend);
    const provider = new ScriptProvider('m', 'inline', [{ text: 'first answer' }, { text: 'second answer' }, { text: 'third answer' }]);
    const a: Agent = { ...agent(), provider, prices: await loadPriceBook({ table: false }) };
    const first = await startRun(store, a, { id: 'asked', prompt: 'hello' });
    await first.execute();
    const second = await followUpRun(store, a, 'asked', 'and then?', { newId: 'asked-2' });
    await second.execute();
    for (let i = 0; i < 40; i++) await (await startRun(store, a, { id: `other-${i}`, prompt: 'p' })).close();
    const list = backend.list.bind(backend);
    let listed = 0;
    backend.list = (...args: Parameters<FileBackend['list']>) => {
      listed++;
      return list(...args);
    };
    // Every run the follow-up reads (its ends, a line, its notes), by id: those of its conversation alone.
    const touched = new Set<string>();
    for (const method of ['readLine', 'readEach', 'stream', 'getNote', 'noteKeys'] as const) {
      const real = (backend[method] as (...args: unknown[]) => unknown).bind(backend);
      (backend as unknown as Record<string, unknown>)[method] = (id: string, ...rest: unknown[]) => {
        touched.add(id);
        return real(id, ...rest);
      };
    }
    const summaries = backend.summaries.bind(backend);
    backend.summaries = (ids: readonly string[]) => {
      for (const id of ids) touched.add(id);
      return summaries(ids);
    };
    let atRequest: { reads: number; listed: number } | undefined;
    const reads = countDirectoryReads(dir);
    const complete = provider.complete.bind(provider);
    provider.complete = (...args: Parameters<ScriptProvider['complete']>) => {
      atRequest ??= { reads: reads.count(), listed };
      return complete(...args);
    };
    let result: RunResult | undefined;
    try {
      result = await (await followUpRun(store, a, 'asked-2', 'and more?', { newId: 'asked-3' })).execute();
    } finally {
      reads.stop();
    }
    expect([...touched].sort()).toEqual(['asked', 'asked-2', 'asked-3']);
    expect(atRequest).toEqual({ reads: 1, listed: 0 });
    // The conversation's spend: its three runs, each its own call.
    const spent = result!.spend!.conversation;
    expect(spent!.calls + spent!.unpriced).toBe(3);
  });
});
