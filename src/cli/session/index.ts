/**
 * `logbook session`: inspect, watch, search, export, copy and remove stored runs.
 * Here are the commands' options and help; what each does loads only when it
 * runs, so a command starts without the modules of the others.
 */
import { Command, Option } from 'commander';
import { RecordOutline, StateJsonStream, type RunState, type StateJsonExtra } from '../../core/index.js';
import { backends } from '../../store/registry.js';
import { resolveRunId } from '../../store/resolve.js';
import { failureNoteKey, parseFailure } from '../../store/run-notes.js';
import { listedStatus, type FoldedRun, type ForkOrigin, type ListedStatus, type Store } from '../../store/store.js';
import { join } from 'node:path';
import { DEFAULT_CONFIG_FILE, type LogbookConfig } from '../../config/config.js';
import type { CompactionFacts, RunFacts } from '../../api/long-run-facts.js';
import { parseDuration, parsePointInTime, UNITS_HELP } from '../durations.js';
import type { Environment } from '../environment.js';
import { EXIT } from '../exit-codes.js';
import { parseCount, parseStatuses, STATUS_HELP } from '../options.js';
import { helpAfter, storeCommandHelp } from '../help.js';
import { addStoreOptions, findConfig, withStore, type StoreFlags } from '../store.js';
import { registerCompactCommand } from './compact-command.js';
import { registerCopyCommand } from './cp-command.js';
import { registerExportCommand } from './export-command.js';
import { registerForkCommand } from './fork-command.js';
import type { Removal } from './remove.js';
import { BatchedOutput } from './streaming.js';
import { registerSearchCommand } from './search-command.js';
import { registerWatchCommand } from './watch-command.js';
import { registerWorkspaceCommands } from './workspace-command.js';

interface CommonFlags extends StoreFlags {
  /** False from --no-color. */
  color: boolean;
}

interface ListFlags extends CommonFlags {
  json?: boolean;
  status?: ListedStatus[];
  since?: Date;
  limit?: number;
  forks?: boolean;
  here?: boolean;
}

interface ShowFlags extends CommonFlags {
  json?: boolean;
  lineage?: boolean;
  transcript?: boolean;
  tui: boolean;
  toolOutput?: boolean;
}

interface PruneFlags extends StoreFlags {
  olderThan: number;
  status?: ListedStatus[];
  dryRun?: boolean;
}

const stdout = (text: string): void => void process.stdout.write(text);
const stderr = (text: string): void => void process.stderr.write(text);

/** The environment and exit codes of the session commands that print in color, for their --help. */
const SESSION_HELP = storeCommandHelp(['NO_COLOR']);

/** The store options, and --verbose (which main reads from argv). */
function withStoreOptions(command: Command): Command {
  return addStoreOptions(command).option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)');
}

/** The store options, --no-color and --verbose. */
function common(command: Command): Command {
  return withStoreOptions(command).option('--no-color', 'no color (also NO_COLOR=1)');
}

const LS_HELP = `
Statuses: running (a logbook process holds the run now), interrupted (it ends
on no terminal record and nobody holds it: its writer crashed or was killed),
open (it ends on none, and the store cannot tell whether anybody holds it, as
on JetStream), completed, suspended, error, budget, max_iterations (how it
ended), unreadable (the row says why).

One conversation is one row per branch: a run continued as a new run (a
follow-up to a completed run) or forked (session fork) is in its origin's
lineage, and each row shows a branch's last run the filters keep (one no kept
run was forked from), with how many earlier runs it goes back through
(+2 earlier). --forks lists every run on a row of its own.
--here keeps the runs started in this directory (runs made before logbook kept
where a run starts have no directory, and are never here).

The table fits the terminal (COLUMNS when not on one, else no cut): MODEL and PROMPT are
cut by display width, times are local. As the terminal narrows, MODEL goes
first, then the year of UPDATED, then UPDATED, PROMPT and STATUS; an id is
never cut. PROMPT is the last turn typed into the run (its prompt when none
was typed since).

--json prints one JSON object per row and line (JSON Lines), newest first:
  {"id","status","created","updated","model","prompt","last_turn","interactive",
   "counters","forked_from","continues","earlier","started_in"}
with times in RFC 3339 (UTC) and counters from the run's fold: llm_calls,
tool_calls, remote_tool_calls, in_tokens, out_tokens, cache_read_tokens,
cache_create_tokens (null, with "problem", for a run that cannot be read).
forked_from ({"run_id","seq"}), continues (a compaction's continuation: the
run it continues and the seq it was compacted at), earlier (a count) and
started_in ({"dir","config"}) are there only when they apply. A fork's counters include
the records it holds from its origin. Counters need the whole run, so --json
reads every run it prints: --limit applies before that, so
\`--json --limit 20\` reads 20 runs. Examples:
  logbook session ls --status interrupted,suspended --since 3d
  logbook session ls --here --forks
  logbook session ls --json --limit 5 | jq -r .id`;

