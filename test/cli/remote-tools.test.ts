/**
 * Agents sharing tools over NATS, through the binary, on a real nats-server:
 * a run imports the tools of a `logbook serve` running in another process and
 * calls them (results journaled remote, errors and non-zero exits read by the
 * model as from a local tool); a caller killed inside a remote call is not
 * resumed without --rerun or --skip; a server killed inside a call leaves an
 * error result and the run goes on; two servers of one identity share the
 * calls; an agent whose tools changed refuses the resume with the diff; an agent
 * that is down fails the start naming it; `serve` refuses bad bodies with 400,
 * never serves a confirm tool, and drains on SIGTERM. Every body logbook sent
 * and received here meets the schemas and the reference's field lists.
 */
import { existsSync, readdirSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../src/a2a/client.js';
import { encodeMessage, stampRequest } from '../../src/a2a/index.js';
import { RawJson } from '../../src/core/index.js';
import { FileStore } from '../../src/index.js';
import { payloadKind } from '../../src/core/index.js';
import { tapWire, wireProblems } from '../helpers/a2a.js';
import { BIN, finished, runCli, spawnCli } from '../helpers/cli.js';
import { useNatsServer } from '../helpers/nats-server.js';
import { startServe, type ServeProcess } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';
import { Tmux } from '../helpers/tmux.js';

const { enabled, server } = useNatsServer({ jetstream: false });
const dir = tempDir('logbook-remote-tools-');
const stateDir = join(dir, 'state');
const store = new FileStore(join(stateDir, 'runs'));

/** The serving agent's config: `probe`, its tools, and what it leaves out. */
function serverConfig(name: string, options: { echoDescription?: string; without?: string[]; timeout?: number } = {}): string {
  const marks = join(dir, 'marks');
  mkdirSync(marks, { recursive: true });
  const tools: Record<string, string> = {
    echo: `  - name: echo\n    description: ${JSON.stringify(options.echoDescription ?? 'Returns its input text')}\n    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }\n    command: [printf, '%s', '{{text}}']\n`,
    fail: `  - name: fail\n    description: Exits 3\n    command: [sh, -c, 'echo nope; exit 3']\n`,
    broken: `  - name: broken\n    description: Cannot start\n    command: [/nonexistent/tool]\n`,
    slow: `  - name: slow\n    description: Works a while\n    input_schema: { type: object, properties: { run: { type: string } }, required: [run] }\n    command: [sh, -c, 'echo "$1" >> ${marks}/slow.count; touch "${marks}/$1.started"; sleep ${options.timeout ?? 3}; echo slept', sh, '{{run}}']\n    timeout: 60\n`,
    gone: `  - name: gone\n    description: Is there at first\n    command: [echo, here]\n`,
    deploy: `  - name: deploy\n    description: Deploys, with an operator's say-so\n    command: [echo, deployed]\n    confirm: true\n`,
  };
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    `provider: script\nscript: unused.yaml\na2a: { identity: probe, description: "A probe agent" }\nnats: { url: "${server().url}" }\n` +
      `expose: { tool_timeout: 60, tasks: false }\ntools:\n${Object.entries(tools)
        .filter(([n]) => !(options.without ?? []).includes(n))
        .map(([, t]) => t)
        .join('')}`,
  );
  return path;
}

/** A calling agent's config and the model turns its script plays. */
function callerConfig(name: string, turns: unknown[], remote = '  - name: probe\n'): string {
  const script = join(dir, `${name}.turns.json`);
  writeFileSync(script, JSON.stringify({ turns }));
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, `provider: script\nscript: ${script}\na2a: { identity: caller }\nnats: { url: "${server().url}" }\nremote_tools:\n${remote}`);
  return path;
}

const call = (name: string, input: Record<string, unknown> = {}, id?: string) => ({ name, input, ...(id ? { id } : {}) });
const done = { text: 'All done.' };
const run = (config: string, args: string[]) => runCli(['run', '--config', config, '--state-dir', stateDir, ...args], { cwd: dir });
const results = async (id: string) =>
  (await store.load(id)).records.flatMap((r) => ('tool_result' in r ? [{ ...r.tool_result.result, remote: r.tool_result.remote === true }] : []));
