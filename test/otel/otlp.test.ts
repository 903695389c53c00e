/**
 * A run's OpenTelemetry trace, through the binary: the spans an OTLP/HTTP
 * endpoint in this test receives (protobuf decoded with the official .proto
 * definitions, and JSON) have the structure, names, attributes and durations
 * of the GenAI conventions and of the run's journal and times; a collector
 * that is down changes neither the run's exit code nor its journal; a crashed
 * run is exported after the fact, to a file and to a collector, as the same trace.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spanIdOf, traceIdOf } from '../../src/otel/spans.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { runCli, runCrashing } from '../helpers/cli.js';
import { loadedSources, loadProbe } from '../helpers/load-probe.js';
import { decodeTraces, OtlpCollector, type ReceivedSpan, useOtlpCollector } from '../helpers/otlp-collector.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-otlp-');
const stateDir = join(dir, 'state');
const anthropic = useFakeAnthropic();
const collector = useOtlpCollector();

const MODEL_MS = 600;
const TOOL_MS = 500;

const tools = `tools:
  - name: slow
    description: Takes its time
    input_schema: { type: object, properties: { why: { type: string } } }
    command: [sh, -c, "sleep ${TOOL_MS / 1000}; echo waited"]
    side_effects: true
  - name: fails
    description: Always fails
    input_schema: { type: object, properties: {} }
    command: [sh, -c, "echo broken >&2; exit 3"]
`;

function config(name: string, otel: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, `provider: anthropic\nmodel: claude-test\nmax_tokens: 1024\n${otel}${tools}`);
  return path;
}

const env = (more: Record<string, string> = {}) => ({ ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0', ...more });
const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

/** The model asks for the slow tool and the failing one, then answers; its first turn takes MODEL_MS. */
function script(): void {
  anthropic.reset();
  const replies = [
    {
      message: {
        content: [
          { type: 'text', text: 'Trying both.' },
          { type: 'tool_use', id: 'toolu_slow', name: 'slow', input: { why: 'to wait' } },
          { type: 'tool_use', id: 'toolu_fails', name: 'fails', input: {} },
        ],
        usage: { input_tokens: 40, output_tokens: 12, cache_read_input_tokens: 100, cache_creation_input_tokens: 5 },
      },
    },
    { message: { content: [{ type: 'text', text: 'One worked.' }], usage: { input_tokens: 90, output_tokens: 3 } } },
  ];
  anthropic.handler = async () => {
    if (anthropic.requests.length === 1) await sleep(MODEL_MS);
    return replies.shift()!;
  };
}

const ms = (ns: bigint): number => Number(ns) / 1e6;
const byName = (spans: ReceivedSpan[], name: string): ReceivedSpan => spans.find((s) => s.name === name)!;
const showJson = async (id: string): Promise<{ times: Record<string, string> }> =>
  JSON.parse((await runCli(['session', 'show', id, '--json', '--state-dir', stateDir], { cwd: dir })).stdout);

