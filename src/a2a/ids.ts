/**
 * Message ids are KSUIDs, as the reference mints them: 27 base62 characters of
 * a 4-byte timestamp (seconds since 2014-05-13) and 16 random bytes, so they
 * sort by the second they were made. Ordering within a reply set is by
 * `sequence`, never by id.
 */
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
