/**
 * An A2A 1.0 agent as the official SDK's samples build one (its
 * sample-agent: DefaultRequestHandler, InMemoryTaskStore, the JSON-RPC and
 * HTTP+JSON handlers on express), for tests of logbook calling an A2A agent.
 * Each task: a task event, WORKING, a wait of SAMPLE_DELAY_MS, an artifact
 * `Result` saying "sample heard: PROMPT", COMPLETED. Every task it is sent is
 * logged as a line in SAMPLE_LOG. Prints its base URL on stdout once it listens.
 */
import { appendFileSync } from 'node:fs';
import express from 'express';
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, TaskState } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';

const delay = Number(process.env.SAMPLE_DELAY_MS ?? 0);
const log = process.env.SAMPLE_LOG;
const text = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

const executor = {
  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const prompt = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    if (log) appendFileSync(log, `${JSON.stringify({ taskId, contextId, prompt })}\n`);
    const now = () => new Date().toISOString();
    bus.publish({ kind: 'task', data: ctx.task ?? { id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() }, artifacts: [], history: [ctx.userMessage], metadata: {} } });
    bus.publish({ kind: 'statusUpdate', data: { taskId, contextId, status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() }, metadata: {} } });
    await new Promise((r) => setTimeout(r, delay));
    bus.publish({ kind: 'artifactUpdate', data: { taskId, contextId, artifact: { artifactId: 'result', name: 'Result', description: '', parts: [text(`sample heard: ${prompt}`)], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: {} } });
    bus.publish({ kind: 'statusUpdate', data: { taskId, contextId, status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: now() }, metadata: {} } });
  },
  async cancelTask() {},
};

const app = express();
const server = app.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  const card = {
    name: 'Sample Agent',
    description: 'hears what it is told',
    supportedInterfaces: [
      { url: `${url}/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
      { url: `${url}/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
    ],
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text'],
    defaultOutputModes: ['text'],
    skills: [{ id: 'hear', name: 'hear', description: 'hears', tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  process.stdout.write(`${url}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
