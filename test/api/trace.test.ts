/**
 * A stored run's OpenTelemetry trace through the package's entry point: spans
 * from the journal and its kept times, written as OTLP/JSON or sent to a real
 * OTLP/HTTP endpoint, content only when asked for.
 */
import { copyFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileStore, defineAgent, defineTool, runTrace, scriptProvider, sendTrace, startRun, traceJson } from '../../src/index.js';
import { decodeTraces, useOtlpCollector } from '../helpers/otlp-collector.js';
import { tempDir } from '../helpers/tmp.js';

let store: FileStore;
const collector = useOtlpCollector();

beforeAll(async () => {
  store = new FileStore(tempDir());
  const weather = defineTool({ name: 'weather', sideEffects: false, run: () => 'sunny' });
  const agent = defineAgent({ provider: scriptProvider([{ tool_calls: [{ name: 'weather' }] }, { text: 'It is SUNNY-ANSWER.' }]), tools: [weather] });
  await (await startRun(store, agent, { id: 'traced', prompt: 'SECRET-PROMPT weather?' })).execute();
});

afterAll(async () => collector.close());

describe('a run as a trace', () => {
  it('has a span for the run, each model call and each tool call, in one trace', async () => {
    const trace = await runTrace(store, 'traced');
    expect(trace.untimed).toBe(0);
    expect(trace.spans.map((s) => s.name)).toEqual([expect.stringMatching(/^invoke_agent/), expect.stringMatching(/^chat/), expect.stringMatching(/^execute_tool weather/), expect.stringMatching(/^chat/)]);
    expect(new Set(trace.spans.map((s) => s.spanContext().traceId))).toEqual(new Set([trace.traceId]));
  });

  it('is written as OTLP/JSON a collector decodes, without the conversation unless asked', async () => {
    const plain = await traceJson(await runTrace(store, 'traced'));
    const spans = await decodeTraces(Buffer.from(plain), 'application/json');
    expect(spans).toHaveLength(4);
    expect(spans[0]!.resource['service.name']).toBe('logbook');
    expect(plain).not.toContain('SECRET-PROMPT');
    const full = await traceJson(await runTrace(store, 'traced', { captureContent: true, serviceName: 'my-agent' }));
    expect(full).toContain('SECRET-PROMPT');
    expect(full).toContain('SUNNY-ANSWER');
    expect((await decodeTraces(Buffer.from(full), 'application/json'))[0]!.resource['service.name']).toBe('my-agent');
  });

  it('is sent to an OTLP/HTTP collector, span for span as written', async () => {
    const trace = await runTrace(store, 'traced');
    await sendTrace(trace, { url: `${collector.origin}/v1/traces`, protocol: 'http/protobuf', headers: {}, timeoutMs: 5000 });
    const written = await decodeTraces(Buffer.from(await traceJson(trace)), 'application/json');
    const strip = (spans: typeof written) => spans.map(({ encoding: _, ...s }) => s);
    expect(strip(collector.spans)).toEqual(strip(written));
    collector.failWith = 400;
    await expect(sendTrace(trace, { url: `${collector.origin}/v1/traces`, protocol: 'http/json', headers: {}, timeoutMs: 5000 })).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('cannot be made of a run that keeps no times, and says why', async () => {
    const copied = new FileStore(tempDir()); // the journal alone, as a copy by hand leaves it
    copyFileSync(store.journalPath('traced'), copied.journalPath('traced'));
    await expect(runTrace(copied, 'traced')).rejects.toMatchObject({ code: 'untimed', message: expect.stringMatching(/no times kept beside it/) });
  });
});
