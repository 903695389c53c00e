/**
 * Whether a writer still holds a run: a JetStream writer answers for the run
 * it holds, while its process lives, on core subjects beside the run's (never
 * stored: `<prefix>-held.<run>` for any writer, `<prefix>-held.<run>.<writer>`
 * for that one). A writer whose process died leaves no subscriber, so the
 * server answers "no responders" at once; the answer of a live writer is its
 * writer id. A process cut off from the servers stops answering once the
 * server drops its connection (its ping interval times its allowed missed
 * pings: 2 min × 2 by default). A question left unanswered within the bound
 * is taken as held: a writer that cannot answer now may still append (so is
 * one a NATS user may not ask about: it needs to subscribe to, and publish
 * on, `<prefix>-held.>` for another process to tell it is gone).
 */
import type { Subscription } from '@nats-io/transport-node';
import type { Link } from './connection.js';
import { within } from './election.js';

/** How long a question about a writer waits for its answer. */
export const PRESENCE_WAIT_MS = 2_000;

/** The subject the writers of run `id` answer on, or writer `writer` alone. */
export function presenceSubject(prefix: string, id: string, writer?: string): string {
  return writer === undefined ? `${prefix}-held.${id}` : `${prefix}-held.${id}.${writer}`;
}

/** A writer answering for a run: `ready` once the server routes questions to it, `stop` once it no longer does. */
export interface Answering {
  ready: Promise<void>;
  stop(): Promise<void>;
}

/** Answers for run `id` as writer `writer` until stopped. */
export function answerForRun(link: Link, prefix: string, id: string, writer: string): Answering {
  if (link.nc.isClosed()) return { ready: Promise.resolve(), stop: async () => {} };
  const subs: Subscription[] = [presenceSubject(prefix, id), presenceSubject(prefix, id, writer)].map((subject) =>
    link.nc.subscribe(subject, { callback: (err, msg) => (err === null || err === undefined ? void msg.respond(writer) : undefined) }),
  );
  const flushed = (): Promise<void> => (link.nc.isClosed() ? Promise.resolve() : within(link.timeoutMs, link.nc.flush()).catch(() => {}));
  return {
    ready: flushed(),
    stop: async () => {
      for (const s of subs) s.unsubscribe();
      await flushed();
    },
  };
}

/** Whether a writer of run `id` (or writer `writer`) answers now. */
export async function writerAnswers(link: Link, prefix: string, id: string, writer?: string): Promise<boolean> {
  await link.ensureConnected(`cannot ask who holds run ${id}`);
  try {
    await link.nc.request(presenceSubject(prefix, id, writer), '', { timeout: PRESENCE_WAIT_MS });
    return true;
  } catch (err) {
    const e = err as { name?: string; cause?: { name?: string }; isNoResponders?: () => boolean };
    if (e.name === 'NoResponders' || e.cause?.name === 'NoResponders' || e.isNoResponders?.() === true) return false;
    return true; // no answer in time: perhaps held
  }
}
