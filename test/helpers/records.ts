import { PROTOCOL_IDS, RawJson, type JournalRecord, type MetaPayload, type Payload, type Store } from '../../src/index.js';
import { computeFingerprint } from '../../src/core/index.js';

export function meta(runId: string, extra: Partial<MetaPayload> = {}): MetaPayload {
  return {
    version: 3,
    run_id: runId,
    created: '2026-11-30T01:02:03.123Z',
    fingerprint: computeFingerprint({
      provider: 'script',
      model: 'test-model',
      systemPrompt: 'system',
      tools: [],
      thinkingMode: 'off',
      maxTokens: 100,
      maxIterations: 10,
    }),
    prompt: 'do the thing',
    ...extra,
  };
}

export function assistant(iteration: number, toolIds: string[] = [], text = 'thinking out loud'): Payload {
  return {
    assistant: {
      iteration,
      message: {
        role: 'assistant',
        content: [
          { text: { text } },
          ...toolIds.map((id) => ({ tool_use: { id, name: 'echo', input: RawJson.fromText('{"n":1.0,"big":12345678901234567890}') } })),
        ],
      },
      stop_reason: toolIds.length ? 'tool_use' : 'end_turn',
      in_tokens: 10,
      out_tokens: 5,
    },
  };
}

export function toolResult(id: string, content = `result of ${id}`): Payload {
  return { tool_result: { tool_use_id: id, result: { tool_use_id: id, content } } };
}

export const completed: Payload = { terminal: { reason: 'completed' } };

/** The record with this seq and payload. */
export const at = (seq: number, payload: Payload): JournalRecord => ({ seq, ...payload }) as JournalRecord;

/**
 * Writes run `id` into `store` and lets it go: its meta record (with `extra`),
 * then `payloads` from seq 2; by default one answer and the run's completed end.
 */
export async function storeRun(store: Pick<Store, 'create'>, id: string, payloads: readonly Payload[] = [assistant(1), completed], extra: Partial<MetaPayload> = {}): Promise<void> {
  const journal = await store.create(id, meta(id, extra));
  for (const [i, payload] of payloads.entries()) await journal.append(at(i + 2, payload));
  await journal.close();
}

const FP =
  '{"provider":"script","model":"m","system_hash":"' +
  'a'.repeat(64) +
  '","tools_hash":"' +
  'b'.repeat(64) +
  '","thinking_mode":"off","max_tokens":10,"max_iterations":5}';

/** A meta line as the format's writer spells it, claiming record format `version`. */
export function metaLine(version = 3): string {
  return `{"seq":1,"protocol":"${PROTOCOL_IDS.meta}","meta":{"version":${version},"run_id":"r1","created":"2026-11-30T01:02:03.12Z","fingerprint":${FP},"prompt":"p"}}`;
}
