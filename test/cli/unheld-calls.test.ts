/**
 * Every paid model call is counted, also one no record holds: an answer the
 * operator stopped with Esc (on a terminal, tmux), and one a crash cut, are in
 * `session show` and `ls --json`'s spend, said apart as calls the conversation
 * does not hold, against the local Messages server streaming slowly.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { Tmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/tmp.js';

const anthropic = useFakeAnthropic();
let t: Tmux | undefined;
afterEach(() => {
  t?.kill();
  t = undefined;
  anthropic.reset();
});

const LONG = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long answer, streamed slowly.`).join('\n');
/** $3 in and $15 out per million tokens: 10,000 in and the 1 out message_start reports. */
const STOPPED_USD = (10_000 * 3 + 1 * 15) / 1e6;

function setup() {
  const dir = tempDir();
  const config = join(dir, 'agent.yaml');
  writeFileSync(config, `provider: anthropic\nmodel: claude-sonnet-4-5\nbase_url: ${anthropic.url}\n`);
  const state = join(dir, 'state');
  const env = { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', ANTHROPIC_API_KEY: 'sk-test', NO_COLOR: '1' };
  const cli = (...args: string[]) => runCli([...args, '--config', config, '--state-dir', state], { cwd: dir, env });
  return { dir, config, state, env, cli };
}

const slow = () => anthropic.reply({ message: { content: [{ type: 'text', text: LONG }], chunkSize: 8, usage: { input_tokens: 10_000, output_tokens: 900 } }, delayMs: 150 });

describe('a stopped answer', () => {
  it("is in session show's and ls --json's spend, said to be a call the conversation does not hold", async () => {
    const { dir, state, env, cli, config } = setup();
    t = Tmux.start([process.execPath, BIN, 'run', '--chat', '--name', 'chat', '--config', config, '--state-dir', state], { env, cwd: dir, width: 220, height: 40 });
    await t.waitFor(/\n\n>$/m, 'the prompt');
    slow();
    t.type('tell me at length');
    t.keys('Enter');
    await t.waitFor('Line 1 of a long', 'the answer beginning');
    t.keys('Escape');
    await t.waitFor(/stopped; .*\n\n>$/m, 'the prompt after the stop');
    t.type('/status');
    t.keys('Enter');
    await t.waitFor(/spent +\$0\.0300 .*1 model call the conversation does not hold/, 'the stopped call in /status');
    t.type('/exit');
    t.keys('Enter');
    expect(await t.exitStatus()).toBe(0);

    const show = await cli('session', 'show', 'chat');
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^spent +\$0\.0300 \(prices: .*\); \$0\.0300 of it for 1 model call the conversation does not hold \(stopped, failed or refused\)$/m);
    const ls = await cli('session', 'ls', '--json');
    const [row] = ls.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(row.cost.usd).toBeCloseTo(STOPPED_USD, 12);
    expect(row.cost).toMatchObject({ priced_calls: 1, unheld: { calls: 1, unknown_cost_calls: 0 } });
    expect(row.cost.unheld.usd).toBeCloseTo(STOPPED_USD, 12);
    expect(row.counters.llm_calls).toBe(0); // the journal holds no call
  });
});

describe('a call cut by a crash', () => {
  it('is counted as a call of unknown cost', async () => {
    const { dir, state, env, cli, config } = setup();
    slow();
    const child = spawn(process.execPath, [BIN, 'run', '--name', 'cut', '--config', config, '--state-dir', state, 'tell me'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('close', resolve));
    const show = await cli('session', 'show', 'cut');
    expect(show.stdout).toMatch(/^spent +\$0\.00; 1 model call the conversation does not hold, of unknown cost/m);
    const [row] = (await cli('session', 'ls', '--json')).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(row.cost.unheld).toEqual({ calls: 0, usd: 0, unknown_cost_calls: 1 });
    // A copy spends what its source spent: the call notes go with it.
    const copyDir = join(dir, 'copy');
    expect((await runCli(['session', 'cp', 'cut', '--state-dir', state, '--to-state-dir', copyDir, '--to-config', config], { cwd: dir, env })).code).toBe(0);
    const copied = await runCli(['session', 'ls', '--json', '--config', config, '--state-dir', copyDir], { cwd: dir, env });
    expect(JSON.parse(copied.stdout.split('\n')[0]!).cost.unheld).toEqual({ calls: 0, usd: 0, unknown_cost_calls: 1 });
  });
});