const started = (run_: string): string => join(dir, 'marks', `${run_}.started`);
const slowCount = (): string[] => (existsSync(join(dir, 'marks', 'slow.count')) ? readFileSync(join(dir, 'marks', 'slow.count'), 'utf8').split('\n').filter(Boolean) : []);

async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

describe.skipIf(!enabled)('a run using the tools of another agent', () => {
  let probe: ServeProcess;
  beforeAll(async () => {
    probe = await startServe(serverConfig('probe'));
  });
  afterAll(async () => {
    await probe?.stop();
  });

  it('imports them, calls them, and journals each result remote; errors and a non-zero exit reach the model', async () => {
    const tap = await tapWire(server().url);
    try {
      const config = callerConfig('uses', [{ tool_calls: [call('probe_echo', { text: 'hi <there>' }), call('probe_fail'), call('probe_broken')] }, done]);
      const r = await run(config, ['--name', 'uses', 'use the probe']);
      expect(r.stderr).not.toMatch(/^logbook:/m);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('All done.\n');
      const [echo, fail, broken] = await results('uses');
      expect(echo).toEqual({ tool_use_id: 'toolu_0_0', content: JSON.stringify({ command: "printf %s 'hi <there>'", exit_code: 0, output: 'hi <there>' }), remote: true });
      expect(fail).toEqual({ tool_use_id: 'toolu_0_1', content: JSON.stringify({ command: "sh -c 'echo nope; exit 3'", exit_code: 3, output: 'nope\n' }), is_error: true, remote: true });
      expect(broken).toMatchObject({ tool_use_id: 'toolu_0_2', is_error: true, remote: true });
      expect(JSON.parse(broken!.content)).toMatchObject({ exit_code: null, error: 'cannot run /nonexistent/tool: not found' });
      // The record's bytes are the reference's: "remote":true after the result.
      expect(readFileSync(join(stateDir, 'runs', 'uses.jsonl'), 'utf8')).toContain('"is_error":true},"remote":true}}');
      await probe.waitFor(/tool broken from caller: error/);
      expect(probe.stderr()).toMatch(/discovery from caller: card sent/);
      expect(probe.stderr()).toMatch(/tool echo from caller: exit 0 \(\d+ ms\)/);
      expect(probe.stderr()).toMatch(/tool fail from caller: exit 3 \(\d+ ms\)/);
    } finally {
      await tap.close();
    }
    expect(wireProblems(tap.bodies())).toEqual([]);
    expect(tap.bodies().map((b) => (JSON.parse(b) as { protocol: string }).protocol.split('.v1.')[1])).toEqual([
      'discovery.request',
      'discovery.reply',
      ...Array(3).fill(['tool.request', 'tool.reply']).flat(),
    ]);
  });

  it('counts, marks and names the remote calls: ls --json, session show, its transcript and both exports', async () => {
    const ls = await runCli(['session', 'ls', '--state-dir', stateDir, '--json'], { cwd: dir });
    const row = ls.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: string; counters: Record<string, number> }).find((x) => x.id === 'uses')!;
    expect(row.counters).toMatchObject({ tool_calls: 3, remote_tool_calls: 3 });
    const show = await runCli(['session', 'show', 'uses', '--state-dir', stateDir], { cwd: dir });
    expect(show.stdout).toMatch(/^tool calls\s+3 \(3 remote, on agent probe\)$/m);
    const transcript = await runCli(['session', 'show', 'uses', '--state-dir', stateDir, '--transcript', '--no-tui'], { cwd: dir });
    expect(transcript.stdout).toContain('» probe_echo {"text":"hi <there>"} (on agent probe)');
    const md = await runCli(['session', 'export', 'uses', '--state-dir', stateDir], { cwd: dir });
    expect(md.stdout).toContain('**Tool call** `toolu_0_1` *on agent probe*');
    expect(md.stdout).toContain('- Tool calls: 3 (3 remote, on agent probe)');
    const html = await runCli(['session', 'export', 'uses', '--state-dir', stateDir, '--format', 'html'], { cwd: dir });
    expect(html.stdout).toContain('<span class="notes">on agent probe</span>');
  });

  it('lists the agent and shows its tools as a run would import them; a confirm tool is never served', async () => {
    const config = callerConfig('lists', [done], '  - name: probe\n    alias: p\n    side_effects: false\n    overrides: { fail: { side_effects: true, confirm: true } }\n');
    const ls = await runCli(['agents', 'ls', '--config', config, '--json'], { cwd: dir });
    expect(ls.code).toBe(0);
    const [agent] = JSON.parse(ls.stdout) as { identity: string; instances: unknown[]; version: string; tools: number }[];
    expect(agent).toMatchObject({ identity: 'probe', version: '0.1.0', tools: 5, description: 'A probe agent' });
    expect(agent!.instances).toHaveLength(1);
    const show = await runCli(['agents', 'show', 'probe', '--config', config, '--json'], { cwd: dir });
    const shown = JSON.parse(show.stdout) as { tools: { tool: string; imported_as?: string; side_effects?: boolean; confirm?: boolean }[] };
    expect(shown.tools.map((t) => t.tool)).toEqual(['echo', 'fail', 'broken', 'slow', 'gone']); // no deploy
    expect(shown.tools[0]).toMatchObject({ imported_as: 'p_echo', side_effects: false, confirm: false });
    expect(shown.tools[1]).toMatchObject({ imported_as: 'p_fail', side_effects: true, confirm: true });
    const text = await runCli(['agents', 'show', 'probe', '--config', config], { cwd: dir });
    expect(text.stdout).toMatch(/^ {2}echo +p_echo +no +no +Returns its input text$/m);
    expect(text.stdout).toMatch(/^ {2}fail +p_fail +yes +yes +Exits 3$/m);
    expect(probe.stderr()).toMatch(/^not served: deploy: it asks for a confirmation, and a served call has no operator to give one$/m);
    const nc = await connect({ servers: server().url });
    try {
      const reply = await new A2AClient(nc, 'caller').callTool('probe', 'deploy', undefined);
      expect(reply).toMatchObject({ is_error: true, output: 'tool "deploy" is not available' });
    } finally {
      await nc.close();
    }
  });

  it('answers with 400 a body with an unknown field, one of 800 KiB, and one of another protocol than its subject', async () => {
    const nc = await connect({ servers: server().url });
    try {
      const good = encodeMessage(stampRequest('tool.request', { name: 'echo', input: RawJson.fromText('{"text":"x"}') }, 'caller', 'probe'));
      const bodies = [
        good.replace('"name":"echo"', '"name":"echo","urgent":true'),
        good.replace('"text":"x"', `"text":"${'x'.repeat(800 * 1024)}"`),
        encodeMessage(stampRequest('discovery.request', {}, 'caller', 'probe')),
      ];
      for (const body of bodies) {
        const reply = await nc.request('choria.fisk-ai.tool.probe', body, { timeout: 5000 });
        expect(reply.headers?.get('Nats-Service-Error-Code')).toBe('400');
        expect(reply.data.length).toBe(0);
      }
      expect((await nc.request('choria.fisk-ai.tool.probe', good, { timeout: 5000 })).headers?.get('Nats-Service-Error-Code')).toBeUndefined();
    } finally {
      await nc.close();
    }
    await probe.waitFor(/(tool request refused \(400\)[^\n]*\n[^]*){3}/);
    expect(probe.stderr()).toMatch(/tool request refused \(400\): the tool.request body has a field the protocol does not define: "urgent"/);
    expect(probe.stderr()).toMatch(/tool request refused \(400\): the body is \d+ bytes, over the limit of 786432/);
  });

  it('a call the agent no longer has is an error the model reads', async () => {
    const config = callerConfig('vanished', [{ tool_calls: [call('probe_gone')], delay_ms: 2500 }, done]);
    const discoveries = (): number => (probe.stderr().match(/discovery from caller: card sent/g) ?? []).length;
    const before = discoveries();
    const caller = spawnCli(['run', '--config', config, '--state-dir', stateDir, '--name', 'vanished', 'go'], { cwd: dir });
    const result = finished(caller);
    await until('the caller to ask for the card', () => discoveries() > before);
    await probe.stop();
    probe = await startServe(serverConfig('probe-without-gone', { without: ['gone'] }));
    const r = await result;
    expect(r.code).toBe(0);
    expect(await results('vanished')).toEqual([{ tool_use_id: 'toolu_0_0', content: 'tool "gone" is not available', is_error: true, remote: true }]);
    await probe.stop();
    probe = await startServe(serverConfig('probe'));
  });
});

