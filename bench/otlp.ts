/**
 * What sending a run's OpenTelemetry spans live costs it: a 200-turn run
 * through the binary (script provider, one tool call a turn), with `otel:`
 * pointing at an OTLP/HTTP endpoint in this process, against the same run with
 * no `otel:`, in alternating rounds, spawn to exit.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { timeProcess } from './lib/proc.js';
import type { Section } from './lib/report.js';
import { median, ms, num, percentile, ratio } from './lib/stats.js';

const TARGET = 1.05;

function config(otel: string): string {
  return `provider: script
script: script.json
max_iterations: 100000
tools:
  - name: noop
    description: Does nothing
    input_schema: { type: object, properties: {} }
    command: ['true']
${otel}`;
}

/** An OTLP/HTTP endpoint that takes every request (protobuf), counting the bytes it got. */
async function collector(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server = createServer((req, res) => {
    req.on('data', () => {});
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function benchOtlp(opts: BenchOptions): Promise<Section> {
  const turns = opts.quick ? 50 : 200;
  const rounds = opts.quick ? 3 : 7;
  const dir = tempDir('otlp');
  const sink = await collector();
  try {
    const script = { turns: [...Array.from({ length: turns }, () => ({ text: 'again', tool_calls: [{ name: 'noop', input: {} }] })), { text: 'done' }] };
    writeFileSync(join(dir, 'script.json'), JSON.stringify(script));
    writeFileSync(join(dir, 'off.yaml'), config(''));
    writeFileSync(join(dir, 'on.yaml'), config(`otel:\n  endpoint: ${sink.url}\n`));
    const state = join(dir, 'state');
    const off: number[] = [];
    const on: number[] = [];
    const run = async (which: 'on' | 'off', round: number): Promise<void> => {
      const id = `bench-otlp-${which}-${round}`;
      const r = await timeProcess([process.execPath, BIN, 'run', '--config', join(dir, `${which}.yaml`), '--state-dir', state, '--name', id, '--no-tui', 'go'], dir);
      if (r.code !== 0) throw new Error(`the ${which} run failed: ${r.stderr}`);
      (which === 'on' ? on : off).push(r.ms);
      rmSync(join(state, 'runs'), { recursive: true, force: true });
    };
    for (let round = 0; round < rounds; round++) {
      const order: ('on' | 'off')[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      for (const which of order) await run(which, round);
    }
    const figure = median(on) / median(off);
    const diffs = on.map((t, i) => t / off[i]!);
    return {
      rows: [
        {
          what: `a ${num(turns)}-turn run (a tool call a turn) with its spans sent live over OTLP/HTTP, against the same run without`,
          measured: ms(median(on)),
          baseline: `no \`otel:\`: ${ms(median(off))}`,
          figure: ratio(figure),
          target: `≤ ${TARGET}×`,
          verdict: opts.quick ? '—' : figure <= TARGET ? 'met' : 'missed',
          growth: '—',
        },
      ],
      notes: [
        `OTLP: \`logbook run\` of ${num(turns)} scripted turns, each a model turn and one call of a tool that runs \`true\`, then an answer (${num(2 * turns + 3)} records), spawn to exit; medians of ${rounds} rounds alternating a run whose config sends its spans to an OTLP/HTTP endpoint in the bench's own process (protobuf; ${num(sink.requests())} requests taken in all) with the same run without \`otel:\`; per round the ratio was ${ratio(percentile(diffs, 25))}–${ratio(percentile(diffs, 75))} (middle half).`,
      ],
    };
  } finally {
    await sink.close();
  }
}
