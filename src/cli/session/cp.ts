/**
 * `logbook session cp ID`: copies a run, unchanged, from one store to another
 * (file to JetStream and back, or between two of either). Each side has its own
 * pair of flags. A config names a store; a state dir alone names the file store
 * there, whatever ./agent.yaml says, because a side given a directory means that
 * directory; a side given nothing is the store `logbook session ls` would show here.
 */
import { existsSync } from 'node:fs';
import { DEFAULT_CONFIG_FILE } from '../../config/config.js';
import { LogbookError, isLogbookError, shellQuote } from '../../core/index.js';
import { copyRun, type CopiedRun } from '../../store/copy.js';
import type { Store } from '../../store/store.js';
import type { Environment } from '../environment.js';
import { storeArguments } from '../resume-command.js';
import { onStopSignals } from '../signals.js';
import { findConfig, storeFor } from '../store.js';
import { resolveRunId } from '../../store/resolve.js';

export interface CopyFlags {
  /** --config and --state-dir: the source side, as every other session command takes them. */
  config?: string;
  stateDir?: string;
  fromConfig?: string;
  fromStateDir?: string;
  toConfig?: string;
  toStateDir?: string;
  force?: boolean;
}

interface Side {
  config?: string;
  stateDir?: string;
}

function side(config: string | undefined, stateDir: string | undefined): Side {
  return { ...(config !== undefined ? { config } : {}), ...(stateDir !== undefined ? { stateDir } : {}) };
}

/** The side's config when it names one; a state dir alone means the file store there, so ./agent.yaml is not read. */
function openSide(environment: Environment, side: Side): Promise<Store> {
  const config = findConfig(side.config, environment, side.stateDir);
  return storeFor(environment, { config, stateDir: side.stateDir });
}

/**
 * How to remove `id` from the target side: the `logbook session rm` line that
 * resolves to the same store, or, where none does (a state dir alone while
 * ./agent.yaml names another store), the directory to remove it from.
 */
function removalHint(id: string, side: Side, store: Store): string {
  if (side.config === undefined && side.stateDir !== undefined && existsSync(DEFAULT_CONFIG_FILE)) {
    return `remove it from the ${store.location} first`;
  }
  return `remove it there first with \`${shellQuote(['logbook', 'session', 'rm', id, ...storeArguments(side)])}\``;
}

/** Copies run `id` (or the one run it is a unique part of) between the two sides the flags name; returns the line to print on stderr. */
export async function copySession(environment: Environment, given: string, flags: CopyFlags): Promise<string> {
  if ((flags.config !== undefined && flags.fromConfig !== undefined) || (flags.stateDir !== undefined && flags.fromStateDir !== undefined)) {
    throw new LogbookError('usage', '--config and --state-dir name the source side, like --from-config and --from-state-dir: give one of each pair');
  }
  const fromSide = side(flags.fromConfig ?? flags.config, flags.fromStateDir ?? flags.stateDir);
  const toSide = side(flags.toConfig, flags.toStateDir);
  const from = await openSide(environment, fromSide);
  let to: Store | undefined;
  let id = given;
  const interrupt = onStopSignals(() => {}); // stops the copy at the next record; a second signal leaves at once
  try {
    to = await openSide(environment, toSide);
    if (from.location === to.location) {
      throw new LogbookError(
        'usage',
        `both sides are the ${from.location}: a run cannot be copied onto itself; name another target with --to-config or --to-state-dir`,
      );
    }
    id = await resolveRunId(from, given);
    let copied: CopiedRun;
    try {
      const path = environment.env.PATH;
      copied = await copyRun(from, to, id, { signal: interrupt.signal, force: flags.force === true, ...(path !== undefined && path !== '' ? { searchPath: path } : {}) });
    } catch (err) {
      if (isLogbookError(err, 'not_found')) throw new LogbookError('not_found', `no run ${id} in the ${from.location}`, { cause: err });
      if (isLogbookError(err, 'locked')) {
        throw new LogbookError('locked', `${err.message}; wait for it to end, or copy what is durable now with --force`, { cause: err });
      }
      if (!isLogbookError(err, 'exists')) throw err;
      throw new LogbookError(
        'exists',
        `run ${id} already exists in the ${to.location}; session cp never overwrites a run: ${removalHint(id, toSide, to)}, or copy to another store`,
        { cause: err },
      );
    }
    const { records, lastSeq } = copied;
    const what = `${records} record${records === 1 ? '' : 's'}`;
    const prefix =
      copied.held === true
        ? `, up to seq ${lastSeq}: a writer holds it and may append more, which this copy does not have`
        : copied.held === undefined && copied.open
          ? `, up to seq ${lastSeq}: it has no end recorded, and the ${from.backend} store cannot tell whether a writer is still appending to it`
          : '';
    // Its workspace snapshots go with it; where they cannot, that is said (and session show says it of the copy).
    const left = copied.snapshots?.problem !== undefined ? `warning: run ${id}: ${copied.snapshots.problem} (session show lists the turns without one)\n` : '';
    return `copied run ${id} (${what}${prefix}) from the ${from.location} to the ${to.location}\n${left}`;
  } finally {
    interrupt.dispose();
    await to?.close();
    await from.close();
  }
}