/** The checks every trace of the scripted run passes, whatever carried it. */
async function checkTrace(spans: ReceivedSpan[], runId: string): Promise<void> {
  expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([traceIdOf(runId)]));
  const root = byName(spans, 'invoke_agent');
  expect(root.parentSpanId).toBe('');
  expect(root.spanId).toBe(spanIdOf(runId, 'root'));
  expect(spans.map((s) => s.name).sort()).toEqual(['chat claude-test', 'chat claude-test', 'execute_tool fails', 'execute_tool slow', 'invoke_agent']);
  for (const s of spans) if (s !== root) expect(s.parentSpanId, s.name).toBe(root.spanId);
  expect(root.attributes).toMatchObject({
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.provider.name': 'anthropic',
    'gen_ai.request.model': 'claude-test',
    'gen_ai.conversation.id': runId,
    'gen_ai.usage.input_tokens': 40 + 100 + 5 + 90,
    'gen_ai.usage.output_tokens': 15,
    'logbook.run.id': runId,
    'logbook.run.status': 'completed',
  });
  expect(root.resource['service.name']).toBe('logbook');
  expect(root.scope).toBe('logbook');

  const [first, second] = spans.filter((s) => s.name === 'chat claude-test').sort((a, b) => Number(a.startNs - b.startNs));
  expect(first!.kind).toBe(3); // client
  expect(first!.attributes).toMatchObject({
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'anthropic',
    'gen_ai.request.model': 'claude-test',
    'gen_ai.usage.input_tokens': 145, // cached tokens included, as the conventions count them
    'gen_ai.usage.output_tokens': 12,
    'gen_ai.usage.cache_read.input_tokens': 100,
    'gen_ai.usage.cache_creation.input_tokens': 5,
    'gen_ai.response.finish_reasons': ['tool_use'],
    'gen_ai.conversation.id': runId,
    'logbook.seq': 2,
  });
  expect(second!.attributes['gen_ai.response.finish_reasons']).toEqual(['end_turn']);

  const slow = byName(spans, 'execute_tool slow');
  expect(slow.attributes).toMatchObject({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'slow',
    'gen_ai.tool.call.id': 'toolu_slow',
    'logbook.tool.remote': false,
    'logbook.tool.side_effects': true,
    'logbook.tool.confirm': false,
  });
  expect(slow.status.code).toBe(0);
  const fails = byName(spans, 'execute_tool fails');
  expect(fails.status.code).toBe(2); // an error result is an error span
  expect(fails.attributes['error.type']).toBe('tool_error');
  expect(fails.attributes['logbook.tool.side_effects']).toBe(false);

  // Durations: at least the delays (a first request also warms the SDK's client up; test/cli/times.test.ts
  // holds them within 10%), and exactly the journal's kept times: spans are their projection.
  expect(ms(first!.endNs - first!.startNs)).toBeGreaterThanOrEqual(MODEL_MS * 0.9);
  expect(ms(first!.endNs - first!.startNs)).toBeLessThanOrEqual(MODEL_MS + 1000);
  expect(ms(slow.endNs - slow.startNs)).toBeGreaterThanOrEqual(TOOL_MS * 0.9);
  expect(ms(slow.endNs - slow.startNs)).toBeLessThanOrEqual(TOOL_MS + 1000);
  const { times } = await showJson(runId);
  const at = (seq: number): number => Date.parse(times[String(seq)]!);
  expect(Math.round(ms(first!.startNs))).toBe(at(1));
  expect(Math.round(ms(first!.endNs))).toBe(at(2));
  expect(Math.round(ms(slow.startNs))).toBe(at(2)); // the batch start
  expect(Math.round(ms(slow.endNs))).toBe(at(3));
  expect(Math.round(ms(fails.startNs))).toBe(at(3)); // after the call before it
  expect(Math.round(ms(root.startNs))).toBe(at(1));
  expect(Math.round(ms(root.endNs))).toBe(at(6));
}

