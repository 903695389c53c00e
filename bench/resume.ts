/**
 * Resuming a long run through the binary, up to its first model request: the
 * script provider logs each request to LOGBOOK_SCRIPT_LOG, and its script has
 * too few turns, so the run stops with an error right after logging. The run
 * ends on a complete turn (no pending batch), so no tool runs first: what is
 * measured is start-up plus reading, folding and gating the journal. Compared
 * with spawning `node -e 0`, in alternating rounds.
 */
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeRecord } from 'logbook';
import { TOOL_NAME, turnsIn, writeJournal } from './lib/content.js';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { timeProcess, timeToFirstLine } from './lib/proc.js';
import type { Section } from './lib/report.js';
import { count, growthVerdict, median, ms, num, percentile, type GrowthPoint } from './lib/stats.js';

const TARGET_MS = 150;
const ID = 'bench-resume';

const CONFIG = `provider: script
script: script.json
system: You inspect source code.
max_iterations: 1000000
tools:
  - name: ${TOOL_NAME}
    description: Read a file
    input_schema: { type: object, properties: { path: { type: string } }, required: [path] }
    command: [cat, '{{path}}']
`;

interface ResumeFigures {
  records: number;
  turns: number;
  rounds: number;
  toRequest: number[];
  exit: number[];
  bare: number[];
  version: number[];
  show: number[];
}

/**
 * Resumes a run of `records` records `rounds` times, alternating with `node -e
 * 0` (and, with `others`, with `logbook --version` and `session show ID`).
 */
async function measure(records: number, rounds: number, others: boolean): Promise<ResumeFigures> {
  const dir = tempDir(`resume-${records}`);
  const config = join(dir, 'agent.yaml');
  const state = join(dir, 'state');
  const journal = join(state, 'runs', `${ID}.jsonl`);
  const pristine = join(dir, 'pristine.jsonl');
  const log = join(dir, 'requests.log');
  writeFileSync(config, CONFIG);
  writeFileSync(join(dir, 'script.json'), JSON.stringify({ turns: [{ text: 'only turn' }] }));

  // The binary creates the run (and so its fingerprint): its one scripted turn completes it, and only its meta is kept.
  const created = await timeProcess([process.execPath, BIN, 'run', '--config', config, '--state-dir', state, '--name', ID, 'Read the sources and report.'], dir);
  const first = decodeRecord(readFileSync(journal, 'utf8').split('\n')[0]!);
  if (!('meta' in first)) throw new Error(`the run was not created: ${created.stderr}`);
  const written = writeJournal(pristine, ID, records, first.meta.fingerprint);
  const turns = turnsIn(written);

  const resumeArgs = [process.execPath, BIN, 'run', '--config', config, '--state-dir', state, '--resume', ID, '--no-tui'];
  const out: ResumeFigures = { records: written, turns, rounds, toRequest: [], exit: [], bare: [], version: [], show: [] };
  const resume = async (): Promise<void> => {
    copyFileSync(pristine, journal);
    rmSync(log, { force: true });
    const r = await timeToFirstLine(resumeArgs, log, dir, { ...process.env, LOGBOOK_SCRIPT_LOG: log });
    const asked = readFileSync(log, 'utf8').trim();
    if (asked !== `{"turn":${turns}}`) throw new Error(`the resume asked for ${asked}, expected turn ${turns}: ${r.exit.stderr}`);
    out.toRequest.push(r.ms);
    out.exit.push(r.exit.ms);
  };
  const bare = async (): Promise<void> => {
    out.bare.push((await timeProcess([process.execPath, '-e', '0'], state)).ms);
  };
  const version = async (): Promise<void> => {
    out.version.push((await timeProcess([process.execPath, BIN, '--version'], state)).ms);
  };
  const show = async (): Promise<void> => {
    copyFileSync(pristine, journal);
    const r = await timeProcess([process.execPath, BIN, 'session', 'show', ID, '--state-dir', state], state); // no agent.yaml there
    if (r.code !== 0) throw new Error(`session show failed: ${r.stderr}`);
    out.show.push(r.ms);
  };
  for (let r = 0; r < rounds; r++) {
    const steps = others ? [resume, bare, version, show] : [resume, bare];
    if (r % 2 === 1) steps.reverse();
    for (const step of steps) await step();
  }
  return out;
}

export async function benchResume(opts: BenchOptions): Promise<Section> {
  const target = opts.quick ? 2_000 : 10_000;
  const sizes = opts.quick ? [1_000, 2_000] : [1_000, 10_000, 100_000];
  const all: ResumeFigures[] = [];
  for (const n of sizes) all.push(await measure(n, n >= 100_000 ? 5 : opts.quick ? 5 : 15, n === target));
  const at = all[sizes.indexOf(target)]!;
  const above = (f: ResumeFigures): number => median(f.toRequest) - median(f.bare);
  // Rounds pair one resume with one bare start: the middle half of their differences.
  const diffs = at.toRequest.map((t, i) => t - at.bare[i]!);
  const spread = `${ms(percentile(diffs, 25))}–${ms(percentile(diffs, 75))}`;
  const points: GrowthPoint[] = all.map((f) => ({ n: f.records, ms: median(f.toRequest) }));
  const bareAll = median(all.flatMap((f) => f.bare));
  return {
    rows: [
      {
        what: `resume of a ${count(at.records)}-record run to the first model request (script provider, through the binary)`,
        measured: ms(median(at.toRequest)),
        baseline: `\`node -e 0\`: ${ms(median(at.bare))}`,
        figure: `${ms(above(at))} above bare start-up`,
        target: `≤ ${TARGET_MS} ms above`,
        verdict: opts.quick ? '—' : above(at) <= TARGET_MS ? 'met' : 'missed', // the target is for 10k records
        growth: `${all.map((f) => `${count(f.records)}: ${ms(above(f))} above`).join(' · ')}; ${growthVerdict(points, bareAll)} above start-up`,
      },
    ],
    notes: [
      `Resume: \`node bin/logbook run --resume ID\` on a run of ${num(at.records)} records (meta and ${num(at.turns)} turns of an assistant record and its tool result), timed from spawn until the script provider logs the request for turn ${num(at.turns)}; medians of ${at.rounds} rounds alternating with \`node -e 0\` (spawn to exit); the middle half of the rounds were ${spread} above it. The whole resumed process, including its exit after the failing request, takes ${ms(median(at.exit))}; in the same rounds \`logbook --version\` takes ${ms(median(at.version))} and \`logbook session show ID\` (start-up, reading and folding the run) ${ms(median(at.show))}. Growth: the same at ${all.map((f) => `${num(f.records)} records (${f.rounds} rounds)`).join(', ')}.`,
    ],
  };
}
