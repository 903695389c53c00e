/**
 * A new one-turn run with the anthropic provider, through the binary, against
 * a local Messages API answering at once (bench/lib/messages-api.ts, in this
 * process, so spawn, request, answer and exit are on one clock): from spawn to
 * the first model request, against spawning `node -e 0` in alternating rounds;
 * and from the last byte of the answer to the process's exit, with the run's
 * terminal record in the journal once it has exited; that tail also for the
 * same run with no workspace tracked (what the end's snapshot adds). The
 * first request's figure is the median of the rounds' differences from the
 * bare start of the same round.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { anthropicConfig, API_ENV, MessagesApi } from './lib/messages-api.js';
import { spawnTimed, type Spawned } from './lib/proc.js';
import type { Section } from './lib/report.js';
import { aboveBare, mean, median, ms, pairedDifference, percentile } from './lib/stats.js';

const TARGET_MS = { request: 120, exit: 30 };

/**
 * The tail's baseline: a bare Node process that posts one request to the same
 * API (node:http, its default keep-alive agent), reads the answer to its end
 * and has nothing else to do, so it exits: what any Node client's exit costs
 * after a last byte on this machine at that moment.
 */
const BARE_CLIENT = `const r = require('node:http').request(process.argv[1] + '/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => res.resume()); r.end('{"model":"bench-model","max_tokens":1,"messages":[]}');`;

/** The last record of the only run in `state`'s file store, as stored. */
function lastRecord(state: string, before: ReadonlySet<string>): string {
  const runs = join(state, 'runs');
  const made = readdirSync(runs).filter((f) => f.endsWith('.jsonl') && !before.has(f));
  if (made.length !== 1) throw new Error(`expected one new run in ${runs}, found ${made.length}`);
  return readFileSync(join(runs, made[0]!), 'utf8').trimEnd().split('\n').at(-1)!;
}