describe('a run traced live', () => {
  it('sends the GenAI spans to the config\'s collector as OTLP/HTTP protobuf, without content unless asked, the SDK loaded as one bundled file', async () => {
    collector.reset();
    script();
    const cfg = config('proto', `otel:\n  endpoint: ${collector.origin}\n  headers: { x-team: "\${TEAM}" }\n`);
    const loadLog = join(dir, 'live-proto-loaded.txt');
    const run = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'live-proto', 'try both'], { cwd: dir, env: env({ TEAM: 'infra', ...loadProbe(loadLog) }) });
    expect(run.stderr).not.toMatch(/warning|^logbook:/m);
    expect(run.code).toBe(0);
    // The SDK loads as one bundled file, not as the packages' hundreds of files one by one.
    const loaded = loadedSources(loadLog);
    expect(loaded).toMatch(/dist\/vendor\/otel-sdk\.mjs/);
    expect(loaded).not.toMatch(/node_modules\/@opentelemetry\//);
    await collector.waitForSpans(5);
    expect(collector.spans.every((s) => s.encoding === 'protobuf')).toBe(true);
    expect(collector.headers[0]!['x-team']).toBe('infra');
    await checkTrace(collector.spans, 'live-proto');
    for (const s of collector.spans) {
      expect(Object.keys(s.attributes).filter((k) => /messages|arguments|result/.test(k)), s.name).toEqual([]);
    }
  });

  it('gives a follow-up the conversation of the run it follows up: its first run', async () => {
    collector.reset();
    anthropic.reset();
    anthropic.reply({ message: { content: [{ type: 'text', text: 'Again.' }], usage: { input_tokens: 9, output_tokens: 2 } } });
    const cfg = config('proto', `otel:\n  endpoint: ${collector.origin}\n  headers: { x-team: "\${TEAM}" }\n`);
    const follow = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--resume', 'live-proto', '--name', 'follow-up', 'once more'], {
      cwd: dir,
      env: env({ TEAM: 'infra' }),
    });
    expect(follow.code, follow.stderr).toBe(0);
    await collector.waitForSpans(2);
    expect(new Set(collector.spans.map((s) => s.traceId))).toEqual(new Set([traceIdOf('follow-up')]));
    expect(new Set(collector.spans.map((s) => s.attributes['gen_ai.conversation.id']))).toEqual(new Set(['live-proto']));
    // Only what ran in the follow-up: the turns it copied from its origin have their own spans there.
    expect(collector.spans.map((s) => s.name).sort()).toEqual(['chat claude-test', 'invoke_agent']);
  });

  it('sends them as OTLP/HTTP JSON from the standard variables, with content when otel.capture_content is on', async () => {
    collector.reset();
    script();
    const cfg = config('json', 'otel:\n  capture_content: true\n');
    const run = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'live-json', 'try both'], {
      cwd: dir,
      env: env({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.origin, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20t0k' }),
    });
    expect(run.code).toBe(0);
    await collector.waitForSpans(5);
    expect(collector.spans.every((s) => s.encoding === 'json')).toBe(true);
    expect(collector.headers[0]!.authorization).toBe('Bearer t0k');
    await checkTrace(collector.spans, 'live-json');
    const chat = collector.spans.find((s) => s.attributes['logbook.seq'] === 2)!;
    expect(JSON.parse(chat.attributes['gen_ai.input.messages'] as string)).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'try both' }] }]);
    expect(JSON.parse(chat.attributes['gen_ai.output.messages'] as string)[0].parts[1]).toEqual({ type: 'tool_call', id: 'toolu_slow', name: 'slow', arguments: { why: 'to wait' } });
    const slow = byName(collector.spans, 'execute_tool slow');
    expect(slow.attributes['gen_ai.tool.call.arguments']).toBe('{"why":"to wait"}');
    expect(slow.attributes['gen_ai.tool.call.result']).toContain('waited');
  });

  it('with its collector down, or refusing, says so once and ends as it would without one, the journal the same', async () => {
    const closed = await OtlpCollector.start();
    const downUrl = closed.origin;
    await closed.close();
    const journal = (id: string) =>
      readFileSync(join(stateDir, 'runs', `${id}.jsonl`), 'utf8')
        .split('\n')
        .slice(1); // the meta line names the run and its creation time
    script();
    const plain = await runCli(['run', '--config', config('plain', ''), '--state-dir', stateDir, '--name', 'untraced', 'try both'], { cwd: dir, env: env() });
    script();
    const down = await runCli(['run', '--config', config('down', `otel:\n  endpoint: ${downUrl}\n`), '--state-dir', stateDir, '--name', 'traced-down', 'try both'], {
      cwd: dir,
      env: env(),
    });
    expect(down.code).toBe(plain.code);
    expect(down.stdout).toBe(plain.stdout);
    expect(journal('traced-down')).toEqual(journal('untraced'));
    expect(down.stderr.match(/warning: OpenTelemetry: the collector at .* did not take the run's spans/g)).toHaveLength(1);

    collector.reset();
    collector.failWith = 500;
    script();
    const refused = await runCli(['run', '--config', config('refusing', `otel:\n  endpoint: ${collector.origin}\n`), '--state-dir', stateDir, '--name', 'traced-refused', 'try both'], {
      cwd: dir,
      env: env(),
    });
    expect(refused.code).toBe(0);
    expect(journal('traced-refused')).toEqual(journal('untraced'));
    expect(refused.stderr.match(/warning: OpenTelemetry/g)).toHaveLength(1);
  });
});

describe('a run traced after the fact', () => {
  it('exports a crashed run to a file as OTLP/JSON and to a collector, the same trace every time', async () => {
    script();
    const cfg = config('crash', '');
    const crashed = await runCrashing(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'crashed', 'try both'], 'kill-after-seq:3', { cwd: dir, env: env() });
    expect(crashed.signal).toBe('SIGKILL');
    const file = join(dir, 'crashed.otlp.json');
    const exported = await runCli(['session', 'export', 'crashed', '--config', cfg, '--state-dir', stateDir, '--format', 'otlp', '-o', file], { cwd: dir });
    expect(exported.stderr).toBe(`wrote run crashed as its OpenTelemetry trace (OTLP/JSON) to ${file}\n`);
    expect(exported.code).toBe(0);
    const fromFile = await decodeTraces(readFileSync(file), 'application/json');
    expect(fromFile.map((s) => s.name)).toEqual(['invoke_agent', 'chat claude-test', 'execute_tool slow']);
    expect(fromFile[0]!.attributes['logbook.run.status']).toBe('open');
    expect(fromFile[0]!.status.code).toBe(0);
    expect(fromFile.map((s) => s.spanId)).toEqual([spanIdOf('crashed', 'root'), spanIdOf('crashed', 2), spanIdOf('crashed', 3)]);

    collector.reset();
    const sent = await runCli(['session', 'export', 'crashed', '--config', cfg, '--state-dir', stateDir, '--otlp-endpoint', collector.origin], { cwd: dir });
    expect(sent.code).toBe(0);
    expect(sent.stdout).toBe('');
    expect(sent.stderr).toBe(`sent 3 spans of run crashed to ${collector.origin}/v1/traces (trace ${traceIdOf('crashed')})\n`);
    const strip = (spans: ReceivedSpan[]) => spans.map(({ encoding: _, ...s }) => s);
    expect(strip(collector.spans)).toEqual(strip(fromFile));
    // Exported again: the same trace, span for span.
    const again = await runCli(['session', 'export', 'crashed', '--config', cfg, '--state-dir', stateDir, '--format', 'otlp'], { cwd: dir });
    expect(strip(await decodeTraces(Buffer.from(again.stdout), 'application/json'))).toEqual(strip(fromFile));

    collector.failWith = 400; // refused for good (a 5xx is retried for a while first)
    const refused = await runCli(['session', 'export', 'crashed', '--state-dir', stateDir, '--otlp-endpoint', collector.origin], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^logbook: cannot send the spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces: /);
  });

  it('refuses to trace a run that keeps no times, saying why', async () => {
    const lines = readFileSync(join(stateDir, 'runs', 'crashed.jsonl'), 'utf8').replaceAll('"crashed"', '"no-times"');
    writeFileSync(join(stateDir, 'runs', 'no-times.jsonl'), lines);
    const r = await runCli(['session', 'export', 'no-times', '--state-dir', stateDir, '--format', 'otlp'], { cwd: dir });
    expect(r.code).toBe(1); // an error of the run, not of the command line
    expect(r.stderr).toMatch(/^logbook: run no-times has no times kept beside it .*: it cannot be traced\n$/);
  });
});

