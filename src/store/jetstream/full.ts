/**
 * Saying why a stream refused a message for want of room (apiVerdict `full`)
 * or for its size (`too_large`): which limit, read from the stream (and its
 * account) as they are now, and how to raise it. A stream bound with a limit on
 * its bytes or messages is refused at construction (binding.ts), so a limit met
 * here was set on the stream later, or is its account's or its server's.
 */
import type { StreamInfo } from '@nats-io/jetstream';
import { LogbookError } from '../../core/index.js';
import type { StoreLimit } from './api-errors.js';
import type { StreamBinding } from './binding.js';
import type { Link } from './connection.js';
import { within } from './election.js';

/** The stream's info, or null when it cannot be read now (the refusal is said without its figures). */
async function streamInfo(link: Link, stream: string): Promise<StreamInfo | null> {
  try {
    return await within(link.timeoutMs, link.jsm.streams.info(stream));
  } catch {
    return null;
  }
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** The stream's own limit, as its info says it now. */
function streamLimit(stream: string, info: StreamInfo | null, limit: 'max_bytes' | 'max_msgs', said: string): string {
  const flag = limit === 'max_bytes' ? '--max-bytes=-1' : '--max-msgs=-1';
  if (info === null) return `stream ${stream} is full (${said}: its ${limit}) (fix: nats stream edit ${stream} ${flag})`;
  const max = limit === 'max_bytes' ? info.config.max_bytes : info.config.max_msgs;
  if (max === undefined || max <= 0) {
    return `stream ${stream} refused it (${said}), yet sets no ${limit} now; check its limits with \`nats stream info ${stream}\``;
  }
  const held = limit === 'max_bytes' ? `${count(info.state.bytes)} bytes` : `${count(info.state.messages)} messages`;
  return `stream ${stream} is full: it holds ${held} and its ${limit} is ${count(max)} (fix: nats stream edit ${stream} ${flag})`;
}

/** The account's JetStream storage, as its info says it now. */
async function accountLimit(link: Link, memory: boolean): Promise<string> {
  const kind = memory ? 'memory' : 'file storage';
  let figures = '';
  try {
    const account = await within(link.timeoutMs, link.jsm.getAccountInfo());
    const [used, max] = memory ? [account.memory, account.limits.max_memory] : [account.storage, account.limits.max_storage];
    if (max > 0) figures = `: it uses ${count(used)} bytes of the ${count(max)} it may`;
  } catch {
    // said without its figures
  }
  const setting = memory ? 'max_mem' : 'max_file';
  const nsc = memory ? '--js-mem-storage' : '--js-disk-storage';
  return (
    `the JetStream ${kind} of the account is full${figures} ` +
    `(fix: raise the account's limit, \`${setting}\` in its jetstream block of the server's configuration or \`nsc edit account ${nsc}\`, or remove runs)`
  );
}

/** The server's own JetStream storage. */
function serverLimit(memory: boolean): string {
  const [kind, setting] = memory ? ['memory', 'max_memory_store'] : ['file storage', 'max_file_store'];
  return (
    `the NATS server's JetStream ${kind} is full: its \`${setting}\` limit is reached, or the disk under its store directory ` +
    `(fix: raise \`${setting}\` in the jetstream block of the server's configuration, or free disk space)`
  );
}

/**
 * The error for a message the stream refused for want of room: `stream_full`,
 * saying `what` failed and which limit refused it. `cause` is the server's refusal.
 */
export async function streamFull(link: Link, binding: StreamBinding, what: string, limit: StoreLimit, cause: unknown): Promise<LogbookError> {
  const { stream } = binding;
  const said = (cause as Error | undefined)?.message ?? 'no room';
  const info = await streamInfo(link, stream);
  const memory = info?.config.storage === 'memory';
  const why =
    limit === 'account' ? await accountLimit(link, memory) : limit === 'server' ? serverLimit(memory) : streamLimit(stream, info, limit, said);
  return new LogbookError('stream_full', `${what}: ${why}`, { cause });
}

/** The error for a message over the stream's max_msg_size (`stream_config`). */
export async function tooLarge(link: Link, binding: StreamBinding, what: string, size: number, cause: unknown): Promise<LogbookError> {
  const { stream } = binding;
  const max = (await streamInfo(link, stream))?.config.max_msg_size ?? -1;
  const limit = max > 0 ? ` and stream ${stream} takes at most ${count(max)} (its max_msg_size)` : `, over what stream ${stream} takes (its max_msg_size)`;
  return new LogbookError('stream_config', `${what}: the record is ${count(size)} bytes${limit} (fix: nats stream edit ${stream} --max-msg-size=-1)`, { cause });
}
