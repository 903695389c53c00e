/**
 * Tasks over NATS. Events latency: from a record of a task's run becoming
 * durable (its append resolving in the server) to the event it gives arriving
 * at the caller, who reads the task's stream as `logbook ask` does; the
 * baseline, in the same run and alternating with it, is a bare JetStream
 * publish of a body of the same size read by a bare ordered consumer (from the
 * publish's call to its arrival). Server and caller share a process, so one
 * clock. Then throughput: tasks per second of a script-provider agent served
 * by 1 and by 4 `logbook serve` processes sharing the identity's consumer,
 * against the same runs made in one process without the task layer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import {
  CommandTool,
  JetStreamStore,
  scriptProvider,
  TaskCaller,
  connectTasks,
  TaskProjection,
  TaskServer,
  ToolRegistry,
  defineTool,
  startRun,
  taskRunId,
  type Agent,
  type ScriptTurn,
  type Journal,
  type JournalRecord,
  type Store,
} from 'logbook';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { natsServers, serverName, startNats, type NatsBinary } from './lib/nats.js';
import { skipped, type Row, type Section } from './lib/report.js';
import { median, ms, percentile, ratio } from './lib/stats.js';

/** Issue 27's target: the events' p99 at most twice the bare path's p99. */
const LATENCY_TARGET = 2;
const SCALING_TARGET = 2;
const OVERHEAD_TARGET = 3;
const STREAMS = { tasks: 'A2A_TASKS', events: 'A2A_EVENTS' };
const RUNS = 'RUNS';

async function addStreams(url: string): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: STREAMS.tasks, subjects: ['choria.fisk-ai.task.>'], retention: 'workqueue' as never });
    await jsm.streams.add({ name: STREAMS.events, subjects: ['choria.fisk-ai.events.>'] });
    await jsm.streams.add({ name: RUNS, subjects: ['logbook.runs.>'], max_msgs_per_subject: 1, discard: 'new' as never, discard_new_per_subject: true });
    await jsm.streams.add({ name: 'RAW', subjects: ['bench.raw.>'] });
  } finally {
    await nc.close();
  }
}

/**
 * The script turns of a task: `steps` model calls that each call a tool, then
 * an answer; each call takes `delayMs`, as a model's takes a while (events are
 * not measured queued behind a burst no model makes).
 */
function turns(steps: number, delayMs = 0): ScriptTurn[] {
  const delay = delayMs > 0 ? { delay_ms: delayMs } : {};
  return [
    ...Array.from({ length: steps }, (_, i) => ({ text: `Step ${i + 1}: looking again.`, tool_calls: [{ name: 'look', input: { at: i } }], ...delay })),
    { text: 'Looked everywhere: it is fine.', ...delay },
  ];
}

/** How long each model call of the latency tasks takes. */
const MODEL_CALL_MS = 20;

/** A store that notes when each record of each run became durable (its append resolved). */
function timedStore(store: Store, durable: Map<string, number>): Store {
  const wrap = (journal: Journal): Journal =>
    new Proxy(journal, {
      get(target, key, receiver) {
        if (key !== 'append') return Reflect.get(target, key, receiver) as unknown;
        return async (record: JournalRecord) => {
          await target.append(record);
          durable.set(`${target.runId}:${record.seq}`, performance.now());
        };
      },
    });
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key === 'create') return async (id: string, meta: never) => {
        const j = await target.create(id, meta);
        durable.set(`${id}:1`, performance.now());
        return wrap(j);
      };
      if (key === 'open') return async (id: string, options: never) => wrap(await target.open(id, options));
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export async function benchTasks(opts: BenchOptions): Promise<Section> {
  const servers = natsServers();
  if (servers.length === 0) {
    const s = skipped('task events, record durable to caller', `≤ ${LATENCY_TARGET}× (p99)`, 'nats-server is not installed (`apt-get install -y nats-server`)');
    return { rows: [...s.rows, ...skipped('tasks per second', '—', 'nats-server is not installed').rows], notes: s.notes };
  }
  const newest = servers[servers.length - 1]!;
  const latency = await latencyOn(newest, opts);
  const throughput = await throughputOn(newest, opts);
  return { rows: [...latency.rows, ...throughput.rows], notes: [...latency.notes, ...throughput.notes] };
}

