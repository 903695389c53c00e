/**
 * A conversation's continuation killed (SIGKILL) at each of its writes, through
 * the binary, on a real nats-server: the second request of a conversation is
 * taken by a `logbook serve` that dies after its task note, after the fork's
 * meta, after a copied record, after the fork's notes, after the `continued`
 * note on the run it continues, after the follow-up; another instance takes
 * the task over and completes every step a fresh start would have done, so
 * the third request goes on from all three questions (the script plays the
 * model turn the conversation's count of answers points at: a turn dropped
 * would play the second answer again), and the record the fork copied keeps
 * the time it was first written, not the takeover's.
 */
import { describe, expect, it } from 'vitest';
import { JetStreamStore } from '../../src/index.js';
import { CRASH_BIN, crashingConfig, finished, runCli, spawnCli } from '../helpers/cli.js';
import { useNatsServer } from '../helpers/nats-server.js';
import { startServe, type ServeProcess } from '../helpers/serve.js';
import { STREAMS, addStreamAt, addTaskStreams, agentConfig, jsonLines, sentRequest } from '../helpers/tasks.js';
import { tempDir } from '../helpers/tmp.js';

const { enabled, server } = useNatsServer();

describe.runIf(enabled)("a conversation's continuation killed at each of its writes", () => {
  const dir = tempDir('logbook-task-conversation-crash-');
  let streamsMade: Promise<void> | null = null;

  let callerConfig: string | undefined;
  const caller = () => (callerConfig ??= agentConfig(dir, 'caller', { identity: 'caller', url: server().url, turns: [{ text: 'unused' }] }));
  const ask = (args: string[]) => runCli(['ask', '--config', caller(), ...args], { cwd: dir, timeoutMs: 60_000 });

  // The first task's run is its meta (the question), the answer and its end: the fork holds seqs 1-2, the follow-up is seq 3.
  // Each case is an agent of its own, so the cases run at once.
  it.concurrent.each([
    ['its task note', 'kill-after-note:task'],
    ["the fork's meta", 'kill-after-create:1'],
    ['a copied record', 'kill-after-seq:2'],
    ["the fork's origin note", 'kill-after-note:forked'],
    ['the continued note', 'kill-after-note:continued'],
    ['the follow-up', 'kill-after-seq:3'],
  ])('after %s: the task is taken over and the third question goes on from all three', async (_what, crash) => {
    await (streamsMade ??= addTaskStreams((c) => addStreamAt(server().url, c)));
    const serving: ServeProcess[] = [];
    try {
      const identity = `c${crash.replace(/[^a-z0-9]/g, '')}`.slice(0, 30);
      const config = agentConfig(dir, identity, {
        identity,
        url: server().url,
        turns: [{ text: 'Answer one.' }, { text: 'Answer two.' }, { text: 'Answer three.' }],
        more: 'expose: { task_ack_wait: 1 }\n',
      });
      const first = await startServe(config, { cwd: dir });
      serving.push(first);
      const one = await ask([identity, '--json', 'Question one']);
      expect(one.code).toBe(0);
      const conversation = sentRequest(one.stderr)!;
      await first.stop();

      // The second question goes to an instance that dies at the write named.
      const crashing = await startServe(crashingConfig(config), { cwd: dir, bin: CRASH_BIN, env: { LOGBOOK_TEST_CRASH: crash } });
      serving.push(crashing);
      const second = spawnCli(['ask', '--config', caller(), '--json', '--conversation', conversation, identity, 'Question two'], { cwd: dir });
      const answered = finished(second, 60_000);
      expect((await crashing.exited()).signal).toBe('SIGKILL');
      const taker = await startServe(config, { cwd: dir });
      serving.push(taker);
      const two = await answered;
      expect(two.code).toBe(0);
      expect(jsonLines(two.stdout).at(-1)).toMatchObject({ stop_reason: 'end_turn', text: 'Answer two.' });

      const three = await ask(['--conversation', conversation, identity, '--json', 'Question three']);
      expect(three.code).toBe(0);
      expect(jsonLines(three.stdout).at(-1)).toMatchObject({ stop_reason: 'end_turn', text: 'Answer three.' });
      const store = await JetStreamStore.connect({ stream: STREAMS.runs, nats: { url: server().url } });
      try {
        const run = await store.load(`task-${identity}-${sentRequest(three.stderr)}`);
        expect(JSON.stringify(run.records).match(/Question (one|two|three)/g)).toEqual(['Question one', 'Question two', 'Question three']);
        // The record the second task's fork copied (seq 2, the first answer) keeps the time it was written, whoever copied it.
        const [origin, fork] = await Promise.all([store.times(`task-${identity}-${conversation}`), store.times(`task-${identity}-${sentRequest(two.stderr)}`)]);
        expect(origin.records.get(2)).toBeGreaterThan(0);
        expect(fork.records.get(2)).toBe(origin.records.get(2));
      } finally {
        await store.close();
      }
    } finally {
      await Promise.all(serving.map((p) => p.stop('SIGKILL')));
    }
  }, 150_000);
});
