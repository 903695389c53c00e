/**
 * Spend through the binary, against the local Messages and Chat Completions
 * servers: a run's cost from its usage and the price table
 * (@pydantic/genai-prices) or the config's prices:, shown by session show,
 * ls --json and the exports with the source of the prices; budget_usd and
 * lineage_budget_usd stopping a run before a model call (exit 7, the cap and
 * its key named), a looping model held at the conversation's cap across
 * resumes and a follow-up, and going on once the cap is raised.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AnthropicReply, useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { type OpenAIReply, useFakeOpenAI } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/cli.js';
import { directoryReadProbe, directoryReads } from '../helpers/directory-reads.js';
import { NOTE_TOOL } from '../helpers/note-taker.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-spend-');
const anthropic = useFakeAnthropic();
const openai = useFakeOpenAI();

const TABLE_VERSION = (JSON.parse(readFileSync(join(dirname(createRequire(import.meta.url).resolve('@pydantic/genai-prices')), '..', 'package.json'), 'utf8')) as { version: string }).version;

const anthropicEnv = () => ({ ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0' });
const openaiEnv = () => ({ OPENAI_BASE_URL: openai.url, LOGBOOK_PROVIDER_MAX_RETRIES: '0' });

function config(name: string, body: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, `${body}system: You take notes.\nmax_tokens: 200\nmax_iterations: 100\n${NOTE_TOOL}`);
  return path;
}

const lsJson = async (cfg: string, stateDir: string, env: Record<string, string>) => {
  const r = await runCli(['session', 'ls', '--json', '--forks', '--config', cfg, '--state-dir', stateDir], { cwd: dir, env });
  expect(r.code).toBe(0);
  return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
};

describe('what a run cost', () => {
  const answer: AnthropicReply = {
    message: { content: [{ type: 'text', text: 'Done.' }], usage: { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 500, cache_creation_input_tokens: 200 } },
  };

  it("is priced from the price table for a model it knows, the table named, in ls --json, show and the exports", async () => {
    const stateDir = join(dir, 'table');
    const cfg = config('table', 'provider: anthropic\nmodel: claude-sonnet-4-5\n');
    anthropic.reset();
    anthropic.reply(answer);
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'priced', 'Go.'], { cwd: dir, env: anthropicEnv() });
    expect(r.code).toBe(0);
    // $3 in, $15 out, $0.30 cache read, $3.75 cache write per million tokens.
    const usd = (1000 * 3 + 100 * 15 + 500 * 0.3 + 200 * 3.75) / 1e6;
    const source = `@pydantic/genai-prices ${TABLE_VERSION} (claude-sonnet-4-5)`;
    const [row] = await lsJson(cfg, stateDir, anthropicEnv());
    expect(row.cost.usd).toBeCloseTo(usd, 12);
    expect(row.cost).toMatchObject({ priced_calls: 1, unpriced_calls: 0, sources: [source] });
    const show = await runCli(['session', 'show', 'priced', '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
    expect(show.stdout).toMatch(new RegExp(`^spent +\\$0\\.0054 \\(prices: ${source.replace(/[.()]/g, '\\$&')}\\)$`, 'm'));
    const json = await runCli(['session', 'show', 'priced', '--json', '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
    expect(JSON.parse(json.stdout).cost).toMatchObject({ priced_calls: 1, sources: [source] });
    for (const format of ['md', 'html']) {
      const exported = await runCli(['session', 'export', 'priced', '--format', format, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
      expect(exported.stdout).toContain(`$0.0054 (prices: ${source})`);
    }
  });

  it("counts a fork's own model calls only in show and show --json, not those it copied from its origin, and its conversation's from its runs alone", async () => {
    const stateDir = join(dir, 'fork');
    const cfg = config('fork', 'provider: anthropic\nmodel: claude-sonnet-4-5\n');
    anthropic.reset();
    anthropic.reply(answer);
    expect((await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'origin', 'Go.'], { cwd: dir, env: anthropicEnv() })).code).toBe(0);
    expect((await runCli(['session', 'fork', 'origin', '--turn', '1', '--name', 'branch', '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() })).code).toBe(0);
    const show = async (id: string, ...more: string[]) => runCli(['session', 'show', id, ...more, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
    expect((await show('origin')).stdout).toMatch(/^spent +\$0\.0054 /m);
    expect((await show('branch')).stdout).toMatch(/^spent +\$0\.00$/m);
    expect(JSON.parse((await show('branch', '--json')).stdout).cost).toMatchObject({ usd: 0, priced_calls: 0, unpriced_calls: 0 });
    // Its conversation's, with the runs directory read once for its notes, once for its origin's snapshots, once for its lineage.
    const log = join(dir, 'fork-readdir.log');
    const lineage = await runCli(['session', 'show', 'branch', '--lineage', '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: { ...anthropicEnv(), ...directoryReadProbe(log) } });
    expect(lineage.stdout).toMatch(/^lineage: 2 runs, \$0\.0054 in all/m);
    expect(directoryReads(log, join(stateDir, 'runs'))).toBe(3);
  });

  it('is priced from the table on Chat Completions, whose prompt tokens hold the cached ones', async () => {
    const stateDir = join(dir, 'table-openai');
    const cfg = config('table-openai', 'provider: openai\nmodel: gpt-4o-mini\n');
    openai.reset();
    openai.reply({ chat: { content: 'Done.', usage: { prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 400 } } });
    expect((await runCli(['run', '--config', cfg, '--state-dir', stateDir, 'Go.'], { cwd: dir, env: openaiEnv() })).code).toBe(0);
    // $0.15 in, $0.075 cached, $0.60 out per million tokens: 600 uncached, 400 cached.
    const [row] = await lsJson(cfg, stateDir, openaiEnv());
    expect(row.cost.usd).toBeCloseTo((600 * 0.15 + 400 * 0.075 + 100 * 0.6) / 1e6, 12);
    expect(row.cost.sources).toEqual([`@pydantic/genai-prices ${TABLE_VERSION} (gpt-4o-mini)`]);
  });

  it("is priced from the config's prices: for a model they name, over the table's", async () => {
    const stateDir = join(dir, 'override');
    const cfg = config('override', 'provider: anthropic\nmodel: claude-sonnet-4-5\nprices:\n  claude-sonnet-4-5: { input: 10, output: 20, cache_read: 1 }\n');
    anthropic.reset();
    anthropic.reply(answer);
    expect((await runCli(['run', '--config', cfg, '--state-dir', stateDir, 'Go.'], { cwd: dir, env: anthropicEnv() })).code).toBe(0);
    // A cache price left out is the input price.
    const [row] = await lsJson(cfg, stateDir, anthropicEnv());
    expect(row.cost.usd).toBeCloseTo((1000 * 10 + 100 * 20 + 500 * 1 + 200 * 10) / 1e6, 12);
    expect(row.cost.sources).toEqual(['prices in agent.yaml']);
  });

  it('is priced as the model a call was sent to when a follow-up is forced past a model change, which show names', async () => {
    const stateDir = join(dir, 'forced');
    const prices = 'prices:\n  cheap-model: { input: 1, output: 1 }\n  dear-model: { input: 100, output: 100 }\n';
    const cfg = config('forced', `provider: anthropic\nmodel: cheap-model\n${prices}`);
    anthropic.reset();
    anthropic.reply(answer);
    anthropic.reply(answer);
    const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
    expect((await cli(['run', '--name', 'first', 'Go.'])).code).toBe(0);
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('model: cheap-model', 'model: dear-model'));
    expect((await cli(['run', '--resume', 'first', 'More.'])).code).not.toBe(0); // refused for the change
    const forced = await cli(['run', '--resume', 'first', 'More.', '--force']);
    expect(forced.code).toBe(0);
    expect(anthropic.requests.at(-1)!.json.model).toBe('dear-model');
    const rows = await lsJson(cfg, stateDir, anthropicEnv());
    const followUp = rows.find((r) => r.id !== 'first')!;
    // The follow-up's own call, at the dear model's prices (the cheap ones would be a hundredth of it).
    expect(followUp.cost.usd).toBeCloseTo((1000 * 100 + 100 * 100 + 500 * 100 + 200 * 100) / 1e6, 9);
    expect(rows.find((r) => r.id === 'first')!.cost.usd).toBeCloseTo((1000 + 100 + 500 + 200) / 1e6, 9);
    const shown = (await cli(['session', 'show', followUp.id])).stdout;
    expect(shown).toMatch(/^model +dear-model \(anthropic\)$/m);
    // Written with the configuration at hand, it resumes without --force.
    anthropic.reply(answer);
    expect((await cli(['run', '--resume', followUp.id, 'Again.'])).code).toBe(0);
  });

  it('refuses a spend cap on a model no price is known for', async () => {
    const cfg = config('unpriced', 'provider: openai\nmodel: local-model\nbudget_usd: 1\n');
    const r = await runCli(['run', '--config', cfg, '--state-dir', join(dir, 'unpriced'), 'Go.'], { cwd: dir, env: openaiEnv() });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `logbook: ${cfg}: budget_usd needs the price of model local-model, which the price table does not know; give it under prices: (local-model: { input: USD, output: USD } per million tokens)\n`,
    );
  });
});

/** A model that calls the note tool until `loops` reaches zero, then answers; ten input and five output tokens a call. */
function looping(state: { loops: number; calls: number }): (req: unknown) => OpenAIReply {
  return () => {
    state.calls++;
    if (state.loops <= 0) return { chat: { content: 'Done looping.', usage: { prompt_tokens: 10, completion_tokens: 5 } } };
    state.loops--;
    return { chat: { tool_calls: [{ id: `call_${state.calls}`, name: 'note', arguments: '{"text":"again"}' }], usage: { prompt_tokens: 10, completion_tokens: 5 } } };
  };
}

