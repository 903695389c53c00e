// A one-shot run with a function tool, journaled in a file store.
// Run it with `node one-shot.mjs`: offline (the script provider plays the model's turns).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileStore, defineAgent, defineTool, scriptProvider, startRun } from 'logbook';

const dir = mkdtempSync(join(tmpdir(), 'logbook-example-'));
try {
  // A tool is a function: its input is checked against input_schema before it runs.
  const square = defineTool({
    name: 'square',
    description: 'Square a number',
    input_schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    run: ({ n }) => String(n * n),
  });
  // The model's turns, played in order. A real run uses createProvider or loadAgent instead.
  const provider = scriptProvider([
    { text: 'Let me work them out.', tool_calls: [{ name: 'square', input: { n: 7 } }, { name: 'square', input: { n: 12 } }] },
    { text: '7 squared is 49, and 12 squared is 144.' },
  ]);
  const agent = defineAgent({ provider, tools: [square], system: 'You are good at arithmetic.' });

  const store = new FileStore(dir); // the journals live in dir/<id>.jsonl
  const run = await startRun(store, agent, { prompt: 'What are 7 and 12 squared?' }); // the meta record is durable here
  const result = await run.execute({ observer: { toolEnd: (call, r) => console.log(`tool ${call.name}(${call.input.text}) -> ${r.content}`) } });

  console.log(`run ${run.id}: ${result.reason}`);
  console.log(result.finalText);
  console.log(`${(await store.lines(run.id)).length} records journaled, ${result.counters.in_tokens + result.counters.out_tokens} tokens`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
