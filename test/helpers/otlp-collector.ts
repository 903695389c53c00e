/**
 * An OTLP/HTTP traces endpoint on loopback, for tests: it takes what an
 * OpenTelemetry exporter POSTs to /v1/traces, as protobuf (decoded with the
 * official OTLP .proto definitions, which @opentelemetry/otlp-grpc-exporter-base
 * 0.38 ships, through protobufjs) or as JSON, and keeps every span received in
 * one shape for either. It can also refuse (a collector that is up but failing).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import protobuf from 'protobufjs';
import { forFile } from './for-file.js';

/** Where the official OTLP .proto files are (opentelemetry/proto/...). */
const PROTOS = join(dirname(createRequire(import.meta.url).resolve('@opentelemetry/otlp-grpc-exporter-base/package.json')), 'build', 'protos');

let requestType: protobuf.Type | undefined;

async function exportRequestType(): Promise<protobuf.Type> {
  if (requestType === undefined) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => join(PROTOS, target);
    await root.load('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: true });
    requestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
  }
  return requestType;
}

export type AttributeValue = string | number | boolean | AttributeValue[];

/** A span as received, the same whichever encoding carried it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** The OTLP enum: 1 internal, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, AttributeValue>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  resource: Record<string, AttributeValue>;
  scope: string;
  /** How it came: 'protobuf' or 'json'. */
  encoding: 'protobuf' | 'json';
}

const hexOf = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : Buffer.from(v as Uint8Array).toString('hex'));

const statusCodes: Record<string, number> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };
const kinds: Record<string, number> = { SPAN_KIND_INTERNAL: 1, SPAN_KIND_SERVER: 2, SPAN_KIND_CLIENT: 3 };

/** An AnyValue of either encoding (keys in proto case or JSON camel case). */
function anyValue(v: Record<string, any>): AttributeValue {
  const get = (snake: string, camel: string): any => v[snake] ?? v[camel];
  if (get('string_value', 'stringValue') !== undefined) return get('string_value', 'stringValue');
  if (get('bool_value', 'boolValue') !== undefined) return get('bool_value', 'boolValue');
  if (get('int_value', 'intValue') !== undefined) return Number(get('int_value', 'intValue'));
  if (get('double_value', 'doubleValue') !== undefined) return Number(get('double_value', 'doubleValue'));
  const array = get('array_value', 'arrayValue');
  if (array !== undefined) return ((array.values ?? []) as Record<string, any>[]).map(anyValue);
  return '';
}

function attributes(list: Record<string, any>[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((a) => [a.key as string, anyValue(a.value ?? {})]));
}

/** The spans of one ExportTraceServiceRequest, decoded to a plain object of either encoding. */
function spansOf(request: Record<string, any>, encoding: 'protobuf' | 'json'): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of request.resource_spans ?? request.resourceSpans ?? []) {
    const resource = attributes(rs.resource?.attributes);
    for (const ss of rs.scope_spans ?? rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        const status = s.status ?? {};
        const kind = s.kind;
        const code = status.code;
        out.push({
          traceId: hexOf(s.trace_id ?? s.traceId),
          spanId: hexOf(s.span_id ?? s.spanId),
          parentSpanId: hexOf(s.parent_span_id ?? s.parentSpanId),
          name: s.name,
          kind: typeof kind === 'string' ? kinds[kind]! : Number(kind ?? 0),
          startNs: BigInt(String(s.start_time_unix_nano ?? s.startTimeUnixNano)),
          endNs: BigInt(String(s.end_time_unix_nano ?? s.endTimeUnixNano)),
          attributes: attributes(s.attributes),
          status: { code: typeof code === 'string' ? statusCodes[code]! : Number(code ?? 0), message: status.message ?? '' },
          resource,
          scope: ss.scope?.name ?? '',
          encoding,
        });
      }
    }
  }
  return out;
}

/** Decodes an OTLP/HTTP traces request body by its content type. */
export async function decodeTraces(body: Buffer, contentType: string): Promise<ReceivedSpan[]> {
  if (contentType.includes('json')) return spansOf(JSON.parse(body.toString('utf8')), 'json');
  const type = await exportRequestType();
  const message = type.toObject(type.decode(body), { longs: String, bytes: Array, enums: Number, defaults: false });
  return spansOf(message, 'protobuf');
}

export class OtlpCollector {
  readonly spans: ReceivedSpan[] = [];
  /** Each request's headers, in order. */
  readonly headers: Record<string, string | string[] | undefined>[] = [];
  /** Answer every request with this status (500: up but failing); 200 when null. */
  failWith: number | null = null;
  /** Answer every request with 200 and then one byte every 500 ms, never ending the body (a collector that is slow to answer). */
  trickle = false;
  private readonly trickling = new Set<NodeJS.Timeout>();
  private waiters: { count: number; resolve: () => void }[] = [];

  private constructor(
    private readonly server: Server,
    /** http://127.0.0.1:PORT */
    readonly origin: string,
  ) {}

  static async start(): Promise<OtlpCollector> {
    let self: OtlpCollector | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void (async () => {
          if (req.method !== 'POST' || req.url !== '/v1/traces') {
            res.writeHead(404).end();
            return;
          }
          self!.headers.push(req.headers);
          if (self!.trickle) {
            res.writeHead(200, { 'content-type': 'application/json' });
            const timer = setInterval(() => res.write(' '), 500);
            self!.trickling.add(timer);
            res.on('close', () => (clearInterval(timer), self!.trickling.delete(timer)));
            return;
          }
          if (self!.failWith !== null) {
            res.writeHead(self!.failWith).end();
            return;
          }
          const type = req.headers['content-type'] ?? '';
          try {
            self!.spans.push(...(await decodeTraces(Buffer.concat(chunks), type)));
          } catch (err) {
            res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
            return;
          }
          self!.waiters = self!.waiters.filter((w) => (w.count <= self!.spans.length ? (w.resolve(), false) : true));
          const json = type.includes('json');
          res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : Buffer.alloc(0));
        })();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new OtlpCollector(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  /** Resolves once `count` spans have arrived, or fails after `ms`. */
  waitForSpans(count: number, ms = 15_000): Promise<void> {
    if (this.spans.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${this.spans.length} of ${count} spans arrived within ${ms} ms`)), ms);
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  reset(): void {
    this.spans.length = 0;
    this.headers.length = 0;
    this.failWith = null;
    this.trickle = false;
  }

  async close(): Promise<void> {
    for (const timer of this.trickling) clearInterval(timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** An OtlpCollector for the calling test file's tests (for-file.ts). */
export function useOtlpCollector(): OtlpCollector {
  return forFile(() => OtlpCollector.start());
}
