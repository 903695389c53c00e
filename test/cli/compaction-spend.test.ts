/**
 * A compaction's summary call is paid like any model call, through the binary
 * against the local Messages server: the caps are checked before it (a
 * `session compact` past lineage_budget_usd pays nothing), a summary refused
 * as cut at max_tokens is counted in the run's spend, and three concurrent
 * `session compact` of one run on JetStream, where a run is not locked, make
 * one summary call and one continuation.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useFakeAnthropic, type AnthropicReply, type RecordedRequest } from '../helpers/fake-anthropic.js';
import { runCli } from '../helpers/cli.js';
import { addStream, journalStream } from '../helpers/jetstream.js';
import { describeEachNatsServer, natsServerOfBlock } from '../helpers/nats-server.js';
import { NOTE_TOOL, anthropicNoteTaker, isSummaryCall } from '../helpers/note-taker.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-compaction-spend-');
const anthropic = useFakeAnthropic();
const anthropicEnv = () => ({ ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0' });

/** $1 a million tokens in and out. */
const BASE = 'provider: anthropic\nmodel: claude-test\nmax_tokens: 200\nmax_iterations: 3\nsystem: You take notes.\nprices: { claude-test: { input: 1, output: 1 } }\n';

/** A run `name` that stopped at max_iterations after three notes, in state dir `stateDir`, with `extra` config; the CLI bound to them. */
async function stoppedRun(name: string, extra = '', session = '') {
  const stateDir = join(dir, name);
  const cfg = join(dir, `${name}.yaml`);
  const write = (more: string) => writeFileSync(cfg, `${BASE}${more}${session}${NOTE_TOOL}`);
  write('');
  anthropic.reset();
  const model = anthropicNoteTaker(5);
  anthropic.handler = model.handler;
  const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
  expect((await cli(['run', '--name', name, 'Take 5 notes.'])).code).toBe(5);
  write(extra);
  return { cli, model };
}

const showJson = async (cli: (args: string[]) => Promise<{ stdout: string }>, id: string) => JSON.parse((await cli(['session', 'show', id, '--json'])).stdout);

describe('a summary call', () => {
  it('is refused before it is paid at a spend cap: session compact past lineage_budget_usd makes no call (exit 7)', async () => {
    const { cli, model } = await stoppedRun('capped', 'lineage_budget_usd: 0.000001\n');
    const r = await cli(['session', 'compact', 'capped']);
    expect(r.stderr).toMatch(/^logbook: spend cap lineage_budget_usd reached: this conversation spent \$[\d.]+ of \$0\.0000 over all its runs; nothing was compacted/m);
    expect(r.code).toBe(7);
    expect(model.state.summaries).toBe(0);
    expect(anthropic.requests.filter(isSummaryCall)).toHaveLength(0);
  });

  it("is refused at a spend cap in a chat's /compact too, which goes on", async () => {
    const stateDir = join(dir, 'chat-capped');
    const cfg = join(dir, 'chat-capped.yaml');
    writeFileSync(cfg, `${BASE}budget_usd: 0.000001\n${NOTE_TOOL}`);
    anthropic.reset();
    const model = anthropicNoteTaker(0);
    anthropic.handler = model.handler;
    const r = await runCli(['run', '--chat', '--name', 'chat-capped', '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv(), input: 'Take no note.\n/compact\n' });
    expect(r.stderr).toMatch(/spend cap budget_usd reached: this run spent \$[\d.]+ of \$0\.0000; nothing was compacted/);
    expect(model.state.summaries).toBe(0);
    expect(anthropic.requests.filter(isSummaryCall)).toHaveLength(0);
  });

  it('refused as cut at max_tokens is counted in the spend, as a call the conversation does not hold', async () => {
    const { cli } = await stoppedRun('cut');
    const before = (await showJson(cli, 'cut')).cost.usd as number;
    const cutSummary: AnthropicReply = { message: { content: [{ type: 'text', text: 'Goal: take no' }], stop_reason: 'max_tokens', usage: { input_tokens: 400_000, output_tokens: 200 } } };
    anthropic.handler = (req: RecordedRequest) => (isSummaryCall(req) ? cutSummary : { message: { content: [{ type: 'text', text: 'unexpected' }] } });
    const r = await cli(['session', 'compact', 'cut']);
    expect(r.stderr).toMatch(/was cut off at max_tokens/);
    expect(r.code).toBe(1);
    const cost = (await showJson(cli, 'cut')).cost;
    expect(cost.usd - before).toBeCloseTo(400_200 / 1e6, 12);
    expect(cost.unheld).toMatchObject({ calls: 1, unknown_cost_calls: 0 });
    expect((await cli(['session', 'show', 'cut'])).stdout).toMatch(/^spent .*\$0\.4002 of it for 1 model call the conversation does not hold/m);
  });
});

describeEachNatsServer('concurrent compactions of one run on JetStream', (server) => {
  const nats = natsServerOfBlock();
  nats.start({ binary: server });

  it('make one summary call and one continuation; the others name it', async () => {
    const stream = `LOGBOOK_CSPEND_${process.pid}_${server.version.replace(/\W/g, '_')}`;
    await addStream(nats.server().url, journalStream(stream, `cspend${process.pid}.runs`));
    const session = `session:\n  backend: jetstream\n  options:\n    stream: ${stream}\nnats:\n  url: ${nats.server().url}\n`;
    const { cli, model } = await stoppedRun('three', '', session);
    // A slow summary, so the three overlap.
    const handler = anthropic.handler!;
    anthropic.handler = (req: RecordedRequest) => {
      const reply = handler(req);
      return isSummaryCall(req) && 'message' in reply ? { ...reply, delayMs: 100 } : reply;
    };
    const results = await Promise.all([1, 2, 3].map(() => cli(['session', 'compact', 'three'])));
    expect(model.state.summaries).toBe(1);
    const ok = results.filter((r) => r.code === 0);
    expect(ok).toHaveLength(1);
    const into = ok[0]!.stdout.trim();
    for (const r of results.filter((x) => x.code !== 0)) expect(r.stderr).toContain(`was compacted into run ${into}`);
    const rows = (await cli(['session', 'ls', '--json', '--forks'])).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(rows.map((row) => row.id).sort()).toEqual([into, 'three'].sort());
    expect((await showJson(cli, 'three')).cost.unheld).toMatchObject({ calls: 0, unknown_cost_calls: 0 });
  });
});
