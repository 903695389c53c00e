/**
 * A2A 1.0 over HTTP. Round trip: a message sent and waited for (SendMessage,
 * blocking) until the task completed, against `logbook serve --http` on the
 * file store (each task a journaled run) and, alternating with it in the same
 * run, the same agent served by the official SDK's own server with its
 * InMemoryTaskStore (bench/a2a-baseline.ts, runs unjournaled); the agent on
 * the anthropic provider (its SDK) against a local Messages API that asks for
 * two tool calls, then answers (bench/lib/messages-api.ts); both in
 * processes of their own, reached over loopback by the SDK's client. Then
 * streamed event latency: from a record being durable (the time the server
 * stamps its status with, taken right after the append resolved) to the
 * event's arrival at a streaming client, against the SDK server's from its
 * publish to arrival. One machine, one clock; millisecond stamps.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Role, type SendMessageRequest, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { anthropicConfig, API_ENV, MessagesApi } from './lib/messages-api.js';
import type { Section } from './lib/report.js';
import { ms, percentile, ratio } from './lib/stats.js';

/** The target: logbook's round trip at most 1.5 times the SDK server's. */
const ROUND_TRIP_TARGET = 1.5;
const BASELINE = fileURLToPath(new URL('./a2a-baseline.js', import.meta.url));

