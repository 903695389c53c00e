/**
 * A chat's keys on a real terminal (tmux), through the binary, against the
 * local Messages server: Esc stops the tools at work (their processes gone,
 * the batch journaled whole, the model told with the next turn), questions of
 * the run take one key, the turns typed are kept per project and recalled in
 * the next chat (Up, Ctrl-R), and Ctrl-O shows tool output.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileStore, type JournalRecord } from '../../src/index.js';
import { payloadKind } from '../../src/core/index.js';
import { BIN } from '../helpers/cli.js';
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

/** Writes its pid to $PIDS/NAME, then sleeps $1 seconds in that same process. */
const WAIT_SH = `echo $$ > "$PIDS/$2"
exec sleep "$1"
`;

function setup() {
  const dir = tempDir('logbook-chat-keys-');
  writeFileSync(join(dir, 'wait.sh'), WAIT_SH);
  writeFileSync(
    join(dir, 'agent.yaml'),
    `provider: anthropic
model: claude-test
tools:
  - name: wait
    input_schema: { type: object, properties: { seconds: { type: string }, name: { type: string } }, required: [seconds, name] }
    command: [sh, wait.sh, '{{seconds}}', '{{name}}']
    env: { PIDS: "\${PIDS}" }
  - name: echo
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
    command: [echo, '{{text}}']
  - name: deploy
    input_schema: { type: object, properties: { env: { type: string } }, required: [env] }
    command: [echo, deployed, '{{env}}']
    confirm: true
`,
  );
  const state = join(dir, 'state');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    TERM: 'xterm-256color',
    NO_COLOR: '1',
    ANTHROPIC_BASE_URL: api.origin,
    ANTHROPIC_API_KEY: 'test-key',
    LOGBOOK_PROVIDER_MAX_RETRIES: '0',
    PIDS: dir,
  };
  const store = new FileStore(join(state, 'runs'));
  const records = async (id: string): Promise<JournalRecord[]> => (await store.load(id)).records;
  const start = (args: string[], cwd = dir): Tmux =>
    Tmux.start([process.execPath, BIN, 'run', '--config', join(dir, 'agent.yaml'), '--state-dir', state, ...args], { env, cwd, width: 120, height: 40 });
  return { dir, state, store, records, start };
}

const PROMPT = /\n\n>$/m;
const text = (s: string) => ({ message: { content: [{ type: 'text', text: s }] } });
const calls = (...blocks: { id: string; name: string; input: Record<string, string> }[]) => ({
  message: { content: [{ type: 'text', text: 'On it.' }, ...blocks.map((b) => ({ type: 'tool_use', ...b }))] },
});