const RM_HELP = `
Each ID is a run id or a unique part of one. Every run that can be removed
is, each reported on stdout; one that cannot (no such run, a run a writer
holds, a part of several ids) is named on stderr with the reason, and the exit
code is then 1, or 2 when an ID was part of several run ids (a usage error, as
everywhere an id is taken). A compacted run whose continuation stays is kept
unless --force (or its continuation is named too): the continuation holds only
a summary of it, so its records and its spend would be gone from the
conversation, and from what lineage_budget_usd counts.`;

const PRUNE_HELP = `
Removes the runs that have not changed for DURATION (30m, 12h, 7d, 2w), only
in the given statuses with --status. A DURATION is a number and a unit:
${UNITS_HELP}.
Units are lowercase, and there is none for months or years (write 30d or
365d). A run a writer holds (running) is never removed: it is kept and said
so on stderr, and so is a compacted run whose continuation stays (it holds
only a summary of it). Each run removed, or with --dry-run each that would be, is
printed on stdout; the exit code is 1 when one could not be removed. On a
store that cannot tell whether a run is held (JetStream), a run being written
has a recent last change, so an age test spares it.
Examples:
  logbook session prune --older-than 30d --dry-run
  logbook session prune --older-than 7d --status completed,error`;

const withConfig = (config: LogbookConfig | undefined): { config?: LogbookConfig } => (config !== undefined ? { config } : {});

/** Prints a removal's report; a failure sets exit code 1 (each was named), or 2 when a name was a usage error. */
function report(removal: Removal): void {
  stdout(removal.out);
  stderr(removal.err);
  if (!removal.ok) process.exitCode = removal.usage === true ? EXIT.usage : EXIT.error;
}

/** What `session show --json` writes after the fold's keys: what is known beside the run. */
async function jsonExtra(run: FoldedRun, origin: ForkOrigin | null, facts: RunFacts | undefined): Promise<StateJsonExtra> {
  const listed = listedStatus(run.state.status, run.held, origin ? { origin, lastSeq: run.state.last_seq } : undefined);
  const { spendJson } = await import('../../api/long-run-facts.js');
  const compaction = (c: CompactionFacts) => ({ run_id: c.into, seq: c.at, tokens_before: c.before, tokens_after: c.after });
  return {
    created: run.created,
    updated: run.updated,
    times: run.times,
    listedStatus: listed,
    ...(origin && !origin.compacted ? { forkedFrom: { run_id: origin.from, seq: origin.at } } : {}),
    more: [
      ['last_input_tokens', run.state.last_input_tokens],
      ...(facts !== undefined ? [['cost', spendJson(facts.spend)] as [string, unknown]] : []),
      ...(facts?.continues !== undefined ? [['continues', { ...compaction(facts.continues), run_id: facts.continues.from }] as [string, unknown]] : []),
      ...(facts?.compacted !== undefined ? [['compacted_into', compaction(facts.compacted)] as [string, unknown]] : []),
    ] as [string, unknown][],
  };
}

/**
 * `session show --json`: the folded state as one JSON object (stateToJson),
 * its text made as the run is read (StateJsonStream: each message as soon as
 * no later record can change it, then dropped), its model calls tallied on
 * the way for its spend. The text is written as it is made, a batch at a
 * time: its records, its conversation and its text are never held whole. A
 * run refused part way has printed a prefix of the object, never closed (no
 * JSON reader takes it), and the command fails with its error.
 */