/** A process that prints `pattern` (whose group 1 is its URL) once it serves. */
function serving(args: string[], cwd: string, pattern: RegExp, stream: 'stdout' | 'stderr', env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, NO_COLOR: '1' } });
    let out = '';
    child[stream]!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = pattern.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${out}`)));
  });
}

function message(text: string): SendMessageRequest {
  return {
    tenant: '',
    message: { messageId: crypto.randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: {}, extensions: [], referenceTaskIds: [] },
    configuration: undefined,
    metadata: {},
  };
}

async function roundTrip(client: Client): Promise<number> {
  const start = performance.now();
  const task = (await client.sendMessage(message('look twice'))) as Task;
  const took = performance.now() - start;
  if (task.status?.state !== 3) throw new Error(`a bench task ended ${task.status?.state}`);
  return took;
}

/** Each WORKING event's arrival less the time stamped on its status. */
async function eventLatencies(client: Client): Promise<number[]> {
  const out: number[] = [];
  for await (const e of client.sendMessageStream(message('look twice'))) {
    const arrived = Date.now();
    const p = e.payload;
    if (p?.$case === 'statusUpdate' && p.value.status?.state === 2 && p.value.status.timestamp) out.push(arrived - Date.parse(p.value.status.timestamp));
  }
  return out;
}

export async function benchA2AHttp(opts: BenchOptions): Promise<Section> {
  const dir = tempDir('a2a-http');
  // three model turns: a call of look, another, then the answer; chosen from how many results the request carries
  const api = await MessagesApi.start((body) => {
    const results = (body.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? (m.content as { type?: string }[]) : [])).filter((b) => b.type === 'tool_result').length;
    return results < 2 ? { text: results === 0 ? 'Looking.' : 'Looking again.', tool: { name: 'look', input: { at: results + 1 } } } : 'It is fine.';
  });
  const config = join(dir, 'agent.yaml');
  writeFileSync(
    config,
    anthropicConfig(
      api,
      `a2a: { identity: bench }\nsession: { backend: file, options: { directory: ${JSON.stringify(join(dir, 'runs'))} } }\n` +
        `tools:\n  - name: look\n    description: looks\n    input_schema: { type: object, properties: { at: { type: integer } } }\n    command: [echo, looked]\n`,
    ),
  );
  const env = { ...process.env, ...API_ENV };
  const ours = await serving([BIN, 'serve', '--http', '127.0.0.1:0', '--config', config], dir, /over A2A at (\S+) /, 'stderr', env);
  const theirs = await serving([BASELINE, config], dir, /^(http\S+)\n/m, 'stdout', env);
  const journaled = await serving([BASELINE, config, join(dir, 'baseline-runs')], dir, /^(http\S+)\n/m, 'stdout', env);
  try {
    const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory()] });
    const [a, b, c] = [await factory.createFromUrl(ours.url), await factory.createFromUrl(theirs.url), await factory.createFromUrl(journaled.url)];
    const n = opts.quick ? 15 : 100;
    for (let i = 0; i < 3; i++) (await roundTrip(a), await roundTrip(b), await roundTrip(c)); // warm up all
    const mine: number[] = [];
    const base: number[] = [];
    const baseJ: number[] = [];
    for (let i = 0; i < n; i++) {
      mine.push(await roundTrip(a));
      base.push(await roundTrip(b));
      baseJ.push(await roundTrip(c));
    }
    const streams = opts.quick ? 5 : 30;
    const mineLat: number[] = [];
    const baseLat: number[] = [];
    for (let i = 0; i < streams; i++) {
      mineLat.push(...(await eventLatencies(a)));
      baseLat.push(...(await eventLatencies(b)));
    }
    const p = (xs: number[], q: number) => percentile(xs, q);
    const r50 = p(mine, 50) / p(base, 50);
    const r99 = p(mine, 99) / p(base, 99);
    const j50 = p(mine, 50) / p(baseJ, 50);
    const j99 = p(mine, 99) / p(baseJ, 99);
    return {
      rows: [
        {
          what: `A2A over HTTP: send and wait, a task of 3 model turns and 2 tool calls (${n} each, alternating), p50 / p99`,
          measured: `${ms(p(mine, 50))} / ${ms(p(mine, 99))}`,
          baseline: `${ms(p(base, 50))} / ${ms(p(base, 99))} (the SDK's server, InMemoryTaskStore, runs unjournaled)`,
          figure: `${ratio(r50)} / ${ratio(r99)}`,
          target: `≤ ${ROUND_TRIP_TARGET}×`,
          verdict: r50 <= ROUND_TRIP_TARGET && r99 <= ROUND_TRIP_TARGET ? 'met' : 'missed',
          growth: '—',
        },
        {
          what: `A2A over HTTP: send and wait as above, against the SDK's server whose runs are journaled to the file store too (${n} each), p50 / p99`,
          measured: `${ms(p(mine, 50))} / ${ms(p(mine, 99))}`,
          baseline: `${ms(p(baseJ, 50))} / ${ms(p(baseJ, 99))} (the SDK's server, InMemoryTaskStore, runs journaled)`,
          figure: `${ratio(j50)} / ${ratio(j99)}`,
          target: `≤ ${ROUND_TRIP_TARGET}×`,
          verdict: j50 <= ROUND_TRIP_TARGET && j99 <= ROUND_TRIP_TARGET ? 'met' : 'missed',
          growth: '—',
        },
        {
          what: `A2A over HTTP: streamed event latency, record durable to client (${mineLat.length} events), p50 / p99`,
          measured: `${ms(p(mineLat, 50))} / ${ms(p(mineLat, 99))}`,
          baseline: `${ms(p(baseLat, 50))} / ${ms(p(baseLat, 99))} (the SDK's server, from publish)`,
          figure: `${ms(p(mineLat, 99))} p99`,
          target: 'reported',
          verdict: '—',
          growth: '—',
        },
      ],
      notes: [
        "A2A over HTTP: the first row compares a journaled task with one kept in memory, so it is bound by the disk's fsync: 13 a task on the file store (the task note; the meta and its directory entry; the tool-set note; 3 `sent` notes, one before each model call; 6 more records), each on the serving thread; the second, with the same runs journaled by the SDK's server, is the cost of the journal-backed task store and executor themselves. A served task's workspace is not snapshotted (docs/guide/workspace.md).",
        'A2A over HTTP: both servers run the agent on the anthropic provider (its SDK, streaming) against a Messages API in the benchmark\'s own process that answers at once, and the command tool `look` (echo). The servers are processes of their own reached over loopback by the official SDK client (JSON-RPC); logbook journals every record to the file store (fsync) before its event is published, the baseline keeps the task in memory. Event stamps are the servers\' own millisecond times.',
      ],
    };
  } finally {
    for (const s of [ours, theirs, journaled]) s.child.kill('SIGKILL');
    await api.close();
  }
}