export async function benchRun(opts: BenchOptions): Promise<Section> {
  const rounds = opts.quick ? 7 : 21;
  const dir = tempDir('run');
  const state = join(dir, 'state');
  const api = await MessagesApi.start();
  const config = join(dir, 'agent.yaml');
  writeFileSync(config, anthropicConfig(api, 'max_iterations: 4\n'));
  // The same run with no workspace tracked: what the end's snapshot adds to the tail.
  const untracked = join(dir, 'untracked.yaml');
  writeFileSync(untracked, anthropicConfig(api, 'max_iterations: 4\nworkspace: { track: false }\n'));
  const env = { ...process.env, ...API_ENV };
  const argsOf = (file: string): string[] => [process.execPath, BIN, 'run', '--config', file, '--state-dir', state, 'Say hello.'];
  const bare: number[] = [];
  const bareCpu: number[] = [];
  const runCpu: number[] = [];
  const toRequest: number[] = [];
  const toExit: number[] = [];
  const toExitUntracked: number[] = [];
  const toExitBare: number[] = [];
  const whole: number[] = [];
  const seen = new Set<string>();
  /** Runs `file`'s config once; the run's times, checked to have made one request and ended on its terminal record. */
  const runOnce = async (file: string): Promise<{ run: Spawned; arrived: number; answered: number }> => {
    api.reset();
    const run = await spawnTimed(argsOf(file), dir, env);
    const [call, ...more] = api.exchanges;
    if (run.code !== 0 || call?.answered === undefined || more.length > 0) throw new Error(`logbook run exited ${run.code} after ${api.exchanges.length} requests: ${run.stderr}`);
    const last = lastRecord(state, seen);
    if (!last.includes('"terminal":{"reason":"completed"')) throw new Error(`the run's last record is not its terminal record: ${last}`);
    for (const f of readdirSync(join(state, 'runs'))) seen.add(f);
    return { run, arrived: call.arrived, answered: call.answered };
  };
  try {
    for (let r = 0; r < rounds; r++) {
      const steps = [
        async () => {
          const b = await spawnTimed([process.execPath, '-e', '0'], dir);
          bare.push(b.exit - b.start);
          if (b.cpuMs !== null) bareCpu.push(b.cpuMs);
        },
        async () => {
          const { run, arrived, answered } = await runOnce(config);
          toRequest.push(arrived - run.start);
          toExit.push(run.exit - answered);
          whole.push(run.exit - run.start);
          if (run.cpuMs !== null) runCpu.push(run.cpuMs);
        },
        async () => {
          const { run, answered } = await runOnce(untracked);
          toExitUntracked.push(run.exit - answered);
        },
        async () => {
          api.reset();
          const client = await spawnTimed([process.execPath, '-e', BARE_CLIENT, api.url], dir);
          const [call, ...more] = api.exchanges;
          if (client.code !== 0 || call?.answered === undefined || more.length > 0) throw new Error(`the bare client exited ${client.code} after ${api.exchanges.length} requests: ${client.stderr}`);
          toExitBare.push(client.exit - call.answered);
        },
      ];
      if (r % 2 === 1) steps.reverse();
      for (const step of steps) await step();
    }
  } finally {
    await api.close();
  }
  const above = pairedDifference(toRequest, bare);
  const tail = median(toExit);
  const tailAbove = pairedDifference(toExit, toExitBare);
  return {
    rows: [
      {
        what: 'a new run (anthropic provider, a local Messages API) to its first model request',
        measured: ms(median(toRequest)),
        baseline: `\`node -e 0\`: ${ms(median(bare))}`,
        figure: aboveBare(above, { subject: runCpu, bare: bareCpu, what: 'CPU of the whole process' }),
        target: `≤ ${TARGET_MS.request} ms above`,
        verdict: above.median <= TARGET_MS.request ? 'met' : 'missed',
        growth: '—',
      },
      {
        what: 'the same run, from the last byte of its answer to the process exit (median)',
        measured: ms(tail),
        baseline: `a bare Node client's: ${ms(median(toExitBare))}`,
        figure: `${ms(tail)} (p90 ${ms(percentile(toExit, 90))}); ${ms(tailAbove.median)} above the bare client's (middle half of the rounds ${ms(tailAbove.p25)} to ${ms(tailAbove.p75)})`,
        target: `≤ ${TARGET_MS.exit} ms`,
        verdict: tail <= TARGET_MS.exit ? 'met' : 'missed',
        growth: '—',
      },
    ],
    notes: [
      `A new run: \`node bin/logbook run --config agent.yaml "Say hello."\` with the anthropic provider (its SDK, streaming) against a Messages API served by the benchmark's own process, which answers each request at once with one short text; ${rounds} rounds alternating with \`node -e 0\` (spawn to exit). The first request is timed from spawn to the request's arrival at the server (its headers), the tail from the server handing the answer's last byte to the socket to the process's exit; after each run its journal's last line is checked to be the run's terminal record. The run's workspace is the benchmark's directory (its config; the state directory inside it is left out), snapshotted at the run's end as a run's workspace is by default: from the second round on, a workspace whose index the state directory keeps, so the end's snapshot is one \`git add\`. The tail's baseline, in the same rounds: a bare Node process posting one request to the same API with \`node:http\` and exiting once it has read the answer (from the answer's last byte to its exit); the target is on the tail itself, the baseline says what exiting costs any Node client on the machine at that moment. The same run with \`workspace: { track: false }\`, in the same rounds: a tail of ${ms(median(toExitUntracked))} (p90 ${ms(percentile(toExitUntracked, 90))}). The figure above bare start-up is the median of the rounds' differences between the first request and the bare start of the same round; its CPU figure is of the whole run's process (through its exit, the workspace's \`git\` included) against \`node -e 0\`'s${bareCpu.length === 0 ? '' : `: ${ms(mean(runCpu))} and ${ms(mean(bareCpu))}, means of the rounds`}; the whole process took ${ms(median(whole))} (wall).`,
    ],
  };
}