async function showJson(environment: Environment, given: string, flags: ShowFlags): Promise<void> {
  const config = findConfig(flags.config, environment, flags.stateDir);
  const out = new BatchedOutput();
  let printed = false;
  let whole = false;
  const json = new StateJsonStream((part) => {
    printed = true;
    out.add(part);
  });
  try {
    const { run, origin, facts } = await withStore(environment, flags, async (store) => {
      const id = await resolveRunId(store, given);
      const [{ CallTally }, { pricesAtHand, runFacts }] = await Promise.all([import('../../agent/spend.js'), import('../../api/long-run-facts.js')]);
      const calls = new CallTally();
      // What is read beside the run is read while it is: its origin, and the prices its spend is priced by (the config's prices:, the price table).
      const beside = Promise.all([store.forkOrigin(id).catch(() => null), pricesAtHand(config, environment.env)]);
      beside.catch(() => undefined); // awaited below; a read refused first leaves it unawaited
      const run = await store.loadFolded(id, {
        onRecord: (record) => calls.add(record),
        onFolded: (state) => json.folded(state),
        pace: () => out.pace(),
        outputsAsLiterals: true,
      });
      const [origin, prices] = await beside;
      // What it spent and the compactions it took part in.
      const facts = await runFacts(store, id, { state: run.state, records: calls }, origin, prices);
      return { run, origin, facts };
    });
    json.end(run.state, await jsonExtra(run, origin, facts));
    out.add('\n');
    whole = true;
  } finally {
    // On a terminal a prefix ends its line, so the error on stderr reads on a line of its own; a pipe or a file gets the prefix alone.
    if (printed && !whole && process.stdout.isTTY === true) out.add('\n');
    // What was made is written, the whole text or a prefix where the run was refused.
    await out.end();
  }
}

/** What `session show` reads beside the run: its origin, where it was started, how it failed, which agents its remote calls went to. */
async function besideRun(store: Store, id: string, state: RunState) {
  const ended = state.status === 'error' ? failureNoteKey(state.last_seq) : null;
  const [origin, place, failure] = await Promise.all([
    store.forkOrigin(id).catch(() => null),
    store.placeOf(id).catch(() => null),
    ended === null ? null : store.getNote(id, ended).then(parseFailure, () => null),
  ]);
  // Which agents the remote calls went to, from the note beside the run (only a run with remote calls has one).
  const agents = state.remote_calls.length === 0 ? {} : await (await import('../../agent/remote-origins.js')).toolAgents(store, id);
  return { origin, place, failure, agents };
}

