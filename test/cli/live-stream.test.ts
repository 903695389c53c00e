/**
 * The live run through the binary, against the local Messages and Chat
 * Completions servers streaming slowly (a delay between deltas): the model's
 * words are on the screen, or in a pipe, before its turn ends, and what was
 * shown is the text its record holds. On a real terminal (tmux).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStore, textOf, type JournalRecord } from '../../src/index.js';
import { payloadKind } from '../../src/core/index.js';
import { BIN, runCli } from '../helpers/cli.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { useFakeOpenAI } from '../helpers/fake-openai.js';
import { Tmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/tmp.js';

const anthropic = useFakeAnthropic();
const openai = useFakeOpenAI();
let t: Tmux | undefined;
afterEach(() => {
  t?.kill();
  t = undefined;
  anthropic.reset();
  openai.reset();
});

/** The lines of an answer: plain text whose every line fits the screen, so the screen shows it as written. */
const LINES = Array.from({ length: 8 }, (_, i) => `Line ${i + 1} of the answer, streamed a few characters at a time.`);
const ANSWER = LINES.join('\n');

const providers = {
  anthropic: {
    config: () => `provider: anthropic\nmodel: claude-test\nbase_url: ${anthropic.url}\n`,
    slow: (text: string, delayMs = 20) => anthropic.reply({ message: { content: [{ type: 'text', text }], chunkSize: 8 }, delayMs }),
    requests: () => anthropic.requests,
  },
  openai: {
    config: () => `provider: openai\nmodel: gpt-test\nbase_url: ${openai.url}\n`,
    slow: (text: string, delayMs = 20) => openai.reply({ chat: { content: text, chunkSize: 8 }, delayMs }),
    requests: () => openai.requests,
  },
};
type ProviderName = keyof typeof providers;

