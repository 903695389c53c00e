import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RawJson, decodeRecord, encodeRecord, fold, toolUses, type Message, type MetaPayload } from '../../src/index.js';
import { initialState, step, stateToJson } from '../../src/core/index.js';
import { journal, rawText, text } from '../helpers/journals.js';

const runs = { numRuns: 300 };

function toolResultIds(m: Message): string[] {
  return m.content.flatMap((b) => ('tool_result' in b ? [b.tool_result.tool_use_id] : []));
}

describe('fold over random valid journals', () => {
  it('encode after decode is the identity on the bytes of every record', () => {
    fc.assert(
      fc.property(journal, ({ records }) => {
        for (const rec of records) {
          const line = encodeRecord(rec);
          expect(encodeRecord(decodeRecord(line))).toBe(line);
        }
      }),
      runs,
    );
  });

  it('applying step record by record is the fold of every prefix: live state is folded state', () => {
    fc.assert(
      fc.property(journal, ({ records }) => {
        const live = initialState(records[0]!);
        for (let i = 1; i < records.length; i++) {
          step(live, records[i]!);
          expect(stateToJson(live)).toBe(stateToJson(fold(records.slice(0, i + 1))));
        }
      }),
      { numRuns: 100 },
    );
  });

  it('messages alternate roles and end on a boundary the model API accepts', () => {
    fc.assert(
      fc.property(journal, ({ records }) => {
        const { messages } = fold(records);
        expect(messages[0]!.role).toBe('user');
        for (let i = 1; i < messages.length; i++) expect(messages[i]!.role).not.toBe(messages[i - 1]!.role);
        messages.forEach((m, i) => {
          const calls = m.role === 'assistant' ? toolUses(m).map((t) => t.id) : [];
          if (calls.length === 0) return;
          // every call is answered by the very next message, in the same set
          const next = messages[i + 1];
          expect(next?.role).toBe('user');
          expect(new Set(toolResultIds(next!))).toEqual(new Set(calls));
        });
      }),
      runs,
    );
  });

  it('opens the conversation with the prompt and the turns typed before the first model call, as one user message', () => {
    fc.assert(
      fc.property(journal, ({ records, typedFirst }) => {
        const { prompt } = (records[0] as { meta: MetaPayload }).meta;
        const opening = [...(prompt === '' ? [] : [{ text: { text: prompt } }]), ...typedFirst.flat()];
        expect(fold(records).messages[0]).toEqual({ role: 'user', content: opening });
      }),
      runs,
    );
  });

  it('has a pending turn exactly when the trailing batch is incomplete', () => {
    fc.assert(
      fc.property(journal, ({ records, plans }) => {
        const state = fold(records);
        const last = plans[plans.length - 1];
        const incomplete = last !== undefined && last.answerOrder.length < last.toolInputs.length;
        expect(state.pending !== null).toBe(incomplete);
        if (state.pending !== null && last !== undefined) {
          expect(state.pending.answered.length).toBe(last.answerOrder.length);
          expect(state.pending.results.map((r) => r.tool_use_id)).toEqual(state.pending.answered);
          // the in-flight turn never leaks into the committed conversation
          const pendingIds = new Set(toolUses(state.pending.assistant).map((t) => t.id));
          for (const m of state.messages) for (const t of toolUses(m)) expect(pendingIds.has(t.id)).toBe(false);
        }
      }),
      runs,
    );
  });

  it('derives every counter from the records it counts', () => {
    fc.assert(
      fc.property(journal, ({ records }) => {
        const state = fold(records);
        const assistants = records.flatMap((r) => ('assistant' in r ? [r.assistant] : []));
        const results = records.flatMap((r) => ('tool_result' in r ? [r.tool_result] : []));
        expect(state.counters).toEqual({
          llm_calls: assistants.length,
          tool_calls: results.length,
          remote_tool_calls: results.filter((r) => r.remote).length,
          in_tokens: assistants.reduce((n, a) => n + a.in_tokens, 0),
          out_tokens: assistants.reduce((n, a) => n + a.out_tokens, 0),
          cache_read_tokens: assistants.reduce((n, a) => n + (a.cache_read_tokens ?? 0), 0),
          cache_create_tokens: assistants.reduce((n, a) => n + (a.cache_create_tokens ?? 0), 0),
        });
        const lastAssistant = assistants[assistants.length - 1];
        expect(state.next_iteration).toBe(lastAssistant ? lastAssistant.iteration + 1 : 0);
        expect(state.last_stop_reason).toBe(lastAssistant?.stop_reason ?? '');
      }),
      runs,
    );
  });

  it('keeps the last terminal record seen, and is open unless the journal ends on one', () => {
    fc.assert(
      fc.property(journal, ({ records }) => {
        const state = fold(records);
        const terminals = records.flatMap((r) => ('terminal' in r ? [r.terminal] : []));
        expect(state.terminal).toEqual(terminals[terminals.length - 1] ?? null);
        const last = records[records.length - 1]!;
        expect(state.status).toBe('terminal' in last ? last.terminal.reason : 'open');
      }),
      runs,
    );
  });

  it('is pure: folding twice gives the same state and leaves the records untouched', () => {
    fc.assert(
      fc.property(journal, ({ records }) => {
        const before = records.map(encodeRecord);
        expect(fold(records)).toEqual(fold(records));
        expect(records.map(encodeRecord)).toEqual(before);
      }),
      { numRuns: 100 },
    );
  });
});