async function latencyOn(server: NatsBinary, opts: BenchOptions): Promise<Section> {
  const nats = await startNats(server);
  const name = serverName(nats.version);
  await addStreams(nats.url);
  const base = await JetStreamStore.connect({ stream: RUNS, nats: { url: nats.url } });
  const durable = new Map<string, number>();
  const store = timedStore(base, durable);
  const link = await connectTasks({ url: nats.url });
  const rawNc = await connect({ servers: nats.url });
  const steps = opts.quick ? 10 : 40;
  const tasks = opts.quick ? 3 : 8;
  const tools = new ToolRegistry([defineTool({ name: 'look', description: 'looks', run: (input) => `looked at ${JSON.stringify(input)}` })]);
  const agent: Agent = { provider: scriptProvider(turns(steps, MODEL_CALL_MS)), tools, system: '', maxTokens: 1000, maxIterations: steps + 5, thinking: 'off', promptCache: false };
  const served = await TaskServer.start({ identity: 'bench', link, streams: STREAMS, store, agent, concurrency: 1, ackWaitMs: 30_000 });
  const caller = new TaskCaller(link, STREAMS);
  const ours: number[] = [];
  const theirs: number[] = [];
  try {
    const js = jetstream(rawNc);
    for (let t = 0; t < tasks; t++) {
      // A task: each event's arrival against its record's durable time.
      const id = `bench${t}x${Date.now()}`;
      const arrived: { sequence: number; at: number; body: string }[] = [];
      const end = await caller.ask(
        { id, agent: 'bench', sender: 'caller', prompt: 'look around' },
        { onMessage: (m, body) => arrived.push({ sequence: m.sequence, at: performance.now(), body }), timeoutMs: 120_000 },
      );
      if (end.kind !== 'result') throw new Error(`the bench task ended ${end.kind}`);
      const run = taskRunId('bench', id);
      const projection = new TaskProjection({ ownFrom: 2 });
      const recordOf = new Map<number, number>();
      for (const record of (await base.load(run)).records) for (const e of projection.push(record)) recordOf.set(e.sequence, record.seq);
      const groups = new Map<number, string[]>();
      for (const a of arrived) {
        const seq = recordOf.get(a.sequence)!;
        const at = durable.get(`${run}:${seq}`);
        if (at !== undefined) ours.push(a.at - at);
        groups.set(seq, [...(groups.get(seq) ?? []), a.body]);
      }
      // The baseline: the same bodies, each record's published back to back (each awaited, as they must be, in order)
      // on a stream of their own, read by a bare ordered consumer; each timed from its record's first publish.
      const subject = `bench.raw.${t}`;
      const consumer = await js.consumers.get('RAW', { filter_subjects: subject, deliver_policy: 'new' as never });
      const messages = await consumer.consume();
      const iterator = messages[Symbol.asyncIterator]();
      for (const bodies of groups.values()) {
        const start = performance.now();
        for (const body of bodies) await js.publish(subject, body);
        for (let k = 0; k < bodies.length; k++) {
          await iterator.next();
          theirs.push(performance.now() - start);
        }
      }
      messages.stop();
    }
  } finally {
    await served.drain();
    await base.close();
    await link.close();
    await rawNc.close();
    await nats.stop();
  }
  const p50 = percentile(ours, 50);
  const p99 = percentile(ours, 99);
  const b50 = percentile(theirs, 50);
  const b99 = percentile(theirs, 99);
  const row: Row = {
    what: `task events on ${name}: record durable to caller, p50 / p99`,
    measured: `${ms(p50)} / ${ms(p99)}`,
    baseline: `the same bodies, bare publish to ordered consumer: ${ms(b50)} / ${ms(b99)}`,
    figure: `${ratio(p99 / b99)} at p99 (${ratio(p50 / b50)} at p50)`,
    target: `≤ ${LATENCY_TARGET}× (p99)`,
    verdict: p99 / b99 <= LATENCY_TARGET ? 'met' : 'missed',
    growth: '—',
  };
  return {
    rows: [row],
    notes: [
      `Task events on ${name}: ${tasks} tasks of a script agent making ${steps} model calls of ${MODEL_CALL_MS} ms each (a tool call each), ${ours.length} events in all, served by a TaskServer over a JetStream store and read by a TaskCaller in the same process (one clock); each event timed from its record's append resolving in the server (the record durable) to its arrival at the caller, which publishes it (a JetStream publish awaited for its ack, after the schema check, a record's events one after another so that the stream holds them in order) and the caller's ordered consumer brings it. The baseline publishes the very bodies the caller got, on a stream of their own, each record's back to back and each awaited (the order the binding needs costs the same there), read by a bare ordered consumer, each timed from its record's first publish to its arrival. What the ratio holds beyond that is the server's own work while it publishes: the journal's next append (on this server version with its meta read back) going to the same nats-server at the same time, and the projection and schema check of each event; a model call takes seconds, next to which a few milliseconds are not seen.`,
    ],
  };
}

/** `count` serve processes of one identity, each with concurrency 1, ready once each says it serves. */
async function serveProcesses(count: number, config: string, cwd: string): Promise<ChildProcess[]> {
  return Promise.all(
    Array.from({ length: count }, () =>
      new Promise<ChildProcess>((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, 'serve', '--config', config], { cwd, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
        let err = '';
        child.stderr!.setEncoding('utf8').on('data', (d: string) => {
          err += d;
          if (/^serving .* as agent /m.test(err)) resolve(child);
        });
        child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
      }),
    ),
  );
}

