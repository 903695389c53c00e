// A multi-turn conversation: a chat fed its turns by the program, then
// continued later with followUpRun, as `logbook run --resume ID "..."` does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileStore, defineAgent, followUpRun, scriptProvider, startRun } from 'logbook';

const dir = mkdtempSync(join(tmpdir(), 'logbook-example-'));
try {
  const provider = scriptProvider([
    { text: 'Hello! What shall we plan?' },
    { text: 'A picnic on Saturday, then.' },
    { text: 'Bring a blanket and some lemonade.' },
    { text: 'If it rains, the museum is a good plan B.' },
  ]);
  const agent = defineAgent({ provider, system: 'You plan weekends.' });
  const store = new FileStore(dir);

  // A chat asks its input for each next turn; null ends it (the run rests, resumable, at its input).
  const turns = ['A picnic, I think.', 'What should I bring?'];
  const input = { next: async () => turns.shift() ?? null };
  const chat = await startRun(store, agent, { id: 'weekend', prompt: 'Hi!', interactive: true });
  const observer = { assistant: (message) => console.log(`model: ${message.content.map((b) => b.text?.text ?? '').join('')}`) };
  const first = await chat.execute({ input, observer });
  console.log(`chat ${chat.id}: ${first.reason}, ${first.messages.length} messages`);

  // Later (in this process or another): one more turn.
  const more = await followUpRun(store, agent, 'weekend', 'And if it rains?');
  const last = await more.execute({ observer });
  console.log(`run ${more.id}: ${last.reason}, ${last.messages.length} messages`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