describe('a spend cap', () => {
  // $1,000 per million tokens: each call (15 tokens) costs $0.015.
  const PRICES = 'prices:\n  loop-model: { input: 1000, output: 1000 }\n';

  it('budget_usd stops the run before the call past it (exit 7, the cap and its key named), and a raised cap resumes it', async () => {
    const stateDir = join(dir, 'budget-usd');
    const cfg = config('budget-usd', `provider: openai\nmodel: loop-model\n${PRICES}budget_usd: 0.04\n`);
    openai.reset();
    const model = { loops: 5, calls: 0 };
    openai.handler = looping(model);
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'capped', 'Loop.'], { cwd: dir, env: openaiEnv() });
    expect(r.code).toBe(7);
    expect(model.calls).toBe(3);
    expect(r.stderr).toMatch(
      new RegExp(`^logbook: spend cap budget_usd reached: this run spent \\$0\\.0450 of \\$0\\.0400; raise budget_usd in ${cfg}, then resume with: logbook run --resume capped --config ${cfg} --state-dir ${stateDir}$`, 'm'),
    );
    const show = await runCli(['session', 'show', 'capped', '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: openaiEnv() });
    expect(show.stdout).toMatch(/^status +budget$/m);
    // The cap it stopped at, and the key that raises it: not the token budget.
    expect(show.stdout).toMatch(/^where +stopped at its spend cap \(spend cap budget_usd reached: this run spent \$0\.0450 of \$0\.0400\)$/m);
    expect(show.stdout).toMatch(/^next +raise budget_usd in the config, then resume: logbook run --resume capped/m);
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('budget_usd: 0.04', 'budget_usd: 1'));
    const resumed = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--resume', 'capped'], { cwd: dir, env: openaiEnv() });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Done looping.\n');
    expect(model.calls).toBe(6);
  });

  it('lineage_budget_usd holds a looping model at the conversation cap across three resumes and a follow-up, and lets it go on once raised', async () => {
    const stateDir = join(dir, 'lineage');
    const cfg = config('lineage', `provider: openai\nmodel: loop-model\n${PRICES}lineage_budget_usd: 0.1\n`);
    const run = (args: string[]) => runCli(['run', '--config', cfg, '--state-dir', stateDir, ...args], { cwd: dir, env: openaiEnv() });
    openai.reset();
    const model = { loops: 0, calls: 0 };
    openai.handler = looping(model);
    // The first run answers at once: $0.015.
    expect((await run(['--name', 'first', 'Answer.'])).code).toBe(0);
    // Its follow-up is a new run of the same conversation, and loops: stopped once the conversation spent $0.10.
    model.loops = 100;
    const follow = await run(['--resume', 'first', '--name', 'looped', 'Now loop.']);
    expect(follow.code).toBe(7);
    expect(follow.stderr).toMatch(/^logbook: spend cap lineage_budget_usd reached: this conversation spent \$0\.1050 of \$0\.1000 over all its runs; raise lineage_budget_usd in /m);
    expect(model.calls).toBe(7);
    // Three resumes: each stops before any model call.
    for (let i = 0; i < 3; i++) {
      const again = await run(['--resume', 'looped']);
      expect(again.code).toBe(7);
      expect(again.stderr).toMatch(/spend cap lineage_budget_usd reached: this conversation spent \$0\.1050 of \$0\.1000/);
    }
    // A follow-up to the first run is a third run of the conversation: stopped before its first call too.
    const another = await run(['--resume', 'first', '--name', 'another', 'Try again.']);
    expect(another.code).toBe(7);
    expect(model.calls).toBe(7);
    // ls --json: a row for each branch of the conversation (two follow-ups of the first run), each with what all its runs cost.
    const rows = (await runCli(['session', 'ls', '--json', '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: openaiEnv() })).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(rows.map((r) => [r.id, r.earlier])).toEqual([
      ['another', 1],
      ['looped', 1],
    ]);
    for (const row of rows) expect(row.conversation_cost.usd).toBeCloseTo(0.105, 10);
    // show --lineage lists the three runs and the sum.
    const lineage = await runCli(['session', 'show', 'looped', '--lineage', '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: openaiEnv() });
    expect(lineage.stdout).toMatch(/^lineage: 3 runs, \$0\.1050 in all \(\* is this one\)$/m);
    expect(lineage.stdout).toMatch(/^\* looped +budget, forked from first at seq \d+, 6 model calls: \$0\.0900 \(prices: prices in agent\.yaml\)$/m);
    // Raised, the loop goes on where it stopped.
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('lineage_budget_usd: 0.1', 'lineage_budget_usd: 10'));
    model.loops = 2;
    const raised = await run(['--resume', 'looped']);
    expect(raised.code).toBe(0);
    expect(raised.stdout).toBe('Done looping.\n');
    expect(model.calls).toBe(10);
  });
});
