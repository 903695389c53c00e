/**
 * Living in sessions, through the real binary: every run journaled, --continue,
 * follow-ups (a completed run goes on as a fork), session fork, ids by prefix,
 * the picker on a terminal, and resume commands that work as printed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { encodeMessage, payloadKind } from '../../src/core/index.js';
import { BIN, finished, runCli, spawnCli, type CliResult } from '../helpers/cli.js';
import { FakeAnthropic, anthropicErrors } from '../helpers/fake-anthropic.js';
import { tempDir } from '../helpers/tmp.js';
import { Tmux } from '../helpers/tmux.js';

const dir = tempDir('logbook-sessions-');
const stateDir = join(dir, 'state');
const store = new FileStore(join(stateDir, 'runs'));
const journal = (id: string): string => readFileSync(join(stateDir, 'runs', `${id}.jsonl`), 'utf8');
const conversation = async (id: string): Promise<string[]> => (await store.load(id)).state.messages.map(encodeMessage);

/** `logbook run` with the config named (default agent.yaml) and the test's state dir. */
function run(args: string[], options: { config?: string; input?: string } = {}): Promise<CliResult> {
  return runCli(['run', '--config', options.config ?? 'agent.yaml', '--state-dir', stateDir, ...args], {
    cwd: dir,
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
}

/** A script provider config whose turns are the texts given, one per model call. */
function scripted(name: string, texts: string[], extra = ''): string {
  writeFileSync(join(dir, `${name}.turns.yaml`), `turns:\n${texts.map((t) => `  - text: ${JSON.stringify(t)}\n`).join('')}`);
  writeFileSync(join(dir, `${name}.yaml`), `provider: script\nscript: ${name}.turns.yaml\n${extra}`);
  return `${name}.yaml`;
}

beforeAll(() => {
  scripted('agent', ['First answer.', 'Second answer.', 'Third answer.', 'Fourth answer.']);
});

describe('every run is journaled', () => {
  it('a plain run is kept, --ephemeral leaves nothing, and --checkpoint is still accepted', async () => {
    const home = tempDir();
    const plain = await runCli(['run', '--config', join(dir, 'agent.yaml'), 'hello'], { cwd: dir, env: { XDG_STATE_HOME: home } });
    expect(plain.code).toBe(0);
    const id = /^run (\S+) \(file store in /m.exec(plain.stderr)![1]!;
    expect((await new FileStore(join(home, 'logbook', 'runs')).load(id)).state.terminal).toEqual({ reason: 'completed' });
    const gone = tempDir();
    expect((await runCli(['run', '--config', join(dir, 'agent.yaml'), '--ephemeral', 'hello'], { cwd: dir, env: { XDG_STATE_HOME: gone } })).code).toBe(0);
    expect(await new FileStore(join(gone, 'logbook', 'runs')).list()).toEqual([]);
    expect((await run(['--checkpoint', '--name', 'checked', 'hello'])).code).toBe(0);
  });
});

describe('follow-ups', () => {
  it('continues a completed one-shot run as a new run, leaving the original byte for byte as it was', async () => {
    expect((await run(['--name', 'done', 'first question'])).code).toBe(0);
    const before = journal('done');
    const r = await run(['--resume', 'done', 'a follow-up']);
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Second answer.\n');
    const fork = /continuing completed run done as new run (\S+)/.exec(r.stderr)![1]!;
    expect(journal('done')).toBe(before);
    const original = await conversation('done');
    expect(await conversation(fork)).toEqual([
      ...original,
      encodeMessage({ role: 'user', content: [{ text: { text: 'a follow-up' } }] }),
      encodeMessage({ role: 'assistant', content: [{ text: { text: 'Second answer.' } }] }),
    ]);
  });

  it('gives a suspended chat its next line, then reads the rest from stdin', async () => {
    expect((await run(['--chat', '--name', 'talk', 'hi'], { input: '' })).code).toBe(0);
    const r = await run(['--resume', 'talk', 'and then?'], { input: 'one more\n' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Second answer.\nThird answer.\n');
    const { records } = await store.load('talk');
    expect(records.filter((x) => 'user' in x).map((x) => ('user' in x ? x.user.message.content : null))).toEqual([
      [{ text: { text: 'and then?' } }],
      [{ text: { text: 'one more' } }],
    ]);
  });

  it('refuses a follow-up while a tool batch is unfinished, saying how to go on', async () => {
    await forkedMidBatch('busy');
    const r = await run(['--resume', 'busy', 'ignore that'], { config: 'tools.yaml' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^logbook: run busy is in the middle of a tool batch; resume it without a prompt to finish that first$/m);
  });

  it('--continue takes the most recently updated run', async () => {
    expect((await run(['--name', 'older', 'q'])).code).toBe(0);
    expect((await run(['--chat', '--name', 'newest', 'hi'], { input: '' })).code).toBe(0);
    const r = await run(['--continue'], { input: 'more\n' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/resuming run newest/);
  });
});

/** A run of the tools config forked in the middle of its first batch (one of two calls answered). */
async function forkedMidBatch(name: string): Promise<void> {
  writeFileSync(
    join(dir, 'tools.turns.yaml'),
    'turns:\n  - text: Two calls.\n    tool_calls: [{ name: say, input: { word: one } }, { name: say, input: { word: two } }]\n  - text: Both said.\n',
  );
  writeFileSync(
    join(dir, 'tools.yaml'),
    'provider: script\nscript: tools.turns.yaml\ntools:\n  - name: say\n    input_schema: { type: object, properties: { word: { type: string } } }\n    command: [echo, "{{word}}"]\n',
  );
  expect((await run(['--name', `${name}-source`, 'say two words'], { config: 'tools.yaml' })).code).toBe(0);
  const f = await runCli(['session', 'fork', `${name}-source`, '--at', '3', '--name', name, '--state-dir', stateDir], { cwd: dir });
  expect(f.code).toBe(0);
}

describe('session fork', () => {
  it('cuts inside a tool batch and leaves it pending; the resume finishes it', async () => {
    await forkedMidBatch('cut');
    const cut = await store.load('cut');
    expect(cut.records.map(payloadKind)).toEqual(['meta', 'assistant', 'tool_result']);
    expect(cut.state.pending?.answered).toEqual(['toolu_0_0']);
    expect(cut.state.run_id).toBe('cut');
    // Listed and shown as a fork nothing has run in, not as a crashed run; --json names its origin.
    const ls = await runCli(['session', 'ls', '--state-dir', stateDir], { cwd: dir });
    expect(ls.stdout).toMatch(/^cut +forked /m);
    const json = await runCli(['session', 'ls', '--json', '--state-dir', stateDir], { cwd: dir });
    const listed = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; status: string; forked_from?: unknown });
    expect(listed.find((r) => r.id === 'cut')).toMatchObject({ status: 'forked', forked_from: { run_id: 'cut-source', seq: 3 } });
    const show = await runCli(['session', 'show', 'cut', '--state-dir', stateDir], { cwd: dir });
    expect(show.stdout).toMatch(/^status +forked\nwhere +forked from run cut-source at seq 3, nothing run in it since; in the middle of a tool batch, 1 of 2 calls answered/m);
    const r = await run(['--resume', 'cut'], { config: 'tools.yaml' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Both said.\n');
    expect(await conversation('cut')).toEqual(await conversation('cut-source'));
    expect((await runCli(['session', 'ls', '--state-dir', stateDir], { cwd: dir })).stdout).toMatch(/^cut +completed /m);
  });

  it('keeps the first N model turns with --turn, and says how to continue the fork', async () => {
    const f = await runCli(['session', 'fork', 'talk', '--turn', '1', '--state-dir', stateDir], { cwd: dir });
    expect(f.code).toBe(0);
    const [, id, command] = /^forked run talk up to seq \d+ as run (\S+); continue it with: (.+)$/m.exec(f.stdout)!;
    expect(command).toBe(`logbook run --resume ${id} --state-dir ${stateDir}`);
    expect((await store.load(id!)).state.counters.llm_calls).toBe(1);
  });
});

describe('ids by prefix', () => {
  it('takes a unique start of an id, and refuses an ambiguous one naming the candidates', async () => {
    expect((await run(['--name', 'prefix-alpha', 'q'])).code).toBe(0);
    expect((await run(['--name', 'prefix-beta', 'q'])).code).toBe(0);
    const exported = await runCli(['session', 'export', 'prefix-a', '--format', 'jsonl', '--state-dir', stateDir], { cwd: dir });
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(journal('prefix-alpha'));
    const followed = await run(['--resume', 'prefix-b', 'more']);
    expect(followed.stderr).toMatch(/continuing completed run prefix-beta as new run/);
    const ambiguous = await run(['--resume', 'prefix-', 'more']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/^logbook: prefix- is the start of 2 run ids \(prefix-alpha, prefix-beta\); give more of it$/m);
    const none = await run(['--resume', 'zzz']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^logbook: no run zzz in the file store in /m);
  });
});

describe('the picker', () => {
  let t: Tmux | undefined;
  afterEach(() => t?.kill());

  it('lists the runs newest first on a terminal, searches as you type, and resumes the one chosen', async () => {
    const home = tempDir();
    const state = join(home, 'state');
    const config = join(dir, 'agent.yaml');
    for (const [id, prompt] of [['pick-apple', 'about apples'], ['pick-pear', 'about pears']] as const) {
      expect((await runCli(['run', '--config', config, '--state-dir', state, '--chat', '--name', id, prompt], { cwd: dir, input: '' })).code).toBe(0);
    }
    const env = { PATH: process.env.PATH ?? '', HOME: home, TERM: 'xterm-256color', NO_COLOR: '1' };
    t = Tmux.start([process.execPath, BIN, 'run', '--config', config, '--state-dir', state, '--resume'], { env, cwd: dir, width: 100, height: 20 });
    const screen = await t.waitFor('Resume which run?', 'the picker');
    expect(screen.indexOf('pick-pear')).toBeLessThan(screen.indexOf('pick-apple')); // newest first
    t.type('apple');
    await t.waitFor((s) => s.includes('1 of 2 conversations') && !s.includes('pick-pear'), 'only the matching run');
    t.keys('Enter');
    await t.waitFor(/resuming run pick-apple/, 'the chosen run resumed');
    t.type('/exit');
    t.keys('Enter');
    expect(await t.exitStatus()).toBe(0);
  });

  it('without a terminal, --resume alone lists the latest runs instead of asking', async () => {
    const r = await run(['--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^logbook: --resume needs a run id when it cannot ask; the latest runs: \S+ \(/m);
  });
});

describe('the resume command printed', () => {
  /** A directory with `logbook` on it, so a printed command runs as printed. */
  const binDir = join(dir, 'bin');
  const shell = (command: string): CliResult => {
    try {
      const stdout = execFileSync('bash', ['-c', command], {
        cwd: dir,
        env: { PATH: `${binDir}:${process.env.PATH ?? ''}`, HOME: dir, NO_COLOR: '1', XDG_STATE_HOME: tempDir() },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      return { code: 0, signal: null, stdout, stderr: '' };
    } catch (err) {
      const e = err as { status: number; stdout: string; stderr: string };
      return { code: e.status, signal: null, stdout: e.stdout, stderr: e.stderr };
    }
  };
  beforeAll(() => {
    mkdirSync(binDir, { recursive: true });
    symlinkSync(BIN, join(binDir, 'logbook'));
  });

  it('is printed at the end of a suspended run, not at its start, and works as printed', async () => {
    writeFileSync(join(dir, 'slow.turns.yaml'), 'turns:\n  - text: Slow.\n    delay_ms: 20000\n  - text: unused\n');
    writeFileSync(join(dir, 'slow.yaml'), 'provider: script\nscript: slow.turns.yaml\n');
    const child = spawnCli(['run', '--config', 'slow.yaml', '--state-dir', stateDir, '--name', 'slowpoke', 'go'], { cwd: dir });
    const done = finished(child);
    // Stopped while the model is asked: once the run has said where it is journaled.
    let said = '';
    child.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString()));
    for (let i = 0; i < 400 && !said.includes('run slowpoke ('); i++) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGINT');
    const r = await done;
    expect(r.code).toBe(130);
    const command = /suspended; resume with: (.+)$/m.exec(r.stderr)![1]!;
    expect(command).toBe(`logbook run --resume slowpoke --config slow.yaml --state-dir ${stateDir}`);
    expect(r.stderr.split('\n')[0]).toMatch(/^run slowpoke \(file store in .*\)$/); // the start says where, not how to resume
    expect(r.stderr.match(/resume with/g)).toHaveLength(1);
    writeFileSync(join(dir, 'slow.turns.yaml'), 'turns:\n  - text: Quick now.\n');
    const again = shell(command);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('Quick now.\n');
  });

  it('after a budget stop names the key to raise and needs no --force; it works as printed once raised', async () => {
    writeFileSync(join(dir, 'budget.turns.yaml'), 'turns:\n  - text: Spent.\n    tool_calls: [{ name: say, input: { word: x } }]\n    usage: { input: 500, output: 500 }\n  - text: Done.\n');
    const cfg = (budget: number) =>
      writeFileSync(
        join(dir, 'budget.yaml'),
        `provider: script\nscript: budget.turns.yaml\nbudget: ${budget}\ntools:\n  - name: say\n    input_schema: { type: object, properties: { word: { type: string } } }\n    command: [echo, "{{word}}"]\n`,
      );
    cfg(100);
    const r = await run(['--name', 'spent', 'go'], { config: 'budget.yaml' });
    expect(r.code).toBe(4); // a budget stop's own exit code
    const [, file, command] = /^logbook: token budget spent: 1000 of 100 tokens; raise budget in (\S+), then resume with: (.+)$/m.exec(r.stderr)!;
    expect(file).toBe(join(dir, 'budget.yaml'));
    expect(command).not.toContain('--force');
    cfg(100_000);
    expect(shell(command!).stdout).toBe('Done.\n');
  });

  it('is offered after a failure a resume can get past, and not after a refusal a resume would repeat', async () => {
    const api = await FakeAnthropic.start();
    try {
      writeFileSync(join(dir, 'claude.yaml'), 'provider: anthropic\nmodel: claude-test\n');
      const env = { ANTHROPIC_BASE_URL: api.origin, ANTHROPIC_API_KEY: 'k', LOGBOOK_PROVIDER_MAX_RETRIES: '0' };
      const claude = (args: string[]) => runCli(['run', '--config', 'claude.yaml', '--state-dir', stateDir, ...args], { cwd: dir, env });
      api.reply(anthropicErrors.server());
      const failed = await claude(['--name', 'flaky', 'hi']);
      expect(failed.code).toBe(1);
      const command = /; resume with: (.+)$/m.exec(failed.stderr)![1]!;
      expect(command).toBe(`logbook run --resume flaky --config claude.yaml --state-dir ${stateDir}`);
      api.reply(anthropicErrors.invalid('messages: the conversation is malformed'));
      const refused = await claude(['--resume', 'flaky']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/refused the request \(400 invalid_request_error\).*; a resume would send the same request and be refused again, so none is offered/);
      expect(refused.stderr).not.toMatch(/resume with/);
    } finally {
      await api.close();
    }
  });

  it('/exit in a chat says how to continue it, and /help is never sent to the model', async () => {
    const r = await run(['--chat', '--name', 'helped', 'hi'], { input: '/help\n/exit\n' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\/help +list these commands/);
    expect(r.stderr).toMatch(/continue it later with: logbook run --resume helped --config agent\.yaml --state-dir /);
    const { records } = await store.load('helped');
    expect(records.some((x) => 'user' in x)).toBe(false);
  });

  it('refuses an unknown /command where it is typed, sending nothing, and sends a doubled slash as one', async () => {
    const r = await run(['--chat', '--name', 'slashes', 'hi'], { input: '/exti\n/bogus with words\n/exit now\n  //etc/hosts is empty\n/help\n' });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('unknown command /exti; /help lists them\n');
    expect(r.stderr).toContain('unknown command /bogus; /help lists them\n');
    expect(r.stderr).toContain('/exit takes no arguments; /help lists the commands\n');
    expect(r.stderr).toMatch(/\/\/ +a turn starting with \/: \/\/etc\/hosts sends \/etc\/hosts/);
    expect(r.stdout).toBe('First answer.\nSecond answer.\n');
    const { records } = await store.load('slashes');
    expect(records.flatMap((x) => ('user' in x ? [x.user.message.content] : []))).toEqual([[{ text: { text: '  /etc/hosts is empty' } }]]);
  });
});

describe('sharp edges', () => {
  it('a follow-up that continues a completed run as a new one takes --name; a run that is not completed keeps its id', async () => {
    expect((await run(['--name', 'named-src', 'first question'])).code).toBe(0);
    const r = await run(['--resume', 'named-src', '--name', 'named-fork', 'and then?']);
    expect(r.stderr).toContain('continuing completed run named-src as new run named-fork');
    expect(r.code).toBe(0);
    expect((await store.load('named-fork')).state.status).toBe('completed');
    const chat = await run(['--chat', '--name', 'named-chat', 'hi'], { input: '' });
    expect(chat.code).toBe(0);
    const refused = await run(['--resume', 'named-chat', '--name', 'other', 'more'], { input: '' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^logbook: --name names the new run a completed run is continued as, and run named-chat is not completed/m);
    expect((await run(['--resume', 'named-src', '--name', 'x'])).stderr).toMatch(/^logbook: --name names a new run; a continued run keeps its id/m);
  });

  it('refuses an invalid --name, an empty --state-dir and a prompt given as --resume as usage errors that say what to do', async () => {
    const badName = await run(['--name', 'no spaces', 'hi']);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toMatch(/^logbook: --name: invalid run id "no spaces"/m);
    const empty = await runCli(['run', '--config', 'agent.yaml', '--state-dir', '', 'hi'], { cwd: dir });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe('logbook: --state-dir is empty (an unset shell variable?): give the directory to keep runs in\n');
    const prompt = await run(['--resume', 'and then?']);
    expect(prompt.code).toBe(2);
    expect(prompt.stderr).toMatch(/^logbook: --resume takes a run id .*: to follow up the newest run, logbook run -c "and then\?"/m);
    const ephemeral = await run(['--ephemeral', '--name', 'e', 'hi']);
    expect(ephemeral.stderr).toBe('logbook: --ephemeral runs are not journaled, so they have no name: drop --name\n');
  });

  it('--resume alone offers only runs it can continue without a prompt', async () => {
    const home = tempDir();
    const state = join(home, 'state');
    const config = join(dir, 'agent.yaml');
    expect((await runCli(['run', '--config', config, '--state-dir', state, '--name', 'only-done', 'hi'], { cwd: dir })).code).toBe(0);
    const none = await runCli(['run', '--config', config, '--state-dir', state, '--resume'], { cwd: dir });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^logbook: every run in the file store in .* is completed; to continue one, give a prompt: logbook run -c PROMPT/m);
    expect((await runCli(['run', '--config', config, '--state-dir', state, '--chat', '--name', 'open-chat', 'hi'], { cwd: dir, input: '' })).code).toBe(0);
    const listed = await runCli(['run', '--config', config, '--state-dir', state, '--resume'], { cwd: dir });
    expect(listed.stderr).toMatch(/the latest runs: open-chat \(suspended/);
    expect(listed.stderr).not.toContain('only-done');
  });

  it('a broken ./agent.yaml does not stop a session command given --state-dir, and says it was found when it is read', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'agent.yaml'), 'provider: script\nmax_iteration: 3\n');
    const ls = await runCli(['session', 'ls', '--state-dir', stateDir], { cwd });
    expect(ls.stderr).toBe('');
    expect(ls.code).toBe(0);
    const found = await runCli(['session', 'ls'], { cwd });
    expect(found.code).toBe(1);
    expect(found.stderr).toMatch(/agent\.yaml: unknown key "max_iteration".* \(this config was found, not named: fix it, or pass --config FILE or --state-dir DIR to use another\)\n$/);
  });

  it('session show says which call may have been running, and the choice a resume of it may need', async () => {
    writeFileSync(join(dir, 'slowtool.turns.yaml'), 'turns:\n  - text: Pushing.\n    tool_calls: [{ name: push, input: {} }]\n  - text: Pushed.\n');
    writeFileSync(
      join(dir, 'slowtool.yaml'),
      'provider: script\nscript: slowtool.turns.yaml\ntools:\n  - name: push\n    input_schema: { type: object }\n    command: [sh, -c, "touch \\"$0\\"; sleep 30", pushing]\n',
    );
    const child = spawnCli(['run', '--config', 'slowtool.yaml', '--state-dir', stateDir, '--name', 'pushed', 'push it'], { cwd: dir });
    const done = finished(child);
    for (let i = 0; i < 400 && !existsSync(join(dir, 'pushing')); i++) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGKILL');
    await done;
    const show = await runCli(['session', 'show', 'pushed', '--state-dir', stateDir], { cwd: dir });
    expect(show.stdout).toMatch(/^where +interrupted \(its writer stopped without ending it\), in the middle of a tool batch, 0 of 1 call answered; call toolu_0_0 \(push\) may have been running when the run stopped$/m);
    expect(show.stdout).toMatch(/^next +.*if call (\S+)'s tool has side effects, it is not run again unasked: .*--rerun \1 \(run it again\) or .*--skip \1$/m);
    // With the config at hand, show says which it is.
    const told = await runCli(['session', 'show', 'pushed', '--config', 'slowtool.yaml', '--state-dir', stateDir], { cwd: dir });
    expect(told.stdout).toMatch(/^where +.*call toolu_0_0 \(push\) may have been running when the run stopped; its tool has no side effects \(the config says\)$/m);
    expect(told.stdout).toMatch(/^next +a resume runs call toolu_0_0 again \(answered ones are not run again\), then asks the model to go on: logbook run --resume pushed --config slowtool\.yaml/m);
    writeFileSync(join(dir, 'slowtool-effects.yaml'), `${readFileSync(join(dir, 'slowtool.yaml'), 'utf8')}    side_effects: true\n`);
    const effects = await runCli(['session', 'show', 'pushed', '--config', 'slowtool-effects.yaml', '--state-dir', stateDir], { cwd: dir });
    expect(effects.stdout).toMatch(/^where +.*may have been running when the run stopped, and its tool has side effects \(the config says\)$/m);
    expect(effects.stdout).toMatch(/^next +.*call toolu_0_0 is not run again unasked: the resume asks on a terminal, else give .*--rerun toolu_0_0 \(run it again\) or .*--skip toolu_0_0$/m);
  });

  it('session show cuts a long prompt, saying how much it left out', async () => {
    const long = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
    expect((await run(['--name', 'long-prompt', long])).code).toBe(0);
    const show = await runCli(['session', 'show', 'long-prompt', '--state-dir', stateDir], { cwd: dir });
    expect(show.stdout).toContain('  line 19\n  ... (');
    expect(show.stdout).not.toContain('line 20');
    expect(show.stdout).toMatch(/more characters; --transcript shows it all\)\nlast answer\n/);
  });
});