describe('fold of tool results', () => {
  const meta = { seq: 1, meta: { version: 3, run_id: 'r', created: 'c', fingerprint: { provider: 'p', model: 'm', system_hash: '', tools_hash: '', thinking_mode: 'off', max_tokens: 1, max_iterations: 1 }, prompt: 'p' } };
  const use = (id: string) => ({ tool_use: { id, name: 'echo', input: RawJson.fromText('{}') } });
  const turn = { seq: 2, assistant: { iteration: 0, message: { role: 'assistant', content: [use('a'), use('b'), use('a')] }, in_tokens: 1, out_tokens: 1 } };
  const result = (seq: number, id: string) => ({ seq, tool_result: { tool_use_id: id, result: { tool_use_id: id, content: id } } });
  const folded = (...results: ReturnType<typeof result>[]) => () => fold([meta, turn, ...results] as never);

  it('answers a repeated id once per call of it, commits the turn when every call has its result, and refuses any other result', () => {
    expect(folded(result(3, 'a'), result(4, 'b'))().pending?.answered).toEqual(['a', 'b']);
    const state = folded(result(3, 'a'), result(4, 'a'), result(5, 'b'))();
    expect([state.pending, state.messages.length, state.counters.tool_calls]).toEqual([null, 3, 3]);
    expect(folded(result(3, 'c'))).toThrow('seq 3: tool result for c, which the assistant turn did not call');
    expect(folded(result(3, 'b'), result(4, 'b'))).toThrow('seq 4: second tool result for b');
    expect(folded(result(3, 'a'), result(4, 'a'), result(5, 'a'))).toThrow('seq 5: second tool result for a');
    expect(folded(result(3, 'a'), result(4, 'a'), result(5, 'b'), result(6, 'b'))).toThrow('seq 6: second tool result for b');
  });
});

describe('raw JSON canonicalization', () => {
  it('is idempotent, removes whitespace between tokens and keeps the value', () => {
    fc.assert(
      fc.property(rawText, (t) => {
        const canonical = RawJson.fromText(t);
        expect(RawJson.fromText(canonical.text).text).toBe(canonical.text);
        expect(canonical.value()).toEqual(JSON.parse(t));
        expect(canonical.text.replace(/"(?:[^"\\]|\\.)*"/g, '')).not.toMatch(/\s/);
      }),
    );
  });

  it('never leaves <, >, &, U+2028 or U+2029 unescaped', () => {
    fc.assert(
      fc.property(text, (t) => {
        const line = encodeRecord({ seq: 2, terminal: { reason: 'error', message: t } });
        expect(line).not.toMatch(/[<>&\u2028\u2029]/);
      }),
    );
  });
});
