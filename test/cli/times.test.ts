/**
 * When each step of a run happened, from the times kept beside its journal:
 * through the binary, against the local Messages API answering after a delay
 * and a tool that sleeps, the durations `session show`, `show --json` and the
 * exports give are the delays; and a run whose times note is gone still loads,
 * shows and resumes, with no durations made up.
 */
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { runCli, runCrashing } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-times-');
const stateDir = join(dir, 'state');
const anthropic = useFakeAnthropic();

/** How long the model takes to answer its first request, and the tool to run. */
const MODEL_MS = 1500;
const TOOL_MS = 1200;

const config = join(dir, 'agent.yaml');
writeFileSync(
  config,
  `provider: anthropic
model: claude-test
max_tokens: 1024
tools:
  - name: slow
    description: Takes its time
    input_schema: { type: object, properties: {} }
    command: [sleep, "${TOOL_MS / 1000}"]
`,
);

const env = () => ({ ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0' });
const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

const toolTurn = {
  message: { content: [{ type: 'text', text: 'Waiting.' }, { type: 'tool_use', id: 'toolu_slow', name: 'slow', input: {} }], usage: { input_tokens: 50, output_tokens: 9 } },
};
const answerTurn = { message: { content: [{ type: 'text', text: 'Done waiting.' }], usage: { input_tokens: 70, output_tokens: 4 } } };

const cli = (args: string[]) => runCli([...args, '--state-dir', stateDir], { cwd: dir, env: env() });

/**
 * The run's time spent outside the two slow waits, measured around the whole
 * command: a duration can exceed its wait by no more than that, however busy
 * the machine (no fixed tolerance, which a loaded machine breaks).
 */
let overhead = 0;

/** At least `want` (less a millisecond of rounding), and at most `want` plus the run's overhead. */
function near(got: number, want: number): void {
  expect(got).toBeGreaterThanOrEqual(want - 1);
  expect(got).toBeLessThanOrEqual(want + overhead);
}

describe('the times of a run', () => {
  it('give a slow model call and a slow tool call their durations, no shorter than the waits and no longer than the run takes around them, in show, show --json and the exports', async () => {
    anthropic.reset();
    const replies = [toolTurn, answerTurn];
    // The slow call is the second: a process's first request also warms its client up, which is the
    // run's time as much as the model's, and no part of what this measures.
    anthropic.handler = async () => {
      if (anthropic.requests.length === 2) await sleep(MODEL_MS);
      return replies.shift()!;
    };
    const started = performance.now();
    const run = await runCli(['run', '--config', config, '--state-dir', stateDir, '--name', 'slow', 'wait for it'], { cwd: dir, env: env() });
    overhead = performance.now() - started - MODEL_MS - TOOL_MS;
    expect(run.stderr).not.toMatch(/^logbook:/m);
    expect(run.code).toBe(0);

    const json = JSON.parse((await cli(['session', 'show', 'slow', '--json'])).stdout) as { times: Record<string, string> };
    expect(Object.keys(json.times)).toEqual(['1', '2', '3', '4', '5']);
    const t = (seq: number): number => Date.parse(json.times[String(seq)]!);
    near(t(3) - t(2), TOOL_MS); // the turn durable (the batch start), then the tool's result
    near(t(4) - t(3), MODEL_MS); // the result durable, then the model's next turn

    const shown = (await cli(['session', 'show', 'slow'])).stdout;
    const seconds = (label: string): number => Number(new RegExp(`^${label}\\s+(\\d+\\.\\d+) s in`, 'm').exec(shown)?.[1]);
    expect(shown).toMatch(/^model time\s+\S+ s in 2 calls \(slowest \S+ s, turn 2\)$/m);
    near(seconds('tool time') * 1000, TOOL_MS);
    expect(seconds('model time') * 1000).toBeGreaterThanOrEqual(MODEL_MS - 1);

    const markdown = (await cli(['session', 'export', 'slow'])).stdout;
    const modelCalls = [...markdown.matchAll(/\*Model call · (\d+(?:\.\d+)?) (s|ms)\*/g)].map((m) => Number(m[1]) * (m[2] === 's' ? 1000 : 1));
    expect(modelCalls).toHaveLength(2);
    near(modelCalls[1]!, MODEL_MS);
    const toolCall = Number(/\*\*Tool call\*\* `toolu_slow` · (\d+\.\d+) s/.exec(markdown)?.[1]);
    near(toolCall * 1000, TOOL_MS);
    expect(markdown).toMatch(/^- Tool time: \d+\.\d+ s in 1 call$/m);

    const html = (await cli(['session', 'export', 'slow', '--format', 'html'])).stdout;
    expect(html).toMatch(/Model call \u00b7 \d+\.\d+ s/);
    expect(html).toMatch(/toolu_slow<\/code> <span class="muted took">\u00b7 \d+\.\d+ s<\/span>/);
  });

  it('of a run whose times note was deleted are gone, and the run still loads, shows, exports and resumes', async () => {
    anthropic.reset();
    anthropic.reply(toolTurn);
    const crashed = await runCrashing(['run', '--config', config, '--state-dir', stateDir, '--name', 'untimed', 'wait'], 'kill-after-seq:3', {
      cwd: dir,
      env: env(),
    });
    expect(crashed.signal).toBe('SIGKILL');
    const note = join(stateDir, 'runs', 'untimed.times');
    expect(readFileSync(note, 'utf8')).toMatch(/^1 \d+\n2 \d+\n3 \d+\n$/);
    unlinkSync(note);

    const shown = await cli(['session', 'show', 'untimed']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^time\s+no times kept beside this run/m);
    expect(shown.stdout).toMatch(/^tool calls\s+1 /m);
    const json = JSON.parse((await cli(['session', 'show', 'untimed', '--json'])).stdout) as { times: object; counters: { llm_calls: number } };
    expect(json.times).toEqual({});
    expect(json.counters.llm_calls).toBe(1);
    const markdown = (await cli(['session', 'export', 'untimed'])).stdout;
    expect(markdown).toContain('toolu_slow');
    expect(markdown).not.toMatch(/Model call ·|Tool time/);

    anthropic.reply(answerTurn);
    const resumed = await runCli(['run', '--config', config, '--state-dir', stateDir, '--resume', 'untimed'], { cwd: dir, env: env() });
    expect(resumed.stderr).not.toMatch(/^logbook:/m);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Done waiting.\n');
    // The resume keeps times from where it took the run up: the step it started has one, nothing before it.
    expect(existsSync(note)).toBe(true);
    const after = JSON.parse((await cli(['session', 'show', 'untimed', '--json'])).stdout) as { times: Record<string, string> };
    expect(Object.keys(after.times)).toEqual(['4', '5']);
    expect((await cli(['session', 'show', 'untimed'])).stdout).toMatch(/^model time\s+\S+ (ms|s) in 2 calls, 1 of them timed/m);
  });
});
