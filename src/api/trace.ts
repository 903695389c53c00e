/**
 * A stored run's OpenTelemetry trace, as `logbook session export --format otlp`
 * makes it: spans derived from the journal and the times kept beside it, never
 * from a second record of the run.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { exposedName } from '../agent/tools/mcp/spec.js';
import type { LogbookConfig } from '../config/config.js';
import { LogbookError } from '../core/index.js';
import type { OtlpTarget } from '../otel/export.js';
import type { ToolPolicyFacts } from '../otel/spans.js';
import type { Store } from '../store/store.js';
import { packageVersion } from './version.js';

/** How runTrace makes a trace. */
export interface RunTraceOptions {
  /** Prompts, answers and tool arguments and results as span attributes; off by default, as the semantic conventions ask. */
  captureContent?: boolean;
  /** The resource's service.name; `logbook` by default. */
  serviceName?: string;
  /** The config the run was made with: each tool span then carries its confirm and side_effects policy. */
  config?: LogbookConfig;
}

/** A run's spans, as runTrace derives them. */
export interface RunTrace {
  /** The run's span first, then one per model call and tool call. */
  spans: ReadableSpan[];
  traceId: string;
  /** Calls with no kept times, left out of the trace. */
  untimed: number;
}

/**
 * Run `id` as spans. A run of which no times are kept (written by the
 * reference, copied, or its times note gone) cannot be traced: that is a
 * `untimed` error: there would be nothing to send.
 */
export async function runTrace(store: Store, id: string, options: RunTraceOptions = {}): Promise<RunTrace> {
  const [{ runSpans }, { conversationOf, traceContext }] = await Promise.all([import('../otel/spans.js'), import('../otel/trace-context.js')]);
  const loaded = await store.load(id);
  const context = traceContext({
    conversationId: await conversationOf(store, id),
    captureContent: options.captureContent === true,
    serviceName: options.serviceName ?? 'logbook',
    version: packageVersion(),
    policy: configPolicies(options.config),
  });
  const { root, children, untimed } = runSpans(loaded.records, loaded.times, context);
  if (root === null) throw new LogbookError('untimed', `run ${id} has no times kept beside it (written by the reference, copied, or its times note is gone): it cannot be traced`);
  return { spans: [root, ...children], traceId: root.spanContext().traceId, untimed };
}

/** A trace as one OTLP/JSON export request, what a collector's HTTP endpoint takes. */
export async function traceJson(trace: RunTrace): Promise<string> {
  return (await import('../otel/export.js')).otlpJson(trace.spans);
}

/** Sends a trace once to an OTLP/HTTP collector; `unavailable` with the reason when it does not take it. */
export async function sendTrace(trace: RunTrace, target: OtlpTarget): Promise<void> {
  await (await import('../otel/export.js')).sendSpans(trace.spans, target);
}

/**
 * The policies a config states, without starting any tool server (a trace
 * after the fact): a command tool's, and an MCP tool's where its overrides
 * give both halves.
 */
export function configPolicies(config: LogbookConfig | undefined): (name: string) => ToolPolicyFacts | undefined {
  const known = new Map<string, ToolPolicyFacts>();
  for (const t of config?.tools ?? []) known.set(t.name, { confirm: t.confirm === true, sideEffects: t.side_effects === true });
  for (const server of config?.mcp ?? []) {
    for (const [tool, o] of Object.entries(server.overrides)) {
      if (o.confirm !== undefined && o.side_effects !== undefined) known.set(exposedName(server.name, tool), { confirm: o.confirm, sideEffects: o.side_effects });
    }
  }
  return (name) => known.get(name);
}
