/**
 * Message ids are KSUIDs, as the reference mints them: 27 base62 characters of
 * a 4-byte timestamp (seconds since 2014-05-13) and 16 random bytes, so they
 * sort by the second they were made. Ordering within a reply set is by
 * `sequence`, never by id.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

type Ksuid = typeof import('ksuid');
const requireCjs = createRequire(import.meta.url);
let ksuid: Ksuid | undefined;

/** A new message id. */
export function newMessageId(): string {
  ksuid ??= requireCjs('ksuid') as Ksuid;
  return ksuid.randomSync().string;
}

/** When a message id was minted (to the second), or null when it is not a KSUID. */
export function mintedAt(id: string): Date | null {
  ksuid ??= requireCjs('ksuid') as Ksuid;
  if (!/^[0-9A-Za-z]{27}$/.test(id)) return null;
  try {
    return ksuid.parse(id).date;
  } catch {
    return null;
  }
}

/**
 * A message id derived from `key`: a KSUID minted at `at` (to the second) whose
 * payload is the first 16 bytes of key's SHA-256, so the same key always gives
 * the same id. What a request made again after a crash is sent with (a task
 * request a run's tool call starts), so that it is one task.
 */
export function derivedMessageId(key: string, at: Date): string {
  ksuid ??= requireCjs('ksuid') as Ksuid;
  const payload = createHash('sha256').update(key, 'utf8').digest().subarray(0, 16);
  // A KSUID's clock starts in 2014: an earlier time (a clock set wrong) is taken as that start.
  const ms = Math.max(at.getTime(), KSUID_EPOCH_MS);
  return ksuid.fromParts(Number.isFinite(ms) ? ms : KSUID_EPOCH_MS, payload).string;
}

/** When KSUIDs' clock starts (2014-05-13T16:53:20Z). */
const KSUID_EPOCH_MS = 1_400_000_000_000;
