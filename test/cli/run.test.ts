/** `logbook run` through the real binary, with the script provider. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { payloadKind } from '../../src/core/index.js';
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
  writeFileSync(join(dir, 'typo.yaml'), 'provider: script\nscript: chat.yaml\ntools:\n  - name: ls\n    comand: [ls]\n');
  writeFileSync(join(dir, 'broken.yaml'), 'provider: script\nscript: chat.yaml\nsystem: "Be: brief" x\nmodel: m\n');
});

const run = (args: string[], input?: string, env: Record<string, string> = {}) =>
  runCli(['run', '--state-dir', stateDir, ...args], { cwd: dir, env: { LOGBOOK_SCRIPT_LOG: turnsLog, ...env }, ...(input !== undefined ? { input } : {}) });

describe('logbook run --chat', () => {
  it("reads follow-ups from piped stdin, streams the model's words to stdout, and suspends at end of input", async () => {
    const r = await run(['--chat', '--name', 'chat', 'hi'], 'list things\n');
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Hello, what shall we do?\nListing.\nDone listing.\n');
    expect(r.stderr).toContain('» echo listed');
    const { records, state } = await store.load('chat');
    expect(records.map(payloadKind)).toEqual(['meta', 'assistant', 'user', 'assistant', 'tool_result', 'assistant', 'terminal']);
    expect(state).toMatchObject({ interactive: true, terminal: { reason: 'suspended' } });
  });

  it('resumes a chat at its input boundary without a model call, keeping it a chat without --chat', async () => {
    const before = asked().length;
    const r = await run(['--resume', 'chat'], 'and then?\n');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/resuming run chat \(3 model calls so far\)/);
    expect(asked().slice(before)).toEqual([3]); // only the new turn, none of the journaled ones
    expect(r.stdout).toBe('Anything else?\n');
  });
});

describe('logbook run --chat without a prompt', () => {
  it('waits for the first line before any model call, and folds to exactly the conversation typed', async () => {
    writeFileSync(join(dir, 'quiet.yaml'), 'turns:\n  - text: First answer.\n  - text: Second answer.\n');
    writeFileSync(join(dir, 'quiet-agent.yaml'), 'provider: script\nscript: quiet.yaml\n');
    const before = asked().length;
    const r = await run(['--config', 'quiet-agent.yaml', '--chat', '--name', 'quiet'], 'one\ntwo\n');
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.stdout).toBe('First answer.\nSecond answer.\n');
    expect(asked().slice(before)).toEqual([0, 1]);
    const { state } = await store.load('quiet');
    expect(state.messages.map((m) => [m.role, m.content.map((b) => ('text' in b ? b.text.text : '?')).join()])).toEqual([
      ['user', 'one'],
      ['assistant', 'First answer.'],
      ['user', 'two'],
      ['assistant', 'Second answer.'],
    ]);
  });
});

describe('two tool calls sharing an id', () => {
  it('runs the first, answers the repeat with an error the model reads, and completes', async () => {
    writeFileSync(
      join(dir, 'dup.yaml'),
      'turns:\n  - tool_calls: [{ name: echo, input: { text: one }, id: same }, { name: echo, input: { text: two }, id: same }]\n  - text: Both answered.\n',
    );
    writeFileSync(join(dir, 'dup-agent.yaml'), 'provider: script\nscript: dup.yaml\ntools:\n  - name: echo\n    input_schema: { type: object, properties: { text: { type: string } } }\n    command: [echo, "{{text}}"]\n');
    const r = await run(['--config', 'dup-agent.yaml', '--name', 'dup', '--tool-output', 'go']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Both answered.\n');
    expect(r.stderr).toMatch(/two tool calls the id same; the repeat was not run/);
    expect(r.stderr).not.toMatch(/journaled result reused/);
    const results = (await store.load('dup')).state.messages[2]!.content.map((b) => ('tool_result' in b ? b.tool_result : null));
    expect(results).toEqual([
      { tool_use_id: 'same', content: expect.stringContaining('"output":"one\\n"') },
      { tool_use_id: 'same', content: expect.stringContaining('is the id of an earlier call'), is_error: true },
    ]);
  });
});

describe('a journal whose meta names another run', () => {
  it('is refused as corrupt by show and resume, naming both ids, and listed as unreadable', async () => {
    const first = readFileSync(join(stateDir, 'runs', 'chat.jsonl'), 'utf8').split('\n')[0]!;
    writeFileSync(join(stateDir, 'runs', 'renamed.jsonl'), `${first}\n`);
    for (const args of [['session', 'show', 'renamed'], ['run', '--resume', 'renamed']]) {
      const r = await runCli([...args, '--state-dir', stateDir], { cwd: dir });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/^logbook: .*holds run chat, not run renamed/m);
    }
    const ls = await runCli(['session', 'ls', '--state-dir', stateDir], { cwd: dir });
    expect(ls.stdout).toMatch(/^renamed\s.*unreadable/m);
  });
});

describe('logbook run output', () => {
  it('takes the prompt from stdin when it is piped, and keeps spinners and escapes out of piped output', async () => {
    writeFileSync(join(dir, 'one.yaml'), 'turns:\n  - text: Piped answer.\n');
    writeFileSync(join(dir, 'one-agent.yaml'), 'provider: script\nscript: one.yaml\n');
    const r = await run(['--config', 'one-agent.yaml', '--checkpoint'], 'a prompt from a pipe\n', { NO_COLOR: '' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Piped answer.\n');
    expect(r.stderr).toMatch(/^run \S+ \(file store in .*\)$/m);
    expect(r.stderr).not.toMatch(/resume/); // it completed: there is nothing to resume
    expect(r.stderr).not.toMatch(/[\u001b\u2800-\u28ff]/);
    const id = /^run (\S+)/m.exec(r.stderr)![1]!;
    expect((await store.load(id)).state.prompt).toBe('a prompt from a pipe');
  });

  it('waits for a prompt piped by a slow writer, as run and ask both read one', async () => {
    writeFileSync(join(dir, 'slow.yaml'), 'turns:\n  - text: Piped answer.\n');
    writeFileSync(join(dir, 'slow-agent.yaml'), 'provider: script\nscript: slow.yaml\n');
    const slow = { cwd: dir, input: 'a slow prompt\n', inputAfterMs: 1000 };
    const r = await runCli(['run', '--state-dir', stateDir, '--config', 'slow-agent.yaml'], slow);
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Piped answer.\n');
    expect((await store.load(/^run (\S+)/m.exec(r.stderr)![1]!)).state.prompt).toBe('a slow prompt');
    // ask reads its prompt before it needs NATS: the refusal that follows shows the prompt was read.
    const asked = await runCli(['ask', 'someone', '--config', 'slow-agent.yaml'], slow);
    expect(asked.stderr).not.toMatch(/unexpected error/);
    expect(asked.stderr).toMatch(/^logbook: .*nats/im);
  });
});

describe('logbook run refusals', () => {
  it.each([
    [['--config', 'agent.yaml'], 2, /no prompt: give it as arguments, pipe it on stdin, or use --chat/],
    [['--resume', 'chat', '--continue'], 2, /--resume and --continue cannot be combined/],
    [['--continue', '--name', 'x'], 2, /--name names a new run; a continued run keeps its id/],
    [['--ephemeral', '--continue'], 2, /--ephemeral runs are not journaled, so they cannot be continued/],
    [['--force', 'hi'], 2, /--force only applies to --resume/],
    [['--name', '../etc', 'hi'], 2, /--name: invalid run id "..\/etc"/],
    // A character the terminal would not show, or that the sanitizer drops, is named, never hidden under a name that looks valid.
    [['--name', 'ab\u202ecd', 'hi'], 2, /^logbook: --name: invalid run id "ab\\u202ecd": use letters, digits, .*; U\+202E is not one of them$/m],
    [['--name', 'good\u200bname', 'hi'], 2, /^logbook: --name: invalid run id "good\\u200bname": .*; U\+200B is not one of them$/m],
    [['--config', 'missing.yaml', 'hi'], 1, /config file missing.yaml not found/],
    [['--resume', 'nope'], 1, /no run nope/],
    [['--name', 'chat', 'hi'], 1, /run chat already exists/],
    [['--bogus'], 2, /unknown option '--bogus'/],
    [['--config', 'typo.yaml', 'hi'], 1, /typo\.yaml: unknown key "comand" in tools\[0\] \(did you mean "command"\?\)$/m],
    [['--config', 'broken.yaml', 'hi'], 1, /broken\.yaml: not valid YAML: Unexpected scalar at node end at line 3, column 21 \("system: \\"Be: brief\\" x"\)$/m],
  ])('%j exits %i with one line', async (args, code, message) => {
    const r = await run(args as string[]);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
