/**
 * Calling an A2A 1.0 agent over HTTP, through the binary, against an agent
 * built as the official SDK's samples build one (InMemoryTaskStore): a run's
 * `ask_<alias>` call (remote_agents with a url), killed while it waits and
 * resumed, re-attaches to its one task and gets its answer, journaled
 * `remote: true`; `logbook ask URL PROMPT` prints a logbook agent's answer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { httpAgentConfig, startHttpServe } from '../helpers/a2a-http.js';
import { finished, runCli, spawnCli } from '../helpers/cli.js';
import type { ServeProcess } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

const SAMPLE = resolve(import.meta.dirname, '../helpers/a2a-sample-agent.mjs');

/** The SDK sample agent in a process of its own; its base URL. */
async function startSample(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [SAMPLE], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 20_000;
  while (!out.includes('\n')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the sample agent did not start: ${out}`);
    await sleep(20);
  }
  return { child, url: out.trim() };
}

const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : []);

describe('calling A2A agents over HTTP', () => {
  const dir = tempDir('logbook-a2a-remote-');
  const children: ChildProcess[] = [];
  const serving: ServeProcess[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    await Promise.all(serving.splice(0).map((s) => s.stop('SIGKILL')));
  });

  it('a run killed while an SDK sample agent works on its task is resumed onto that task: one task sent, its answer journaled remote', async () => {
    const sampleLog = join(dir, 'sample.log');
    const sample = await startSample({ SAMPLE_DELAY_MS: '3000', SAMPLE_LOG: sampleLog });
    children.push(sample.child);
    const lead = httpAgentConfig(
      dir,
      'lead',
      [{ text: 'Asking.', tool_calls: [{ name: 'ask_sample', input: { prompt: 'hello there' }, id: 'ask-1' }] }, { text: 'It heard me.' }],
      `remote_agents:\n  - url: ${sample.url}\n    alias: sample\n    description: hears things\n`,
    );
    const first = spawnCli(['run', '--config', lead, '--name', 'lead-run', 'Say hello to the sample'], { cwd: dir });
    const killed = finished(first, 60_000);
    const deadline = Date.now() + 20_000;
    while (lines(sampleLog).length === 0) {
      if (Date.now() > deadline) throw new Error('the sample agent was sent no task');
      await sleep(20);
    }
    first.kill('SIGKILL');
    await killed;

    const resumed = await runCli(['run', '--resume', 'lead-run', '--config', lead], { cwd: dir, timeoutMs: 60_000 });
    expect(resumed.stderr).not.toMatch(/error/i);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('It heard me.\n');
    expect(lines(sampleLog)).toHaveLength(1); // one task: the resume re-attached to it
    const journal = readdirSync(join(dir, 'lead-runs'), { recursive: true, encoding: 'utf8' })
      .map((f) => join(dir, 'lead-runs', f))
      .filter((f) => f.includes('lead-run') && f.endsWith('.jsonl'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('');
    expect(journal).toContain('"tool_result":{"tool_use_id":"ask-1","result":{"tool_use_id":"ask-1","content":"sample heard: hello there"},"remote":true}');
  });

  it('ask URL PROMPT hands a logbook agent served over HTTP a task and prints its answer', async () => {
    const config = httpAgentConfig(dir, 'asked', [{ text: 'Forty-two.' }], 'a2a: { identity: asked }\n');
    const s = await startHttpServe(config, { cwd: dir });
    serving.push(s);
    const r = await runCli(['ask', s.url, 'What is the answer?'], { cwd: dir, timeoutMs: 60_000 });
    expect(r.stderr).toMatch(/task \S+ sent to /);
    expect(r.stdout).toBe('Forty-two.\n');
    expect(r.code).toBe(0);

    // --json: the task as the wire has it (A2A 1.0's JSON), one object, the same a GetTask answers
    const j = await runCli(['ask', s.url, '--json', 'And again?'], { cwd: dir, timeoutMs: 60_000 });
    expect(j.code).toBe(0);
    const printed = JSON.parse(j.stdout) as { id: string; status: { state: string }; history: { role: string }[]; artifacts: { parts: { text: string }[] }[] };
    expect(printed.status.state).toBe('TASK_STATE_COMPLETED');
    expect(printed.history.map((m) => m.role)).toEqual(['ROLE_USER', 'ROLE_AGENT']);
    expect(printed.artifacts[0]!.parts[0]!.text).toBe('Forty-two.');
    const wire = await fetch(`${s.url}/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: printed.id } }),
    });
    expect(printed).toEqual(((await wire.json()) as { result: unknown }).result);
  });
});
