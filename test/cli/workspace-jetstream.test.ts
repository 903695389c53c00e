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

  it('without its object store, says so once with the line that makes it, and the run goes on', async () => {
    const s = await setup(false);
    const ran = await runCli(['run', '--config', s.config, '--state-dir', join(s.root, 'state'), '--name', 'no-store', 'go'], { cwd: s.ws });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr.match(/nats object add/g)).toHaveLength(1);
    expect(ran.stderr).toContain(`nats object add ${s.bucket} --storage file`);
    const show = await runCli(['session', 'show', 'no-store', '--config', s.config, '--state-dir', join(s.root, 'state')], { cwd: s.ws });
    expect(show.stdout).toMatch(/no snapshot.*object store .* does not exist/);
  });
});
