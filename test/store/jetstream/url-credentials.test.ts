/**
 * Credentials in nats.url (`nats://user:password@host`, `nats://token@host`):
 * the NATS client reads none from a URL, so logbook passes them on itself, and
 * never shows the secret part in a message.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { urlAuth } from '../../../src/store/jetstream/connection.js';
import { runCli } from '../../helpers/cli.js';
import { journalStream } from '../../helpers/jetstream.js';
import { natsTestsEnabled, startNatsServer, type NatsServer } from '../../helpers/nats-server.js';
import { tempDir } from '../../helpers/tmp.js';

describe('the credentials a URL names', () => {
  it('are a user and password, or a token, decoded', () => {
    expect(urlAuth('nats://alice:s%40cret@127.0.0.1:4222')).toEqual({ user: 'alice', pass: 's@cret' });
    expect(urlAuth('nats://t0ken@a:4222, nats://t0ken@b:4222')).toEqual({ token: 't0ken' });
    expect(urlAuth('127.0.0.1:4222,nats://b:4222')).toBeNull();
  });

  it('must be the same for every server', () => {
    expect(() => urlAuth('nats://alice:one@a:4222,nats://alice:two@b:4222')).toThrow(expect.objectContaining({ code: 'config', message: expect.not.stringContaining('two') }));
  });
});

describe.runIf(natsTestsEnabled())('a server that asks for a user and password', () => {
  let server: NatsServer;
  let dir: string;
  const config = (url: string): string => {
    const path = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(path, `provider: script\nscript: turns.yaml\nsession:\n  backend: jetstream\n  options:\n    stream: AUTHED\nnats:\n  url: ${url}\n`);
    return path;
  };

  beforeAll(async () => {
    dir = tempDir();
    writeFileSync(join(dir, 'turns.yaml'), 'turns:\n  - text: "Hello."\n');
    server = await startNatsServer({ config: 'authorization { user: alice, password: "s3cret" }\n' });
    const nc = await connect({ servers: server.url, user: 'alice', pass: 's3cret' });
    await (await jetstreamManager(nc)).streams.add(journalStream('AUTHED', 'authed.runs'));
    await nc.close();
  });
  afterAll(async () => server?.dispose());

  const authed = (password: string) => `nats://alice:${password}@127.0.0.1:${server.port}`;

  it('is used with the credentials in nats.url', async () => {
    const run = await runCli(['run', '--config', config(authed('s3cret')), '--name', 'authed', 'hi'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('at nats://alice:***@127.0.0.1:');
    expect(run.stdout + run.stderr).not.toContain('s3cret');
    const ls = await runCli(['session', 'ls', '--config', config(authed('s3cret')), '--json'], { cwd: dir });
    expect(ls.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(['authed']);
  });

  it('refuses a wrong password in one line that does not show it', async () => {
    const r = await runCli(['session', 'ls', '--config', config(authed('wr0ng'))], { cwd: dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^logbook: .*Authorization Violation/);
    expect(r.stderr).not.toContain('wr0ng');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
