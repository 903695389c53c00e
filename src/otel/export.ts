/**
 * Sending spans and writing them: the official OpenTelemetry exporters do the
 * protocol work (OTLP over HTTP, protobuf or JSON), and the official serializer
 * writes OTLP/JSON for a file. They load (sdk.ts) only when spans are sent or
 * written.
 */
import type { Agent } from 'node:http';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { LogbookError, redactUrlCredentials } from '../core/index.js';

/** The OTLP/HTTP encodings spans are sent in. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
/** One of OTLP_PROTOCOLS. */
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** Where spans go: an OTLP/HTTP traces endpoint (the whole URL, `/v1/traces` included). */
export interface OtlpTarget {
  url: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  /** The longest one export request may take. */
  timeoutMs: number;
}

/** The target's URL as a message may show it: its credentials hidden. */
export function shownUrl(target: OtlpTarget): string {
  return redactUrlCredentials(target.url);
}

/** An exporter whose connections end by a deadline, and can all be ended at once. */
export interface BoundedExporter extends SpanExporter {
  /** Ends every connection to the collector now, a request in flight included. */
  abort(): void;
}

/**
 * The exporter for a target: the protobuf one, or the JSON one. The SDK bounds
 * a request by the time between bytes only, so a collector that answers a byte
 * at a time would hold it (and the process) forever: each connection here ends
 * `timeoutMs` after it opened, and `abort` or `shutdown` ends them all.
 */
export async function spanExporter(target: OtlpTarget): Promise<BoundedExporter> {
  let agent: Agent | undefined;
  const config = {
    url: target.url,
    headers: target.headers,
    timeoutMillis: target.timeoutMs,
    httpAgentOptions: async (protocol: string): Promise<Agent> => (agent = await boundedAgent(protocol, target.timeoutMs)),
  };
  const sdk = await import('./sdk.js');
  const exporter: SpanExporter = target.protocol === 'http/json' ? new sdk.JsonTraceExporter(config) : new sdk.ProtobufTraceExporter(config);
  const abort = (): void => agent?.destroy();
  return {
    export: (spans, done) => exporter.export(spans, done),
    ...(exporter.forceFlush !== undefined ? { forceFlush: () => exporter.forceFlush!() } : {}),
    shutdown: () => exporter.shutdown().finally(abort),
    abort,
  };
}

/** An agent whose every connection (one per request: no keep-alive) is destroyed `ms` after it opened. */
async function boundedAgent(protocol: string, ms: number): Promise<Agent> {
  const { Agent } = protocol === 'https:' ? await import('node:https') : await import('node:http');
  const agent = new Agent({ keepAlive: false });
  const connect = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => {
    const socket = connect(options, callback);
    const timer = setTimeout(() => socket?.destroy(new Error(`the collector did not answer within ${ms} ms`)), ms);
    timer.unref();
    socket?.once('close', () => clearTimeout(timer));
    return socket;
  };
  return agent;
}

/** One export call as a promise: the exporter's result, never a rejection. */
export function exportOnce(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => {
    try {
      exporter.export(spans, resolve);
    } catch (err) {
      resolve({ code: 1, error: err instanceof Error ? err : new Error(String(err)) });
    }
  });
}

/** Why an export failed, in words: the exporter's error message (which may quote the URL), or its HTTP status. */
export function exportFailure(result: ExportResult): string {
  return redactUrlCredentials(result.error?.message ?? 'the collector did not accept the spans');
}

/**
 * Sends spans once, failing (`unavailable`) with the reason when the collector
 * does not take them within the target's timeout, retries included.
 */
export async function sendSpans(spans: ReadableSpan[], target: OtlpTarget): Promise<void> {
  const exporter = await spanExporter(target);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ExportResult>((resolve) => {
    timer = setTimeout(() => resolve({ code: 1, error: new Error(`the collector did not answer within ${target.timeoutMs} ms`) }), target.timeoutMs);
  });
  try {
    const result = await Promise.race([exportOnce(exporter, spans), late]);
    if (result.code !== 0) {
      throw new LogbookError('unavailable', `cannot send the spans to ${shownUrl(target)}: ${exportFailure(result)}`, result.error ? { cause: result.error } : undefined);
    }
  } finally {
    clearTimeout(timer);
    exporter.abort();
    void exporter.shutdown().catch(() => {});
  }
}

/** The spans as one OTLP/JSON ExportTraceServiceRequest, what an OTLP/HTTP JSON request carries. */
export async function otlpJson(spans: ReadableSpan[]): Promise<string> {
  const { JsonTraceSerializer } = await import('./sdk.js');
  const bytes = JsonTraceSerializer.serializeRequest(spans);
  if (bytes === undefined) throw new LogbookError('internal', 'the OTLP/JSON serializer gave nothing for the spans');
  return `${new TextDecoder().decode(bytes)}\n`;
}
