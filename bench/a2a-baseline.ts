/**
 * The baseline of the A2A-over-HTTP rows: the same agent (the config given:
 * the anthropic provider against the benchmark's local Messages API, and the
 * command tool `look`) served by the official SDK's own server as its samples
 * build one, with its InMemoryTaskStore, its runs unjournaled (startRun with
 * no store), or, given a directory, journaled in a file store there as
 * logbook's are. Each record the run makes is published as the SDK's samples
 * publish events (a WORKING status stamped when it is published), then the
 * answer as an artifact and COMPLETED. Prints its base URL once it listens.
 * Run as `node dist-bench/a2a-baseline.js AGENT.yaml [RUNS_DIR]`.
 */
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, Role, TaskState, type AgentCard, type Message } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import express from 'express';
import { agentFromConfig, loadConfig, openStore, startRun, type JournalRecord } from 'logbook';

const { agent } = await agentFromConfig(loadConfig(process.argv[2]!), { env: process.env });
const store = process.argv[3] !== undefined ? await openStore('file', { directory: process.argv[3] }) : null;
const text = (value: string) => ({ content: { $case: 'text' as const, value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

const executor: AgentExecutor = {
  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const say = (value: string): Message => ({ messageId: crypto.randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts: [text(value)], metadata: {}, extensions: [], referenceTaskIds: [] });
    bus.publish({ kind: 'task', data: { id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() }, artifacts: [], history: [ctx.userMessage], metadata: {} } });
    const prompt = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    const run = await startRun(store, agent, { prompt });
    let last = '';
    const record = (r: JournalRecord): void => {
      if (!('assistant' in r) && !('tool_result' in r)) return;
      const words = 'assistant' in r ? r.assistant.message.content.flatMap((b) => ('text' in b ? [b.text.text] : [])).join('\n') : r.tool_result.result.content;
      if ('assistant' in r && words) last = words;
      bus.publish({ kind: 'statusUpdate', data: { taskId, contextId, status: { state: TaskState.TASK_STATE_WORKING, message: say(words), timestamp: new Date().toISOString() }, metadata: {} } });
    };
    await run.execute({ observer: { record } });
    bus.publish({ kind: 'artifactUpdate', data: { taskId, contextId, artifact: { artifactId: 'answer', name: 'answer', description: '', parts: [text(last)], metadata: {}, extensions: [] }, append: false, lastChunk: true, metadata: {} } });
    bus.publish({ kind: 'statusUpdate', data: { taskId, contextId, status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: new Date().toISOString() }, metadata: {} } });
  },
  async cancelTask() {},
};

const app = express();
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  const card = {
    name: 'baseline',
    description: 'the same agent on the SDK server',
    supportedInterfaces: [{ url: `${url}/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  } as unknown as AgentCard;
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  process.stdout.write(`${url}\n`);
});
