/**
 * Agents as durable services, through the binary, on a real nats-server (each
 * one found here): `logbook serve` takes an identity's tasks from the
 * work-queue stream and `logbook ask` hands it one, reading its events; every
 * body is held to the schemas and the reference's field lists, in order,
 * gap-free, ending in the task's end. A budget above the server's limits is
 * refused in the ack; a conversation of three requests goes on run to run; a
 * cancel ends the task canceled and its run suspended naming who canceled it;
 * an ask interrupted re-attaches with --request; a task whose server died in a
 * call with side effects ends with `interrupted_call`, its run left for an
 * operator; streams that are missing or unfit are refused with their fix; and
 * a run that hands a sub-agent a task, killed while it waits, gets the one
 * child's answer when resumed, without a second task.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterEach, expect, it } from 'vitest';
import { wireProblems } from '../helpers/a2a.js';
import { finished, runCli, spawnCli } from '../helpers/cli.js';
import { describeEachNatsServer, natsServerOfBlock } from '../helpers/nats-server.js';
import { startServe, type ServeProcess } from '../helpers/serve.js';
import { STREAMS, addStreamAt, addTaskStreams, agentConfig, jsonLines, sentRequest, shTool, storedEvents, until } from '../helpers/tasks.js';
import { journalStream } from '../helpers/jetstream.js';
import { tempDir } from '../helpers/tmp.js';

const say = (text: string) => ({ text });
const call = (name: string, input: Record<string, unknown> = {}, id?: string) => ({ tool_calls: [{ name, input, ...(id ? { id } : {}) }] });

describeEachNatsServer('tasks over NATS', (binary) => {
  const { server, start } = natsServerOfBlock();
  start({ binary });
  const dir = tempDir('logbook-tasks-');
  let streamsMade = false;
  const serving: ServeProcess[] = [];

  async function ready(): Promise<void> {
    if (streamsMade) return;
    await addTaskStreams((c) => addStreamAt(server().url, c));
    streamsMade = true;
  }

  afterEach(async () => {
    await Promise.all(serving.splice(0).map((s) => s.stop('SIGKILL')));
  });

  async function serve(config: string, env: Record<string, string> = {}, args: string[] = []): Promise<ServeProcess> {
    const s = await startServe(config, { cwd: dir, env, args });
    serving.push(s);
    return s;
  }

  const ask = (config: string, args: string[]) => runCli(['ask', '--config', config, ...args], { cwd: dir, timeoutMs: 60_000 });
  const cli = (args: string[]) => runCli(args, { cwd: dir, timeoutMs: 60_000 });
  const caller = () => agentConfig(dir, 'caller', { identity: 'caller', url: server().url, turns: [say('unused')] });

  it("serves a task: its events, valid and in the reference's field lists, in order and gap-free, end in its result", async () => {
    await ready();
    const probe = agentConfig(dir, 'probe1', {
      identity: 'probe1',
      url: server().url,
      turns: [{ text: 'Let me look.', ...call('echo', { text: 'hi <there> & all' }) }, say('It says hi.')],
      more: `tools:\n${shTool('echo', 'printf %s "$1"', { args: ['text'] })}`,
    });
    const s = await serve(probe);
    const r = await ask(caller(), ['probe1', '--json', 'What does echo say?']);
    expect(r.stderr).toMatch(/task \S+ sent to agent probe1/);
    expect(r.code).toBe(0);
    const id = sentRequest(r.stderr)!;
    const events = jsonLines(r.stdout);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => (e.block ? `${e.protocol.split('.').at(-1)}:${e.block.type}` : e.protocol.split('.').at(-1)))).toEqual([
      'ack',
      'event:status',
      'event:text',
      'event:tool_call',
      'event:tool_result',
      'event:status',
      'event:text',
      'result',
    ]);
    expect(events.every((e) => e.request === id && e.conversation === id && e.sender.name === 'probe1' && e.recipient.name === 'caller')).toBe(true);
    expect(events[4]!.block).toEqual({ type: 'tool_result', call_id: 'toolu_0_0', output: 'hi <there> & all', exec: { command: `sh -c 'printf %s "$1"' sh 'hi <there> & all'` } });
    expect(events.at(-1)).toMatchObject({ stop_reason: 'end_turn', text: 'It says hi.' });
    expect(wireProblems(r.stdout.trim().split('\n'))).toEqual([]);
    // What the caller read is what the stream keeps, byte for byte: on the caller's own subject, as it asked.
    expect(await storedEvents(server().url, id, 'caller')).toEqual(r.stdout.trim().split('\n'));
    expect(await storedEvents(server().url, id)).toEqual([]);
    await s.waitFor(new RegExp(`task ${id} ended completed`));

    const run = `task-probe1-${id}`;
    const show = await cli(['session', 'show', run, '--config', probe]);
    expect(show.stdout).toMatch(new RegExp(`task +request ${id} from agent caller, served as agent probe1`));
    expect(show.stdout).toMatch(/status +completed/);
    const ls = jsonLines((await cli(['session', 'ls', '--json', '--config', probe])).stdout).find((j) => j.id === run);
    expect(ls?.task).toEqual({ request: id, conversation: id, sender: 'caller', agent: 'probe1' });
    expect(ls?.counters.tool_calls).toBe(1);
  });

  it("refuses, in its ack, a budget above the server's limits; no run is made", async () => {
    await ready();
    const probe = agentConfig(dir, 'probe2', { identity: 'probe2', url: server().url, turns: [say('never')], more: 'budget: 1000\n' });
    await serve(probe);
    const { dial } = await import('../../src/store/jetstream/connection.js');
    const { TaskCaller } = await import('../../src/agent/tasks/index.js');
    const { newMessageId } = await import('../../src/a2a/index.js');
    const link = await dial({ url: server().url }, { leaderWaitMs: 5_000 });
    try {
      const tasks = new TaskCaller(link, { tasks: STREAMS.tasks, events: STREAMS.events });
      const id = newMessageId();
      const bodies: string[] = [];
      const end = await tasks.ask({ id, agent: 'probe2', sender: 'caller', prompt: 'spend a lot', budget: { max_iterations: 50 } }, { onMessage: (_m, b) => bodies.push(b), timeoutMs: 30_000 });
      expect(end.kind).toBe('refused');
      expect(end.message).toMatchObject({ sequence: 1, accepted: false, reason: "budget max_iterations 50 is above this agent's limit of 10 model calls" });
      expect(wireProblems(bodies)).toEqual([]);
      const tokens = await tasks.ask({ id: newMessageId(), agent: 'probe2', sender: 'caller', prompt: 'spend a lot', budget: { max_tokens: 5000 } }, { timeoutMs: 30_000 });
      expect(tokens.message).toMatchObject({ accepted: false, reason: "budget max_tokens 5000 is above this agent's token budget of 1000" });
      // A wait longer than a timer holds would end the first call at once: refused, never stated as waited.
      const long = await tasks.ask({ id: newMessageId(), agent: 'probe2', sender: 'caller', prompt: 'take your time', budget: { call_timeout: '1000h' } }, { timeoutMs: 30_000 });
      expect(long.message).toMatchObject({ accepted: false, reason: 'budget call_timeout 1000h is longer than this agent can time a call (about 24.8 days, the longest wait a timer holds)' });
      const runs = jsonLines((await cli(['session', 'ls', '--json', '--config', probe])).stdout);
      expect(runs.some((r) => r.id === `task-probe2-${id}`)).toBe(false);
    } finally {
      await link.close();
    }
  });

  it('holds a conversation of three requests: each continues the run of the one before, and answers it', async () => {
    await ready();
    const probe = agentConfig(dir, 'probe3', { identity: 'probe3', url: server().url, turns: [say('First: 4.'), say('Second: 8.'), say('Third: 16.')] });
    await serve(probe);
    const first = await ask(caller(), ['probe3', 'Two plus two?']);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('First: 4.\n');
    const c = sentRequest(first.stderr)!;
    const second = await ask(caller(), ['probe3', '--conversation', c, 'Doubled?']);
    expect(second.stdout).toBe('Second: 8.\n');
    const third = await ask(caller(), ['probe3', '--conversation', c, 'And again?']);
    expect(third.code).toBe(0);
    expect(third.stdout).toBe('Third: 16.\n');
    const [r2, r3] = [sentRequest(second.stderr)!, sentRequest(third.stderr)!];
    const shown = await cli(['session', 'show', `task-probe3-${r3}`, '--config', probe, '--transcript']);
    for (const turn of ['Two plus two?', 'First: 4.', 'Doubled?', 'Second: 8.', 'And again?', 'Third: 16.']) expect(shown.stdout).toContain(turn);
    const show = await cli(['session', 'show', `task-probe3-${r3}`, '--config', probe]);
    expect(show.stdout).toMatch(new RegExp(`forked from +run task-probe3-${r2}, up to seq `)); // the conversation before it
    expect(show.stdout).toMatch(new RegExp(`task +request ${r3} from agent caller, conversation ${c}`));
    // A request that names no earlier task is refused.
    const stray = await ask(caller(), ['probe3', '--conversation', 'nosuchconversation', 'Hello?']);
    expect(stray.code).toBe(1);
    expect(stray.stderr).toContain('agent probe3 refused the task: conversation nosuchconversation names no earlier task of agent probe3');
  });

  it('never compacts a task, however full its window: the task goes on in its one run, its stream whole', async () => {
    await ready();
    const full = { usage: { input: 950, output: 10 } };
    const probe = agentConfig(dir, 'probe8', {
      identity: 'probe8',
      url: server().url,
      turns: [{ text: 'Looking.', ...call('echo', { text: 'x' }), ...full }, { text: 'All done.', ...full }],
      more: `context_window: 1000\ntools:\n${shTool('echo', 'printf %s "$1"', { args: ['text'] })}`,
    });
    const s = await serve(probe);
    const r = await ask(caller(), ['probe8', '--json', 'Look, then say so.']);
    expect(r.code).toBe(0);
    const id = sentRequest(r.stderr)!;
    const events = jsonLines(r.stdout);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)).toMatchObject({ stop_reason: 'end_turn', text: 'All done.' });
    await s.waitFor(new RegExp(`task ${id} ended completed`));
    const runs = jsonLines((await cli(['session', 'ls', '--json', '--forks', '--config', probe])).stdout).filter((j) => String(j.id).includes(id));
    expect(runs.map((j) => [j.id, j.status])).toEqual([[`task-probe8-${id}`, 'completed']]);
    // Nor by hand: its conversation goes on in it, under its own id.
    const compact = await cli(['session', 'compact', `task-probe8-${id}`, '--config', probe]);
    expect([compact.code, compact.stdout, compact.stderr]).toEqual([
      2,
      '',
      `logbook: run task-probe8-${id} is the run of task ${id} of agent probe8, which goes on in it under its own id (a takeover, a follow-up in its conversation), so it is not compacted; ` +
        `to go on with its conversation with less context, fork it into a run of your own and go on there: logbook session fork task-probe8-${id} --config ${probe}\n`,
    ]);
  });

  it('cancels a task: it ends canceled, its run suspended naming who canceled it; tasks ls shows it while it runs', async () => {
    await ready();
    const probe = agentConfig(dir, 'probe4', { identity: 'probe4', url: server().url, turns: [{ text: 'thinking hard', delay_ms: 60_000 }] });
    const s = await serve(probe);
    const asking = spawnCli(['ask', '--config', caller(), 'probe4', 'Think hard'], { cwd: dir });
    const done = finished(asking, 60_000);
    let err = '';
    asking.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    await until('the task to start', () => sentRequest(err) !== null && s.stderr().includes(`task ${sentRequest(err)} from caller: run`));
    const id = sentRequest(err)!;
    const ls = await cli(['tasks', 'ls', '--config', caller()]);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(new RegExp(`^${id} +probe4 +caller .*task-probe4-${id} \\((open|running)\\) +Think hard$`, 'm'));
    expect(ls.stderr).toMatch(/agent probe4: 0 waiting, 1 being worked on/);
    const lsJson = jsonLines((await cli(['tasks', 'ls', '--json', '--config', caller()])).stdout);
    expect(lsJson.find((t) => t.request === id)).toMatchObject({ agent: 'probe4', sender: 'caller', prompt: 'Think hard', run: { id: `task-probe4-${id}` } });
    const cancel = await cli(['tasks', 'cancel', 'probe4', id, '--config', caller(), '--reason', 'no longer needed']);
    expect(cancel.stderr).toBe(`task ${id} canceled: canceled by caller: no longer needed\n`);
    expect(cancel.code).toBe(0);
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('logbook: agent probe4 ended the task: canceled by caller: no longer needed\n');
    const show = JSON.parse((await cli(['session', 'show', `task-probe4-${id}`, '--config', probe, '--json'])).stdout) as { status: string; terminal: unknown };
    expect(show.status).toBe('suspended');
    expect(show.terminal).toEqual({ reason: 'suspended', message: 'canceled by caller: no longer needed' });
    const shown = await cli(['session', 'show', `task-probe4-${id}`, '--config', probe]);
    expect(shown.stdout).toMatch(/^where +suspended: canceled by caller: no longer needed, /m);
    await s.waitFor(new RegExp(`task ${id} canceled by caller`));
    await until('the queue to be empty', async () => (await cli(['tasks', 'ls', '--json', '--config', caller()])).stdout.trim() === '');
  });

  it('re-attaches an interrupted ask with --request: the same task, read again from the start, not asked again', async () => {
    await ready();
    const probe = agentConfig(dir, 'probe5', { identity: 'probe5', url: server().url, turns: [{ text: 'Slowly: done.', delay_ms: 2_500 }] });
    const s = await serve(probe);
    const asking = spawnCli(['ask', '--config', caller(), 'probe5', 'Take your time'], { cwd: dir });
    const done = finished(asking, 60_000);
    let err = '';
    asking.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    await until('the task to start', () => sentRequest(err) !== null && s.stderr().includes(`task ${sentRequest(err)} from caller: run`));
    asking.kill('SIGINT');
    const stopped = await done;
    const id = sentRequest(stopped.stderr)!;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain(`stopped reading; the task goes on. Read it again with: logbook ask probe5 --request ${id};`);
    const again = await ask(caller(), ['probe5', '--request', id, 'Take your time']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`task ${id} was sent before: reading its events again`);
    expect(again.stdout).toBe('Slowly: done.\n');
    const bare = await ask(caller(), ['probe5', '--request', id]); // its prompt left out: the task has its own
    expect(bare.stderr).toContain(`reading the events of task ${id} again`);
    expect([bare.code, bare.stdout]).toEqual([0, 'Slowly: done.\n']);
    expect(s.stderr().match(new RegExp(`task ${id} from caller`, 'g'))).toHaveLength(1);
    const unknown = await ask(caller(), ['probe5', '--request', '3MtSzzzzzzzzzzzzzzzzzzzzzzz']);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      'logbook: task 3MtSzzzzzzzzzzzzzzzzzzzzzzz of agent probe5 has no events yet (not taken up, or never sent): give its prompt to send it\n',
    ]);
  });

  it('withdraws with tasks cancel a task no server has taken up: its waiting caller hears it canceled, and the queue no longer holds it', async () => {
    await ready();
    const asking = spawnCli(['ask', '--config', caller(), 'nobody7', 'Anyone there?'], { cwd: dir });
    const done = finished(asking, 60_000);
    let err = '';
    asking.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    await until('the task to be sent', () => sentRequest(err) !== null);
    const id = sentRequest(err)!;
    const queued = async () => jsonLines((await cli(['tasks', 'ls', '--json', '--config', caller()])).stdout).filter((t) => t.request === id);
    expect(await queued()).toHaveLength(1);
    const cancel = await cli(['tasks', 'cancel', 'nobody7', id, '--config', caller(), '--reason', 'no server', '--wait', '3']);
    expect([cancel.code, cancel.stderr]).toEqual([0, `task ${id} withdrawn from stream A2A_TASKS: no server of agent nobody7 had taken it up, so it never ran\n`]);
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('logbook: agent nobody7 ended the task: canceled by caller: no server (withdrawn before any server of agent nobody7 took it up)\n');
    expect(await queued()).toEqual([]);
    expect(wireProblems(await storedEvents(server().url, id))).toEqual([]);
    // Nothing is left to cancel, and a request no one sent is said to be none, at once.
    const again = await cli(['tasks', 'cancel', 'nobody7', id, '--config', caller(), '--wait', '3']);
    expect([again.code, again.stderr]).toEqual([1, `task ${id} had already ended (canceled: canceled by caller: no server (withdrawn before any server of agent nobody7 took it up)): nothing to cancel\n`]);
    const unknown = await cli(['tasks', 'cancel', 'nobody7', '3MtSzzzzzzzzzzzzzzzzzzzzzzz', '--config', caller(), '--wait', '30']);
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      'no task 3MtSzzzzzzzzzzzzzzzzzzzzzzz of agent nobody7 in stream A2A_TASKS or A2A_EVENTS: nothing to cancel (`logbook tasks ls` lists the tasks queued)\n',
    ]);
  });

  it('ends with interrupted_call a task whose server died in a call with side effects; the run waits for an operator', async () => {
    await ready();
    const marks = join(dir, 'marks6');
    const probe = agentConfig(dir, 'probe6', {
      identity: 'probe6',
      url: server().url,
      turns: [call('deploy', {}, 'deploy-1'), say('Deployed.')],
      more: `expose: { task_ack_wait: 1 }\ntools:\n${shTool('deploy', `mkdir -p ${marks}; echo run >> ${marks}/deploys; sleep 30`, { sideEffects: true })}`,
    });
    const first = await serve(probe);
    const asking = spawnCli(['ask', '--config', caller(), '--json', 'probe6', 'Deploy it'], { cwd: dir });
    const done = finished(asking, 90_000);
    await until('the deploy to start', () => existsSync(join(marks, 'deploys')));
    await first.stop('SIGKILL');
    await serve(probe); // takes the task over once the first's ack wait has passed
    const r = await done;
    expect(r.code).toBe(1);
    const events = jsonLines(r.stdout);
    expect(events.at(-1)).toMatchObject({ stop_reason: 'suspended', code: 'interrupted_call', error: 'interrupted during call deploy-1 (deploy)' });
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(wireProblems(r.stdout.trim().split('\n'))).toEqual([]);
    expect(readFileSync(join(marks, 'deploys'), 'utf8')).toBe('run\n'); // never run again unasked
    const run = `task-probe6-${events[0]!.request}`;
    const show = await cli(['session', 'show', run, '--config', probe]);
    expect(show.stdout).toMatch(/status +suspended/);
    expect(show.stdout).toContain('--skip deploy-1');
    expect(show.stdout).not.toMatch(/^config +/m);
    // Another agent's config, whose deploy has no side effects, does not speak for this run's deploy.
    const other = agentConfig(dir, 'other6', { identity: 'other6', url: server().url, turns: [say('unused')], more: `tools:\n${shTool('deploy', `echo again >> ${marks}/deploys`)}` });
    const shownByOther = await cli(['session', 'show', run, '--config', other]);
    expect(shownByOther.code).toBe(0);
    expect(shownByOther.stdout).not.toContain('no side effects');
    expect(shownByOther.stdout).toContain("if call deploy-1's tool has side effects, it is not run again unasked");
    expect(shownByOther.stdout).toMatch(/^config +\S*other6\.yaml is agent other6's, not agent probe6's, which served this run: give --config with agent probe6's config/m);
    // Nor does a resume with it go on, where it would run the deploy again unasked.
    const resumedByOther = await cli(['run', '--resume', run, '--config', other]);
    expect([resumedByOther.code, resumedByOther.stderr]).toEqual([
      1,
      `logbook: run ${run} is a task served as agent probe6, and ${other} is agent other6's: resume it with agent probe6's config (the one its logbook serve runs), whose tools say which calls have side effects\n`,
    ]);
    expect(readFileSync(join(marks, 'deploys'), 'utf8')).toBe('run\n');
    const resumed = await cli(['run', '--resume', run, '--skip', 'deploy-1', '--config', probe]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Deployed.\n');
  });

  it('ends with run_not_in_store a task taken over by an instance that does not reach the store of the one that died, never running it again', async () => {
    await ready();
    const marks = join(dir, 'marks10');
    const shared = agentConfig(dir, 'probe10', {
      identity: 'probe10',
      url: server().url,
      turns: [call('deploy', {}, 'deploy-1'), say('Deployed.')],
      more: `expose: { task_ack_wait: 1 }\ntools:\n${shTool('deploy', `mkdir -p ${marks}; echo run >> ${marks}/deploys; sleep 30`, { sideEffects: true })}`,
    });
    const probe = shared.replace(/\.yaml$/, '-file.yaml');
    writeFileSync(probe, readFileSync(shared, 'utf8').replace(/^session: .*\n/m, '')); // the file store: each instance its own
    const first = await serve(probe, { XDG_STATE_HOME: join(dir, 'state10a') });
    const asking = spawnCli(['ask', '--config', caller(), '--json', 'probe10', 'Deploy it'], { cwd: dir });
    const done = finished(asking, 90_000);
    await until('the deploy to start', () => existsSync(join(marks, 'deploys')));
    await first.stop('SIGKILL');
    const second = await serve(probe, { XDG_STATE_HOME: join(dir, 'state10b') });
    const r = await done;
    expect(r.code).toBe(1);
    const events = jsonLines(r.stdout);
    const id = String(events[0]!.request);
    expect(events.at(-1)).toMatchObject({ stop_reason: 'error', code: 'run_not_in_store' });
    expect(String(events.at(-1)!.error)).toContain(`its run task-probe10-${id} is not here`);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(wireProblems(r.stdout.trim().split('\n'))).toEqual([]);
    expect(readFileSync(join(marks, 'deploys'), 'utf8')).toBe('run\n'); // never run again
    await second.waitFor(new RegExp(`task ${id} ended error: task ${id} was taken by an instance whose store this one does not reach`));
    expect(second.stderr()).not.toContain(`task ${id} from caller`); // no run started over
    await until('the queue to be empty', async () => (await cli(['tasks', 'ls', '--json', '--config', caller()])).stdout.trim() === '');
  });

  it('refuses to serve tasks from streams that are missing or unfit, naming the fix', async () => {
    await ready();
    const path = agentConfig(dir, 'probe7', { identity: 'probe7', url: server().url, turns: [say('x')], a2a: 'tasks_stream: NO_TASKS, events_stream: NO_EVENTS' });
    const r = await cli(['serve', '--config', path]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `logbook: streams NO_TASKS and NO_EVENTS do not exist on ${server().url}; logbook never creates one, create them with: ` +
        "nats stream add NO_TASKS --subjects 'choria.fisk-ai.task.>' --retention=work --defaults; nats stream add NO_EVENTS --subjects 'choria.fisk-ai.events.>' --defaults " +
        `(to serve the tools alone, set expose: { tasks: false } in ${path})\n`,
    );
    await addStreamAt(server().url, { name: 'NO_TASKS', subjects: ['elsewhere.>'], storage: 'file' });
    await addStreamAt(server().url, { name: 'NO_EVENTS', subjects: ['elsewhere2.>'], storage: 'file' });
    const unfit = await cli(['serve', '--config', path]);
    expect(unfit.code).toBe(1);
    expect(unfit.stderr).toContain("logbook: stream NO_TASKS cannot hold tasks: none of its subjects (elsewhere.>) takes choria.fisk-ai.task.probe7 (fix: nats stream edit NO_TASKS --subjects 'elsewhere.>' --subjects 'choria.fisk-ai.task.>')");
    expect(unfit.stderr).toContain('its retention is limits, but tasks need a work queue');
    expect(unfit.stderr.trim().split('\n')).toHaveLength(1);
  });

  it("refuses an instance whose task_ack_wait is not its consumer's, and leaves the consumer as the running instance paces it", async () => {
    await ready();
    const long = agentConfig(dir, 'probe9', { identity: 'probe9', url: server().url, turns: [say('x')], more: 'expose: { task_ack_wait: 30 }\n' });
    const short = agentConfig(dir, 'probe9-short', { identity: 'probe9', url: server().url, turns: [say('x')], more: 'expose: { task_ack_wait: 3 }\n' });
    await serve(long);
    const r = await runCli(['serve', '--config', short], { cwd: dir, timeoutMs: 20_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "logbook: the consumer of agent probe9's tasks on stream A2A_TASKS waits 30s for a sign of life (its ack_wait), but expose.task_ack_wait is 3s; " +
        'the instances of an agent share it, so each must wait as long (fix: set expose.task_ack_wait: 30 as the other instances do, ' +
        'or, with every instance stopped, remove the consumer for the next to make it anew: nats consumer rm A2A_TASKS probe9 -f)\n',
    );
    const nc = await connect({ servers: server().url });
    try {
      const info = await (await jetstreamManager(nc)).consumers.info(STREAMS.tasks, 'probe9');
      expect(info.config.ack_wait).toBe(30_000_000_000);
    } finally {
      await nc.close();
    }
  });
});

describeEachNatsServer('task streams whose subjects miss the agent', (binary) => {
  const { server, start } = natsServerOfBlock();
  start({ binary });
  const dir = tempDir('logbook-task-subjects-');

  /** The subjects the `nats stream edit STREAM --subjects ...` fix in `stderr` sets. */
  function editedSubjects(stderr: string, stream: string): string[] {
    const fix = new RegExp(`\\(fix: nats stream edit ${stream} ((?:--subjects '[^']*' ?)+)\\)`).exec(stderr);
    expect(fix, stderr).not.toBeNull();
    return [...fix![1]!.matchAll(/--subjects '([^']*)'/g)].map((m) => m[1]!);
  }

  it('names a subjects edit the server accepts, after which the streams are fit', async () => {
    await addStreamAt(server().url, { name: STREAMS.tasks, subjects: ['choria.fisk-ai.task.other'], retention: 'workqueue', storage: 'file' });
    await addStreamAt(server().url, { name: STREAMS.events, subjects: ['choria.fisk-ai.events.foo'], storage: 'file' });
    await addStreamAt(server().url, { ...journalStream(STREAMS.runs, 'logbook.runs'), storage: 'file' });
    const probe = agentConfig(dir, 'probe', { identity: 'probe', url: server().url, turns: [say('x')] });
    const serveOnce = () => runCli(['serve', '--config', probe], { cwd: dir, timeoutMs: 20_000 });
    const nc = await connect({ servers: server().url });
    try {
      const jsm = await jetstreamManager(nc);
      for (const stream of [STREAMS.tasks, STREAMS.events]) {
        const refused = await serveOnce();
        expect(refused.code).toBe(1);
        const subjects = editedSubjects(refused.stderr, stream);
        const config = (await jsm.streams.info(stream)).config;
        await jsm.streams.update(stream, { ...config, subjects }); // what `nats stream edit --subjects` asks the server
        expect((await jsm.streams.info(stream)).config.subjects).toEqual(subjects);
      }
    } finally {
      await nc.close();
    }
    const s = await startServe(probe, { cwd: dir });
    await s.stop('SIGTERM');
  });
});
