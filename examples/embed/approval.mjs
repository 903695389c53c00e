// Approvals: a tool with confirm runs only once a callback allows the call.
// Without a callback the run suspends before the call, journaled, and a later
// resume (here, with a callback) brings the answer: a web app can put its own
// approval UI on this, taking as long as a person does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileStore, allowCall, defineAgent, defineTool, denyCall, resumeRun, scriptProvider, startRun } from 'logbook';

const dir = mkdtempSync(join(tmpdir(), 'logbook-example-'));
try {
  const sent = [];
  const email = defineTool({
    name: 'send_email',
    input_schema: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
    confirm: true, // ask before every call
    sideEffects: true, // never re-run one a crash may have cut short, unasked
    run: ({ to }) => (sent.push(to), `sent to ${to}`),
  });
  const provider = scriptProvider([
    { tool_calls: [{ name: 'send_email', input: { to: 'team@example.com' } }, { name: 'send_email', input: { to: 'everyone@example.com' } }] },
    { text: 'The team has the news; everyone else does not.' },
  ]);
  const agent = defineAgent({ provider, tools: [email] });
  const store = new FileStore(dir);

  // No one to ask: the run stops before the first call, awaiting its approval.
  const first = await (await startRun(store, agent, { id: 'news', prompt: 'Tell people the news' })).execute();
  console.log(`${first.reason}, awaiting approval of ${first.awaiting.name} to ${first.awaiting.input.value().to}`);

  // Later, perhaps in another process: resume with someone to ask.
  const resumed = await resumeRun(store, agent, 'news');
  const result = await resumed.execute({
    beforeToolCall: async (call, { policy }) => {
      const to = call.input.value().to;
      console.log(`asked: ${call.name} to ${to} (side effects: ${policy.sideEffects})`);
      return to.startsWith('team@') ? allowCall : denyCall('only the team for now');
    },
  });
  console.log(`${result.reason}: ${result.finalText}`);
  console.log(`emails sent: ${sent.join(', ')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
