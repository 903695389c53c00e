/**
 * What goes wrong in a chat stays in the chat: a model request the API
 * refuses, or a /fork that cannot be made, is said where it was typed and the
 * chat goes on (on a real terminal, tmux). A run that ends on a refused
 * request says the way on, and `session show` says the same.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { payloadKind, type JournalRecord } from '../../src/core/index.js';
import { FileStore, textOf } from '../../src/index.js';
import { BIN, runCli } from '../helpers/cli.js';
import { anthropicErrors, useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { Tmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/tmp.js';

const anthropic = useFakeAnthropic();
let t: Tmux | undefined;
afterEach(() => {
  t?.kill();
  t = undefined;
  anthropic.reset();
});

/** A refusal of the request as it is, which a resume would meet again (not one of a length: that one compacts). */
const REFUSAL = 'messages.2.content.0.image.source.base64: image exceeds 5 MB maximum';
const answer = (text: string) => ({ message: { content: [{ type: 'text', text }] } });

function setup() {
  const dir = tempDir();
  writeFileSync(join(dir, 'agent.yaml'), `provider: anthropic\nmodel: claude-test\nbase_url: ${anthropic.url}\n`);
  const state = join(dir, 'state');
  const env = { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', ANTHROPIC_API_KEY: 'sk-test', NO_COLOR: '1' };
  const store = new FileStore(join(state, 'runs'));
  const records = async (id: string): Promise<JournalRecord[]> => (await store.load(id)).records;
  return { dir, state, env, store, records };
}

function chat() {
  const s = setup();
  t = Tmux.start([process.execPath, BIN, 'run', '--chat', '--name', 'chat', '--state-dir', s.state], { env: s.env, cwd: s.dir, width: 160, height: 40 });
  return { ...s, t };
}

const PROMPT = /\n\n>$/m;

/** The user messages of the last request, each as its text blocks. */
function lastRequestTurns(): { role: string; texts: string[] }[] {
  const messages = anthropic.requests.at(-1)!.json.messages as { role: string; content: { type: string; text?: string }[] }[];
  return messages.map((m) => ({ role: m.role, texts: m.content.filter((b) => b.type === 'text').map((b) => b.text!) }));
}

async function send(t: Tmux, text: string): Promise<void> {
  t.type(text);
  t.keys('Enter');
}

describe('a chat whose request the model API refuses', () => {
  it('says so and goes back to the prompt, nothing journaled; the next turn joins the refused one', async () => {
    const { t, records } = chat();
    await t.waitFor(PROMPT, 'the prompt');
    anthropic.reply(answer('First answer.'));
    await send(t, 'hello first');
    await t.waitFor(/First answer\.\n\n>$/m, 'the first answer');
    anthropic.reply(anthropicErrors.invalid(REFUSAL));
    await send(t, 'a very long question');
    await t.waitFor(/refused the request \(400 invalid_request_error\): messages\.2\.content\.0\.image\.source\.base64: image exceeds 5 MB maximum/, 'the refusal');
    await t.waitFor(/\/drop goes on without it\n\n>$/m, 'the prompt again, after the way on');
    expect((await records('chat')).map(payloadKind)).toEqual(['meta', 'user', 'assistant', 'user']);
    anthropic.reply(answer('Both now.'));
    await send(t, 'shorter, then');
    await t.waitFor(/Both now\.\n\n>$/m, 'the answer to both');
    expect(lastRequestTurns().at(-1)).toEqual({ role: 'user', texts: ['a very long question', 'shorter, then'] });
    await send(t, '/exit');
    expect(await t.exitStatus()).toBe(0);
    expect((await records('chat')).filter((r) => 'terminal' in r)).toHaveLength(1); // the chat's end, no error
  });

  it('a first turn longer than the context window, which compacting cannot shorten, is said the same way', async () => {
    const { t, records } = chat();
    await t.waitFor(PROMPT, 'the prompt');
    anthropic.reply(anthropicErrors.promptTooLong(250_000, 200_000));
    await send(t, 'a pasted novel');
    await t.waitFor(/longer than the context window by itself[^]*\/drop goes on without it\n\n>$/m, 'the refusal, and the prompt again');
    expect((await records('chat')).map(payloadKind)).toEqual(['meta', 'user']);
    anthropic.reply(answer('Short enough.'));
    await send(t, '/drop');
    await t.waitFor(/^the chat goes on in (\S+), without the unanswered turn/m, 'the fork before it');
    await send(t, 'a short one');
    await t.waitFor(/Short enough\.\n\n>$/m, 'answered in the fork');
    expect(lastRequestTurns()).toEqual([{ role: 'user', texts: ['a short one'] }]);
  });

  it('/drop goes on without the refused turn, in a fork made before it; /retry asks it again', async () => {
    const { t, records } = chat();
    await t.waitFor(PROMPT, 'the prompt');
    anthropic.reply(answer('First answer.'));
    await send(t, 'hello first');
    await t.waitFor(/First answer\.\n\n>$/m, 'the first answer');
    anthropic.reply(anthropicErrors.invalid(REFUSAL), anthropicErrors.invalid(REFUSAL));
    await send(t, 'a very long question');
    await t.waitFor(/\/drop goes on without it\n\n>$/m, 'the refusal');
    await send(t, '/retry');
    await t.waitFor(/\/drop goes on without it\n\n>[^]*\/drop goes on without it\n\n>$/m, 'refused again');
    expect(anthropic.requests).toHaveLength(3);
    await send(t, '/drop');
    await t.waitFor(/^the chat goes on in (\S+), without the unanswered turn \(run chat keeps it\)\n\n>$/m, 'the fork');
    const fork = /the chat goes on in (\S+),/.exec(t.text())![1]!;
    anthropic.reply(answer('In the fork.'));
    await send(t, 'something else');
    await t.waitFor(/In the fork\.\n\n>$/m, 'the answer in the fork');
    expect(lastRequestTurns()).toEqual([
      { role: 'user', texts: ['hello first'] },
      { role: 'assistant', texts: ['First answer.'] },
      { role: 'user', texts: ['something else'] },
    ]);
    await send(t, '/exit');
    expect(await t.exitStatus()).toBe(0);
    expect((await records(fork)).map(payloadKind)).toEqual(['meta', 'user', 'assistant', 'user', 'assistant', 'terminal']);
    expect((await records('chat')).filter((r) => 'user' in r)).toHaveLength(2); // the run keeps the refused turn
  });

  it('/drop says why when there is nothing it can drop', async () => {
    const { t } = chat();
    await t.waitFor(PROMPT, 'the prompt');
    await send(t, '/drop');
    await t.waitFor(/^nothing to drop: no turn was typed yet\n\n>$/m, 'nothing typed');
    await send(t, '/retry');
    await t.waitFor(/^nothing to retry: no turn was typed yet\n\n>$/m, 'nothing to retry');
    anthropic.reply(answer('Answered.'));
    await send(t, 'hi');
    await t.waitFor(/Answered\.\n\n>$/m, 'the answer');
    await send(t, '/drop');
    await t.waitFor(/^nothing to drop: the last turn was answered\n\n>$/m, 'nothing unanswered');
  });

  it('ends a scripted chat (stdin not a terminal) on the refusal, with the way on', async () => {
    const { dir, state, env } = setup();
    anthropic.reply(answer('First answer.'), anthropicErrors.invalid(REFUSAL));
    const r = await runCli(['run', '--chat', '--name', 'piped', '--state-dir', state], { cwd: dir, env, input: 'hello first\na very long question\nnever sent\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`logbook: anthropic refused the request (400 invalid_request_error): ${REFUSAL}`);
    expect(r.stderr).toContain('a resume would send the same request and be refused again, so none is offered; to go on without the refused turn: logbook session fork piped --turn 1');
    expect(anthropic.requests).toHaveLength(2);
  });
});

describe('a one-shot run whose request the model API refuses', () => {
  it('says the way on, and session show says the same', async () => {
    const { dir, state, env } = setup();
    anthropic.reply(answer('An answer.'));
    expect((await runCli(['run', '--name', 'first', '--state-dir', state, 'a question'], { cwd: dir, env })).code).toBe(0);
    anthropic.reply(anthropicErrors.invalid(REFUSAL));
    const r = await runCli(['run', '--resume', 'first', '--name', 'next', '--state-dir', state, 'a long follow-up'], { cwd: dir, env });
    expect(r.code).toBe(1);
    const advice = `a resume would send the same request and be refused again, so none is offered; to go on without the refused turn: logbook session fork next --turn 1 --state-dir ${state}, then continue the fork`;
    expect(r.stderr).toContain(advice);
    const show = await runCli(['session', 'show', 'next', '--state-dir', state], { cwd: dir, env });
    expect(show.stdout).toMatch(/^where +failed: anthropic refused the request \(400 invalid_request_error\): messages\.2\.content\.0\.image\.source\.base64: image exceeds 5 MB maximum/m);
    expect(show.stdout).toContain(`next         ${advice}`);
    // The way on works: the fork holds the first exchange alone.
    const forked = await runCli(['session', 'fork', 'next', '--turn', '1', '--name', 'again', '--state-dir', state], { cwd: dir, env });
    expect(forked.code).toBe(0);
    const store = new FileStore(join(state, 'runs'));
    expect((await store.load('again')).state.messages.map((m) => textOf(m))).toEqual(['a question', 'An answer.']);
  });
});

describe('/fork NAME that cannot be made', () => {
  it('is refused where it was typed, and the chat goes on', async () => {
    const { t, records } = chat();
    await t.waitFor(PROMPT, 'the prompt');
    anthropic.reply(answer('First answer.'));
    await send(t, 'hello');
    await t.waitFor(/First answer\.\n\n>$/m, 'the answer');
    await send(t, '/fork chat');
    await t.waitFor(/^\/fork: run chat already exists; give another name, or none \(one is made from the clock\)\n\n>$/m, 'a taken name refused');
    await send(t, '/fork ../evil');
    await t.waitFor(/^\/fork: invalid run id "\.\.\/evil": [^]*\n\n>$/m, 'an invalid name refused');
    anthropic.reply(answer('Still here.'));
    await send(t, 'go on');
    await t.waitFor(/Still here\.\n\n>$/m, 'the chat going on');
    await send(t, '/exit');
    expect(await t.exitStatus()).toBe(0);
    expect((await records('chat')).map(payloadKind)).toEqual(['meta', 'user', 'assistant', 'user', 'assistant', 'terminal']);
  });
});
