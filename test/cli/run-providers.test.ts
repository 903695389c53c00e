/**
 * `logbook run` with the real provider SDKs, end to end: the binary talks HTTP to
 * local servers that speak the Messages and Chat Completions APIs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESUME_REMINDER } from '../../src/agent/agent.js';
import { FileStore, validateRecord } from '../../src/index.js';
import { anthropicEvents, rawJson, sseWire, useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { useFakeOpenAI } from '../helpers/fake-openai.js';
import { runCli, runCrashing } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-providers-');
const stateDir = join(dir, 'state');
const store = new FileStore(join(stateDir, 'runs'));
const anthropic = useFakeAnthropic();
const openai = useFakeOpenAI();

const TOOLS = `tools:
  - name: echo
    description: Print its text
    input_schema: { type: object, properties: { text: { type: string } } }
    command: [echo, "{{text}}"]
`;

function config(name: string, body: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, `${body}system: You echo.\nmax_tokens: 2048\n${TOOLS}`);
  return path;
}

const env = () => ({ ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0' });

describe('logbook run with the anthropic provider', () => {
  const toolTurn = {
    message: {
      content: [
        { type: 'text', text: 'Echoing.' },
        { type: 'tool_use', id: 'toolu_big', name: 'echo', input: rawJson('{"text":"hi","n":1.0,"big":12345678901234567890}') },
      ],
      usage: { input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 100, cache_creation_input_tokens: 7 },
    },
  };
  const answerTurn = { message: { content: [{ type: 'text', text: 'It said hi.' }], usage: { input_tokens: 160, output_tokens: 8 } } };

  it('journals the raw tool input bytes and cache usage, and resumes without asking for that turn again', async () => {
    const cfg = config('anthropic', 'provider: anthropic\nmodel: claude-test\nprompt_cache: true\n');
    anthropic.reset();
    anthropic.reply(toolTurn);
    const crashed = await runCrashing(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'a1', 'say hi'], 'kill-after-seq:2', { cwd: dir, env: env() });
    expect(crashed.signal).toBe('SIGKILL');
    const journal = readFileSync(join(stateDir, 'runs', 'a1.jsonl'), 'utf8');
    expect(journal).toContain('"input":{"text":"hi","n":1.0,"big":12345678901234567890}');
    expect(journal).toContain('"cache_read_tokens":100,"cache_create_tokens":7');
    expect(journal).not.toContain('You echo.');
    for (const line of journal.split('\n').filter(Boolean)) expect(validateRecord(line), line).toEqual({ valid: true });

    anthropic.reply(answerTurn);
    const resumed = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--resume', 'a1'], { cwd: dir, env: env() });
    expect(resumed.stderr).not.toMatch(/^logbook:/m);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('It said hi.\n');
    expect(anthropic.requests).toHaveLength(2);
    // The resume sent the journaled turn back byte for byte, with the tool's result, and the reminder.
    const sent = anthropic.requests[1]!;
    expect(sent.body).toContain('"input":{"text":"hi","n":1.0,"big":12345678901234567890}');
    const body = sent.json as { system: unknown; messages: { role: string; content: { type: string; content?: unknown }[] }[] };
    // The reminder follows the last turn: the system prompt and the turns before, the prefix the API caches, are the bytes sent before the crash.
    expect(body.system).toEqual((anthropic.requests[0]!.json as { system: unknown }).system);
    expect(JSON.stringify(body.system)).not.toContain('interrupted');
    const last = body.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(last.content.at(-1)).toMatchObject({ type: 'text', text: RESUME_REMINDER });
    expect(body.messages[0]!.content).toMatchObject([{ type: 'text', text: 'say hi' }]);
    const result = last.content.find((b) => b.type === 'tool_result')!;
    expect(JSON.parse(String(result.content))).toMatchObject({ command: ['echo', 'hi'], exit_code: 0, output: 'hi\n' });
    const state = (await store.load('a1')).state;
    expect(state.counters).toMatchObject({ llm_calls: 2, tool_calls: 1, cache_read_tokens: 100, cache_create_tokens: 7 });
    expect(state.terminal).toEqual({ reason: 'completed' });
  });

  it('sends back the thinking signature the API sent, on the next turn and after a resume, and journals its base64', async () => {
    // Signatures as the API writes them: base64-looking text, so only the bytes tell the two ways of storing them apart.
    const first = { sig: 'EqQBCkgIBxABGAIiQHx+/sig==', field: 'RXFRQkNrZ0lCeEFCR0FJaVFIeCsvc2lnPT0=' };
    const second = { sig: 'Ep4CCkYICxgCKkB/zR+a9=', field: 'RXA0Q0NrWUlDeGdDS2tCL3pSK2E5PQ==' };
    const thinkingTurn = (sig: string, id: string) => ({
      message: {
        content: [
          { type: 'thinking', thinking: `Echo, then check (${id}).`, signature: sig },
          { type: 'tool_use', id, name: 'echo', input: { text: id } },
        ],
      },
    });
    const cfg = config('thinking', 'provider: anthropic\nmodel: claude-test\nthinking: summarized\n');
    anthropic.reset();
    anthropic.reply(thinkingTurn(first.sig, 'toolu_1'), thinkingTurn(second.sig, 'toolu_2'));
    // Killed once the second model turn is durable (meta, turn, result, turn): before its tool runs.
    const crashed = await runCrashing(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'th', 'think and echo'], 'kill-after-seq:4', { cwd: dir, env: env() });
    expect(crashed.signal).toBe('SIGKILL');
    type Sent = { messages: { role: string; content: { type: string; signature?: string; thinking?: string }[] }[] };
    const signaturesSent = (i: number): (string | undefined)[] =>
      (anthropic.requests[i]!.json as Sent).messages.flatMap((m) => m.content.filter((b) => b.type === 'thinking').map((b) => b.signature));
    expect(anthropic.requests).toHaveLength(2);
    expect(signaturesSent(1)).toEqual([first.sig]);
    const journal = readFileSync(join(stateDir, 'runs', 'th.jsonl'), 'utf8');
    expect(journal).toContain(`{"thinking":{"text":"Echo, then check (toolu_1).","signature":"${first.field}"}}`);
    expect(journal).toContain(`{"thinking":{"text":"Echo, then check (toolu_2).","signature":"${second.field}"}}`);
    expect(journal).not.toContain(first.sig);
    expect(journal).not.toContain('cache_read_tokens');

    anthropic.reply({ message: { content: [{ type: 'text', text: 'Both echoed.' }] } });
    const resumed = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--resume', 'th'], { cwd: dir, env: env() });
    expect(resumed.stderr).not.toMatch(/^logbook:/m);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Both echoed.\n');
    expect(anthropic.requests).toHaveLength(3);
    expect(signaturesSent(2)).toEqual([first.sig, second.sig]);
  });

  it('refuses to resume a run under another provider, before any request', async () => {
    anthropic.reset();
    anthropic.reply(toolTurn);
    const cfg = config('anthropic2', 'provider: anthropic\nmodel: claude-test\n');
    const crashed = await runCrashing(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'a2', 'say hi'], 'kill-after-seq:2', { cwd: dir, env: env() });
    expect(crashed.signal).toBe('SIGKILL');
    const other = config('openai', `provider: openai\nmodel: claude-test\nbase_url: ${openai.origin}/v1\n`);
    const refused = await runCli(['run', '--config', other, '--state-dir', stateDir, '--resume', 'a2', '--force'], { cwd: dir, env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^logbook: run a2 was written with provider anthropic, the config now uses openai/m);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(openai.requests).toHaveLength(0);
  });

  it('turns a refused request into one line and a resumable error', async () => {
    anthropic.reset();
    anthropic.reply({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    const cfg = config('anthropic3', 'provider: anthropic\nmodel: claude-test\n');
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'a3', 'say hi'], { cwd: dir, env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^logbook: anthropic refused the request \(401 authentication_error\): invalid x-api-key/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect((await store.load('a3')).state.terminal).toMatchObject({ reason: 'error' });
  });
});

describe('logbook run with the openai provider', () => {
  it('maps tool calls both ways and streams the model\'s words to stdout', async () => {
    openai.reset();
    openai.reply(
      { chat: { content: 'Echoing.', tool_calls: [{ id: 'call_1', name: 'echo', arguments: '{"text":"yo"}' }], usage: { prompt_tokens: 50, completion_tokens: 9 } } },
      { chat: { content: 'It said yo.', usage: { prompt_tokens: 80, completion_tokens: 5, cached_tokens: 40 } } },
    );
    const cfg = config('openai-run', `provider: openai\nmodel: local-model\nbase_url: ${openai.origin}/v1\n`);
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'o1', 'say yo'], { cwd: dir });
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.stdout).toBe('Echoing.\nIt said yo.\n'); // the words before the call, then the answer
    const second = openai.requests[1]!.json as { messages: { role: string; tool_call_id?: string; content?: string }[] };
    const toolMessage = second.messages.find((m) => m.role === 'tool')!;
    expect(toolMessage.tool_call_id).toBe('call_1');
    expect(toolMessage.content).toContain('"output":"yo\\n"');
    const state = (await store.load('o1')).state;
    expect(state.fingerprint.provider).toBe('openai');
    expect(state.counters).toMatchObject({ llm_calls: 2, in_tokens: 130, out_tokens: 14, cache_read_tokens: 40 });
  });
});

describe('a model API that falls silent, with idle_timeout in the config', () => {
  it.each(['anthropic', 'openai'] as const)('%s: a stalled stream, then a reply whose headers never come, are tried again and said so', async (provider) => {
    const fake = provider === 'anthropic' ? anthropic : openai;
    fake.reset();
    if (provider === 'anthropic') {
      anthropic.reply({ message: { content: [{ type: 'text', text: 'never ends' }] }, stallAfter: 4 }, { hang: true }, { message: { content: [{ type: 'text', text: 'Back.' }] } });
    } else {
      openai.reply({ chat: { content: 'never ends' }, stallAfter: 2 }, { hang: true }, { chat: { content: 'Back.' } });
    }
    const cfg = config(`idle-${provider}`, `provider: ${provider}\nmodel: m\nidle_timeout: 0.5\n`);
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', `idle-${provider}`, 'hello'], {
      env: { ...env(), OPENAI_BASE_URL: `${openai.origin}/v1`, OPENAI_API_KEY: 'k', LOGBOOK_PROVIDER_MAX_RETRIES: '2' },
    });
    // What streamed before the stall stays where it went (a pipe cannot take it back), and the answer follows it
    // on a line of its own; the exit code says stdout holds more than the answer.
    expect(r.stdout).toBe('never\nBack.\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\nlogbook: stdout holds the start of an answer that broke off, then the answer; the journal holds the answer alone: logbook session show idle-/);
    expect(r.stderr).toContain(`${provider}: stream stalled: no event for 0.5s (idle_timeout in ${cfg}); trying again (attempt 2 of 3)`);
    expect(r.stderr).toContain(`${provider}: no response: no response for 0.5s (idle_timeout in ${cfg}); trying again (attempt 3 of 3)`);
    expect(fake.requests).toHaveLength(3);
    // One model call in the journal: the attempts that fell silent left nothing there.
    expect((await store.load(`idle-${provider}`)).state.counters.llm_calls).toBe(1);
  });
});

describe('a model that refuses to answer', () => {
  const refusalTurn = { message: { content: [{ type: 'text', text: 'I cannot help with that.' }], stop_reason: 'refusal' } };

  it.each(['anthropic', 'openai'] as const)('%s: ends the run with exit 6, says so, and journals it as the reference does', async (provider) => {
    const fake = provider === 'anthropic' ? anthropic : openai;
    fake.reset();
    if (provider === 'anthropic') anthropic.reply(refusalTurn);
    else openai.reply({ chat: { refusal: 'I cannot help with that.' } });
    const id = `refused-${provider}`;
    const cfg = config(id, `provider: ${provider}\nmodel: m\n`);
    const environment = { ...env(), OPENAI_BASE_URL: `${openai.origin}/v1`, OPENAI_API_KEY: 'k' };
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', id, 'do the thing'], { env: environment });
    expect(r.code).toBe(6);
    if (provider === 'openai') {
      // Chat Completions streams a refusal apart: it is no answer for stdout, and it is said on stderr.
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('I cannot help with that.\n');
    } else {
      // The Messages API says it was a refusal only once its words have streamed: they are on stdout.
      expect(r.stdout).toBe('I cannot help with that.\n');
    }
    expect(r.stderr).toMatch(new RegExp(`\\nlogbook: the model refused to respond; to ask it another way: logbook run --resume ${id} --config \\S+ --state-dir \\S+ "PROMPT"\\n$`));
    const lines = readFileSync(join(stateDir, 'runs', `${id}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.at(-2).assistant.stop_reason).toBe('refusal');
    expect(lines.at(-1)).toEqual({ seq: 3, protocol: 'io.choria.fisk-ai.v1.session.terminal', terminal: { reason: 'error', message: 'model refused to respond' } });

    // A resume alone meets the same refusal, without asking the model again; a follow-up asks again.
    const again = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--resume', id], { env: environment });
    expect(again.code).toBe(6);
    expect(fake.requests).toHaveLength(1);
    if (provider === 'anthropic') anthropic.reply({ message: { content: [{ type: 'text', text: 'Done, differently.' }] } });
    else openai.reply({ chat: { content: 'Done, differently.' } });
    const followed = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--resume', id, 'please, it is for a test'], { env: environment });
    expect(followed.stderr).not.toMatch(/^logbook:/m);
    expect(followed).toMatchObject({ code: 0, stdout: 'Done, differently.\n' });
  });

  it('in a chat, is said and the chat goes on to the next typed turn', async () => {
    anthropic.reset();
    anthropic.reply(refusalTurn, { message: { content: [{ type: 'text', text: 'Fine.' }] } });
    const cfg = config('refused-chat', 'provider: anthropic\nmodel: m\n');
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--chat', 'first'], { env: env(), input: 'second\n' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('I cannot help with that.\nFine.\n');
    expect(r.stderr).toContain('warning: the model refused to respond; say it another way, or end the chat');
    expect(anthropic.requests).toHaveLength(2);
  });
});

describe('tool input that is not JSON', () => {
  it.each(['anthropic', 'openai'] as const)('%s: is answered with an error the model can correct, and the run goes on', async (provider) => {
    const fake = provider === 'anthropic' ? anthropic : openai;
    fake.reset();
    if (provider === 'anthropic') {
      const events = anthropicEvents({ content: [{ type: 'tool_use', id: 'toolu_bad', name: 'echo', input: { text: 'hi' } }], chunkSize: 1000 }, 'm');
      anthropic.reply(
        { raw: sseWire(events.map((e) => e.replace('"partial_json":"{\\"text\\":\\"hi\\"}"', '"partial_json":"{\\"text\\": hi}"'))) },
        { message: { content: [{ type: 'tool_use', id: 'toolu_good', name: 'echo', input: { text: 'hi' } }] } },
        { message: { content: [{ type: 'text', text: 'Fixed it.' }] } },
      );
    } else {
      openai.reply(
        { chat: { tool_calls: [{ id: 'toolu_bad', name: 'echo', arguments: '{"text": hi}' }] } },
        { chat: { tool_calls: [{ id: 'toolu_good', name: 'echo', arguments: '{"text":"hi"}' }] } },
        { chat: { content: 'Fixed it.' } },
      );
    }
    const id = `bad-input-${provider}`;
    const cfg = config(id, `provider: ${provider}\nmodel: m\n`);
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', id, 'echo hi'], {
      env: { ...env(), OPENAI_BASE_URL: `${openai.origin}/v1`, OPENAI_API_KEY: 'k' },
    });
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r).toMatchObject({ code: 0, stdout: 'Fixed it.\n' });
    expect(r.stderr).toContain('warning: the model sent input for echo (call toolu_bad) that is not JSON; the call was not run and was answered with an error');
    const { state } = await store.load(id);
    const [badCall, badResult, goodCall, goodResult] = state.messages.slice(1, 5).map((m) => m.content[0]!);
    expect(badCall).toEqual({ tool_use: { id: 'toolu_bad', name: 'echo', input: expect.objectContaining({ text: '{}' }) } });
    // The parser's own words differ between Node versions.
    expect(badResult).toEqual({
      tool_result: {
        tool_use_id: 'toolu_bad',
        content: expect.stringMatching(
          /^this call of echo was not run: its input is not valid JSON \(.+\); it was "\{\\"text\\": hi\}"\. Call it again with its input as one JSON object that matches the tool's input_schema$/,
        ),
        is_error: true,
      },
    });
    expect(goodCall).toMatchObject({ tool_use: { id: 'toolu_good' } });
    expect(JSON.parse((goodResult as { tool_result: { content: string } }).tool_result.content)).toMatchObject({ exit_code: 0, output: 'hi\n' });
    // The model was sent its call back with the {} the journal holds, and the error.
    const second = fake.requests[1]!.body;
    expect(second).toContain('this call of echo was not run');
    // Shown as refused, and counted apart from the calls that ran, with no tool time.
    expect(r.stderr).toMatch(/^» echo .*\(refused, never run: its input was not JSON\)$/m);
    const show = await runCli(['session', 'show', id, '--state-dir', stateDir]);
    expect(show.stdout).toMatch(/^tool calls +1 \(.*\); 1 more refused, never run \(input not JSON, or an id repeated\)$/m);
    expect(show.stdout).toMatch(/^tool time +[^,]+ in 1 call$/m);
  });
});

describe('an API key', () => {
  it('is not needed by the anthropic provider at a base URL that takes none; a missing one is said with the config key that names it', async () => {
    anthropic.reset();
    anthropic.reply({ message: { content: [{ type: 'text', text: 'No key needed.' }] } });
    const local = config('keyless', `provider: anthropic\nmodel: local-model\nbase_url: ${anthropic.origin}\n`);
    const r = await runCli(['run', '--config', local, '--ephemeral', 'hi'], { cwd: dir, env: { ANTHROPIC_API_KEY: undefined } });
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r).toMatchObject({ code: 0, stdout: 'No key needed.\n' });
    const remote = config('keyed', 'provider: anthropic\nmodel: claude-test\n');
    const missing = await runCli(['run', '--config', remote, '--ephemeral', 'hi'], { cwd: dir, env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'logbook: anthropic: ANTHROPIC_API_KEY is not set: set it to the API key, or name the variable that holds it with apiKeyEnv; api_key_env in the config names the variable the key is read from\n',
    );
  });
});

describe('the resume reminder', () => {
  it('is not sent where nothing was interrupted: a chat resumed at its prompt, a follow-up of a completed run', async () => {
    const said = (text: string) => ({ message: { content: [{ type: 'text', text }] } });
    anthropic.reset();
    anthropic.reply(said('One.'), said('Two.'), said('Three.'), said('Four.'), said('Five.'));
    const cfg = config('no-reminder', 'provider: anthropic\nmodel: claude-test\n');
    const cli = (args: string[], input?: string) => runCli(['run', '--config', cfg, '--state-dir', stateDir, ...args], { cwd: dir, env: env(), ...(input !== undefined ? { input } : {}) });
    for (const [args, input] of [
      [['--chat', '--name', 'chat-exit', 'first'], 'second\n'], // ends at the end of its input, at its prompt
      [['--resume', 'chat-exit'], 'third\n'],
      [['--name', 'done', 'once']],
      [['--resume', 'done', 'and again']],
    ] as [string[], string?][]) {
      const r = await cli(args, input);
      expect(r.stderr).not.toMatch(/^logbook:/m);
      expect(r.code).toBe(0);
    }
    expect(anthropic.requests).toHaveLength(5);
    for (const r of anthropic.requests) expect(r.body).not.toContain('interrupted');
  });
});

describe('the spend of a model no price is known for', () => {
  it('is unknown, never $0.00', async () => {
    anthropic.reset();
    anthropic.reply({ message: { content: [{ type: 'text', text: 'Hello.' }], usage: { input_tokens: 900, output_tokens: 300 } } });
    const cfg = config('unpriced', 'provider: anthropic\nmodel: local-unpriced-model\n');
    const r = await runCli(['run', '--chat', '--config', cfg, '--state-dir', stateDir, 'hi'], { cwd: dir, env: env(), input: '/status\n' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^spent +unknown, 1 call not priced$/m);
    expect(r.stderr).not.toContain('$0.00');
  });
});

describe('a final answer that is cut short, or empty', () => {
  it('cut at max_tokens: said on stderr and by session show, and ends with its own exit code, as a limit', async () => {
    const cfg = config('cut', 'provider: anthropic\nmodel: claude-test\n');
    anthropic.reset();
    anthropic.reply({ message: { content: [{ type: 'text', text: 'The three reasons are: first, the' }], stop_reason: 'max_tokens', usage: { input_tokens: 20, output_tokens: 2048 } } });
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'cut', 'why?'], { cwd: dir, env: env() });
    expect(r.stdout).toBe('The three reasons are: first, the\n');
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/^logbook: the model's answer was cut short at max_tokens \(2,048\); raise max_tokens in \S+cut\.yaml, then ask for the rest .*: logbook run --resume cut .*--force "go on"$/m);
    const show = await runCli(['session', 'show', 'cut', '--state-dir', stateDir], { cwd: dir });
    expect(show.stdout).toMatch(/^where +completed, but the model's answer was cut short at max_tokens \(2,048\): it ends where the limit fell$/m);
    expect(show.stdout).not.toMatch(/final answer/);
  });

  it('empty (content null): said on stderr and by session show; the run completed', async () => {
    const cfg = config('empty', 'provider: openai\nmodel: local-model\n');
    openai.reset();
    openai.reply({ chat: { usage: { prompt_tokens: 20, completion_tokens: 0 } } });
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'empty', 'why?'], { cwd: dir, env: { OPENAI_BASE_URL: openai.url, LOGBOOK_PROVIDER_MAX_RETRIES: '0' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^logbook: the model's answer was empty; to ask again: logbook run --resume empty .*"PROMPT"$/m);
    const show = await runCli(['session', 'show', 'empty', '--state-dir', stateDir], { cwd: dir });
    expect(show.stdout).toMatch(/^where +completed, but the model's answer was empty$/m);
  });
});
