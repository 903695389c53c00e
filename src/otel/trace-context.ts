/**
 * What every span of a run is made with (spans.ts TraceContext): its
 * conversation, the resource (service.name), the instrumentation scope, and the
 * tools' policies where the config is at hand.
 */
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { Store } from '../store/store.js';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from './semconv.js';
import type { ToolPolicyFacts, TraceContext } from './spans.js';

/** How many runs back a conversation is followed, at most (a cycle of fork notes cannot loop it). */
const MAX_LINEAGE = 256;

/**
 * The conversation run `id` belongs to: its first run, found by following the
 * fork origins kept beside each run (a follow-up to a completed run is a fork
 * of it) back to a run that was not forked; the run itself when it was not.
 */
export async function conversationOf(store: Store, id: string): Promise<string> {
  const seen = new Set([id]);
  let at = id;
  for (let i = 0; i < MAX_LINEAGE; i++) {
    const origin = await store.forkOrigin(at).catch(() => null);
    if (origin === null || seen.has(origin.from)) return at;
    seen.add(origin.from);
    at = origin.from;
  }
  return at;
}

export interface ContextOptions {
  conversationId: string;
  captureContent: boolean;
  serviceName: string;
  /** logbook's version: the scope's and the service's. */
  version: string;
  policy?: (name: string) => ToolPolicyFacts | undefined;
}

export function traceContext(o: ContextOptions): TraceContext {
  return {
    conversationId: o.conversationId,
    captureContent: o.captureContent,
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: o.serviceName, [ATTR_SERVICE_VERSION]: o.version }),
    scope: { name: 'logbook', version: o.version },
    ...(o.policy !== undefined ? { policy: o.policy } : {}),
  };
}
