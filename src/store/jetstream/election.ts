/**
 * Waiting through a stream leader election. While a clustered stream elects a
 * new leader (its leader's server died or was cut off), nothing answers for
 * it: a publish finds no responders, a request times out, a replica says the
 * group is temporarily unavailable or the stream offline. Every read and
 * append runs through here, which retries the whole operation for at most
 * the link's leader wait (LEADER_WAIT_MS by default) and tells the link's wait
 * listener while it waits. A retried append stays exactly-once: appends.ts
 * republishes the very same message (id and body), which the stream stores
 * once or recognises as already stored.
 *
 * What ends a wait is said for what it is:
 * - the stream no longer exists: `stream_config`, at once, nothing to wait for
 *   (a writer says instead that its journal is gone, appends.ts);
 * - the servers cannot be reached: `unavailable`, once the connection has not
 *   come back within the request timeout (Link.ensureConnected);
 * - the stream has no leader: `unavailable`, once the leader wait has passed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { LogbookError } from '../../core/index.js';
import { apiVerdict } from './api-errors.js';
import { missingStream } from './binding.js';
import { jetStreamOff, unavailable, type Link } from './connection.js';

/** How long an operation waits for a stream to have a leader again. */
export const LEADER_WAIT_MS = 15_000;

/**
 * What an operation throws when it got no whole answer (the connection dropped
 * before the ack, a read came up short): waited through like a timeout.
 */
export class NoAnswer extends Error {
  override readonly name = 'NoAnswer';
}

/** Pauses between attempts while waiting, the last one repeated. */
const RETRY_PAUSES_MS = [100, 250, 500, 1000];

/**
 * How long a retry waits for its answer (at most the link's request timeout).
 * A request sent while a stream has no leader is never answered, so a short
 * bound lets the next attempt find the new leader soon after it is elected. A
 * first attempt has the whole request timeout, unless the link saw an election
 * lately: then it too is a retry of sorts.
 */
const RETRY_ATTEMPT_MS = 1_000;

/** One attempt of an operation, whose requests wait at most `timeoutMs` for an answer. */
export type Attempt<T> = (timeoutMs: number) => Promise<T>;

