import { describe, expect, it } from 'vitest';
import { hasUrlCredentials, redactUrlCredentials } from '../../src/core/index.js';

describe('credentials in URLs', () => {
  it.each([
    ['http://u:pass@host/', 'http://u:***@host/'],
    ['https://user:p%40ss@api.example.com:8443/v1?x=1', 'https://user:***@api.example.com:8443/v1?x=1'],
    ['nats://token@127.0.0.1:4222', 'nats://***@127.0.0.1:4222'],
    ['nats://a:b@h1:4222,nats://c:d@h2:4222', 'nats://a:***@h1:4222,nats://c:***@h2:4222'],
    // A password with an @ in it, written unescaped: everything up to the last @ of the authority is hidden.
    ['tls://u:p@ss@host', 'tls://u:***@host'],
    ['cannot connect to NATS at nats://u:pw@localhost:4222: CONNECTION_REFUSED', 'cannot connect to NATS at nats://u:***@localhost:4222: CONNECTION_REFUSED'],
    ['"http://u:p@h/" and (ws://x:y@z)', '"http://u:***@h/" and (ws://x:***@z)'],
  ])('hides them in %j', (text, shown) => {
    expect(redactUrlCredentials(text)).toBe(shown);
    expect(redactUrlCredentials(shown)).toBe(shown); // once hidden, they stay as they are
  });

  it.each([
    'http://host/path?mail=a@b.example',
    'http://host/#x@y',
    'write to ops@example.com',
    'git@github.com:owner/repo',
    'nats://localhost:4222',
  ])('leaves %j as it is', (text) => {
    expect(redactUrlCredentials(text)).toBe(text);
    expect(hasUrlCredentials(text)).toBe(false);
  });

  it('tells whether a URL carries any', () => {
    expect(hasUrlCredentials('http://u@h/')).toBe(true);
    expect(hasUrlCredentials('http://:p@h/')).toBe(true);
  });
});