describe('a collector named with a password, or slow to answer', () => {
  /** `origin` with `otel:S3CRET@` as its userinfo. */
  const withPassword = (origin: string): string => origin.replace('://', '://otel:S3CRET@');

  it('never prints the password, from otel.endpoint or OTEL_EXPORTER_OTLP_ENDPOINT, whichever way the collector fails', async () => {
    const closed = await OtlpCollector.start();
    const downUrl = withPassword(closed.origin);
    await closed.close();
    const refusing = await OtlpCollector.start();
    refusing.failWith = 400;
    try {
      script();
      const down = await runCli(['run', '--config', config('secret-down', `otel:\n  endpoint: ${downUrl}\n`), '--state-dir', stateDir, 'try both'], { cwd: dir, env: env() });
      script();
      const refused = await runCli(['run', '--config', config('secret-env', ''), '--state-dir', stateDir, '--name', 'secret-env', 'try both'], {
        cwd: dir,
        env: env({ OTEL_EXPORTER_OTLP_ENDPOINT: withPassword(refusing.origin) }),
      });
      const notAUrl = await runCli(['run', '--config', config('secret-bad', `otel:\n  endpoint: "ftp://otel:S3CRET@host"\n`), '--state-dir', stateDir, 'try both'], { cwd: dir, env: env() });
      const exportedDown = await runCli(['session', 'export', 'secret-env', '--state-dir', stateDir, '--otlp-endpoint', downUrl], { cwd: dir });
      collector.reset();
      const exported = await runCli(['session', 'export', 'secret-env', '--state-dir', stateDir, '--otlp-endpoint', withPassword(collector.origin)], { cwd: dir });
      for (const r of [down, refused, notAUrl, exportedDown, exported]) expect(r.stderr).not.toContain('S3CRET');
      expect(down.stderr).toMatch(/warning: OpenTelemetry: the collector at http:\/\/otel:\*\*\*@127\.0\.0\.1:\d+\/v1\/traces did not take/);
      expect(refused.stderr).toMatch(/warning: OpenTelemetry: the collector at http:\/\/otel:\*\*\*@127\.0\.0\.1:\d+\/v1\/traces did not take/);
      expect(notAUrl.stderr).toContain('"ftp://otel:***@host" is not an http(s) URL');
      expect(exportedDown.stderr).toMatch(/^logbook: cannot send the spans to http:\/\/otel:\*\*\*@127/);
      expect(exported.code).toBe(0);
      expect(exported.stderr).toMatch(/^sent \d+ spans of run secret-env to http:\/\/otel:\*\*\*@127/);
    } finally {
      await refusing.close();
    }
  });

  it('bounds the whole request to a collector that answers one byte at a time: the run and the export end', async () => {
    const slow = await OtlpCollector.start();
    slow.trickle = true;
    try {
      script();
      const run = await runCli(['run', '--config', config('slow', `otel:\n  endpoint: ${slow.origin}\n`), '--state-dir', stateDir, '--name', 'slow', 'try both'], { cwd: dir, env: env(), timeoutMs: 60_000 });
      const exported = await runCli(['session', 'export', 'slow', '--state-dir', stateDir, '--otlp-endpoint', slow.origin], { cwd: dir, timeoutMs: 60_000 });
      expect(run.signal).toBeNull();
      expect(run.code).toBe(0);
      expect(run.stderr.match(/warning: OpenTelemetry/g)).toHaveLength(1);
      expect(exported.signal).toBeNull();
      expect(exported.code).toBe(1);
      expect(exported.stderr).toMatch(/^logbook: cannot send the spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces: .*within 10000 ms/);
    } finally {
      await slow.close();
    }
  });
});
