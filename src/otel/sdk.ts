/**
 * What logbook uses of the OpenTelemetry SDK at run time, and nothing else:
 * the build bundles this module with the packages it imports into one file
 * (scripts/bundle.mjs), from their ES modules, so what is not named here is
 * left out of it. The packages loaded as they are were some 260 CommonJS
 * files (the metrics and logs SDKs among them, which no span needs), read and
 * compiled one by one before a traced run's first step. Types come from the
 * packages themselves.
 */
export { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
export { hrTimeDuration, millisToHrTime } from '@opentelemetry/core';
export { resourceFromAttributes } from '@opentelemetry/resources';
export { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
export { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
export { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
export { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
