/**
 * What the JetStream API's errors mean to this backend, decided here once:
 * every publish (a record, a note) and every wait through an election reads an
 * error through apiRefusal. The codes are the server's (its errors.json), which
 * the client names only a few of. Error 10077 ("error storing message") carries
 * the store's own error as its description, the one way to tell a subject that
 * already holds its one message from a stream that is full.
 */

/** The server's codes this backend branches on. */
const CODE = {
  /** No consumer of that name on the stream. */
  consumerNotFound: 10014,
  /** No message matches a get. */
  noMessageFound: 10037,
  /** No message at that sequence (a delete of one already gone answers `stream store EOF`). */
  sequenceNotFound: 10057,
  /** A work-queue stream already has a consumer without a filter, so it may have no other. */
  workQueueUnfiltered: 10099,
  /** A work-queue stream's consumers' filters may not overlap, and this one's does another's. */
  workQueueNotUnique: 10100,
  /** The account's JetStream storage (or memory) limit would be exceeded. */
  accountResources: 10002,
  /** The JetStream system is temporarily unavailable (a cluster without a meta leader). */
  clusterNotAvailable: 10008,
  /** A server of the cluster that cannot handle the request now. */
  clusterNotLeader: 10009,
  /** The server's own JetStream storage limit (max_file_store, max_memory_store) is reached. */
  insufficientResources: 10023,
  memoryResources: 10028,
  storageResources: 10047,
  /** Over the stream's max_msg_size. */
  messageTooLarge: 10054,
  /** The publish's expected last sequence did not hold. */
  wrongLastSequence: 10071,
  /** The store refused the message; its description says why (STORE_REFUSALS). */
  storeFailed: 10077,
  streamOffline: 10118,
  consumerOffline: 10119,
  /** 2.11+ clusters: a publish with this message id is still being replicated. */
  duplicateInProcess: 10158,
  /** 2.11+ clusters: a publish fenced on the same subject is still being replicated, so the fence cannot be checked yet. */
  wrongLastSequenceInProcess: 10164,
} as const;

/**
 * What an API error says of the operation:
 * - `leaderless`: the stream cannot take it now (no leader, offline, or an
 *   earlier publish of the run not yet replicated); the same request may
 *   succeed shortly, so it is retried through the election wait;
 * - `fenced`: the publish's fence did not hold: its subject already holds its
 *   one message, or the run's last sequence is another (appends.ts reads the
 *   subject back to tell which);
 * - `full`: a limit on stored bytes or messages refused it: the stream's
 *   (max_bytes, max_msgs), the account's or the server's (StoreLimit);
 * - `too_large`: over the stream's max_msg_size;
 * - `other`: anything else, said as the server said it.
 */
export type ApiVerdict = 'leaderless' | 'fenced' | 'full' | 'too_large' | 'other';

/** Which limit refused a message, for the `full` verdict. */
export type StoreLimit = 'max_bytes' | 'max_msgs' | 'account' | 'server';

/** An API error's verdict, and for `full` the limit that refused the message. */
export type ApiRefusal = { verdict: 'full'; limit: StoreLimit } | { verdict: Exclude<ApiVerdict, 'full'> };

/** The store errors inside a 10077 (the server's store.go), by their text. */
const STORE_REFUSALS: readonly { text: string; refusal: ApiRefusal }[] = [
  { text: 'maximum messages per subject exceeded', refusal: { verdict: 'fenced' } },
  { text: 'maximum bytes exceeded', refusal: { verdict: 'full', limit: 'max_bytes' } },
  { text: 'maximum messages exceeded', refusal: { verdict: 'full', limit: 'max_msgs' } },
  { text: 'message too large', refusal: { verdict: 'too_large' } },
];

interface ApiErrorShape {
  name?: string;
  code?: number;
  message?: string;
}

/** The API error code of `err`, or null when it is not a JetStream API error. */
function apiCode(err: unknown): number | null {
  const e = err as ApiErrorShape | undefined;
  return e?.name === 'JetStreamApiError' && typeof e.code === 'number' ? e.code : null;
}

/** What `err` says of the operation, or null when it is not a JetStream API error. */
export function apiVerdict(err: unknown): ApiVerdict | null {
  return apiRefusal(err)?.verdict ?? null;
}

/** What `err` says of the operation and, when it is `full`, which limit; null when it is not a JetStream API error. */
export function apiRefusal(err: unknown): ApiRefusal | null {
  const code = apiCode(err);
  switch (code) {
    case null:
      return null;
    case CODE.clusterNotAvailable:
    case CODE.clusterNotLeader:
    case CODE.streamOffline:
    case CODE.consumerOffline:
    case CODE.duplicateInProcess:
    case CODE.wrongLastSequenceInProcess:
      return { verdict: 'leaderless' };
    case CODE.wrongLastSequence:
      return { verdict: 'fenced' };
    case CODE.accountResources:
      return { verdict: 'full', limit: 'account' };
    case CODE.insufficientResources:
    case CODE.memoryResources:
    case CODE.storageResources:
      return { verdict: 'full', limit: 'server' };
    case CODE.messageTooLarge:
      return { verdict: 'too_large' };
    case CODE.storeFailed: {
      const message = ((err as ApiErrorShape).message ?? '').toLowerCase();
      return STORE_REFUSALS.find((r) => message.includes(r.text))?.refusal ?? { verdict: 'other' };
    }
    default:
      return { verdict: 'other' };
  }
}

/**
 * The request named a message or a consumer that is not there (taken and
 * acknowledged, deleted, never made): an answer to act on, not a failure. The
 * client throws these under their own names (ConsumerNotFoundError).
 */
export function isNotThere(err: unknown): boolean {
  const e = err as ApiErrorShape | undefined;
  if (e?.name !== 'JetStreamApiError' && e?.name !== 'ConsumerNotFoundError') return false;
  return e.code === CODE.consumerNotFound || e.code === CODE.noMessageFound || e.code === CODE.sequenceNotFound;
}

/** A consumer refused because another consumer of the same work-queue stream takes the same messages. */
export function isWorkQueueClash(err: unknown): boolean {
  const code = apiCode(err);
  return code === CODE.workQueueUnfiltered || code === CODE.workQueueNotUnique;
}

/** The publish may have been stored though no ack came back (a timeout, a dropped connection, a publish still being replicated). */
export function mayBeStored(err: unknown): boolean {
  const name = (err as Error | undefined)?.name;
  const code = apiCode(err);
  return name === 'TimeoutError' || name === 'NoAnswer' || code === CODE.duplicateInProcess || code === CODE.wrongLastSequenceInProcess;
}

/** Whether `err` (or an error it was caused by) is the NATS server refusing the request as its user's permissions do not allow it. */
export function isPermissionRefusal(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e.name === 'PermissionViolationError') return true;
  }
  return false;
}
