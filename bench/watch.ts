/**
 * `logbook session watch --json` latency: from a record's append resolving in
 * the writer (after its fsync, or the stream's ack) to its line arriving on the
 * watcher's stdout, writer and watcher separate processes, as a person runs
 * them. In the same run the same records are followed by a baseline that does
 * nothing else: `tail -f` on the journal file, and a bare ordered consumer on
 * the run's subjects. Both clocks are the machine's monotonic clock, which
 * every process shares.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { natsServers, serverName, startNats } from './lib/nats.js';
import { skipped, type Row, type Section } from './lib/report.js';
import { percentile, ms } from './lib/stats.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const WRITER = join(HERE, 'watch', 'writer.js');
const RAW_FOLLOWER = join(HERE, 'watch', 'raw-follower.js');
const GAP_MS = 20;
/** How long anything here may take before the benchmark gives up on it. */
const DEADLINE_MS = 120_000;

/** Arrival times (monotonic ns) of each seq's line on a process's stdout; resolves when it exits. */
function arrivals(child: ChildProcessWithoutNullStreams, name: string): { seen: Map<number, bigint>; first: Promise<void>; done: Promise<void> } {
  const seen = new Map<number, bigint>();
  let rest = '';
  let err = '';
  let onFirst = (): void => {};
  const first = new Promise<void>((resolve) => (onFirst = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const at = process.hrtime.bigint();
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      const seq = /^\{"seq":(\d+)/.exec(line)?.[1];
      if (seq !== undefined && !seen.has(Number(seq))) seen.set(Number(seq), at);
      if (seq === '1') onFirst();
    }
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 || signal === 'SIGTERM' ? resolve() : reject(new Error(`${name} exited ${code ?? signal}: ${err}`))));
  });
  return { seen, first, done };
}