/** Whether process `pid` is gone (a signal 0 to it fails). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

type Sent = { messages: { role: string; content: Record<string, unknown>[] }[] };
const lastTurnSent = () => (api.requests.at(-1)!.json as Sent).messages.at(-1)!.content;

describe('Esc while tools run in a chat', () => {
  it('stops the tool (its process gone), answers the whole batch as stopped, is back at the prompt, and the next turn tells the model', async () => {
    const { dir, records, start } = setup();
    api.reply(calls({ id: 'toolu_wait', name: 'wait', input: { seconds: '30', name: 'long' } }, { id: 'toolu_echo', name: 'echo', input: { text: 'never' } }));
    t = start(['--chat', '--name', 'esc', 'wait a while']);
    const pidFile = join(dir, 'long');
    await t.waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 'the tool started', 15_000);
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(gone(pid)).toBe(false);
    t.keys('Escape');
    await t.waitFor(/tools stopped; the model reads so[^\n]*\n\n>$/m, 'the note and the prompt');
    // The tool's process was killed, not waited out (it would sleep 30 s).
    await t.waitFor(() => gone(pid), 'the sleep gone');
    const journaled = await records('esc');
    expect(journaled.map(payloadKind)).toEqual(['meta', 'assistant', 'tool_result', 'tool_result']);
    const results = journaled.flatMap((r) => ('tool_result' in r ? [r.tool_result.result] : []));
    expect(results).toEqual([
      { tool_use_id: 'toolu_wait', content: 'stopped by the operator while it ran; whether it took effect is unknown', is_error: true },
      { tool_use_id: 'toolu_echo', content: 'stopped by the operator before it ran; it was not run', is_error: true },
    ]);
    expect(api.requests).toHaveLength(1); // nothing is sent until the operator types
    api.reply(text('Understood, I stopped.'));
    t.type('never mind that');
    t.keys('Enter');
    await t.waitFor(/Understood, I stopped\.\n\n>$/m, 'the answer to the next turn');
    expect(lastTurnSent()).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_wait', content: 'stopped by the operator while it ran; whether it took effect is unknown', is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_echo', content: 'stopped by the operator before it ran; it was not run', is_error: true },
      { type: 'text', text: 'never mind that' },
    ]);
    t.type('/exit');
    t.keys('Enter');
    expect(await t.exitStatus()).toBe(0);
  });

  it('stops them on the first Ctrl-C too; a second Ctrl-C suspends the chat', async () => {
    const { dir, store, start } = setup();
    api.reply(calls({ id: 'toolu_a', name: 'wait', input: { seconds: '30', name: 'a' } }));
    t = start(['--chat', '--name', 'ctrlc', 'wait a while']);
    await t.waitFor(() => existsSync(join(dir, 'a')), 'the tool started');
    t.keys('C-c');
    await t.waitFor(/tools stopped; [^\n]*\n\n>$/m, 'the note and the prompt');
    t.keys('C-c');
    expect(await t.exitStatus()).toBe(130);
    const { state } = await store.load('ctrlc');
    expect(state.pending).toBeNull();
    expect(state.terminal?.reason).toBe('suspended');
  });
});

describe('questions of the run in a chat', () => {
  it('take one key: a rerun of an interrupted call, asked at a chat resume', async () => {
    const { dir, store, start } = setup();
    // A chat suspended while its call ran: the journal holds the call, not its result.
    api.reply(calls({ id: 'toolu_slow', name: 'wait', input: { seconds: '30', name: 'slow' } }));
    t = start(['--chat', '--name', 'rerun', 'wait']);
    await t.waitFor(() => existsSync(join(dir, 'slow')), 'the tool started');
    t.hangUp(); // the terminal closed while the call ran: the chat is suspended, the call's outcome unknown
    expect(await t.exitStatus()).toBe(130);
    expect((await store.load('rerun')).state.pending).not.toBeNull();
    // The wait tool has no side_effects, so a resume runs it again unasked: make its policy ask.
    writeFileSync(join(dir, 'agent.yaml'), readFileSync(join(dir, 'agent.yaml'), 'utf8').replace("env: { PIDS: \"${PIDS}\" }", "env: { PIDS: \"${PIDS}\" }\n    side_effects: true"));
    const RERUN = '[r]erun it, [s]kip it (the model is told it was not re-run), or s[t]op:';
    api.reply(text('Skipped it.'));
    t = start(['--resume', 'rerun', '--chat']);
    await t.waitFor(RERUN, 'the rerun question');
    t.type('s');
    await t.waitFor(/Skipped it\.\n\n>$/m, 'the answer, and the prompt');
    expect(t.text()).toContain(`${RERUN} s\n`);
    expect(lastTurnSent().filter((b) => b.type === 'tool_result')).toEqual([ // the resume reminder follows the results
      { type: 'tool_result', tool_use_id: 'toolu_slow', content: 'not re-run after an interruption; whether it took effect is unknown', is_error: true },
    ]);    t.keys('C-d');
    expect(await t.exitStatus()).toBe(0);
  });
});

describe('the turns typed, kept per project', () => {
  it('are recalled with Up in the next chat, found with Ctrl-R, and a turn given on the command line is shown and kept as typed ones are', async () => {
    const { start } = setup();
    api.reply(text('Zebras are striped.'), text('Noted.'));
    t = start(['--chat', '--name', 'first', 'tell me about zebras']);
    await t.waitFor(/^> tell me about zebras$/m, 'the turn given on the command line, as typed');
    await t.waitFor(/Zebras are striped\.\n\n>$/m, 'the answer');
    t.type('and the okapi?');
    t.keys('Enter');
    await t.waitFor(/Noted\.\n\n>$/m, 'the second answer');
    t.keys('C-d');
    expect(await t.exitStatus()).toBe(0);
    t.kill();

    t = start(['--chat', '--name', 'second']);
    await t.waitFor(PROMPT, 'the prompt');
    t.keys('Up');
    await t.waitFor(/^> and the okapi\?$/m, "the first chat's last turn");
    t.keys('Up');
    await t.waitFor(/^> tell me about zebras$/m, "the first chat's first turn");
    t.keys('C-u');
    await t.waitFor(/\n>$/m, 'the prompt empty again');
    t.keys('C-r');
    t.type('zeb');
    const found = await t.waitFor(/^> tell me about zebras\nsearch earlier turns[^\n]*: zeb$/m, 'the turn found');
    expect(found).toBeDefined();
    t.keys('Enter'); // takes it to the prompt
    await t.waitFor(/^> tell me about zebras$/m, 'the turn at the prompt');
    api.reply(text('Still striped.'));
    t.keys('Enter');
    await t.waitFor(/Still striped\.\n\n>$/m, 'the answer to the turn found');
    expect(lastTurnSent()).toEqual([{ type: 'text', text: 'tell me about zebras' }]);    t.keys('C-d');
    expect(await t.exitStatus()).toBe(0);
  });
});

describe('Ctrl-O and Ctrl-L in a chat', () => {
  it("shows tool output from then on, and the last calls' at once; again, hides it", async () => {
    const { start } = setup();
    api.reply(calls({ id: 'toolu_1', name: 'echo', input: { text: 'first output' } }), text('Echoed.'));
    t = start(['--chat', '--name', 'ctrlo', 'echo something']);
    await t.waitFor(/Echoed\.\n\n>$/m, 'the answer');
    expect(t.text()).not.toMatch(/^ {2}first output$/m); // the call is shown, its output is not
    t.keys('C-o');
    let screen = await t.waitFor('tool output shown', 'the note');
    await t.waitFor(/^ {2}first output$/m, "the last call's output");
    api.reply(calls({ id: 'toolu_2', name: 'echo', input: { text: 'second output' } }), text('Again.'));
    t.type('again');
    t.keys('Enter');
    screen = await t.waitFor(/Again\.\n\n>$/m, 'the second answer');
    expect(screen).toMatch(/^ {2}second output$/m);
    t.type('/tools');
    t.keys('Enter');
    await t.waitFor('tool output hidden', 'the note');
    api.reply(calls({ id: 'toolu_3', name: 'echo', input: { text: 'third output' } }), text('Done.'));
    t.type('once more');
    t.keys('Enter');
    screen = await t.waitFor(/Done\.\n\n>$/m, 'the third answer');
    expect(screen).not.toMatch(/^ {2}third output$/m);
    t.type('half');
    t.keys('C-l');
    await t.waitFor((s) => s.trim() === '> half', 'the screen cleared, the prompt at its top, the turn kept');    t.keys('C-u', 'C-d');
    expect(await t.exitStatus()).toBe(0);
  });
});

describe('text typed fast, without bracketed paste', () => {
  it('all arrives, Enter after it sends exactly that turn, and it is drawn once a read, not once a character', async () => {
    const { dir, start } = setup();
    t = start(['--chat', '--name', 'fast']);
    await t.waitFor(PROMPT, 'the prompt');
    const drawn = join(dir, 'drawn');
    t.record(drawn);
    // 1500 characters, wide ones among them, as send-keys -l types them (no paste brackets).
    const typed = 'ab 漢字 cde '.repeat(150);
    expect([...typed]).toHaveLength(1500);
    api.reply(text('Got it all.'));
    t.type(typed);
    t.keys('Enter');
    await t.waitFor(/Got it all\.\n\n>$/m, 'the answer', 60_000);
    expect(api.requests).toHaveLength(1);
    expect(lastTurnSent()).toEqual([{ type: 'text', text: typed }]);
    // Drawn once a character, the prompt would be redrawn whole 1500 times: over a million bytes to the terminal.
    expect(statSync(drawn).size).toBeLessThan(100 * Buffer.byteLength(typed));
    t.keys('C-d');
    expect(await t.exitStatus()).toBe(0);
  }, 90_000);
});