async function show(environment: Environment, given: string, flags: ShowFlags): Promise<void> {
  if (flags.json) return showJson(environment, given, flags);
  // The config at hand, if any, says whether a tool has side effects; only --state-dir means none is read.
  const config = findConfig(flags.config, environment, flags.stateDir);
  if (flags.transcript) return showTranscript(environment, given, flags);
  const { run, origin, place, agents, failure, facts, window, lineage, links, servedAs } = await withStore(environment, flags, async (store) => {
    const id = await resolveRunId(store, given);
    // Folded as it is read, the records dropped: what the fields need of them is their outline, and the model calls tallied for the spend;
    // the conversation taken out of the state as it folds, but for what the summary reads of it (ShownConversation).
    const [{ CallTally }, { ShownConversation }] = await Promise.all([import('../../agent/spend.js'), import('./show.js')]);
    const calls = new CallTally();
    const outline = new RecordOutline();
    const conversation = new ShownConversation();
    const folded = await store.loadFolded(id, {
      onRecord: (record) => {
        calls.add(record);
        outline.add(record);
      },
      onFolded: (state) => conversation.folded(state),
    });
    const loaded = { ...folded, outline, conversation };
    // The run's notes listed once: its spend, instructions and snapshots are read from them.
    const noteKeys = await store.noteKeys(id).catch(() => undefined);
    const { origin, place, failure, agents } = await besideRun(store, id, loaded.state);
    // What it spent and the compactions it took part in, priced by the config at hand (its prices:) and the price table.
    const { pricesAtHand, runFacts } = await import('../../api/long-run-facts.js');
    const prices = await pricesAtHand(config, environment.env);
    const f = loaded.state.fingerprint;
    const facts = await runFacts(store, id, { state: loaded.state, records: calls }, origin, prices, noteKeys);
    const window = config !== undefined && config.model === f.model && config.context_window !== undefined ? config.context_window : prices.contextWindow(f.provider, f.model);
    const lineage = flags.lineage ? await (await import('./lineage-show.js')).lineageRows(store, id, prices) : undefined;
    // The task it serves and the tasks it handed to other agents, from the notes beside it (and theirs).
    const taskLinks = await import('./task-links.js');
    const linked = await taskLinks.taskLinks(store, loaded);
    // The project instructions its model was given, as the notes beside it say (their file and hash, never their text).
    const { instructionsGiven, instructionsText } = await import('../../agent/instructions.js');
    const instructions = instructionsText(await instructionsGiven(store, id, noteKeys).catch(() => []));
    const { sanitizeLine } = await import('../../render/sanitize.js');
    const links: [string, string][] = [...(instructions !== null ? [['instructions', sanitizeLine(instructions)] as [string, string]] : []), ...taskLinks.taskLinkFields(linked)];
    links.push(...(await (await import('./workspace-fields.js')).workspaceFields(store, id, outline, noteKeys)));
    return { run: loaded, origin, place, agents, failure, facts, window, lineage, links, servedAs: linked.origin?.agent };
  });
  const [{ formatShow }, { resumeCommand }, { configuredSideEffects }, { refusedRequestAdvice, firstRequestTooLongAdvice }] = await Promise.all([
    import('./show.js'),
    import('../resume-command.js'),
    import('../../config/side-effects.js'),
    import('../refused-request.js'),
  ]);
  // A run given another model than the config's is resumed with it again (its fingerprint holds it).
  const model = run.state.fingerprint.model;
  // The config file the run was started with is named, as the run's own end hint names a --config it was given:
  // not when it is the one at hand, nor the agent.yaml a command in the run's directory finds.
  const named = place?.config !== undefined && place.config !== join(place.dir, DEFAULT_CONFIG_FILE) && config?.path !== place.config;
  const startedWith = flags.config === undefined && named ? place!.config : undefined;
  const resumeFlags = { ...flags, ...(startedWith !== undefined ? { config: startedWith } : {}) };
  const resume = resumeCommand(run.state.run_id, { ...resumeFlags, ...(config !== undefined && config.model !== model ? { model } : {}) });
  // A task's run is the serving agent's: another agent's config cannot say which of its tools have side effects.
  const { configOfOtherAgent } = await import('./task-links.js');
  const otherAgent = servedAs === undefined ? undefined : configOfOtherAgent(servedAs, config);
  const sideEffects = (name: string): boolean | undefined => (config === undefined || otherAgent !== undefined ? undefined : configuredSideEffects(config, name));
  const failureNext =
    failure === 'provider_refused' ? refusedRequestAdvice(run.state, resumeFlags) : failure === 'context_exceeded' ? (firstRequestTooLongAdvice(run.state) ?? undefined) : undefined;
  const into = facts?.compacted?.into;
  const shown = formatShow(run, resume, {
    origin,
    place,
    agents,
    sideEffects,
    more: otherAgent === undefined ? links : [...links, ['config', otherAgent]],
    ...(failureNext !== undefined ? { failureNext } : {}),
    ...(facts !== undefined ? { facts } : {}),
    ...(window !== undefined ? { contextWindow: window } : {}),
    ...(into !== undefined ? { continuationResume: resumeCommand(into, resumeFlags) } : {}),
  });
  return stdout(lineage === undefined ? shown : `${shown}${(await import('./lineage-show.js')).formatLineage(lineage, run.state.run_id)}`);
}

/** `session show --transcript`: the whole conversation, in a viewer on a terminal, else printed. */
async function showTranscript(environment: Environment, given: string, flags: ShowFlags): Promise<void> {
  const { run, agents } = await withStore(environment, flags, async (store) => {
    const id = await resolveRunId(store, given);
    const loaded = await store.load(id);
    const { agents } = await besideRun(store, id, loaded.state);
    return { run: loaded, agents };
  });
  if (flags.tui && process.stdout.isTTY && process.stdin.isTTY) {
    const { openViewer } = await import('../viewer/open.js'); // Ink and React load only here
    await openViewer(run, { toolOutput: flags.toolOutput === true, color: flags.color, env: environment.env, agents });
    return;
  }
  const [{ dumpTranscript }, { terminalFor, terminalProse }] = await Promise.all([import('../../render/index.js'), import('../terminal.js')]);
  const term = terminalFor(process.stdout, { color: flags.color, env: environment.env });
  const prose = await terminalProse(term);
  stdout(dumpTranscript(run.state, { toolOutput: flags.toolOutput === true, ...(term.columns ? { width: term.columns } : {}), style: term.style, agents, ...(prose ? { prose } : {}) }));
}