describe.skipIf(!enabled)('crashes around a remote call', () => {
  let probe: ServeProcess;
  beforeAll(async () => {
    probe = await startServe(serverConfig('probe-crash'));
  });
  afterAll(async () => {
    await probe?.stop();
  });

  it('a caller killed inside a remote call is not resumed without --rerun or --skip; --skip completes it, the call ran once', async () => {
    const config = callerConfig('killed', [{ tool_calls: [call('probe_slow', { run: 'killed' }, 'toolu_slow')] }, done]);
    const before = slowCount().length;
    const caller = spawnCli(['run', '--config', config, '--state-dir', stateDir, '--name', 'killed', 'go'], { cwd: dir });
    const exit = finished(caller);
    await until('the remote call to start', () => existsSync(started('killed')));
    caller.kill('SIGKILL');
    expect((await exit).signal).toBe('SIGKILL');
    expect((await store.load('killed')).records.map(payloadKind)).toEqual(['meta', 'assistant']);
    const refused = await run(config, ['--resume', 'killed']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'logbook: run killed stopped while call toolu_slow (probe_slow) may have been running, and that tool has side effects, so whether it took effect is unknown; resume with --rerun toolu_slow to run it again, or --skip toolu_slow to tell the model it was not re-run\n',
    );
    const skipped = await run(config, ['--resume', 'killed', '--skip', 'toolu_slow']);
    expect(skipped.code).toBe(0);
    expect((await store.load('killed')).state.terminal).toEqual({ reason: 'completed' });
    expect(slowCount().length - before).toBe(1);
    // The skipped call was answered here, not by the agent: its record is not remote.
    expect(await results('killed')).toEqual([expect.objectContaining({ tool_use_id: 'toolu_slow', is_error: true, remote: false })]);
  });

  it('a server killed inside a call leaves an error result the model reads, and the run goes on', async () => {
    const config = callerConfig('orphaned', [{ tool_calls: [call('probe_slow', { run: 'orphaned' })] }, done], '  - name: probe\n    timeout: 2\n');
    const caller = spawnCli(['run', '--config', config, '--state-dir', stateDir, '--name', 'orphaned', 'go'], { cwd: dir });
    const exit = finished(caller);
    await until('the remote call to start', () => existsSync(started('orphaned')));
    expect((await probe.stop('SIGKILL')).signal).toBe('SIGKILL');
    const r = await exit;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('All done.\n');
    expect(await results('orphaned')).toEqual([
      { tool_use_id: 'toolu_0_0', content: 'calling slow on agent probe: agent unavailable: no reply on choria.fisk-ai.tool.probe within 2 s', is_error: true, remote: true },
    ]);
    probe = await startServe(serverConfig('probe-crash'));
  });

  it('an agent whose tools changed refuses the resume, naming the tool in the diff', async () => {
    const config = callerConfig('drifted', [{ tool_calls: [call('probe_echo', { text: 'x' })], delay_ms: 20_000 }, done]);
    const caller = spawnCli(['run', '--config', config, '--state-dir', stateDir, '--name', 'drifted', 'go'], { cwd: dir });
    const exit = finished(caller);
    // Started, and the tool set kept beside it (a resume's refusal names the changed tools from it).
    await until('the run to start', () => readdirSync(join(stateDir, 'runs')).some((f) => f.startsWith('drifted.remote-tools')));
    caller.kill('SIGKILL');
    await exit;
    await probe.stop();
    probe = await startServe(serverConfig('probe-changed', { echoDescription: 'Says its text back' }));
    const refused = await run(config, ['--resume', 'drifted']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/^logbook: run drifted was written with a different configuration \(tool set: changed \(probe_echo changed\)\); restore it, or pass --force to resume anyway\n$/);
    expect(refused.stderr).toMatch(/--force/);
  });

  it('two instances of one identity share the calls', async () => {
    const second = await startServe(serverConfig('probe-crash'));
    try {
      const config = callerConfig('shared', [{ tool_calls: Array.from({ length: 16 }, (_, i) => call('probe_echo', { text: String(i) })) }, done]);
      const r = await run(config, ['--name', 'shared', 'go']);
      expect(r.code).toBe(0);
      expect((await results('shared')).map((x) => JSON.parse(x.content).output)).toEqual(Array.from({ length: 16 }, (_, i) => String(i)));
      const served = (p: ServeProcess): number => (p.stderr().match(/tool echo from caller/g) ?? []).length;
      await until('every call to be logged', () => served(probe) + served(second) >= 16);
      expect(served(probe)).toBeGreaterThan(0); // all 16 on one instance: one chance in 2^15
      expect(served(second)).toBeGreaterThan(0);
      const ls = await runCli(['agents', 'ls', '--config', config, '--json'], { cwd: dir });
      expect((JSON.parse(ls.stdout) as { instances: unknown[] }[])[0]!.instances).toHaveLength(2);
    } finally {
      await second.stop();
    }
  });

  it('SIGTERM drains: the call in flight is finished and answered, then serve exits 0', async () => {
    const nc = await connect({ servers: server().url });
    try {
      const reply = new A2AClient(nc, 'caller').callTool('probe', 'slow', RawJson.fromText('{"run":"drained"}'));
      await until('the call to start', () => existsSync(started('drained')));
      const stopped = probe.stop('SIGTERM');
      expect(await reply).toMatchObject({ output: 'slept\n' });
      expect(await stopped).toEqual({ code: 0, signal: null });
      expect(probe.stderr()).toMatch(/SIGTERM: draining the calls in flight[^]*tool slow from caller: exit 0[^]*stopped serving agent probe\n$/);
    } finally {
      await nc.close();
    }
  });
});

