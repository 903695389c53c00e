/**
 * A journal as a newer writer of format version 3 may write it: fields this
 * build does not know at every level, and a terminal reason it does not write.
 * The fingerprint is the one test/helpers/records.ts `meta` computes, so the
 * run resumes under the matching script configuration (NEWER_WRITER_CONFIG).
 */
import { encodeRecord } from '../../src/index.js';
import { meta } from './records.js';

const P = 'io.choria.fisk-ai.v1.session';

/** agent.yaml lines whose fingerprint matches `meta` (script provider, system "system", no tools). */
export const NEWER_WRITER_CONFIG = 'provider: script\nmodel: test-model\nsystem: system\nmax_tokens: 100\nmax_iterations: 10\n';

/** The meta line of run `id` with unknown fields added at the record, payload and fingerprint levels. */
function metaLine(id: string): string {
  return encodeRecord({ seq: 1, meta: meta(id) })
    .replace('{"seq":1,', '{"seq":1,"trace":{"id":"x","input":1},')
    .replace('"created":', '"labels":{"team":"a"},"created":')
    .replace('"max_tokens":', '"temperature":0.5,"max_tokens":');
}

/** The whole journal of run `id`, one line per record, ending on an unknown terminal reason. */
export function newerWriterLines(id: string): string[] {
  return [
    metaLine(id),
    `{"seq":2,"protocol":"${P}.assistant","assistant":{"iteration":0,"service_tier":{"input":"std"},"message":{"id":"msg_1","role":"assistant","content":[{"text":{"text":"Looking.","citations":[]}},{"cache_control":{"type":"ephemeral"},"tool_use":{"caller":{"input":"not this"},"id":"t1","name":"echo","input":{"text":"hi","n":1.0}}}]},"stop_reason":"tool_use","in_tokens":10,"out_tokens":5,"speed":"fast"}}`,
    `{"seq":3,"protocol":"${P}.tool_result","tool_result":{"tool_use_id":"t1","duration_ms":12,"result":{"tool_use_id":"t1","content":"hi","structured":{"raw":2}}}}`,
    `{"seq":4,"protocol":"${P}.assistant","assistant":{"iteration":1,"message":{"role":"assistant","content":[{"text":{"text":"Said hi.","lang":"en"}}]},"stop_reason":"end_turn","in_tokens":12,"out_tokens":3}}`,
    `{"seq":5,"protocol":"${P}.terminal","terminal":{"reason":"handed_off","message":"to a person","at":"2026-11-30T01:02:04Z"}}`,
  ];
}
