/**
 * Message ids are KSUIDs, as the reference mints them: 27 base62 characters of
 * a 4-byte timestamp (seconds since 2014-05-13) and 16 random bytes, so they
 * sort by the second they were made. Ordering within a reply set is by
 * `sequence`, never by id.
 */
import { createRequire } from 'node:module';
import { nodeCrypto } from '../core/index.js';

type Ksuid = typeof import('ksuid');
const requireCjs = createRequire(import.meta.url);
let ksuid: Ksuid | undefined;

/** A KSUID's random payload, in bytes. */
const PAYLOAD_BYTES = 16;
/**
 * Random bytes for the next ids, drawn from the CSPRNG a pool at a time (as
 * Node's randomUUID does): a draw of 16 bytes each was a call into the
 * crypto library and a buffer per id, a good part of what stamping a task's
 * event cost. Each id takes bytes of the pool no other id takes.
 */
const pool = Buffer.alloc(PAYLOAD_BYTES * 256);
let drawn = pool.length;

/** A new message id. */
export function newMessageId(): string {
  ksuid ??= requireCjs('ksuid') as Ksuid;
  if (drawn === pool.length) {
    nodeCrypto().randomFillSync(pool);
    drawn = 0;
  }
  const payload = pool.subarray(drawn, drawn + PAYLOAD_BYTES);
  drawn += PAYLOAD_BYTES;
  return ksuid.fromParts(Date.now(), payload).string; // fromParts copies the payload into the id's own bytes
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
  const payload = nodeCrypto().createHash('sha256').update(key, 'utf8').digest().subarray(0, 16);
  // A KSUID's clock starts in 2014: an earlier time (a clock set wrong) is taken as that start.
  const ms = Math.max(at.getTime(), KSUID_EPOCH_MS);
  return ksuid.fromParts(Number.isFinite(ms) ? ms : KSUID_EPOCH_MS, payload).string;
}

/** When KSUIDs' clock starts (2014-05-13T16:53:20Z). */
const KSUID_EPOCH_MS = 1_400_000_000_000;
