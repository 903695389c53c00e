/**
 * /model in a chat on a real terminal (tmux), through the binary, against the
 * local Messages server with its Models API: /model lists the models, /model
 * NAME goes on with another in a new run of the conversation (the model is in
 * the fingerprint: never forced past), whose requests carry the whole
 * conversation, and which a resume with that model takes up unforced.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { BIN, runCli } from '../helpers/cli.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { Tmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/tmp.js';

const api = useFakeAnthropic();
let t: Tmux | undefined;
beforeEach(() => api.reset());
afterEach(() => {
  t?.kill();
  t = undefined;
});

const text = (s: string) => ({ message: { content: [{ type: 'text', text: s }] } });
type Sent = { model: string; messages: { role: string; content: { type: string; text?: string }[] }[] };

describe('/model in a chat', () => {
  it('lists the models, and goes on with another in a continuation that holds the conversation, resumable with that model unforced', async () => {
    const dir = tempDir('logbook-chat-model-');
    const config = join(dir, 'agent.yaml');
    writeFileSync(config, 'provider: anthropic\nmodel: claude-test\n');
    const state = join(dir, 'state');
    const env = { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', NO_COLOR: '1', ANTHROPIC_BASE_URL: api.origin, ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0' };
    api.models = ['claude-test', 'claude-other'];
    api.reply(text('First answer.'));
    t = Tmux.start([process.execPath, BIN, 'run', '--config', config, '--state-dir', state, '--chat', '--name', 'before', 'first question'], { env, cwd: dir, width: 250, height: 40 });
    await t.waitFor(/First answer\.\n\n>$/m, 'the first answer');
    t.type('/model');
    t.keys('Enter');
    await t.waitFor(/^\* claude-test\n {2}claude-other$/m, 'the models, the one answering marked');
    t.type('/model claude-none');
    t.keys('Enter');
    await t.waitFor('/model: the API lists no model claude-none; /model lists them', 'the refusal');
    t.type('/model claude-other');
    t.keys('Enter');
    const switched = await t.waitFor(/the chat goes on with claude-other in run (\S+), which continues run before/, 'the switch');
    const after = /in run (\S+), which continues/.exec(switched)![1]!;
    api.reply(text('Second answer.'));
    t.type('second question');
    t.keys('Enter');
    await t.waitFor(/Second answer\.\n\n>$/m, 'the second answer');
    const sent = api.requests.at(-1)!.json as Sent;
    expect(sent.model).toBe('claude-other');
    expect(sent.messages.map((m) => [m.role, m.content.map((b) => b.text).join('')])).toEqual([
      ['user', 'first question'],
      ['assistant', 'First answer.'],
      ['user', 'second question'],
    ]);
    t.type('/exit');
    t.keys('Enter');
    expect(await t.exitStatus()).toBe(0);
    expect(t.text()).toContain(`continue it later with: logbook run --resume ${after} --config ${config} --state-dir ${state} --model claude-other`);

    const store = new FileStore(join(state, 'runs'));
    expect((await store.loadState(after)).state.fingerprint.model).toBe('claude-other');
    expect((await store.loadState('before')).state.fingerprint.model).toBe('claude-test');
    const runs = await store.list({ origins: true });
    expect(runs.find((r) => r.runId === after)?.forkedFrom?.from).toBe('before');

    // The command it advised takes it up with that model, unforced.
    api.reply(text('Third answer.'));
    const resumed = await runCli(['run', '--resume', after, '--config', config, '--state-dir', state, '--model', 'claude-other', 'third question'], { cwd: dir, env });
    expect(resumed.stderr).not.toMatch(/drift|--force/);
    expect(resumed.code).toBe(0);
    expect((api.requests.at(-1)!.json as Sent).model).toBe('claude-other');
  });
});
