/**
 * A provider SDK's warnings, through the binary against the local Messages
 * stand-in: the Anthropic SDK's deprecation notice, which it gives on every
 * request, is said once in one line of its own on a real terminal (tmux),
 * never glued to the spinner's line; --verbose has them all. And thinking:
 * `adaptive` is sent as such, and `summarized` is sent as adaptive to a model
 * that deprecates a thinking budget, so the SDK has nothing to warn of.
 */
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

const TOOL = `tools:
  - name: look
    description: Look
    input_schema: { type: object, properties: {} }
    command: [echo, seen]
`;

/** Two model calls, each a request the SDK warns of: a tool call, then the answer. */
function twoCalls(): void {
  anthropic.reply(
    { message: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'look', input: {} }] }, delayMs: 100 },
    { message: { content: [{ type: 'text', text: 'Seen it.' }] }, delayMs: 100 },
  );
}

function setup(model: string, more = ''): { dir: string; env: Record<string, string> } {
  const dir = tempDir();
  writeFileSync(join(dir, 'agent.yaml'), `provider: anthropic\nmodel: ${model}\nbase_url: ${anthropic.url}\nmax_tokens: 4096\n${more}${TOOL}`);
  return { dir, env: { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', ANTHROPIC_API_KEY: 'sk-test', NO_COLOR: '1' } };
}

const DEPRECATED = /The model 'claude-sonnet-4-5' is deprecated/;

describe("a provider SDK's warning", () => {
  it('is said once, on a line of its own and not on the spinner\'s, however many requests warn', async () => {
    const s = setup('claude-sonnet-4-5');
    twoCalls();
    t = Tmux.start([process.execPath, BIN, 'run', '--state-dir', join(s.dir, 'state'), 'look around'], { env: s.env, cwd: s.dir, width: 400, height: 40 });
    expect(await t.exitStatus()).toBe(0);
    const lines = t.screen();
    const warned = lines.filter((l) => DEPRECATED.test(l));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatch(/^warning: The model 'claude-sonnet-4-5' is deprecated and will reach end-of-life on .+ Please migrate to a newer model\. .+$/);
    expect(anthropic.requests).toHaveLength(2);
  });

  it('goes to --verbose: each warning once there, none written by the SDK itself', async () => {
    const s = setup('claude-sonnet-4-5');
    twoCalls();
    const r = await runCli(['run', '--verbose', '--state-dir', join(s.dir, 'state'), 'look around'], { cwd: s.dir, env: s.env });
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n').filter((l) => DEPRECATED.test(l))).toEqual([expect.stringMatching(/^warning: /)]);
  });
});

describe('thinking', () => {
  it('adaptive is sent as adaptive; summarized is sent as adaptive to a model that deprecates a budget, with no warning', async () => {
    const adaptive = setup('claude-test', 'thinking: adaptive\n');
    anthropic.reply({ message: { content: [{ type: 'text', text: 'Thought.' }] } });
    expect((await runCli(['run', '--ephemeral', 'think'], { cwd: adaptive.dir, env: adaptive.env })).code).toBe(0);
    expect(anthropic.requests.at(-1)!.json.thinking).toEqual({ type: 'adaptive', display: 'summarized' });

    const opus = setup('claude-opus-4-6', 'thinking: summarized\n');
    anthropic.reply({ message: { content: [{ type: 'text', text: 'Thought.' }] } });
    const r = await runCli(['run', '--ephemeral', 'think'], { cwd: opus.dir, env: opus.env });
    expect(r.code).toBe(0);
    expect(anthropic.requests.at(-1)!.json.thinking).toEqual({ type: 'adaptive', display: 'summarized' });
    expect(r.stderr).not.toMatch(/deprecated/);

    const budget = setup('claude-test', 'thinking: summarized\n');
    anthropic.reply({ message: { content: [{ type: 'text', text: 'Thought.' }] } });
    expect((await runCli(['run', '--ephemeral', 'think'], { cwd: budget.dir, env: budget.env })).code).toBe(0);
    expect(anthropic.requests.at(-1)!.json.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });
});
