// Watching a run from another process: a writer runs it (slowly: the script
// provider thinks for a while each turn) while this process follows the
// journal, each record as it becomes durable, without holding the run, and
// folds it record by record (initialState, then step) to the run's live state.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileStore, defineAgent, defineTool, initialState, scriptProvider, startRun, step } from 'logbook';

const [role, dir] = process.argv.slice(2);

if (role === 'writer') {
  const clock = defineTool({ name: 'clock', run: () => new Date(0).toISOString() });
  const provider = scriptProvider([
    { text: 'Looking at the clock.', tool_calls: [{ name: 'clock' }], delay_ms: 300 },
    { text: 'It is the start of the epoch.', delay_ms: 300 },
  ]);
  await (await startRun(new FileStore(dir), defineAgent({ provider, tools: [clock] }), { id: 'watched', prompt: 'What time is it?' })).execute();
} else {
  const tmp = mkdtempSync(join(tmpdir(), 'logbook-example-'));
  try {
    const store = new FileStore(tmp);
    // The watch starts first: it waits for the run to appear, and ends when the run does.
    const watching = (async () => {
      let state; // the fold of the records seen so far: what the writer's own state is after each
      for await (const { record } of store.watch('watched', { onAbsent: () => console.log('waiting for run watched to start') })) {
        state = state === undefined ? initialState(record) : step(state, record);
        const kind = Object.keys(record).find((k) => k !== 'seq');
        const what = 'terminal' in record ? record.terminal.reason : 'assistant' in record ? record.assistant.message.content.map((b) => b.text?.text ?? (b.tool_use ? `[calls ${b.tool_use.name}]` : '')).join(' ') : '';
        console.log(`seq ${record.seq} ${kind} ${what}`.trimEnd());
      }
      console.log(`folded as it came: ${state.status}, ${state.counters.llm_calls} model calls, ${state.counters.tool_calls} tool call, ${state.messages.length} messages`);
    })();
    const writer = spawn(process.execPath, [fileURLToPath(import.meta.url), 'writer', tmp], { stdio: 'inherit' });
    const code = await new Promise((resolve) => writer.on('exit', resolve));
    await watching;
    console.log(`the writer exited ${code}; the watch ended with the run`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