/** `p`, or a NoAnswer after `ms`; a later outcome of `p` is dropped. */
export async function within<T>(ms: number, p: Promise<T>): Promise<T> {
  p.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new NoAnswer(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How an operation failed:
 * - `missing`: the stream does not exist;
 * - `leaderless`: nothing answered for the stream in time, or it said it cannot
 *   take the request now (apiVerdict: no leader, offline, or on a 2.11+ cluster
 *   an earlier publish of the run still being replicated, as while it has no quorum;
 *   a fetch that no server of the consumer answers);
 * - `unanswered`: a publish found no responders, which is a stream without a
 *   leader or one that does not exist (the stream is asked which);
 * - `final`: anything else.
 */
type Failure = 'missing' | 'leaderless' | 'unanswered' | 'final';

function classify(err: unknown): Failure {
  const e = err as { name?: string; code?: number; cause?: { name?: string } } | undefined;
  switch (e?.name) {
    case 'StreamNotFoundError':
      return 'missing';
    case 'TimeoutError':
    case 'NoAnswer':
      return 'leaderless';
    case 'JetStreamNotEnabled':
      // The client's name for a request no one answered (503, no responders);
      // with an API error as its cause it is the account's refusal instead.
      return e.cause?.name === 'JetStreamApiError' ? 'final' : 'unanswered';
    case 'JetStreamApiError':
      return apiVerdict(err) === 'leaderless' ? 'leaderless' : 'final';
    case 'JetStreamStatusError':
      // A fetch answered 503: nothing serves the consumer now (its server just
      // restarted, its leader moving), which passes as an election does.
      return e.code === 503 ? 'leaderless' : 'final';
    default:
      return 'final';
  }
}

/** What the stream says of itself after a publish no one answered. */
type Probe = 'missing' | 'leaderless' | 'led' | 'off';

async function probe(link: Link, stream: string, timeoutMs: number): Promise<Probe> {
  try {
    const info = await within(timeoutMs, link.jsm.streams.info(stream));
    // A stream outside a cluster has no cluster block and is its own leader.
    return info.cluster === undefined || info.cluster.leader ? 'led' : 'leaderless';
  } catch (err) {
    const kind = classify(err);
    if (kind === 'missing') return 'missing';
    // No one answers the JetStream API itself: the server does not serve JetStream.
    if (kind === 'unanswered') return 'off';
    return 'leaderless';
  }
}

export interface ElectionOptions {
  /** The error for a stream that no longer exists; by default the one naming the `nats stream add` line. */
  missing?: () => LogbookError;
  /**
   * What the failed attempts have left unknown (an append whose ack was lost
   * may be stored), said at the end of the errors the wait itself makes. An
   * error `op` throws is its own and passes unchanged.
   */
  unsettled?: () => string | null;
}

/**
 * Runs `op`, retrying it while the stream has no leader, for at most the link's
 * leader wait. `what` names the operation in errors. Errors are LogbookErrors:
 * `op`'s own pass through unchanged.
 */
export async function throughElection<T>(link: Link, stream: string, what: string, op: Attempt<T>, options: ElectionOptions = {}): Promise<T> {
  const deadline = Date.now() + link.leaderWaitMs;
  const retryMs = Math.min(link.timeoutMs, RETRY_ATTEMPT_MS);
  /** An error the wait makes, with what the attempts left unknown. */
  const failed = (err: LogbookError): LogbookError => {
    const unsettled = options.unsettled?.();
    return unsettled ? new LogbookError(err.code, `${err.message}; ${unsettled}`, { cause: err }) : err;
  };
  let endWait: (() => void) | null = null;
  try {
    for (let attempt = 0; ; attempt++) {
      await link.ensureConnected(what).catch((err: LogbookError) => {
        throw failed(err);
      });
      let cause: unknown;
      let kind: Failure | Probe;
      try {
        return await op(attempt === 0 && !link.electing ? link.timeoutMs : retryMs);
      } catch (err) {
        if (err instanceof LogbookError) throw err;
        cause = err;
        kind = classify(err);
      }
      if (kind === 'final') throw failed(link.failure(what, cause));
      // A dropped connection is waited for (and reported) by ensureConnected, next time round.
      if (kind !== 'missing' && link.connected) {
        link.noteElection();
        endWait ??= link.beginWait(`waiting for the leader of stream ${stream}`);
      }
      if (kind === 'unanswered') kind = await probe(link, stream, retryMs);
      if (kind === 'missing') throw options.missing?.() ?? missingStream(stream, link.url);
      if (kind === 'off') throw failed(jetStreamOff(link.url, cause));
      if (Date.now() >= deadline) throw failed(noLeader(link, stream, what, kind, cause));
      await sleep(RETRY_PAUSES_MS[Math.min(attempt, RETRY_PAUSES_MS.length - 1)]);
    }
  } finally {
    endWait?.();
  }
}

function noLeader(link: Link, stream: string, what: string, last: 'leaderless' | 'led', cause: unknown): LogbookError {
  const waited = `${link.leaderWaitMs / 1000} s`;
  if (last === 'led') {
    // The stream has a leader, yet nothing took the publish: its subjects no longer cover the run.
    return unavailable(
      `${what}: stream ${stream} has a leader but nothing took the message for ${waited}; check its subjects with \`nats stream info ${stream}\``,
      cause,
    );
  }
  return unavailable(
    `${what}: stream ${stream} has no leader: nothing answered for it at ${link.url} for ${waited} ` +
      `(an election that has not finished, or too few of its servers up to elect one); check it with \`nats stream info ${stream}\``,
    cause,
  );
}
