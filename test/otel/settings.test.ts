import { describe, expect, it } from 'vitest';
import { endpointTarget, otelSettings, parseHeaderList } from '../../src/otel/settings.js';

const code = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    return (err as { code: string }).code;
  }
  return 'no error';
};

describe('where a run sends its spans', () => {
  it('nowhere without an endpoint, or with the SDK switched off', () => {
    expect(otelSettings(undefined, {})).toBeNull();
    expect(otelSettings({ capture_content: true }, {})).toBeNull();
    expect(otelSettings({ endpoint: 'http://c:4318' }, { disabled: true })).toBeNull();
  });

  it('to the config\'s endpoint first, then the traces variable as given, then the general one with /v1/traces added', () => {
    const env = { endpoint: 'http://general:4318/base/', tracesEndpoint: 'http://traces:4318/custom', protocol: 'http/json' };
    expect(otelSettings({ endpoint: 'http://config:4318' }, env)!.target.url).toBe('http://config:4318/v1/traces');
    expect(otelSettings(undefined, env)!.target.url).toBe('http://traces:4318/custom');
    expect(otelSettings(undefined, { endpoint: 'http://general:4318/base/' })!.target.url).toBe('http://general:4318/base/v1/traces');
    expect(otelSettings(undefined, env)!.target.protocol).toBe('http/json');
    expect(otelSettings({ protocol: 'http/protobuf' }, env)!.target.protocol).toBe('http/protobuf');
    expect(otelSettings(undefined, { endpoint: 'http://c:4318' })!.target.protocol).toBe('http/protobuf');
  });

  it('with the variables\' headers, the traces ones and then the config\'s winning, and content only when the config asks', () => {
    const s = otelSettings({ headers: { team: 'config' } }, { endpoint: 'http://c:4318', headers: 'team=general,key=a%20b', tracesHeaders: 'team=traces' })!;
    expect(s.target.headers).toEqual({ team: 'config', key: 'a b' });
    expect(s.captureContent).toBe(false);
    expect(otelSettings({ capture_content: true }, { endpoint: 'http://c:4318' })!.captureContent).toBe(true);
    expect(parseHeaderList('a=1, b = 2 ,junk,=x')).toEqual({ a: '1', b: '2' });
  });

  it('refuses what it cannot send: gRPC, and a URL that is not http(s)', () => {
    expect(code(() => otelSettings(undefined, { endpoint: 'http://c:4317', protocol: 'grpc' }))).toBe('config');
    expect(code(() => otelSettings(undefined, { endpoint: 'ftp://c' }))).toBe('config');
    expect(code(() => endpointTarget('not a url', null, {}))).toBe('usage');
  });

  it('for an export after the fact: the URL\'s own path when it has one, else /v1/traces', () => {
    expect(endpointTarget('http://c:4318', null, {}).url).toBe('http://c:4318/v1/traces');
    expect(endpointTarget('http://c:4318/otlp/v1/traces', null, {}).url).toBe('http://c:4318/otlp/v1/traces');
  });
});
