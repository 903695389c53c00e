/**
 * Resuming a long run through the binary, up to its first model request, with
 * the anthropic provider against a local Messages API (bench/lib/messages-api.ts,
 * in this process: the request's arrival is timed on the benchmark's clock).
 * The run ends on a complete turn (no pending batch), so no tool runs first:
 * what is measured is start-up, reading, folding and gating the journal, and
 * making the request of the whole conversation; the API's answer then
 * completes the run. Compared with spawning `node -e 0`, in alternating rounds.
 */
import { closeSync, copyFileSync, cpSync, existsSync, fsyncSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { decodeRecord } from 'logbook';
import { TOOL_NAME, turnsIn, writeJournal } from './lib/content.js';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { anthropicConfig, API_ENV, MessagesApi } from './lib/messages-api.js';
import { spawnTimed, timeProcess } from './lib/proc.js';
import type { Section } from './lib/report.js';
import { aboveBare, bytes, count, growthVerdict, mean, median, ms, num, pairedDifference, type GrowthPoint } from './lib/stats.js';

const TARGET_MS = 150;
const ID = 'bench-resume';
/** Lines of each tool result: about 250 bytes a record, so 10,000 records are a conversation of about 2.5 MB. */
const OUTPUT_LINES = 2;
/** The other runs beside the run in the crowded store, each a journal and its notes (a file each, as a file store keeps them). */
const OTHER_RUNS = 10_000;
const OTHER_NOTES = ['started', 'turn-2', 'sent-0-00000000', 'cost-0-00000000'];

const CONFIG = `system: You inspect source code.
max_iterations: 1000000
tools:
  - name: ${TOOL_NAME}
    description: Read a file
    input_schema: { type: object, properties: { path: { type: string } }, required: [path] }
    command: [cat, '{{path}}']
`;

interface ResumeFigures {
  records: number;
  /** The journal's size in bytes, and the size of the request that resumed it. */
  journalBytes: number;
  requestBytes: number;
  turns: number;
  rounds: number;
  /** With the fold checkpoint the binary kept of the run (a first, untimed, resume wrote it). */
  toRequest: number[];
  /** The same resume with the checkpoint removed before it: the whole run read, checked and folded. */
  toRequestWhole: number[];
  exit: number[];
  bare: number[];
  /** CPU time of each resume of `toRequest` (its whole process) and of each bare start. */
  resumeCpu: number[];
  bareCpu: number[];
  version: number[];
  show: number[];
  /** A follow-up of the run completed (`run --resume ID PROMPT`: a fork of it, then its request), with `others`. */
  followUp: number[];
  /** The resume of `toRequest` in a store holding OTHER_RUNS other runs beside it, with `others`. */
  crowded: number[];
  /** The follow-up of `followUp` in the store of `crowded`, with `others`. */
  crowdedFollowUp: number[];
  /** The same in a store laid out as that one, in a directory of its own, without the other runs, with `others`. */
  soloFollowUp: number[];
  crowdedFiles: number;
}

/** Writes `count` other runs into `runs`: a one-line journal each (the meta of `metaLine` under its id) and OTHER_NOTES beside it. */
function writeOtherRuns(runs: string, metaLine: string, count: number): number {
  let files = 0;
  for (let i = 0; i < count; i++) {
    const id = `other-${String(i).padStart(5, '0')}`;
    writeFileSync(join(runs, `${id}.jsonl`), `${metaLine.replace(`"run_id":"${ID}"`, `"run_id":"${id}"`)}\n`);
    for (const key of OTHER_NOTES) writeFileSync(join(runs, `${id}.${key}.note`), '{}');
    files += 1 + OTHER_NOTES.length;
  }
  // Made durable once here, so no timed resume's first fsync pays for committing their creation.
  const fd = openSync(runs, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return files;
}

/**
 * Resumes a run of `records` records `rounds` times, alternating with `node -e
 * 0` (and, with `others`, with `logbook --version` and `session show ID`).
 */
async function measure(api: MessagesApi, records: number, rounds: number, others: boolean): Promise<ResumeFigures> {
  const dir = tempDir(`resume-${records}`);
  const config = join(dir, 'agent.yaml');
  const state = join(dir, 'state');
  const journal = join(state, 'runs', `${ID}.jsonl`);
  const checkpoint = join(state, 'runs', `${ID}.fold`);
  const pristine = join(dir, 'pristine.jsonl');
  writeFileSync(config, anthropicConfig(api, CONFIG));
  const env = { ...process.env, ...API_ENV };

  // The binary creates the run (and so its fingerprint): the API's answer completes it, and only its meta is kept.
  const created = await timeProcess([process.execPath, BIN, 'run', '--config', config, '--state-dir', state, '--name', ID, 'Read the sources and report.'], dir, { env });
  const first = decodeRecord(readFileSync(journal, 'utf8').split('\n')[0]!);
  if (!('meta' in first)) throw new Error(`the run was not created: ${created.stderr}`);
  const written = writeJournal(pristine, ID, records, first.meta.fingerprint, OUTPUT_LINES);
  const turns = turnsIn(written);

  const resumeArgs = [process.execPath, BIN, 'run', '--config', config, '--state-dir', state, '--resume', ID, '--no-tui'];
  const out: ResumeFigures = { records: written, journalBytes: statSync(pristine).size, requestBytes: 0, turns, rounds, toRequest: [], toRequestWhole: [], exit: [], bare: [], resumeCpu: [], bareCpu: [], version: [], show: [], followUp: [], crowded: [], crowdedFollowUp: [], soloFollowUp: [], crowdedFiles: 0 };
  // The runs directory as a round starts from it, every file's bytes: what a resume leaves beside the run (its call's
  // `sent` note, the times it appends, a workspace note of a seq the generated journal does not reach) is gone again.
  const runs = join(state, 'runs');
  const snapshot = (): Map<string, Buffer> => new Map(readdirSync(runs).map((name) => [name, readFileSync(join(runs, name))]));
  // `owned`: the names it may remove (in the crowded store, the run's own files, not the other runs').
  const restore = (files: ReadonlyMap<string, Buffer>, dir = runs, owned = (_name: string): boolean => true): void => {
    for (const name of readdirSync(dir)) if (owned(name) && !files.has(name)) rmSync(join(dir, name), { force: true });
    for (const [name, bytes] of files) writeFileSync(join(dir, name), bytes);
  };
  // What the first resume reads: the generated journal beside the notes of the run that created it.
  copyFileSync(pristine, journal);
  const before = snapshot();
  let start: ReadonlyMap<string, Buffer> | null = null;
  const resumeTimed = async (whole: boolean): Promise<void> => {
    if (start !== null) restore(start);
    if (whole) rmSync(checkpoint, { force: true });
    else if (!existsSync(checkpoint)) throw new Error(`no fold checkpoint beside ${journal}: the first resume kept none`);
    api.reset();
    const r = await spawnTimed(resumeArgs, dir, env);
    const [call, ...more] = api.exchanges;
    if (r.code !== 0 || call === undefined || more.length > 0) throw new Error(`the resume exited ${r.code} after ${api.exchanges.length} requests: ${r.stderr}`);
    out.requestBytes = call.bytes ?? 0;
    if (whole) {
      out.toRequestWhole.push(call.arrived - r.start);
      return;
    }
    out.toRequest.push(call.arrived - r.start);
    out.exit.push(r.exit - r.start);
    if (r.cpuMs !== null) out.resumeCpu.push(r.cpuMs);
  };
  const resume = (): Promise<void> => resumeTimed(false);
  const resumeWhole = (): Promise<void> => resumeTimed(true);
  const bare = async (): Promise<void> => {
    const r = await timeProcess([process.execPath, '-e', '0'], state);
    out.bare.push(r.ms);
    if (r.cpuMs !== null) out.bareCpu.push(r.cpuMs);
  };
  const version = async (): Promise<void> => {
    out.version.push((await timeProcess([process.execPath, BIN, '--version'], state)).ms);
  };
  const show = async (): Promise<void> => {
    restore(start!);
    const r = await timeProcess([process.execPath, BIN, 'session', 'show', ID, '--state-dir', state], state); // no agent.yaml there
    if (r.code !== 0) throw new Error(`session show failed: ${r.stderr}`);
    out.show.push(r.ms);
  };
  // A first resume, untimed, keeps the run's fold checkpoint (of the generated journal's lines, written by the binary) after its request.
  await resumeWhole();
  out.toRequestWhole.length = 0;
  // Every later round reads what the first did, and the checkpoint it kept.
  start = new Map([...before, [basename(checkpoint), readFileSync(checkpoint)]]);
  // The run as that resume completed it, with what it left beside it: where each follow-up starts.
  const completed = others ? snapshot() : new Map<string, Buffer>();
  const followUp = async (): Promise<void> => {
    restore(completed);
    api.reset();
    const r = await spawnTimed([...resumeArgs, 'and then?'], dir, env);
    const [call, ...more] = api.exchanges;
    if (r.code !== 0 || call === undefined || more.length > 0) throw new Error(`the follow-up exited ${r.code} after ${api.exchanges.length} requests: ${r.stderr}`);
    out.followUp.push(call.arrived - r.start);
  };
  // The same run, checkpoint and state in a store that also holds OTHER_RUNS other runs: generated once; each round puts back the run's own files.
  // A directory of its own, with its config: inside `dir` its 50,000 files would be in the other resumes' workspace, and `dir`'s in its.
  const crowdedDir = others ? tempDir(`resume-${records}-crowded`) : dir;
  const crowdedState = join(crowdedDir, 'state');
  const crowdedRuns = join(crowdedState, 'runs');
  // The same, without the other runs: what the crowded follow-up is compared with, its workspace as small.
  const soloDir = others ? tempDir(`resume-${records}-solo`) : dir;
  if (others) {
    restore(start);
    cpSync(state, crowdedState, { recursive: true });
    copyFileSync(config, join(crowdedDir, 'agent.yaml'));
    cpSync(state, join(soloDir, 'state'), { recursive: true });
    copyFileSync(config, join(soloDir, 'agent.yaml'));
    out.crowdedFiles = writeOtherRuns(crowdedRuns, readFileSync(journal, 'utf8').split('\n')[0]!, OTHER_RUNS) + start.size;
  }
  const argsIn = (where: string): string[] => resumeArgs.map((arg) => (arg === state ? join(where, 'state') : arg === config ? join(where, 'agent.yaml') : arg));
  const crowdedArgs = argsIn(crowdedDir);
  const crowded = async (): Promise<void> => {
    restore(start!, crowdedRuns, (name) => name.startsWith(`${ID}.`));
    api.reset();
    const r = await spawnTimed(crowdedArgs, crowdedDir, env);
    const [call, ...more] = api.exchanges;
    if (r.code !== 0 || call === undefined || more.length > 0) throw new Error(`the crowded resume exited ${r.code} after ${api.exchanges.length} requests: ${r.stderr}`);
    out.crowded.push(call.arrived - r.start);
  };
  // The follow-up in the crowded store: each round puts back the run as completed and removes the fork the last one
  // made (every file but the other runs' and the listing index kept beside them, as a store keeps it from listing to listing).
  const crowdedOwn = (name: string): boolean => !name.startsWith('other-') && !name.startsWith('.');
  const completedOwn = new Map([...completed].filter(([name]) => crowdedOwn(name)));
  const followUpIn = (where: string, times: number[]) => async (): Promise<void> => {
    restore(completedOwn, join(where, 'state', 'runs'), crowdedOwn);
    api.reset();
    const r = await spawnTimed([...argsIn(where), 'and then?'], where, env);
    const [call, ...more] = api.exchanges;
    if (r.code !== 0 || call === undefined || more.length > 0) throw new Error(`the follow-up in ${where} exited ${r.code} after ${api.exchanges.length} requests: ${r.stderr}`);
    times.push(call.arrived - r.start);
  };
  const crowdedFollowUp = followUpIn(crowdedDir, out.crowdedFollowUp);
  const soloFollowUp = followUpIn(soloDir, out.soloFollowUp);
  if (others) {
    await crowded(); // untimed: the first reading of the crowded directory
    out.crowded.length = 0;
    // Untimed: the first lineage read in each (a listing of the store, where one is made, keeps its index).
    await crowdedFollowUp();
    await soloFollowUp();
    out.crowdedFollowUp.length = 0;
    out.soloFollowUp.length = 0;
  }
  for (let r = 0; r < rounds; r++) {
    const steps = others ? [resume, bare, resumeWhole, version, show, followUp, crowded, crowdedFollowUp, soloFollowUp] : [resume, bare, resumeWhole];
    if (r % 2 === 1) steps.reverse();
    for (const step of steps) await step();
  }
  return out;
}

/** A difference of two medians in words: `N ms above`, or `N ms below` where it is negative. */
const aboveOrBelow = (diff: number): string => (diff < 0 ? `${ms(-diff)} below` : `${ms(diff)} above`);

export async function benchResume(opts: BenchOptions): Promise<Section> {
  const target = opts.quick ? 2_000 : 10_000;
  const sizes = opts.quick ? [1_000, 2_000] : [1_000, 10_000, 100_000];
  const all: ResumeFigures[] = [];
  const api = await MessagesApi.start();
  try {
    for (const n of sizes) all.push(await measure(api, n, n >= 100_000 ? 5 : opts.quick ? 5 : 15, n === target));
  } finally {
    await api.close();
  }
  const at = all[sizes.indexOf(target)]!;
  // Each round measures every side once: each figure is the median of the rounds' differences.
  const above = (f: ResumeFigures): number => pairedDifference(f.toRequest, f.bare).median;
  const aboveAt = pairedDifference(at.toRequest, at.bare);
  const paired = (xs: readonly number[], ys: readonly number[]): string => aboveOrBelow(pairedDifference(xs, ys).median);
  const points: GrowthPoint[] = all.map((f) => ({ n: f.records, ms: median(f.toRequest) }));
  const bareAll = median(all.flatMap((f) => f.bare));
  return {
    rows: [
      {
        what: `resume of a ${count(at.records)}-record run (a conversation of ${bytes(at.requestBytes)}) to its first model request (anthropic provider, a local Messages API, through the binary)`,
        measured: ms(median(at.toRequest)),
        baseline: `\`node -e 0\`: ${ms(median(at.bare))}`,
        figure: aboveBare(aboveAt, { subject: at.resumeCpu, bare: at.bareCpu, what: 'CPU of the whole process' }),
        target: `≤ ${TARGET_MS} ms above`,
        verdict: opts.quick ? '—' : aboveAt.median <= TARGET_MS ? 'met' : 'missed', // the target is for 10k records
        growth: `${all.map((f) => `${count(f.records)}: ${aboveOrBelow(above(f))}`).join(' · ')}; ${growthVerdict(points, bareAll)} above start-up`,
      },
      {
        what: `the same resume of the ${count(at.records)}-record run without its fold checkpoint (removed before each: the whole run read, checked and folded)`,
        measured: ms(median(at.toRequestWhole)),
        baseline: `\`node -e 0\`: ${ms(median(at.bare))}`,
        figure: `${paired(at.toRequestWhole, at.bare)} bare start-up`,
        target: '—',
        verdict: '—',
        growth: all.map((f) => `${count(f.records)}: ${paired(f.toRequestWhole, f.bare)}`).join(' · '),
      },
      {
        what: `follow-up of a completed ${count(at.records)}-record run (\`run --resume ID PROMPT\`: the run forked whole, then the fork's first model request; anthropic provider, through the binary)`,
        measured: ms(median(at.followUp)),
        baseline: `\`node -e 0\`: ${ms(median(at.bare))}`,
        figure: `${paired(at.followUp, at.bare)} bare start-up`,
        target: '—',
        verdict: '—',
        growth: '—',
      },
      {
        what: `the same resume of the ${count(at.records)}-record run (with its fold checkpoint) in a file store holding ${count(OTHER_RUNS)} other runs beside it (${count(at.crowdedFiles)} files in its runs directory)`,
        measured: ms(median(at.crowded)),
        baseline: `\`node -e 0\`: ${ms(median(at.bare))}`,
        figure: `${paired(at.crowded, at.bare)} bare start-up (${paired(at.crowded, at.toRequest)} the resume alone in its store)`,
        target: '—',
        verdict: '—',
        growth: '—',
      },
      {
        what: `the same follow-up of the ${count(at.records)}-record run in that file store of ${count(OTHER_RUNS)} other runs (its conversation priced from its runs alone)`,
        measured: ms(median(at.crowdedFollowUp)),
        baseline: `\`node -e 0\`: ${ms(median(at.bare))}`,
        figure: `${paired(at.crowdedFollowUp, at.bare)} bare start-up (${paired(at.crowdedFollowUp, at.soloFollowUp)} the same follow-up in a store of its run alone, laid out alike: ${ms(median(at.soloFollowUp))})`,
        target: '—',
        verdict: '—',
        growth: '—',
      },
    ],
    notes: [
      `Resume: \`node bin/logbook run --resume ID\` with the anthropic provider on a run of ${num(at.records)} records (${bytes(at.journalBytes)}: meta and ${num(at.turns)} turns of an assistant record and its tool result of two lines), timed from spawn to the arrival of its request (${bytes(at.requestBytes)}, the whole conversation) at a Messages API in the benchmark's process; ${at.rounds} rounds alternating with \`node -e 0\` (spawn to exit), every other round in reverse order; each figure above bare start-up (or above another row) is the median of the rounds' differences between the two, measured in the same round, and the growth column's likewise at each size.${at.bareCpu.length === 0 ? '' : ` CPU time (means of the rounds): the resume's whole process ${ms(mean(at.resumeCpu))}, \`node -e 0\` ${ms(mean(at.bareCpu))}.`} The whole resumed process, including the answer that completes the run and its exit, takes ${ms(median(at.exit))}; in the same rounds \`logbook --version\` takes ${ms(median(at.version))} and \`logbook session show ID\` (start-up, reading and folding the run) ${ms(median(at.show))}. A follow-up of the run as a resume completes it (\`run --resume ID "and then?"\`: the completed run is forked whole, its ${num(at.records)} records copied, and the fork's request sent) takes ${ms(median(at.followUp))} to its request in the same rounds. The crowded row is the resume of the first row with the same run, checkpoint and state directory copied to a directory of its own (its working directory, so neither resume has the other's files in its workspace), in a runs directory that also holds ${num(OTHER_RUNS)} other runs (a one-line journal and ${OTHER_NOTES.length} notes each, generated once; each round puts back the run's own files): a file store keeps a run's notes as files beside its journal, so each listing of the run's notes reads the whole directory, and what it measures is what those listings before the first request add for a person with many runs (the resume lists them once). The crowded follow-up is the follow-up row's in that store, each round from the run as completed, the fork the round before made removed, compared with the same in a store of the run alone in a directory of its own laid out alike (its workspace as small, where the follow-up row's holds the generated journal): a follow-up forks the run and prices the conversation, which it finds from the origin notes beside the runs (one directory read names the runs and their notes; only the runs the origins join to it are read), so the other runs cost it their names in that read, not their journals. Every timed resume but those of the row without one has the run's fold checkpoint beside its journal (\`<id>.fold\`: the folded state through the journal's last line, with the SHA-256 of its ${bytes(at.journalBytes)}), which a first, untimed, resume of each size wrote once its request was sent; each round puts back, byte for byte, what the runs directory held when the first resume began (the generated journal and the notes of the run that created it) with the checkpoint that resume kept, and removes all else (what a resume leaves beside the run: its call's \`sent\` note, the times it appends), so every round reads what the first read, the checkpoint covers the whole of what the resume reads, and the resume checks the journal's bytes against it, then folds nothing after it. In the same rounds the resume with the checkpoint removed before it (every line read, decoded with its checks and folded, as a first resume of a run does; it writes the checkpoint again) takes ${ms(median(at.toRequestWhole))}. Growth: the same at ${all.map((f) => `${num(f.records)} records (${f.rounds} rounds)`).join(', ')}. The first resume of each size loads the price table for the model's context window (a compaction is weighed before the request); the later rounds take what it said from the state directory's context-windows.json, as every later process with that table does.`,
    ],
  };
}
