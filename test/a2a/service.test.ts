/**
 * The served side and the caller's, on a real nats-server: discovery and tool
 * calls as the reference binds them (a micro service per identity, queue group =
 * identity), in-band errors, the 400 refusals, the concurrency and timeout
 * limits, draining, two instances sharing the calls, and what a caller makes of
 * an agent that is not there. Every body on the wire meets logbook's schemas and
 * the reference's field lists.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../src/a2a/client.js';
import { eventsBySender, listAgents } from '../../src/a2a/directory.js';
import { encodeMessage, stampRequest, toolSubject, discoverySubject } from '../../src/a2a/index.js';
import { ToolService, type ServedCall } from '../../src/a2a/service.js';
import { exposedTools, toolHost } from '../../src/agent/exposure.js';
import { CommandTool } from '../../src/agent/tools/command-tool.js';
import { ToolRegistry } from '../../src/agent/tools/registry.js';
import { defineTool } from '../../src/agent/tools/tool.js';
import { RawJson, isLogbookError } from '../../src/core/index.js';
import { fixtureBodies, tapWire, wireProblems } from '../helpers/a2a.js';
import { useNatsServer } from '../helpers/nats-server.js';

const { enabled, server } = useNatsServer({ jetstream: false });

let running = 0;
let mostAtOnce = 0;
const registry = (): ToolRegistry =>
  new ToolRegistry([
    new CommandTool({
      name: 'echo',
      description: 'Returns its input text',
      input_schema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
      command: ['printf', '%s', '{{text}}'],
      timeout: 10,
      max_output: 1_000_000,
    }, { env: process.env }),
    new CommandTool({ name: 'fail', description: 'Exits 3', input_schema: { type: 'object' }, command: ['sh', '-c', 'echo nope; exit 3'], timeout: 10, max_output: 1000 }, { env: process.env }),
    new CommandTool({ name: 'big', description: 'Too much output', input_schema: { type: 'object' }, command: ['head', '-c', '900000', '/dev/zero'], timeout: 10, max_output: 1_000_000 }, { env: process.env }),
    defineTool({ name: 'refuse', description: 'Always an error', run: () => ({ content: 'no, not today', isError: true }) }),
    defineTool({
      name: 'slow',
      description: 'Takes a while',
      input_schema: { type: 'object', properties: { ms: { type: 'integer' } } },
      run: async (input) => {
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        await sleep((input as { ms?: number }).ms ?? 300);
        running--;
        return 'slept';
      },
    }),
    defineTool({ name: 'hang', description: 'Never finishes unless stopped', run: (_i, ctx) => new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))) }),
    { ...defineTool({ name: 'ask', description: 'Needs an operator', run: () => 'x' }), policy: { confirm: true, sideEffects: false } },
  ]);

function start(nc: NatsConnection, calls: ServedCall[], options: { identity?: string; maxConcurrent?: number; toolTimeoutMs?: number } = {}): Promise<ToolService> {
  const tools = registry();
  const all = tools.definitions().map((d) => tools.get(d.name)!);
  return ToolService.start(nc, toolHost(tools, exposedTools(all, {}).exposed), {
    identity: options.identity ?? 'probe',
    version: '1.2.3',
    description: 'A probe agent',
    ...(options.maxConcurrent !== undefined ? { maxConcurrent: options.maxConcurrent } : {}),
    ...(options.toolTimeoutMs !== undefined ? { toolTimeoutMs: options.toolTimeoutMs } : {}),
    onCall: (c) => calls.push(c),
  });
}

describe.skipIf(!enabled)('the tool service and its caller', () => {
  let nc: NatsConnection;
  let client: A2AClient;
  let service: ToolService;
  let tap: Awaited<ReturnType<typeof tapWire>>;
  const calls: ServedCall[] = [];

  beforeAll(async () => {
    tap = await tapWire(server().url);
    nc = await connect({ servers: server().url });
    service = await start(nc, calls);
    client = new A2AClient(nc, 'probe-caller', 5000);
  });
  afterAll(async () => {
    await service?.drain();
    await nc?.close();
    await tap?.close();
  });

  it('answers discovery with its card: its tools but the one that asks for a confirmation, their schemas with sorted keys', async () => {
    const card = await client.discover('probe');
    expect(card).toMatchObject({ name: 'probe', version: '1.2.3', description: 'A probe agent', protocols: ['io.choria.fisk-ai.v1'] });
    expect(card.tools!.map((t) => t.name)).toEqual(['echo', 'fail', 'big', 'refuse', 'slow', 'hang']);
    expect(card.tools![0]!.input_schema!.text).toBe('{"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}');
    expect(calls.at(-1)).toMatchObject({ kind: 'discovery', sender: 'probe-caller' });
  });

  it('runs a tool: a command that ran is a success with exec, a non-zero exit included', async () => {
    const hi = await client.callTool('probe', 'echo', RawJson.fromText('{"text":"hi <there>"}'));
    expect(hi).toMatchObject({ output: 'hi <there>', exec: { command: "printf %s 'hi <there>'" }, sender: { name: 'probe' }, recipient: { name: 'probe-caller' } });
    expect(hi.is_error).toBeUndefined();
    expect(hi.exec!.exit_code).toBeUndefined(); // 0 is omitted, as the reference writes it
    const fail = await client.callTool('probe', 'fail', undefined);
    expect(fail).toMatchObject({ output: 'nope\n', exec: { command: "sh -c 'echo nope; exit 3'", exit_code: 3 } });
    expect(fail.is_error).toBeUndefined();
    expect(calls.filter((c) => c.kind === 'tool').map((c) => (c as { exitCode?: number }).exitCode)).toEqual([0, 3]);
  });

  it('says in-band what went wrong: a tool error, an unknown tool, input its schema refuses; output too big for a reply is cut', async () => {
    expect(await client.callTool('probe', 'refuse', undefined)).toMatchObject({ is_error: true, output: 'no, not today' });
    expect(await client.callTool('probe', 'missing', undefined)).toMatchObject({ is_error: true, output: 'tool "missing" is not available' });
    expect(await client.callTool('probe', 'echo', RawJson.fromText('{"text":1}'))).toMatchObject({ is_error: true, output: expect.stringMatching(/input for echo does not match its schema/) });
    const big = await client.callTool('probe', 'big', undefined);
    expect(big).toMatchObject({ exec: { truncated: true }, output: expect.stringMatching(/^\u0000+\n\[cut: the rest of the output did not fit in a reply\]$/) });
  });

  it('refuses with 400 and an empty body: an unknown field, a body over 768 KiB, another protocol than the subject carries, not JSON', async () => {
    const [, , toolRequest] = fixtureBodies().map((b) => b.body);
    const discovery = encodeMessage(stampRequest('discovery.request', {}, 'probe-caller', 'probe'));
    const cases: [string, string, RegExp][] = [
      [toolSubject('probe'), toolRequest!.replace('"name":"echo"', '"name":"echo","priority":1'), /field the protocol does not define: "priority"/],
      [toolSubject('probe'), `{"pad":"${'x'.repeat(800 * 1024)}"}`, /819\d+ bytes, over the limit of 786432/],
      [toolSubject('probe'), discovery, /protocol "io.choria.fisk-ai.v1.discovery.request", where io.choria.fisk-ai.v1.tool.request is expected/],
      [discoverySubject('probe'), toolRequest!, /where io.choria.fisk-ai.v1.discovery.request is expected/],
      [toolSubject('probe'), 'hello', /not JSON/],
    ];
    for (const [subject, body, why] of cases) {
      const reply = await nc.request(subject, body, { timeout: 5000 });
      expect(reply.headers?.get('Nats-Service-Error-Code'), body.slice(0, 80)).toBe('400');
      expect(reply.headers?.get('Nats-Service-Error')).toMatch(why);
      expect(reply.data.length).toBe(0);
    }
    expect(calls.filter((c) => c.kind === 'refused')).toHaveLength(cases.length);
  });

  it('every body on the wire met the schemas and the reference field lists', () => {
    const bodies = tap.bodies();
    expect(new Set(bodies.map((b) => (JSON.parse(b) as { protocol: string }).protocol.split('.v1.')[1]))).toEqual(
      new Set(['discovery.request', 'discovery.reply', 'tool.request', 'tool.reply']),
    );
    // The refused ones: a body with an unknown field, an oversized one, not JSON; the rest are sound.
    const sound = bodies.filter((b) => !b.includes('"priority"'));
    expect(wireProblems(sound)).toEqual([]);
  });
});

function errorHeaders(code: string, description: string) {
  const h = headers();
  h.set('Nats-Service-Error-Code', code);
  h.set('Nats-Service-Error', description);
  return h;
}

// No tap here: its subscription on the A2A subjects would answer "there are responders".
describe.skipIf(!enabled)('a caller facing an agent that does not answer', () => {
  it('a caller reads a 400 as a refusal, no responders and no reply as the agent being unavailable', async () => {
    const nc = await connect({ servers: server().url });
    const client = new A2AClient(nc, 'probe-caller', 5000);
    const quiet = await connect({ servers: server().url });
    quiet.subscribe(toolSubject('mute'), { callback: () => {} }); // takes requests, never answers
    await quiet.flush();
    try {
      const unavailable = await client.callTool('nobody', 'echo', undefined).catch((e: unknown) => e);
      expect(isLogbookError(unavailable, 'agent_unavailable')).toBe(true);
      expect((unavailable as Error).message).toBe('agent unavailable: nothing answers on choria.fisk-ai.tool.nobody');
      const mute = await client.callTool('mute', 'echo', undefined, { timeoutMs: 300 }).catch((e: unknown) => e);
      expect((mute as Error).message).toBe('agent unavailable: no reply on choria.fisk-ai.tool.mute within 0.3 s');
      // An agent that refuses what logbook sends: one whose schema is stricter is played by a responder with the headers.
      quiet.subscribe(toolSubject('strict'), { callback: (_e, m) => void m.respond('', { headers: errorHeaders('400', 'invalid request') }) });
      await quiet.flush();
      const refused = await client.callTool('strict', 'echo', undefined).catch((e: unknown) => e);
      expect(isLogbookError(refused, 'agent_refused')).toBe(true);
      expect((refused as Error).message).toBe('the agent refused the tool.request (400: invalid request)');
    } finally {
      await Promise.all([quiet.close(), nc.close()]);
    }
  });

});

describe.skipIf(!enabled)('limits and lifetime', () => {
  it('runs at most max_concurrent_tools calls at once; the rest wait their turn and are answered', async () => {
    const nc = await connect({ servers: server().url });
    const service = await start(nc, [], { identity: 'limited', maxConcurrent: 2 });
    const client = new A2AClient(nc, 'caller');
    running = 0;
    mostAtOnce = 0;
    try {
      const replies = await Promise.all(Array.from({ length: 5 }, () => client.callTool('limited', 'slow', RawJson.fromText('{"ms":150}'))));
      expect(replies.map((r) => r.output)).toEqual(Array(5).fill('slept'));
      expect(mostAtOnce).toBe(2);
    } finally {
      await service.drain();
      await nc.close();
    }
  });

  it('stops a call at the tool timeout and says so in-band', async () => {
    const nc = await connect({ servers: server().url });
    const calls: ServedCall[] = [];
    const service = await start(nc, calls, { identity: 'hasty', toolTimeoutMs: 200 });
    try {
      const reply = await new A2AClient(nc, 'caller').callTool('hasty', 'hang', undefined);
      expect(reply).toMatchObject({ is_error: true, output: 'tool "hang" did not finish within 0.2 s' });
      expect(calls.at(-1)).toMatchObject({ kind: 'tool', tool: 'hang', outcome: 'timeout' });
    } finally {
      await service.drain();
      await nc.close();
    }
  });

  it('drains: a call in flight is finished and answered, and no call is taken after', async () => {
    const nc = await connect({ servers: server().url });
    const service = await start(nc, [], { identity: 'leaving' });
    const client = new A2AClient(nc, 'caller');
    try {
      const inFlight = client.callTool('leaving', 'slow', RawJson.fromText('{"ms":400}'));
      await sleep(100);
      let drained = false;
      const drain = service.drain().then(() => (drained = true));
      expect((await inFlight).output).toBe('slept');
      await drain;
      expect(drained).toBe(true);
      const after = await client.callTool('leaving', 'slow', undefined).catch((e: unknown) => e);
      expect(isLogbookError(after, 'agent_unavailable')).toBe(true);
    } finally {
      await nc.close();
    }
  });

  it('two instances of one identity share the calls, and $SRV lists both under it', async () => {
    const [a, b] = [await connect({ servers: server().url }), await connect({ servers: server().url })];
    const callsA: ServedCall[] = [];
    const callsB: ServedCall[] = [];
    const [one, two] = [await start(a, callsA, { identity: 'shared' }), await start(b, callsB, { identity: 'shared' })];
    const nc = await connect({ servers: server().url });
    const client = new A2AClient(nc, 'caller');
    try {
      for (let i = 0; i < 24; i++) expect((await client.callTool('shared', 'echo', RawJson.fromText(`{"text":"${i}"}`))).output).toBe(String(i));
      expect(callsA.length + callsB.length).toBe(24);
      expect(callsA.length).toBeGreaterThan(0); // all 24 on one instance: one chance in 2^23
      expect(callsB.length).toBeGreaterThan(0);
      const listed = (await listAgents(nc, client, { waitMs: 500 })).find((l) => l.identity === 'shared')!;
      expect(listed.instances.map((i) => i.id).sort()).toEqual([one.instanceId, two.instanceId].sort());
      expect(listed.card).toMatchObject({ name: 'shared', version: '1.2.3' });
    } finally {
      await one.drain();
      await two.drain();
      await Promise.all([a.close(), b.close(), nc.close()]);
    }
  });

  it("a caller asks for a task's events on its own subject only when every instance of the agent says it publishes there", async () => {
    const a = await connect({ servers: server().url });
    const nc = await connect({ servers: server().url });
    const served = await start(a, [], { identity: 'advertised' });
    await a.flush(); // its subscriptions reach the server before the caller asks
    try {
      expect(await eventsBySender(nc, 'advertised', 2000)).toBe(true);
      expect(await eventsBySender(nc, 'nobody', 2000)).toBe(false); // none running: the spec's subject, which any server publishes on
      // An older instance joins: its service says nothing of the header, and would publish on the spec's subject.
      const { Svcm } = await import('@nats-io/services');
      const older = await new Svcm(a).add({ name: 'advertised', version: '0.9.0', queue: 'advertised' });
      older.addEndpoint('discovery', { subject: discoverySubject('advertised'), handler: () => {} });
      await a.flush(); // its subscriptions reach the server before the caller asks
      expect(await eventsBySender(nc, 'advertised', 2000)).toBe(false);
      await older.stop();
    } finally {
      await served.drain();
      await Promise.all([a.close(), nc.close()]);
    }
  });
});
