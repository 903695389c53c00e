/**
 * Sending spans and writing them: the official OpenTelemetry exporters do the
 * protocol work (OTLP over HTTP, protobuf or JSON), and the official serializer
 * writes OTLP/JSON for a file. Each loads only when it is used.
 */
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { LogbookError } from '../core/index.js';

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

/** The exporter for a target: the protobuf one, or the JSON one. */
export async function spanExporter(target: OtlpTarget): Promise<SpanExporter> {
  const config = { url: target.url, headers: target.headers, timeoutMillis: target.timeoutMs };
  if (target.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter(config);
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter(config);
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

/** Why an export failed, in words: the exporter's error message, or its HTTP status. */
export function exportFailure(result: ExportResult): string {
  return result.error?.message ?? 'the collector did not accept the spans';
}

/** Sends spans once, failing (`unavailable`) with the reason when the collector does not take them. */
export async function sendSpans(spans: ReadableSpan[], target: OtlpTarget): Promise<void> {
  const exporter = await spanExporter(target);
  try {
    const result = await exportOnce(exporter, spans);
    if (result.code !== 0) {
      throw new LogbookError('unavailable', `cannot send the spans to ${target.url}: ${exportFailure(result)}`, result.error ? { cause: result.error } : undefined);
    }
  } finally {
    await exporter.shutdown().catch(() => {});
  }
}

/** The spans as one OTLP/JSON ExportTraceServiceRequest, what an OTLP/HTTP JSON request carries. */
export async function otlpJson(spans: ReadableSpan[]): Promise<string> {
  const { JsonTraceSerializer } = await import('@opentelemetry/otlp-transformer');
  const bytes = JsonTraceSerializer.serializeRequest(spans);
  if (bytes === undefined) throw new LogbookError('internal', 'the OTLP/JSON serializer gave nothing for the spans');
  return `${new TextDecoder().decode(bytes)}\n`;
}