describe.skipIf(!enabled)('an agent that is not there', () => {
  it('fails the start in one line naming it; nothing is journaled', async () => {
    const config = callerConfig('ghostly', [done], '  - name: ghost\n');
    const r = await run(config, ['--name', 'ghostly', 'go']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'logbook: agent ghost cannot be reached (agent unavailable: nothing answers on choria.fisk-ai.discovery.ghost); start it (logbook serve) or take it out of remote_tools\n',
    );
    expect(existsSync(join(stateDir, 'runs', 'ghostly.jsonl'))).toBe(false);
  });

  it('the spinner says which agents are awaited while they are asked for their tools', async () => {
    const mute = await connect({ servers: server().url });
    mute.subscribe('choria.fisk-ai.discovery.mute', { callback: () => {} }); // takes the request, never answers
    await mute.flush();
    const config = callerConfig('muted', [done], '  - name: mute\n    timeout: 3\n');
    const tmux = Tmux.start([process.execPath, BIN, 'run', '--config', config, '--state-dir', stateDir, '--name', 'muted', 'go'], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', NO_COLOR: '1' },
      cwd: dir,
      width: 160,
    });
    try {
      await tmux.waitFor(/asking agent mute for their tools \d+\.\ds/);
      // The line it then fails with is checked off a terminal, above: a pane that dies loses its last screen here.
      expect(await tmux.exitStatus()).toBe(1);
    } finally {
      tmux.kill();
      await mute.close();
    }
  });

  it('serve refuses to start without an identity or a nats: block', async () => {
    const path = join(dir, 'anonymous.yaml');
    writeFileSync(path, `provider: script\nscript: s\nnats: { url: "${server().url}" }\ntools: [{ name: t, description: d, command: [echo] }]\n`);
    const r = await runCli(['serve', '--config', path], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`logbook: serve needs this agent's identity: set a2a: { identity: NAME } in ${path}\n`);
  });
});
