/**
 * A remote A2A agent's INPUT_REQUIRED, put to the operator of the calling run
 * as an approval is, through the binary: a logbook run's `ask_<alias>` call to
 * a logbook agent served over HTTP whose confirm tool needs an approval. On a
 * terminal one key approves and the remote tool runs; piped, the run stops
 * awaiting the call's approval (exit 3) and `--approve` on resume answers the
 * same remote task (one task only); a run killed while the question is open
 * resumes onto the same task and asks again; `--deny` sends the refusal there
 * and the model reads it; `logbook ask URL` exits 3 naming the task, and
 * `--task ID --approve` answers it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { TaskState } from '@a2a-js/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { a2aClient, httpAgentConfig, startHttpServe } from '../helpers/a2a-http.js';
import { BIN, runCli } from '../helpers/cli.js';
import type { ServeProcess } from '../helpers/serve.js';
import { shTool } from '../helpers/tasks.js';
import { Tmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/tmp.js';

const QUESTION = '[y]es, [n]o, [a]ll (yes for the rest of this run):';

describe('a remote A2A task waiting for input, from a calling run', () => {
  const dir = tempDir('logbook-a2a-input-');
  const serving: ServeProcess[] = [];
  let t: Tmux | undefined;
  afterEach(async () => {
    t?.kill();
    t = undefined;
    await Promise.all(serving.splice(0).map((s) => s.stop('SIGKILL')));
  });

  /** A served agent whose one task calls its confirm tool `touch` (touching `name`.touched), and a lead that asks it. */
  async function setUp(name: string): Promise<{ lead: string; marker: string; url: string }> {
    const marker = join(dir, `${name}.touched`);
    const remote = httpAgentConfig(
      dir,
      `${name}-remote`,
      [{ text: 'Touching.', tool_calls: [{ name: 'touch', input: {} }] }, { text: 'Done there.' }],
      `a2a: { identity: ${name} }\ntools:\n${shTool('touch', `touch ${marker}`)}    confirm: true\n`,
    );
    const s = await startHttpServe(remote, { cwd: dir });
    serving.push(s);
    const lead = httpAgentConfig(
      dir,
      `${name}-lead`,
      [{ text: 'Asking.', tool_calls: [{ name: 'ask_remote', input: { prompt: 'touch it' }, id: 'ask-1' }] }, { text: 'Finished.' }],
      `remote_agents:\n  - url: ${s.url}\n    alias: remote\n    description: touches things\n`,
    );
    return { lead, marker, url: s.url };
  }

  const journalOf = (name: string): string =>
    readdirSync(join(dir, `${name}-lead-runs`), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => readFileSync(join(dir, `${name}-lead-runs`, f), 'utf8'))
      .join('');

  async function tasksOf(url: string) {
    const client = await a2aClient(url);
    return (await client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined, includeArtifacts: true, pageSize: 50 })).tasks;
  }

  it('on a terminal one key approves what the remote task asks, and the remote tool runs', async () => {
    const { lead, marker, url } = await setUp('tty');
    t = Tmux.start([process.execPath, BIN, 'run', '--config', lead, '--name', 'tty-run', 'go'], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', NO_COLOR: '1' },
      cwd: dir,
      width: 160,
      height: 40,
    });
    const screen = await t.waitFor(QUESTION, 'the approval question', 30_000);
    expect(screen).toContain('approve what running call ask-1 (ask_remote) asks?');
    expect(screen).toMatch(/asks {3}agent remote \(task \S+\): .*call toolu_0_0 \(touch\) needs an approval/);
    expect(existsSync(marker)).toBe(false);
    t.type('y');
    expect(await t.exitStatus(30_000)).toBe(0);
    expect(existsSync(marker)).toBe(true);
    expect(journalOf('tty')).toContain('"content":"Done there."},"remote":true}');
    expect(await tasksOf(url)).toHaveLength(1);
  });

  it('a run killed while the question is open is resumed onto the same task, which asks again', async () => {
    const { lead, marker, url } = await setUp('crash');
    t = Tmux.start([process.execPath, BIN, 'run', '--config', lead, '--name', 'crash-run', 'go'], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', NO_COLOR: '1' },
      cwd: dir,
      width: 160,
      height: 40,
    });
    await t.waitFor(QUESTION, 'the approval question', 30_000);
    const logbook = Number(execFileSync('pgrep', ['-P', t.format('#{pane_pid}')], { encoding: 'utf8' }).trim()); // the pane runs exit-status.mjs, which runs logbook
    process.kill(logbook, 'SIGKILL');
    await expect(t.exitStatus(30_000)).rejects.toThrow(/killed by SIGKILL/);
    const resumed = await runCli(['run', '--resume', 'crash-run', '--config', lead], { cwd: dir, timeoutMs: 60_000 });
    expect(resumed.code).toBe(3); // asked again: no one to answer it, so it awaits the call's approval
    expect(resumed.stderr).toContain('--approve ask-1');
    const approved = await runCli(['run', '--resume', 'crash-run', '--config', lead, '--approve', 'ask-1'], { cwd: dir, timeoutMs: 60_000 });
    expect(approved.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
    expect(await tasksOf(url)).toHaveLength(1);
  });

  it('piped, the run stops awaiting the call (exit 3), and --approve on resume answers the same remote task', async () => {
    const { lead, marker, url } = await setUp('piped');
    const first = await runCli(['run', '--config', lead, '--name', 'piped-run', 'go'], { cwd: dir, timeoutMs: 60_000 });
    expect(first.code).toBe(3);
    expect(first.stderr).toContain('--approve ask-1');
    expect(existsSync(marker)).toBe(false);
    const resumed = await runCli(['run', '--resume', 'piped-run', '--config', lead, '--approve', 'ask-1'], { cwd: dir, timeoutMs: 60_000 });
    expect(resumed.stderr).not.toMatch(/error/i);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Finished.\n');
    expect(existsSync(marker)).toBe(true);
    const tasks = await tasksOf(url);
    expect(tasks).toHaveLength(1); // the resume re-attached to the task it had sent
    expect(tasks[0]!.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(journalOf('piped')).toContain('"tool_result":{"tool_use_id":"ask-1","result":{"tool_use_id":"ask-1","content":"Done there."},"remote":true}');
  });

  it('--deny sends the refusal to the remote task, and the model reads it', async () => {
    const { lead, marker, url } = await setUp('denied');
    const first = await runCli(['run', '--config', lead, '--name', 'denied-run', 'go'], { cwd: dir, timeoutMs: 60_000 });
    expect(first.code).toBe(3);
    const resumed = await runCli(['run', '--resume', 'denied-run', '--config', lead, '--deny', 'ask-1', '--reason', 'not today'], { cwd: dir, timeoutMs: 60_000 });
    expect(resumed.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(await tasksOf(url)).toHaveLength(1);
    expect(journalOf('denied')).toContain(
      '"tool_result":{"tool_use_id":"ask-1","result":{"tool_use_id":"ask-1","content":"the operator denied what agent remote asked (not today); the agent\'s answer: Done there.","is_error":true},"remote":true}',
    );
  });

  it('ask URL PROMPT, piped, exits 3 naming the task, and ask URL --task ID --approve answers it', async () => {
    const { marker, url } = await setUp('ask');
    const first = await runCli(['ask', url, 'touch it'], { cwd: dir, timeoutMs: 60_000 });
    expect(first.code).toBe(3);
    const id = /--task (\S+) --approve/.exec(first.stderr)?.[1];
    expect(id).toBeDefined();
    expect(existsSync(marker)).toBe(false);
    const answered = await runCli(['ask', url, '--task', id!, '--approve'], { cwd: dir, timeoutMs: 60_000 });
    expect(answered.stderr).not.toMatch(/error|waits for input/i);
    expect(answered.code).toBe(0);
    expect(answered.stdout).toContain('Done there.');
    expect(existsSync(marker)).toBe(true);
    expect(await tasksOf(url)).toHaveLength(1);
  });
});
