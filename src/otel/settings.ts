/**
 * Whether and where a run sends its spans: the config's `otel:` block, else
 * the standard OTEL_EXPORTER_OTLP_* variables (read by the CLI, once, at its
 * edge: src/cli/environment.ts, and given here as OtelEnvironment). The config
 * wins over the variables, a signal's own variable over the general one, as
 * the OpenTelemetry specification orders them.
 */
import { LogbookError, redactUrlCredentials } from '../core/index.js';
import { OTLP_PROTOCOLS, type OtlpProtocol, type OtlpTarget } from './export.js';

/** agent.yaml's `otel:` block, as the config reads it (header values expanded). */
export interface OtelConfig {
  /** The collector's OTLP/HTTP base address (`http://localhost:4318`); `/v1/traces` is added. */
  endpoint?: string;
  protocol?: OtlpProtocol;
  headers?: Record<string, string>;
  /** Prompt and output text, tool arguments and results on the spans. */
  capture_content?: boolean;
}

/** The standard variables, as given (unset or empty: undefined). */
export interface OtelEnvironment {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: a base address, `/v1/traces` added. */
  endpoint?: string | undefined;
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: the whole traces URL. */
  tracesEndpoint?: string | undefined;
  /** OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TRACES_HEADERS: `key=value,key2=value2`, values percent-encoded. */
  headers?: string | undefined;
  tracesHeaders?: string | undefined;
  /** OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL. */
  protocol?: string | undefined;
  tracesProtocol?: string | undefined;
  /** OTEL_SERVICE_NAME */
  serviceName?: string | undefined;
  /** OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none. */
  disabled?: boolean;
}

export interface OtelSettings {
  target: OtlpTarget;
  captureContent: boolean;
  serviceName: string;
}

/** How long one export may take, its retries included: a collector that is down or never answers holds the end of a run no longer. */
export const EXPORT_TIMEOUT_MS = 1500;

/** `base` with `/v1/traces` after its path, as OTEL_EXPORTER_OTLP_ENDPOINT is read. */
export function tracesUrl(base: string, where: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new LogbookError('config', `${where}: ${JSON.stringify(redactUrlCredentials(base))} is not a URL (give the collector's address, as http://localhost:4318)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new LogbookError('config', `${where}: the collector's URL must be http: or https:, not ${url.protocol}`);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/traces`;
  return url.toString();
}

function checkedUrl(text: string, where: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new LogbookError('config', `${where}: ${JSON.stringify(redactUrlCredentials(text))} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new LogbookError('config', `${where}: the collector's URL must be http: or https:, not ${url.protocol}`);
  return url.toString();
}

/** `key=value,key2=value2` (values percent-encoded), as the OTLP header variables hold them. */
export function parseHeaderList(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    let value = pair.slice(at + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      /* kept as written */
    }
    if (key !== '') headers[key] = value;
  }
  return headers;
}

function protocolOf(text: string | undefined, where: string): OtlpProtocol {
  if (text === undefined) return 'http/protobuf';
  if ((OTLP_PROTOCOLS as readonly string[]).includes(text)) return text as OtlpProtocol;
  throw new LogbookError(
    'config',
    `${where} is ${JSON.stringify(text)}; logbook sends OTLP over HTTP: http/protobuf or http/json (a collector takes both on port 4318)`,
  );
}

/**
 * The live export's settings, or null when spans are not sent (no endpoint, or
 * the SDK switched off). `config` is the `otel:` block, if any.
 */
export function otelSettings(config: OtelConfig | undefined, env: OtelEnvironment): OtelSettings | null {
  if (env.disabled === true) return null;
  let url: string;
  if (config?.endpoint !== undefined) url = tracesUrl(config.endpoint, 'otel.endpoint');
  else if (env.tracesEndpoint !== undefined) url = checkedUrl(env.tracesEndpoint, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  else if (env.endpoint !== undefined) url = tracesUrl(env.endpoint, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  else return null;
  const protocol =
    config?.protocol ??
    (env.tracesProtocol !== undefined ? protocolOf(env.tracesProtocol, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') : protocolOf(env.protocol, 'OTEL_EXPORTER_OTLP_PROTOCOL'));
  const headers = { ...parseHeaderList(env.headers), ...parseHeaderList(env.tracesHeaders), ...(config?.headers ?? {}) };
  return {
    target: { url, protocol, headers, timeoutMs: EXPORT_TIMEOUT_MS },
    captureContent: config?.capture_content === true,
    serviceName: env.serviceName ?? 'logbook',
  };
}

/** The target of an export after the fact to `url` (--otlp-endpoint): the live settings' protocol and headers, where there are any. */
export function endpointTarget(url: string, live: OtelSettings | null, env: OtelEnvironment): OtlpTarget {
  const parsed = (() => {
    try {
      return new URL(url);
    } catch {
      throw new LogbookError('usage', `--otlp-endpoint ${JSON.stringify(redactUrlCredentials(url))} is not a URL (give the collector's address, as http://localhost:4318)`);
    }
  })();
  const whole = parsed.pathname.replace(/\/+$/, '') !== '' ? checkedUrl(url, '--otlp-endpoint') : tracesUrl(url, '--otlp-endpoint');
  const protocol = live?.target.protocol ?? (env.tracesProtocol !== undefined ? protocolOf(env.tracesProtocol, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') : protocolOf(env.protocol, 'OTEL_EXPORTER_OTLP_PROTOCOL'));
  const headers = live?.target.headers ?? { ...parseHeaderList(env.headers), ...parseHeaderList(env.tracesHeaders) };
  return { url: whole, protocol, headers, timeoutMs: 10_000 };
}
