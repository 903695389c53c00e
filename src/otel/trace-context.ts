/**
 * What every span of a run is made with (spans.ts TraceContext): its
 * conversation, the resource (service.name), the instrumentation scope, and the
 * tools' policies where the config is at hand.
 */
import { readLineageRoot } from '../store/lineage.js';
import type { Store } from '../store/store.js';
import { resourceFromAttributes } from './sdk.js';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from './semconv.js';
import type { ToolPolicyFacts, TraceContext } from './spans.js';

/**
 * The conversation run `id` belongs to: the root of its lineage (store/lineage.ts),
 * its first run. A follow-up to a completed run is a fork of it, so a
 * conversation continued across runs keeps one id.
 */
export function conversationOf(store: Store, id: string): Promise<string> {
  return readLineageRoot(store, id);
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