export function registerSessionCommands(program: Command, environment: Environment): void {
  const session = program.command('session').description('inspect, watch, search, export, copy and remove stored runs').addHelpText('after', SESSION_HELP);

  common(
    session
      .command('ls')
      .description('list runs, newest first: each conversation once (--forks: every run)')
      .option('--json', 'one JSON object per run and line, with its counters (reads each run printed whole)')
      .option('--status <status>', STATUS_HELP, parseStatuses)
      .option('--since <when>', `only runs changed since WHEN: a duration back from now (2h, 3d; units ${UNITS_HELP}) or a date (2026-11-30, 2026-11-30T09:15)`, (v) =>
        parsePointInTime(v),
      )
      .option('--limit <n>', 'at most N rows, the newest', parseCount)
      .option('--forks', 'every run on a row of its own, not each conversation once')
      .option('--here', 'only runs started in this directory'),
  )
    .addHelpText('after', `${LS_HELP}\n${SESSION_HELP}`)
    .action(async (flags: ListFlags) => {
      const [{ listRuns }, { terminalFor }] = await Promise.all([import('./ls.js'), import('../terminal.js')]);
      // Not a terminal: cut to COLUMNS when it is set, else not at all (a script greps whole prompts).
      const shown = terminalFor(process.stdout, { color: flags.color, env: environment.env });
      const width = Number(environment.env.COLUMNS);
      const term = shown.columns === undefined && Number.isInteger(width) && width > 0 ? { ...shown, columns: width } : shown;
      const options = {
        ...(flags.json ? { json: true } : {}),
        ...(flags.status !== undefined ? { status: flags.status } : {}),
        ...(flags.since !== undefined ? { since: flags.since } : {}),
        ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
        ...(flags.forks ? { forks: true } : {}),
        ...(flags.here ? { startedIn: process.cwd() } : {}),
        ...(flags.json ? { env: environment.env, ...withConfig(findConfig(flags.config, environment, flags.stateDir)) } : {}),
      };
      const { out, err } = await withStore(environment, flags, (store) => listRuns(store, term, options));
      stdout(out);
      stderr(err);
    });

  common(
    session
      .command('show')
      .description('say where a run stands and what a resume would do')
      .argument('<id>', 'the run id (or a unique part of it)')
      .addOption(new Option('--json', 'print the folded state as one JSON object (with listed_status, the status session ls names, and forked_from)').conflicts(['transcript']))
      .option('--transcript', 'the whole conversation: a full-screen viewer on a terminal, plain text otherwise')
      .addOption(new Option('--lineage', 'also list every run of its conversation (origins, forks, continuations), with what each spent').conflicts(['transcript', 'json']))
      .option('--no-tui', 'with --transcript, print plain text even on a terminal')
      .option('--tool-output', 'with --transcript, include tool results'),
  )
    .addHelpText('after', SESSION_HELP)
    .action((id: string, flags: ShowFlags) => show(environment, id, flags));

  withStoreOptions(
    session
      .command('rm')
      .description('remove runs')
      .argument('<ids...>', 'run ids (or unique parts of them)')
      .option('--force', 'also remove a compacted run whose continuation stays, which keeps only a summary of it'),
  )
    .addHelpText('after', `${RM_HELP}\n${storeCommandHelp()}`)
    .action(async (ids: string[], flags: StoreFlags & { force?: boolean }) => {
      const { removeRuns } = await import('./remove.js');
      report(await withStore(environment, flags, (store) => removeRuns(store, ids, flags.force === true ? { force: true } : {})));
    });

  withStoreOptions(
    session
      .command('prune')
      .description('remove the runs that have not changed for a while; never a running one')
      .requiredOption('--older-than <duration>', `runs not changed for DURATION (30m, 12h, 7d, 2w; units ${UNITS_HELP})`, parseDuration)
      .option('--status <status>', `only runs in these statuses (${STATUS_HELP})`, parseStatuses)
      .option('--dry-run', 'print what would be removed, remove nothing'),
  )
    .addHelpText('after', `${PRUNE_HELP}\n${storeCommandHelp()}`)
    .action(async (flags: PruneFlags) => {
      const { pruneRuns } = await import('./remove.js');
      const options = {
        olderThan: flags.olderThan,
        ...(flags.status !== undefined ? { status: flags.status } : {}),
        ...(flags.dryRun ? { dryRun: true } : {}),
      };
      report(await withStore(environment, flags, (store) => pruneRuns(store, options)));
    });

  registerCompactCommand(session, environment);
  registerCopyCommand(session, environment);
  registerExportCommand(session, environment);
  registerForkCommand(session, environment);
  registerWatchCommand(session, environment);
  registerSearchCommand(session, environment);
  registerWorkspaceCommands(session, environment);

  session
    .command('backends')
    .description('list the linked session backends')
    .addHelpText('after', helpAfter([], ['ok']))
    .action(() => stdout(backends().map((b) => `${b}\n`).join('')));
}
