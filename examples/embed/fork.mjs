// A fork: a new run holding another's records up to a point, to go on from
// there another way; the original is never touched. The model here is a
// function provider: a Provider is any object with an id, a model and complete().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileStore, defineAgent, followUpRun, forkRun, startRun, textOf } from 'logbook';

/** Answers the last user turn by a rule of thumb, offline. */
const provider = {
  id: 'rules',
  model: 'rules-1',
  async complete({ messages }) {
    const asked = textOf(messages.at(-1));
    const text = asked.includes('option A')
      ? 'Going with A: the parser is rewritten.'
      : asked.includes('option B')
        ? 'Going with B: the parser output is cached.'
        : 'Option A: rewrite the parser. Option B: cache its output.';
    return { message: { role: 'assistant', content: [{ text: { text } }] }, stopReason: 'end_turn', usage: { inTokens: 12, outTokens: 8 } };
  },
};

const dir = mkdtempSync(join(tmpdir(), 'logbook-example-'));
try {
  const agent = defineAgent({ provider });
  const store = new FileStore(dir);

  await (await startRun(store, agent, { id: 'plan', prompt: 'How do we make the build faster?' })).execute();
  // plan completed, so a follow-up continues it as a new run: plan stays as it was.
  await (await followUpRun(store, agent, 'plan', 'Take option A.', { newId: 'plan-a' })).execute();

  // Fork plan-a after its first model turn, and take the other option there.
  const fork = await forkRun(store, 'plan-a', { id: 'plan-b', turn: 1 });
  console.log(`forked plan-a up to seq ${fork.lastSeq} as ${fork.id}`);
  await (await followUpRun(store, agent, 'plan-b', 'Take option B.')).execute();

  for (const id of ['plan', 'plan-a', 'plan-b']) {
    const { state } = await store.load(id);
    console.log(`${id} (${state.status}):`);
    for (const m of state.messages) console.log(`  ${m.role}: ${textOf(m)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
