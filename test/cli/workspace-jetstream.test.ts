/**
 * A run's workspace on the JetStream backend: its snapshots shared through an
 * object store the operator made, so a second process, with another working
 * directory and a state directory of its own (another machine, as far as the
 * snapshots go), diffs the run and rewinds it; a missing object store is said
 * once, with the `nats object add` line, and the run goes on.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Objm } from '@nats-io/obj';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { addStream, journalStream } from '../helpers/jetstream.js';
import { useNatsServer } from '../helpers/nats-server.js';
import { tempDir } from '../helpers/tmp.js';

const { enabled, server } = useNatsServer();

let made = 0;

/** A stream for journals and, unless `objects` is false, an object store, both as an operator makes them; a config naming them. */
async function setup(objects = true): Promise<{ root: string; ws: string; config: string; bucket: string }> {
  const n = `${process.pid}_${made++}`;
  const stream = `LOGBOOK_WS${n}`;
  const bucket = `WS${n}`;
  await addStream(server().url, journalStream(stream, `ws${n}.runs`));
  if (objects) {
    const nc = await connect({ servers: server().url });
    await new Objm(nc).create(bucket);
    await nc.close();
  }
  const root = tempDir('logbook-ws-js-');
  const ws = join(root, 'ws');
  mkdirSync(ws);
  writeFileSync(
    join(root, 'script.json'),
    JSON.stringify({
      turns: [
        { text: 'write', tool_calls: [{ name: 'sh', input: { cmd: "printf 'one\\ntwo\\n' > a.txt" } }] },
        { text: 'edit', tool_calls: [{ name: 'sh', input: { cmd: 'sed -i s/two/TWO/ a.txt; rm b.txt' } }] },
        { text: 'done' },
      ],
    }),
  );
  const config = join(root, 'agent.yaml');
  writeFileSync(
    config,
    `provider: script
script: script.json
session: { backend: jetstream, options: { stream: ${stream}, objects: ${bucket} } }
nats: { url: ${server().url} }
tools:
  - name: sh
    description: run a command
    input_schema: { type: object, properties: { cmd: { type: string } }, required: [cmd] }
    command: [sh, -c, '{{cmd}}']
`,
  );
  writeFileSync(join(ws, 'b.txt'), 'keep\n');
  return { root, ws, config, bucket };
}

describe.skipIf(!enabled)("a run's workspace on JetStream", () => {
  it('is diffed and rewound from a second process with another working directory and no copy of its snapshots', async () => {
    const s = await setup();
    const ran = await runCli(['run', '--config', s.config, '--state-dir', join(s.root, 'state-a'), '--name', 'shared', 'go'], { cwd: s.ws });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).not.toContain('warning');

    const elsewhere = join(s.root, 'elsewhere');
    mkdirSync(elsewhere);
    const other = ['--config', s.config, '--state-dir', join(s.root, 'state-b')];
    const diff = await runCli(['session', 'diff', 'shared', '--turn', '2', ...other], { cwd: elsewhere });
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('-two\n+TWO');
    expect(diff.stdout).toContain('deleted file mode');

    const rewound = await runCli(['session', 'rewind', 'shared', '--turn', '1', '--yes', '--name', 'shared-1', ...other], { cwd: elsewhere });
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(readFileSync(join(s.ws, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(readFileSync(join(s.ws, 'b.txt'), 'utf8')).toBe('keep\n');
    const undone = await runCli(['session', 'rewind', '--undo', 'shared', '--yes', ...other], { cwd: elsewhere });
    expect(undone.code, undone.stderr).toBe(0);
    expect(readFileSync(join(s.ws, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
  });

  it('goes with its run in session cp, file store to JetStream and back: session diff is the same at every end', async () => {
    const s = await setup();
    const fileConfig = join(s.root, 'file.yaml');
    writeFileSync(fileConfig, readFileSync(s.config, 'utf8').replace(/^session: .*\n/m, ''));
    const ran = await runCli(['run', '--config', fileConfig, '--state-dir', join(s.root, 'file-a'), '--name', 'moved', 'go'], { cwd: s.ws });
    expect(ran.code, ran.stderr).toBe(0);
    const diffAt = async (store: string[]) => {
      const d = await runCli(['session', 'diff', 'moved', ...store], { cwd: s.root });
      expect(d.code, d.stderr).toBe(0);
      return d.stdout;
    };
    const original = await diffAt(['--state-dir', join(s.root, 'file-a')]);
    expect(original).toContain('-two\n+TWO');

    const there = await runCli(['session', 'cp', 'moved', '--from-state-dir', join(s.root, 'file-a'), '--to-config', s.config, '--to-state-dir', join(s.root, 'js-a')], { cwd: s.root });
    expect(there.code, there.stderr).toBe(0);
    expect(there.stderr).not.toContain('warning');
    // Read from another state directory: the snapshots come from the object store.
    expect(await diffAt(['--config', s.config, '--state-dir', join(s.root, 'js-b')])).toBe(original);

    const back = await runCli(['session', 'cp', 'moved', '--from-config', s.config, '--from-state-dir', join(s.root, 'js-c'), '--to-state-dir', join(s.root, 'file-b')], { cwd: s.root });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).not.toContain('warning');
    expect(await diffAt(['--state-dir', join(s.root, 'file-b')])).toBe(original);
  });

  it('without its object store, says so once with the line that makes it, and the run goes on', async () => {
    const s = await setup(false);
    const ran = await runCli(['run', '--config', s.config, '--state-dir', join(s.root, 'state'), '--name', 'no-store', 'go'], { cwd: s.ws });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr.match(/nats object add/g)).toHaveLength(1);
    expect(ran.stderr).toContain(`nats object add ${s.bucket} --storage file`);
    const show = await runCli(['session', 'show', 'no-store', '--config', s.config, '--state-dir', join(s.root, 'state')], { cwd: s.ws });
    expect(show.stdout).toMatch(/no snapshot.*object store .* does not exist/);

    // A run copied there keeps its notes, saying why its snapshots are not with it: on stderr, and in session show.
    const fileConfig = join(s.root, 'file.yaml');
    writeFileSync(fileConfig, readFileSync(s.config, 'utf8').replace(/^session: .*\n/m, ''));
    writeFileSync(join(s.ws, 'b.txt'), 'keep\n');
    const local = await runCli(['run', '--config', fileConfig, '--state-dir', join(s.root, 'file'), '--name', 'stays', 'go'], { cwd: s.ws });
    expect(local.code, local.stderr).toBe(0);
    const cp = await runCli(['session', 'cp', 'stays', '--from-state-dir', join(s.root, 'file'), '--to-config', s.config, '--to-state-dir', join(s.root, 'state')], { cwd: s.root });
    expect(cp.code, cp.stderr).toBe(0);
    expect(cp.stderr).toMatch(/warning: run stays: its workspace snapshots were not copied .*object store .* does not exist/);
    const shown = await runCli(['session', 'show', 'stays', '--config', s.config, '--state-dir', join(s.root, 'state')], { cwd: s.ws });
    expect(shown.stdout).toMatch(/no snapshot.*after seq 2 .*were not copied/);
  });
});