async function throughputOn(server: NatsBinary, opts: BenchOptions): Promise<Section> {
  const nats = await startNats(server);
  const name = serverName(nats.version);
  await addStreams(nats.url);
  const dir = tempDir('tasks-tput');
  const script = join(dir, 'turns.json');
  writeFileSync(script, JSON.stringify({ turns: turns(2) }));
  const config = join(dir, 'agent.yaml');
  writeFileSync(
    config,
    `provider: script\nscript: ${script}\na2a: { identity: worker }\nnats: { url: "${nats.url}" }\nsession: { backend: jetstream, options: { stream: ${RUNS} } }\n` +
      `tools:\n  - name: look\n    description: looks\n    input_schema: { type: object, properties: { at: { type: integer } } }\n    command: [echo, looked]\n`,
  );
  const n = opts.quick ? 12 : 40;
  const link = await connectTasks({ url: nats.url });
  const caller = new TaskCaller(link, STREAMS);
  const rate = async (instances: number, round: string): Promise<number> => {
    const procs = await serveProcesses(instances, config, dir);
    try {
      const start = performance.now();
      const ends = await Promise.all(
        Array.from({ length: n }, (_, i) => caller.ask({ id: `t${round}${i}x${Date.now()}`, agent: 'worker', sender: 'caller', prompt: 'look twice' }, { timeoutMs: 300_000 })),
      );
      const elapsed = performance.now() - start;
      if (ends.some((e) => e.kind !== 'result')) throw new Error('a bench task did not end in a result');
      return n / (elapsed / 1000);
    } finally {
      for (const p of procs) p.kill('SIGKILL');
    }
  };
  // The baseline: the same runs, made one after another in one process on the same store, without tasks.
  const direct = async (): Promise<number> => {
    const store = await JetStreamStore.connect({ stream: RUNS, nats: { url: nats.url } });
    const look = new CommandTool(
      {
        name: 'look',
        description: 'looks',
        input_schema: { type: 'object', properties: { at: { type: 'integer' } } },
        command: ['echo', 'looked'],
        timeout: 60,
        max_output: 100_000,
        allow_leading_dash: false,
        env: {},
        confirm: false,
        side_effects: false,
      },
      { env: process.env },
    );
    const agent: Agent = { provider: scriptProvider(turns(2)), tools: new ToolRegistry([look]), system: '', maxTokens: 4096, maxIterations: 20, thinking: 'off', promptCache: false };
    try {
      const start = performance.now();
      for (let i = 0; i < n; i++) await (await startRun(store, agent, { id: `direct${i}x${Date.now()}`, prompt: 'look twice' })).execute();
      return n / ((performance.now() - start) / 1000);
    } finally {
      await store.close();
    }
  };
  const one: number[] = [];
  const four: number[] = [];
  const plain: number[] = [];
  try {
    for (let r = 0; r < (opts.quick ? 1 : 2); r++) {
      plain.push(await direct());
      one.push(await rate(1, `a${r}`));
      four.push(await rate(4, `b${r}`));
    }
  } finally {
    await link.close();
    await nats.stop();
  }
  const [p, o, f] = [median(plain), median(one), median(four)];
  const per = (x: number): string => `${x.toFixed(1)} tasks/s`;
  return {
    rows: [
      {
        what: `tasks per second on ${name}, 1 serve instance`,
        measured: per(o),
        baseline: `the same runs in one process, no task layer: ${per(p)}`,
        figure: ratio(p / o),
        target: `≤ ${OVERHEAD_TARGET}× the time`,
        verdict: opts.quick ? '—' : p / o <= OVERHEAD_TARGET ? 'met' : 'missed',
        growth: '—',
      },
      {
        what: `tasks per second on ${name}, 4 serve instances`,
        measured: per(f),
        baseline: `1 instance: ${per(o)}`,
        figure: `${(f / o).toFixed(2)}× the rate`,
        target: `≥ ${SCALING_TARGET}×`,
        verdict: opts.quick ? '—' : f / o >= SCALING_TARGET ? 'met' : 'missed',
        growth: '—',
      },
    ],
    notes: [
      `Tasks per second on ${name}: ${n} tasks sent at once to a script-provider agent (two model calls each calling a command tool, then an answer), served by 1 and then 4 \`logbook serve\` processes (concurrency 1 each) sharing the identity's consumer, runs in a JetStream store; from the first request sent to the last task's end read back. The baseline makes the same runs one after another in one process (startRun and execute on the same store), without the work queue, the events or the notes; medians of the rounds, each alternating the three.`,
    ],
  };
}