function deadline<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${DEADLINE_MS} ms`)), DEADLINE_MS)))]).finally(() =>
    clearTimeout(timer),
  );
}

interface Latencies {
  ours: number[];
  baseline: number[];
}

/**
 * Runs the writer with `writerArgs`; once it is ready, starts the watcher and
 * the baseline, waits for both to show the meta record, lets the writer go and
 * collects each record's latency to each of them.
 */
async function measure(writerArgs: string[], watcherArgs: string[], baselineArgs: string[]): Promise<Latencies> {
  const writer = spawn(process.execPath, [WRITER, ...writerArgs], { stdio: ['pipe', 'pipe', 'pipe'] });
  let written = '';
  let writerErr = '';
  writer.stdout.setEncoding('utf8').on('data', (d: string) => (written += d));
  writer.stderr.setEncoding('utf8').on('data', (d: string) => (writerErr += d));
  const writerDone = new Promise<void>((resolve, reject) =>
    writer.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the writer exited ${code}: ${writerErr}`)))),
  );
  await deadline(
    new Promise<void>((resolve) => {
      const check = (): void => (written.startsWith('ready\n') ? resolve() : void setTimeout(check, 10));
      check();
    }),
    'the writer starting',
  );
  const watcher = spawn(process.execPath, [BIN, ...watcherArgs], { stdio: ['pipe', 'pipe', 'pipe'] });
  const baseline = spawn(baselineArgs[0]!, baselineArgs.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  const ours = arrivals(watcher, 'session watch');
  const theirs = arrivals(baseline, baselineArgs[0]!);
  try {
    await deadline(Promise.all([ours.first, theirs.first]), 'the watchers starting');
    writer.stdin.end('go\n');
    await deadline(writerDone, 'the writer');
    await deadline(ours.done, 'session watch ending on the terminal record');
    // tail -f never ends by itself; the raw consumer ends on the terminal record.
    if (baselineArgs[0] === 'tail') {
      const last = Math.max(...written.split('\n').slice(1).filter(Boolean).map((l) => Number(l.split(' ')[0])));
      await deadline(
        new Promise<void>((resolve) => {
          const check = (): void => (theirs.seen.has(last) ? resolve() : void setTimeout(check, 10));
          check();
        }),
        'tail -f showing the last record',
      );
      baseline.kill('SIGTERM');
    }
    await deadline(theirs.done, 'the baseline');
  } finally {
    for (const child of [writer, watcher, baseline]) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  const lat: Latencies = { ours: [], baseline: [] };
  for (const row of written.split('\n').slice(1).filter(Boolean)) {
    const [seq, at] = row.split(' ');
    const stored = BigInt(at!);
    const a = ours.seen.get(Number(seq));
    const b = theirs.seen.get(Number(seq));
    if (a === undefined || b === undefined) throw new Error(`seq ${seq} never reached ${a === undefined ? 'session watch' : 'the baseline'}`);
    lat.ours.push(Number(a - stored) / 1e6);
    lat.baseline.push(Number(b - stored) / 1e6);
  }
  return lat;
}

function rows(what: string, baselineName: string, lat: Latencies, quick: boolean): Row[] {
  const p = (xs: number[], q: number): number => percentile(xs, q);
  const [o50, o99, b50, b99] = [p(lat.ours, 50), p(lat.ours, 99), p(lat.baseline, 50), p(lat.baseline, 99)];
  const target = 50;
  return [
    {
      what: `\`session watch\` latency, ${what}, p50 / p99 (${lat.ours.length} records)`,
      measured: `${ms(o50)} / ${ms(o99)}`,
      baseline: `${baselineName}: ${ms(b50)} / ${ms(b99)}`,
      figure: `p99 ${ms(o99)}; p50 ${o50 >= b50 ? '+' : ''}${ms(o50 - b50)} against the baseline`,
      target: `p99 < ${target} ms`,
      verdict: quick ? '—' : o99 < target ? 'met' : 'missed',
      growth: '—',
    },
  ];
}

export async function benchWatch(opts: BenchOptions): Promise<Section> {
  const count = opts.quick ? 100 : 500;
  const dir = tempDir('watch');
  const runs = join(dir, 'state', 'runs');
  const file = await measure(
    ['file', runs, 'watched', String(count), String(GAP_MS)],
    ['session', 'watch', 'watched', '--json', '--state-dir', join(dir, 'state')],
    ['tail', '-n', '+1', '-f', join(runs, 'watched.jsonl')],
  );
  const out: Row[] = rows('file store', '`tail -f`', file, opts.quick);
  const notes = [
    `Watch: a writer process appends ${count} records (meta, then turns of an assistant record and its tool result, ~800 bytes each) ${GAP_MS} ms apart and notes the machine's monotonic clock as each append resolves (after fsync; after the stream's ack on JetStream); \`node bin/logbook session watch ID --json\` and the baseline follow the run from before the first append, each its own process, and each line is timed on arrival at the benchmark, which reads both. On the file store the watcher is woken by inotify (it polls every 250 ms where no change events come) and reads without the lock; a line can reach it before the writer's fsync returns, as it reaches \`tail -f\`, hence latencies below zero. On JetStream the watcher is an ordered consumer; the baseline a bare ordered consumer in a Node process of its own. The target is ours; the issue names none.`,
  ];
  const servers = natsServers();
  if (servers.length === 0) {
    const s = skipped('`session watch` latency, JetStream', 'p99 < 50 ms', 'nats-server is not installed (`apt-get install -y nats-server`)');
    return { rows: [...out, ...s.rows], notes: [...notes, ...s.notes] };
  }
  // On every nats-server found here, as the tests run on them.
  for (const server of servers) {
    const nats = await startNats(server);
    try {
      const admin = await connect({ servers: nats.url });
      try {
        const jsm = await jetstreamManager(admin);
        await jsm.streams.add({ name: 'WATCH', subjects: ['watch.runs.>'], max_msgs_per_subject: 1, discard: 'new' as never, discard_new_per_subject: true });
      } finally {
        await admin.close();
      }
      const config = join(dir, 'jetstream.yaml');
      writeFileSync(config, `provider: script\nscript: none.json\nsession:\n  backend: jetstream\n  options:\n    stream: WATCH\nnats:\n  url: ${nats.url}\n`);
      const js = await measure(
        ['jetstream', nats.url, 'WATCH', 'watched', String(count), String(GAP_MS)],
        ['session', 'watch', 'watched', '--json', '--config', config],
        [process.execPath, RAW_FOLLOWER, nats.url, 'WATCH', 'watch.runs.watched.>'],
      );
      out.push(...rows(`JetStream (${serverName(nats.version)})`, 'bare ordered consumer', js, opts.quick));
    } finally {
      await nats.stop();
    }
  }
  return { rows: out, notes };
}
