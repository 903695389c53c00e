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
import { count, median, ms, num, percentile } from './lib/stats.js';

const TARGET_MS = 300;
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

export async function benchResume(opts: BenchOptions): Promise<Section> {
  const records = opts.quick ? 2_000 : 10_000;
  const rounds = opts.quick ? 5 : 15;
  const dir = tempDir('resume');
  const config = join(dir, 'agent.yaml');
  const state = join(dir, 'state');
  const journal = join(state, 'runs', `${ID}.jsonl`);
  const pristine = join(dir, 'pristine.jsonl');
  const log = join(dir, 'requests.log');
  writeFileSync(config, CONFIG);
  writeFileSync(join(dir, 'script.json'), JSON.stringify({ turns: [{ text: 'only turn' }] }));

  // The binary creates the run (and so its fingerprint): its one scripted turn completes it, and only its meta is kept.
  const created = await timeProcess([process.execPath, BIN, 'run', '--config', config, '--state-dir', state, '--name', ID, 'Read the sources and report.'], dir, process.env);
  const first = decodeRecord(readFileSync(journal, 'utf8').split('\n')[0]!);
  if (!('meta' in first)) throw new Error(`the run was not created: ${created.stderr}`);
  const written = writeJournal(pristine, ID, records, first.meta.fingerprint);
  const turns = turnsIn(written);

  const resumeArgs = [process.execPath, BIN, 'run', '--config', config, '--state-dir', state, '--resume', ID, '--no-tui'];
  const resumeTimes: number[] = [];
  const exitTimes: number[] = [];
  const bareTimes: number[] = [];
  const resume = async (): Promise<void> => {
    copyFileSync(pristine, journal);
    rmSync(log, { force: true });
    const r = await timeToFirstLine(resumeArgs, log, dir, { ...process.env, LOGBOOK_SCRIPT_LOG: log });
    const asked = readFileSync(log, 'utf8').trim();
    if (asked !== `{"turn":${turns}}`) throw new Error(`the resume asked for ${asked}, expected turn ${turns}: ${r.exit.stderr}`);
    resumeTimes.push(r.ms);
    exitTimes.push(r.exit.ms);
  };
  const bare = async (): Promise<void> => {
    const r = await timeProcess([process.execPath, '-e', '0'], state);
    bareTimes.push(r.ms);
  };
  const versionTimes: number[] = [];
  const version = async (): Promise<void> => {
    const r = await timeProcess([process.execPath, BIN, '--version'], state);
    versionTimes.push(r.ms);
  };
  const showTimes: number[] = [];
  const show = async (): Promise<void> => {
    copyFileSync(pristine, journal);
    const r = await timeProcess([process.execPath, BIN, 'session', 'show', ID, '--state-dir', state], state); // no agent.yaml there
    if (r.code !== 0) throw new Error(`session show failed: ${r.stderr}`);
    showTimes.push(r.ms);
  };
  for (let r = 0; r < rounds; r++) {
    const steps = [resume, bare, version, show];
    if (r % 2 === 1) steps.reverse();
    for (const step of steps) await step();
  }
  const toRequest = median(resumeTimes);
  const bareMs = median(bareTimes);
  const above = toRequest - bareMs;
  // Rounds pair one resume with one bare start: the middle half of their differences.
  const diffs = resumeTimes.map((t, i) => t - bareTimes[i]!);
  const spread = `${ms(percentile(diffs, 25))}–${ms(percentile(diffs, 75))}`;
  return {
    rows: [
      {
        what: `resume of a ${count(written)}-record run to the first model request (script provider, through the binary)`,
        measured: ms(toRequest),
        baseline: `\`node -e 0\`: ${ms(bareMs)}`,
        figure: `${ms(above)} above bare start-up`,
        target: `< ${TARGET_MS} ms above`,
        verdict: opts.quick ? '—' : above < TARGET_MS ? 'met' : 'missed', // the target is for 10k records
        growth: '—',
      },
    ],
    notes: [
      `Resume: \`node bin/logbook run --resume ID\` on a run of ${num(written)} records (meta and ${num(turns)} turns of an assistant record and its tool result), timed from spawn until the script provider logs the request for turn ${num(turns)}; medians of ${rounds} rounds alternating with \`node -e 0\` (spawn to exit); the middle half of the rounds were ${spread} above it. The whole resumed process, including its exit after the failing request, takes ${ms(median(exitTimes))}; in the same rounds \`logbook --version\` (Node and the command's own start-up) takes ${ms(median(versionTimes))} and \`logbook session show ID\` (start-up, reading and folding the run) ${ms(median(showTimes))}; the rest of a resume is loading the config, YAML and Ajv, the provider and tools, the resume gates and the narration of the run's ${num(turns)} turns on stderr.`,
    ],
  };
}
