/**
 * OpenTelemetry for the commands: the settings a config and the environment
 * give (src/otel/settings.ts), and the live trace of a run (src/otel/live.ts),
 * whose modules load only when spans are to be sent.
 */
import { policyOf } from '../agent/approvals.js';
import type { AgentRun } from '../agent/run.js';
import { expandAll } from '../agent/tools/env-refs.js';
import type { ToolRegistry } from '../agent/tools/registry.js';
import type { LogbookConfig } from '../config/config.js';
import { isLogbookError } from '../core/index.js';
import type { LiveTrace } from '../otel/live.js';
import { otelSettings, type OtelSettings } from '../otel/settings.js';
import type { ToolPolicyFacts } from '../otel/spans.js';
import type { Store } from '../store/store.js';
import type { Environment } from './environment.js';
import { packageVersion } from '../api/version.js';

/** The live export's settings from the config and the environment; null when no spans are sent. Header references are expanded here. */
export function tracingSettings(config: LogbookConfig | undefined, environment: Environment): OtelSettings | null {
  const block = config?.otel;
  const otel = block === undefined ? undefined : { ...block, headers: expandAll(block.headers, environment.env, 'otel.headers') };
  return otelSettings(otel, environment.otel);
}

/** The config's policy of each tool, as the spans carry it. */
export function toolPolicies(tools: ToolRegistry): (name: string) => ToolPolicyFacts | undefined {
  return (name) => (tools.get(name) === undefined ? undefined : policyOf(tools, name));
}

/** A run's live trace, ready to follow the run once it has started. */
export interface Tracing {
  /** Follows `run` (just started or resumed; journaled in `store`), or null for a run that is not journaled. */
  follow(run: AgentRun, store: Store | null, tools: ToolRegistry): LiveTrace | null;
}

/**
 * The live trace a config or the environment asks for, loaded before the run
 * starts (so loading it never delays a step of the run); null when none is
 * asked for. A setting that cannot be used is said once (`warn`) and the run
 * goes on untraced: a trace is never worth a run.
 */
export async function prepareTracing(config: LogbookConfig, environment: Environment, warn: (message: string) => void): Promise<Tracing | null> {
  let settings: OtelSettings | null;
  try {
    settings = tracingSettings(config, environment);
  } catch (err) {
    if (!isLogbookError(err)) throw err;
    warn(`OpenTelemetry: spans are not sent: ${err.message}`);
    return null;
  }
  if (settings === null) return null;
  const ready = settings;
  try {
    const [{ LiveTrace }, { conversationOf, traceContext }] = await Promise.all([import('../otel/live.js'), import('../otel/trace-context.js')]);
    const sender = await LiveTrace.sender(ready, warn);
    return {
      follow(run, store, tools) {
        if (store === null) {
          warn('OpenTelemetry: an --ephemeral run keeps no times, so it sends no spans');
          return null;
        }
        const { conversationId: _, ...context } = traceContext({
          conversationId: run.id,
          captureContent: ready.captureContent,
          serviceName: ready.serviceName,
          version: packageVersion(),
          policy: toolPolicies(tools),
        });
        return new LiveTrace({ store, state: run.state, context, conversation: conversationOf(store, run.id) }, sender);
      },
    };
  } catch (err) {
    warn(`OpenTelemetry: spans are not sent: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
}