function setup(provider: ProviderName) {
  const dir = tempDir();
  writeFileSync(join(dir, 'agent.yaml'), providers[provider].config());
  const state = join(dir, 'state');
  const env = { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', ANTHROPIC_API_KEY: 'sk-test', OPENAI_API_KEY: 'sk-test' };
  const store = new FileStore(join(state, 'runs'));
  const records = async (id: string): Promise<JournalRecord[]> => (await store.load(id)).records;
  return { dir, state, env, store, records };
}

const assistantTexts = (records: JournalRecord[]): string[] => records.flatMap((r) => ('assistant' in r ? [textOf(r.assistant.message)] : []));

describe.each(['anthropic', 'openai'] as const)('a one-shot run with %s on a terminal', (provider) => {
  it('shows the answer as it streams, before its turn is journaled, and what it showed is the journaled text', async () => {
    const { dir, state, env, records } = setup(provider);
    providers[provider].slow(ANSWER);
    t = Tmux.start([process.execPath, BIN, 'run', '--name', 'one', '--state-dir', state, 'tell me'], { env: { ...env, NO_COLOR: '1' }, cwd: dir, width: 100, height: 30 });
    await t.waitFor(LINES[1]!, 'the second line of the answer');
    // Shown, while the turn is still streaming: nothing of it is journaled yet.
    expect(assistantTexts(await records('one'))).toEqual([]);
    expect(providers[provider].requests()[0]!.answered).toBe(false);
    expect(await t.exitStatus()).toBe(0);
    const [journaled] = assistantTexts(await records('one'));
    expect(journaled).toBe(ANSWER);
    const screen = t.screen();
    const first = screen.indexOf(LINES[0]!);
    expect(screen.slice(first, first + LINES.length).join('\n')).toBe(journaled);
  });
});

describe('the spinner while the first answer streams', () => {
  it('counts the tokens the Messages API reports at the start of its stream, before the turn is journaled', async () => {
    const { dir, state, env, records } = setup('anthropic');
    anthropic.reply({ message: { content: [{ type: 'text', text: ANSWER }], chunkSize: 8, usage: { input_tokens: 1234, output_tokens: 50 } }, delayMs: 60 });
    t = Tmux.start([process.execPath, BIN, 'run', '--name', 'one', '--state-dir', state, 'tell me'], { env: { ...env, NO_COLOR: '1' }, cwd: dir, width: 100, height: 30 });
    // message_start reports the input and 1 output token so far.
    await t.waitFor(/^\S answering \d+\.\ds \u00b7 1,235 tokens( \u00b7 \$[\d.]+)?$/m, 'the tokens of the turn in flight on the spinner');
    expect(assistantTexts(await records('one'))).toEqual([]);
    expect(await t.exitStatus()).toBe(0);
  });

  it('shows no count at all, rather than 0 tokens, while Chat Completions reports none until its stream ends', async () => {
    const { dir, state, env } = setup('openai');
    providers.openai.slow(ANSWER, 60);
    t = Tmux.start([process.execPath, BIN, 'run', '--name', 'one', '--state-dir', state, 'tell me'], { env: { ...env, NO_COLOR: '1' }, cwd: dir, width: 100, height: 30 });
    const screen = await t.waitFor(/^\S answering \d+\.\ds$/m, 'the spinner of the first answer');
    expect(screen).not.toContain('0 tokens');
    expect(await t.exitStatus()).toBe(0);
  });
});

describe('thinking', () => {
  it('streams faint on a terminal before the answer, where thinking is summarized', async () => {
    const { dir, state, env } = setup('anthropic');
    writeFileSync(join(dir, 'agent.yaml'), `${providers.anthropic.config()}thinking: summarized\nmax_tokens: 4096\n`);
    anthropic.reply({
      message: { content: [{ type: 'thinking', thinking: 'Weighing the two options first.', signature: 'c2ln' }, { type: 'text', text: 'The second one.' }], chunkSize: 4 },
      delayMs: 40,
    });
    t = Tmux.start([process.execPath, BIN, 'run', '--state-dir', state, 'which?'], { env, cwd: dir, width: 100, height: 30 });
    await t.waitFor('Weighing the', 'the thinking as it streams');
    expect(t.text()).not.toContain('The second one.');
    expect(await t.exitStatus()).toBe(0);
    expect(t.text()).toMatch(/^Weighing the two options first\.\nThe second one\.$/m);
    // Faint, from the run line on (faint too) when tmux's own last line has not scrolled it away: a terminal repeats no style a cell already has.
    expect(t.styled()).toMatch(/\u001b\[2m(run [^\n]*\n)?Weighing the two options first\.\n\u001b\[0m/);
  });
});

describe('a one-shot run piped', () => {
  it("writes the answer's first words to stdout before the stream ends, and the journaled text whole", async () => {
    const { dir, state, env, records } = setup('openai');
    providers.openai.slow(ANSWER, 30);
    const child = spawn(process.execPath, [BIN, 'run', '--name', 'piped', '--state-dir', state, 'tell me'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let firstWords: { at: number; streamDone: boolean } | undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      firstWords ??= { at: Date.now(), streamDone: openai.requests[0]?.answered === true };
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const ended = Date.now();
    expect(code).toBe(0);
    expect(firstWords).toBeDefined();
    expect(firstWords!.streamDone).toBe(false);
    expect(firstWords!.at).toBeLessThan(ended);
    expect(stdout).toBe(`${ANSWER}\n`);
    expect(assistantTexts(await records('piped'))).toEqual([ANSWER]);
  });
});

describe('a one-shot run piped through tee on a terminal', () => {
  it('shows the words as they arrive, with no spinner drawn over them', async () => {
    const { dir, state, env } = setup('anthropic');
    providers.anthropic.slow(ANSWER);
    const command = `'${process.execPath}' '${BIN}' run --state-dir '${state}' 'tell me' | tee '${join(dir, 'out.txt')}'`;
    t = Tmux.start(['/bin/sh', '-c', command], { env: { ...env, NO_COLOR: '1' }, cwd: dir, width: 100, height: 30 });
    await t.waitFor(LINES[1]!, 'the second line, through tee');
    expect(t.text()).not.toMatch(/answering|waiting for the model/);
    expect(await t.exitStatus()).toBe(0);
    const screen = t.screen();
    const first = screen.indexOf(LINES[0]!);
    expect(screen.slice(first, first + LINES.length).join('\n')).toBe(ANSWER);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe(`${ANSWER}\n`);
  });
});

const MARKDOWN = '# The plan\n\nSome **bold** words and `code`.\n\n- first\n- second\n\n```sh\nls   -l\n```\n\nSee [the docs](https://example.com/d).';

describe('Markdown', () => {
  it('is rendered on a color terminal: no markers, bold in bold, a list with bullets, code as written', async () => {
    const { dir, state, env } = setup('anthropic');
    providers.anthropic.slow(MARKDOWN, 10);
    t = Tmux.start([process.execPath, BIN, 'run', '--state-dir', state, 'plan'], { env, cwd: dir, width: 100, height: 30 });
    expect(await t.exitStatus()).toBe(0);
    const screen = t.text();
    expect(screen).toMatch(/^The plan$/m);
    expect(screen).toContain('Some bold words and code.');
    expect(screen).toMatch(/^\u2022 first\n\u2022 second$/m);
    expect(screen).toMatch(/^sh\n {2}ls {3}-l$/m);
    expect(screen).toContain('See the docs (https://example.com/d).');
    expect(screen).not.toContain('**');
    expect(t.styled()).toMatch(/\u001b\[1mbold\u001b\[(22|0)?m/);
  });

  it('is the text as written when stdout is piped, and with --plain on a terminal', async () => {
    const { dir, state, env } = setup('anthropic');
    providers.anthropic.slow(MARKDOWN, 1);
    const child = spawn(process.execPath, [BIN, 'run', '--state-dir', state, 'plan'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(stdout).toBe(`${MARKDOWN}\n`);

    providers.anthropic.slow(MARKDOWN, 1);
    t = Tmux.start([process.execPath, BIN, 'run', '--plain', '--state-dir', state, 'plan'], { env, cwd: dir, width: 100, height: 30 });
    expect(await t.exitStatus()).toBe(0);
    expect(t.text()).toContain(MARKDOWN);
  });
});

/** A chat on a terminal, against the Messages server. */
function chat(args: string[] = []) {
  const s = setup('anthropic');
  t = Tmux.start([process.execPath, BIN, 'run', '--chat', '--name', 'chat', '--state-dir', s.state, ...args], { env: { ...s.env, NO_COLOR: '1' }, cwd: s.dir, width: 100, height: 30 });
  return { ...s, t };
}

/** The text blocks of the user turn the server was last sent. */
const lastUserTexts = (): string[] => {
  const messages = anthropic.requests.at(-1)!.json.messages as { role: string; content: { type: string; text?: string }[] }[];
  return messages.at(-1)!.content.filter((b) => b.type === 'text').map((b) => b.text!);
};

const PROMPT = /\n\n>$/m;

describe('a chat on a terminal', () => {
  it('streams an answer before its turn ends and shows exactly the journaled text', async () => {
    const { t, records } = chat();
    await t.waitFor(PROMPT, 'the prompt');
    providers.anthropic.slow(ANSWER);
    t.type('tell me');
    t.keys('Enter');
    await t.waitFor(LINES[2]!, 'the third line of the answer');
    expect(assistantTexts(await records('chat'))).toEqual([]);
    await t.waitFor(PROMPT, 'the prompt after the answer');
    const screen = t.screen();
    const first = screen.indexOf(LINES[0]!);
    expect(screen.slice(first, first + LINES.length).join('\n')).toBe(assistantTexts(await records('chat'))[0]);
  });

  it('sends a bracketed paste of 40 lines as one turn, one request', async () => {
    const { t, records } = chat();
    await t.waitFor(PROMPT, 'the prompt');
    const pasted = Array.from({ length: 40 }, (_, i) => `    at frame${i} (src/app.ts:${i + 1}:7)`).join('\n');
    anthropic.reply({ message: { content: [{ type: 'text', text: 'A stack trace.' }] } });
    t.paste(pasted);
    await t.waitFor('frame39', 'the end of the paste at the prompt');
    expect(anthropic.requests).toHaveLength(0);
    t.keys('Enter');
    await t.waitFor(/A stack trace\.\n\n>$/m, 'the answer');
    expect(anthropic.requests).toHaveLength(1);
    expect(lastUserTexts()).toEqual([pasted]);
    expect((await records('chat')).filter((r) => 'user' in r)).toHaveLength(1);
  });

  it('puts a line break in a turn on Ctrl-J and after a backslash, and Up recalls the whole turn', async () => {
    const { t } = chat();
    await t.waitFor(PROMPT, 'the prompt');
    anthropic.reply({ message: { content: [{ type: 'text', text: 'One.' }] } }, { message: { content: [{ type: 'text', text: 'Two.' }] } });
    t.type('first line');
    t.keys('C-j');
    t.type('second line \\');
    t.keys('Enter');
    t.type('third line');
    await t.waitFor(/^> first line\n\u2026 second line\n\u2026 third line$/m, 'three lines at the prompt');
    expect(anthropic.requests).toHaveLength(0);
    t.keys('Enter');
    await t.waitFor(/One\.\n\n>$/m, 'the answer');
    expect(lastUserTexts()).toEqual(['first line\nsecond line \nthird line']);
    t.keys('Up');
    await t.waitFor(/^> first line\n\u2026 second line\n\u2026 third line\n*$/m, 'the turn recalled whole');
    t.keys('Enter');
    await t.waitFor(/Two\.\n\n>$/m, 'the second answer');
    expect(lastUserTexts()).toEqual(['first line\nsecond line \nthird line']);
  });

  it('stops an answer on Esc, back at the prompt, journals none of it, and sends the next turn with the unanswered one', async () => {
    const { t, records } = chat();
    await t.waitFor(PROMPT, 'the prompt');
    providers.anthropic.slow(ANSWER, 150);
    t.type('the first question');
    t.keys('Enter');
    await t.waitFor(LINES[0]!.slice(0, 12), 'the answer beginning');
    t.keys('Escape');
    await t.waitFor(/stopped; nothing of the answer is kept.*\n\n>$/m, 'the note and the prompt');
    await anthropic.requests[0]!.closedEarly; // the call was cut, not waited out
    expect(assistantTexts(await records('chat'))).toEqual([]);
    anthropic.reply({ message: { content: [{ type: 'text', text: 'Both answered.' }] } });
    t.type('and a second thing');
    t.keys('Enter');
    await t.waitFor(/Both answered\.\n\n>$/m, 'the answer to both');
    expect(lastUserTexts()).toEqual(['the first question', 'and a second thing']);
    const kinds = (await records('chat')).map(payloadKind);
    expect(kinds).toEqual(['meta', 'user', 'user', 'assistant']);
    expect(assistantTexts(await records('chat'))).toEqual(['Both answered.']);
    t.type('/exit');
    t.keys('Enter');
    expect(await t.exitStatus()).toBe(0);
  });

  it('stops an answer on the first Ctrl-C too, and /retry asks the question again', async () => {
    const { t, records } = chat();
    await t.waitFor(PROMPT, 'the prompt');
    providers.anthropic.slow(ANSWER, 150);
    t.type('the question');
    t.keys('Enter');
    await t.waitFor(LINES[0]!.slice(0, 12), 'the answer beginning');
    t.keys('C-c');
    await t.waitFor(/stopped; .*\n\n>$/m, 'the note and the prompt');
    anthropic.reply({ message: { content: [{ type: 'text', text: 'Asked again.' }] } });
    t.type('/retry');
    t.keys('Enter');
    await t.waitFor(/Asked again\.\n\n>$/m, 'the answer');
    expect(anthropic.requests).toHaveLength(2);
    expect(lastUserTexts()).toEqual(['the question']);
    expect((await records('chat')).map(payloadKind)).toEqual(['meta', 'user', 'assistant']);
  });

  it('suspends on Ctrl-C twice while the model answers (exit 130), and on Ctrl-C at an empty prompt', async () => {
    const { records, state, dir, env } = chat();
    await t!.waitFor(PROMPT, 'the prompt');
    providers.anthropic.slow(ANSWER, 150);
    t!.type('the question');
    t!.keys('Enter');
    await t!.waitFor(LINES[0]!.slice(0, 12), 'the answer beginning');
    t!.keys('C-c', 'C-c');
    expect(await t!.exitStatus()).toBe(130);
    expect((await records('chat')).at(-1)).toMatchObject({ terminal: { reason: 'suspended' } });
    t!.kill();

    anthropic.reply({ message: { content: [{ type: 'text', text: 'Answered on resume.' }] } });
    t = Tmux.start([process.execPath, BIN, 'run', '--resume', 'chat', '--state-dir', state], { env: { ...env, NO_COLOR: '1' }, cwd: dir, width: 100, height: 30 });
    await t!.waitFor(/Answered on resume\.\n\n>$/m, 'the unanswered turn answered, and the prompt');
    t!.keys('C-c');
    expect(await t!.exitStatus()).toBe(130);
    expect(t!.text()).toMatch(/suspended; resume with: logbook run --resume chat/);
    expect(t!.text()).not.toMatch(/continue it later/);
  });

  it('has /status, /export FILE and /fork NAME, and completes a command with Tab', async () => {
    const { t, dir, store } = chat();
    await t.waitFor(PROMPT, 'the prompt');
    anthropic.reply({ message: { content: [{ type: 'text', text: 'First **answer**.' }], usage: { input_tokens: 120, output_tokens: 7 } } });
    t.type('hello');
    t.keys('Enter');
    await t.waitFor(/answer\*\*\.\n\n>$/m, 'the answer');
    t.type('/sta');
    t.keys('Tab');
    await t.waitFor(/^> \/status$/m, 'the command completed');
    t.keys('Enter');
    await t.waitFor(/^tokens +120 in \u00b7 7 out$/m, 'the status');
    expect(t.text()).toMatch(/^run +chat$/m);
    expect(t.text()).toMatch(/^model +anthropic claude-test$/m);
    expect(t.text()).toMatch(/^calls +1 model call \u00b7 0 tool calls$/m);
    t.type(`/export ${join(dir, 'chat.html')}`);
    t.keys('Enter');
    await t.waitFor(/wrote run chat to .*chat\.html \(html\)/, 'the export');
    t.type('/fork branch');
    t.keys('Enter');
    await t.waitFor(/forked run chat as branch; the chat goes on in branch\n\n>$/m, 'the fork');
    anthropic.reply({ message: { content: [{ type: 'text', text: 'In the fork.' }] } });
    t.type('go on');
    t.keys('Enter');
    await t.waitFor(/In the fork\.\n\n>$/m, 'the answer in the fork');
    t.type('/exit');
    t.keys('Enter');
    expect(await t.exitStatus()).toBe(0);
    expect((await store.load('chat')).state.messages).toHaveLength(2);
    expect((await store.load('branch')).state.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });
});

describe('a bare logbook', () => {
  it('opens a chat on a terminal where a config is found', async () => {
    const { dir, env } = setup('anthropic');
    anthropic.reply({ message: { content: [{ type: 'text', text: 'Hello from a bare logbook.' }] } });
    t = Tmux.start([process.execPath, BIN], { env: { ...env, NO_COLOR: '1', XDG_STATE_HOME: join(dir, 'xdg') }, cwd: dir, width: 100, height: 30 });
    await t.waitFor(PROMPT, 'the chat prompt');
    t.type('hi');
    t.keys('Enter');
    await t.waitFor(/Hello from a bare logbook\.\n\n>$/m, 'the answer');
    t.keys('C-d');
    expect(await t.exitStatus()).toBe(0);
    expect(t.text()).toMatch(/continue it later with: logbook run --resume \S+/);
  });

  it('prints the help elsewhere: piped, or with no config to be found', async () => {
    const { dir, env } = setup('anthropic');
    const piped = await runCli([], { cwd: dir, env });
    expect(piped.stdout + piped.stderr).toMatch(/^Usage: logbook/m);
    expect(piped.stdout + piped.stderr).toMatch(/With no command, on a terminal where a config is found, a chat opens/);
    const empty = tempDir();
    t = Tmux.start([process.execPath, BIN], { env: { ...env, HOME: empty, XDG_CONFIG_HOME: join(empty, 'config') }, cwd: empty, width: 100, height: 60 });
    expect(await t.exitStatus()).toBe(2);
    expect(t.text()).toMatch(/^Commands:$/m); // the help (its first row may scroll away under tmux's own last line)
    // Then, below the help, why no chat opened.
    const screen = t.text();
    expect(screen).toMatch(/^logbook: no chat opened, as there is no config: pass --config FILE/m);
    expect(screen.indexOf('logbook: no chat opened')).toBeGreaterThan(screen.indexOf('Commands:'));
  });
});
