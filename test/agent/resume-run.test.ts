/**
 * resumeRun reads the run it resumes once: from the store, or as the caller has
 * just read it; either way it is read again when it changed before the hold.
 */
import { describe, expect, it } from 'vitest';
import { FileStore, ToolRegistry, resumeRun, startRun, type Agent, type Store } from '../../src/index.js';
import { ScriptProvider } from '../../src/agent/providers/script.js';
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
