/** `logbook run` through the real binary, with the script provider. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileStore, payloadKind } from '../../src/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-run-');
const stateDir = join(dir, 'state');
const store = new FileStore(join(stateDir, 'runs'));
const turnsLog = join(dir, 'turns.log');
const asked = (): number[] =>
  existsSync(turnsLog) ? readFileSync(turnsLog, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { turn: number }).turn) : [];

beforeAll(() => {
  writeFileSync(
    join(dir, 'chat.yaml'),
    `turns:
  - text: Hello, what shall we do?
  - text: Listing.
    tool_calls: [{ name: echo, input: { text: listed } }]
  - text: Done listing.
  - text: Anything else?
`,
  );
  writeFileSync(
    join(dir, 'agent.yaml'),
    `provider: script
script: chat.yaml
system: You are terse.
tools:
  - name: echo
    input_schema: { type: object, properties: { text: { type: string } } }
    command: [echo, "{{text}}"]
`,
  );
});

const run = (args: string[], input?: string, env: Record<string, string> = {}) =>
  runCli(['run', '--state-dir', stateDir, ...args], { cwd: dir, env: { LOGBOOK_SCRIPT_LOG: turnsLog, ...env }, ...(input !== undefined ? { input } : {}) });

describe('logbook run --chat', () => {
  it('reads follow-ups from piped stdin, answers each on stdout, and suspends at end of input', async () => {
    const r = await run(['--chat', '--name', 'chat', 'hi'], 'list things\n');
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Hello, what shall we do?\nDone listing.\n');
    expect(r.stderr).toContain('» echo listed');
    const { records, state } = await store.load('chat');
    expect(records.map(payloadKind)).toEqual(['meta', 'assistant', 'user', 'assistant', 'tool_result', 'assistant', 'terminal']);
    expect(state).toMatchObject({ interactive: true, terminal: { reason: 'suspended' } });
  });

  it('resumes a chat at its input boundary without a model call, keeping it a chat without --chat', async () => {
    const before = asked().length;
    const r = await run(['--resume', 'chat'], 'and then?\n');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/resuming run chat \(3 LLM calls so far\)/);
    expect(asked().slice(before)).toEqual([3]); // only the new turn, none of the journaled ones
    expect(r.stdout).toBe('Anything else?\n');
  });
});

describe('logbook run output', () => {
  it('takes the prompt from stdin when it is piped, and keeps spinners and escapes out of piped output', async () => {
    writeFileSync(join(dir, 'one.yaml'), 'turns:\n  - text: Piped answer.\n');
    writeFileSync(join(dir, 'one-agent.yaml'), 'provider: script\nscript: one.yaml\n');
    const r = await run(['--config', 'one-agent.yaml', '--checkpoint'], 'a prompt from a pipe\n', { NO_COLOR: '' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Piped answer.\n');
    expect(r.stderr).toMatch(/^run \S+ \(file store in .*\); resume it with: logbook run --resume \S+$/m);
    expect(r.stderr).not.toMatch(/[\u001b\u2800-\u28ff]/);
    const id = /^run (\S+)/m.exec(r.stderr)![1]!;
    expect((await store.load(id)).state.prompt).toBe('a prompt from a pipe');
  });
});

describe('logbook run refusals', () => {
  it.each([
    [['--config', 'agent.yaml'], 2, /no prompt: give it as arguments, pipe it on stdin, or use --chat/],
    [['--resume', 'chat', 'more words'], 2, /--resume continues the journaled conversation and takes no PROMPT/],
    [['--force', 'hi'], 2, /--force only applies to --resume/],
    [['--name', '../etc', 'hi'], 1, /invalid run id "..\/etc"/],
    [['--config', 'missing.yaml', 'hi'], 1, /config file missing.yaml not found/],
    [['--resume', 'nope'], 1, /no run nope/],
    [['--name', 'chat', 'hi'], 1, /run chat already exists/],
    [['--bogus'], 2, /unknown option '--bogus'/],
  ])('%j exits %i with one line', async (args, code, message) => {
    const r = await run(args as string[]);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
