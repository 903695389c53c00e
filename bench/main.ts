/**
 * `npm run bench [-- --quick] [-- --write-docs] [-- --only append,fold]`: runs
 * the benchmarks against the built package and prints one markdown table. Each
 * figure is measured in the same run as what it is compared with, the two
 * alternating round by round; each benchmark starts from the same state
 * whatever ran before it, and the table says how much of the machine other
 * processes held while it ran (their work slows both sides of a comparison,
 * and a difference grows with it). Targets are reported, never asserted.
 * --write-docs puts the table in docs/performance.md.
 */
import { join } from 'node:path';
import { benchA2AHttp } from './a2a-http.js';
import { benchAppend } from './append.js';
import { benchCompaction } from './compaction.js';
import { childrenReaped, cpuBetween, sampleCpu } from './lib/cpu.js';
import { ROOT, machine, removeTempDirs, settleDisk, type BenchOptions } from './lib/env.js';
import { busySections, report, writeDocs, type Section } from './lib/report.js';
import { benchFold } from './fold.js';
import { benchJetStream } from './jetstream.js';
import { benchLangGraph } from './langgraph.js';
import { benchList } from './list.js';
import { benchOtlp } from './otlp.js';
import { benchResume } from './resume.js';
import { benchRun } from './run.js';
import { benchSearch } from './search.js';
import { benchShow } from './show.js';
import { benchStartup } from './startup.js';
import { benchStream } from './stream.js';
import { benchUi } from './ui.js';
import { benchTasks } from './tasks.js';
import { benchWatch } from './watch.js';
import { benchWorkspace } from './workspace.js';
import { ms, now, settle } from './lib/stats.js';

const BENCHES: Record<string, (opts: BenchOptions) => Promise<Section>> = {
  startup: benchStartup,
  run: benchRun,
  append: benchAppend,
  fold: benchFold,
  list: benchList,
  show: benchShow,
  resume: benchResume,
  search: benchSearch,
  watch: benchWatch,
  stream: benchStream,
  ui: benchUi,
  otlp: benchOtlp,
  compaction: benchCompaction,
  jetstream: benchJetStream,
  tasks: benchTasks,
  'a2a-http': benchA2AHttp,
  langgraph: benchLangGraph,
  workspace: benchWorkspace,
};

function usage(message: string): never {
  process.stderr.write(`bench: ${message}\nusage: npm run bench -- [--quick] [--write-docs] [--only ${Object.keys(BENCHES).join(',')}]\n`);
  process.exit(2);
}

function parseArgs(argv: string[]): { opts: BenchOptions; writeDocs: boolean; only: string[] } {
  let quick = false;
  let write = false;
  let only = Object.keys(BENCHES);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--quick') quick = true;
    else if (a === '--write-docs') write = true;
    else if (a === '--only' || a.startsWith('--only=')) {
      const list = a === '--only' ? argv[++i] : a.slice('--only='.length);
      if (!list) usage('--only needs a list of benchmarks');
      only = list.split(',');
      for (const name of only) if (!(name in BENCHES)) usage(`no benchmark "${name}"`);
    } else usage(`unknown argument ${a}`);
  }
  if (write && (quick || only.length !== Object.keys(BENCHES).length)) usage('--write-docs takes the full suite: drop --quick and --only');
  return { opts: { quick }, writeDocs: write, only };
}

async function main(): Promise<void> {
  const { opts, writeDocs: write, only } = parseArgs(process.argv.slice(2));
  if (typeof (globalThis as { gc?: unknown }).gc !== 'function') process.stderr.write('bench: run node with --expose-gc for steadier figures\n');
  const sections: Section[] = [];
  const started = now();
  try {
    for (const name of only) {
      // Each benchmark starts from the same state whatever ran before it: no files of an earlier one left to write
      // back during it, and none of its garbage in this process, which serves the measured processes and spawns them.
      settleDisk();
      settle();
      const t = now();
      process.stderr.write(`bench: ${name}...`);
      const before = sampleCpu();
      const section = await BENCHES[name]!(opts);
      if (!(await childrenReaped())) process.stderr.write(` (a process it started was still running 5 s after it ended)`);
      const load = cpuBetween(before, sampleCpu());
      sections.push({ ...section, name, load: section.loadUnknown === undefined ? load : null });
      process.stderr.write(` ${ms(now() - t)}\n`);
      removeTempDirs();
    }
  } finally {
    removeTempDirs();
  }
  const command = ['npm run bench', ...(opts.quick ? ['-- --quick'] : []), ...(write ? ['-- --write-docs'] : [])].join(' ');
  if (opts.quick) sections.push({ rows: [], notes: ['--quick: sizes below those the targets name, so the rows that depend on size give no verdict.'] });
  const text = report(sections, machine(), command);
  process.stdout.write(`${text}\n`);
  const busy = busySections(sections);
  if (busy.length > 0) process.stderr.write(`bench: other processes held the CPUs while ${busy.join(', ')} ran: their wall times are slower for it (the table says how much of the machine they held)\n`);
  process.stderr.write(`bench: done in ${ms(now() - started)}\n`);
  if (write) {
    writeDocs(join(ROOT, 'docs', 'performance.md'), text);
    process.stderr.write('bench: wrote the table to docs/performance.md\n');
  }
}

main().catch((err: unknown) => {
  removeTempDirs();
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
