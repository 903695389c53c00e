/**
 * `logbook session watch ID`: follows a run as it grows, from another terminal
 * or (over JetStream) another machine, rendered like live narration or, with
 * --json, as the stored lines themselves. It only reads: the run is never held,
 * so the writer is neither blocked nor slowed, and Ctrl-C leaves it as it was.
 */
import { validateId } from '../../core/index.js';
import { FollowedTranscript } from '../../render/index.js';
import { resolveRunId } from '../../store/resolve.js';
import type { Store } from '../../store/store.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { onStopSignals } from '../signals.js';
import { outputGone } from '../stdio.js';
import { withStore, type StoreFlags } from '../store.js';
import { terminalFor, terminalProse } from '../terminal.js';
import { writeOut } from './streaming.js';
import { LiveBlock } from '../../render/live-block.js';

/** Shows run `id`'s live text in `block` as it changes, until `signal` aborts; a failure to follow it only stops it. */
async function followLive(store: Store, id: string, block: LiveBlock, signal: AbortSignal): Promise<void> {
  try {
    for await (const live of store.watchLive(id, { signal })) await writeOut(block.update(live));
  } catch {
    // live text is a convenience: the records still come
  }
}

export interface WatchFlags extends StoreFlags {
  json?: boolean;
  fromSeq?: number;
  toolOutput?: boolean;
  verbose?: boolean;
  /** False from --no-color. */
  color: boolean;
  /** Wait for a run of exactly this id when there is none yet. */
  wait?: boolean;
}

/**
 * The run `given` names: an existing run (or a unique part of one); with
 * --wait, the run of exactly that id, which is waited for if it is not there.
 */
async function watchTarget(store: Store, given: string, wait: boolean): Promise<string> {
  if (!wait) return resolveRunId(store, given);
  validateId(given);
  return given;
}

export async function watchSession(environment: Environment, id: string, flags: WatchFlags): Promise<ExitCode> {
  const stop = onStopSignals(() => {}); // the first Ctrl-C ends the watch below; a second leaves at once
  // A reader that left (`| head -1`) ends the watch, which has no end of its own.
  const unread = outputGone('stdout');
  const ended = AbortSignal.any([stop.signal, unread]);
  try {
    return await withStore(environment, flags, async (store) => {
      const run = await watchTarget(store, id, flags.wait === true);
      const term = terminalFor(process.stdout, { color: flags.color, env: environment.env });
      // Every record is folded in, shown or not, so a watch refuses what a load would.
      const prose = await terminalProse(term);
      const transcript = new FollowedTranscript({
        toolOutput: flags.toolOutput === true,
        ...(prose ? { prose } : {}),
        thinking: flags.verbose === true,
        style: term.style,
        ...(term.columns ? { width: term.columns } : {}),
      });
      const from = flags.fromSeq ?? 1;
      const onAbsent = (): void => void process.stderr.write(`waiting for run ${run} to start in the ${store.location} (Ctrl-C to stop)\n`);
      let last = 0;
      // On a terminal, what the writer streams is shown as it arrives, marked not yet journaled, until its record replaces it.
      const block = flags.json !== true && process.stdout.isTTY === true ? new LiveBlock({ style: term.style, columns: term.columns ?? 80, rows: process.stdout.rows ?? 24, thinking: flags.verbose === true }) : null;
      const liveEnded = new AbortController();
      const following = block === null ? null : followLive(store, run, block, AbortSignal.any([ended, liveEnded.signal]));
      try {
        for await (const { record, line } of store.watch(run, { signal: ended, onAbsent })) {
          last = record.seq;
          const show = record.seq >= from;
          const text = transcript.add(record, show && flags.json !== true);
          await writeOut(flags.json === true ? (show ? `${line}\n` : '') : block === null ? text : block.beforeRecord(record.seq) + text + block.afterRecord());
        }
      } finally {
        liveEnded.abort();
        await following;
        if (block !== null) await writeOut(block.erase());
      }
      if (stop.signal.aborted) return EXIT.interrupted;
      if (unread.aborted) return EXIT.ok;
      // A run that ended before --from-seq showed nothing: say why, rather than end in silence.
      if (last < from) process.stderr.write(`run ${run} ended at seq ${last}, before seq ${from} (--from-seq): nothing to show\n`);
      return EXIT.ok;
    });
  } finally {
    stop.dispose();
  }
}
