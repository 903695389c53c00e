import { describe, expect, it } from 'vitest';
import { LogbookError, fold, parseJournal, type RunState } from '../../src/index.js';
import { checkResume, computeFingerprint } from '../../src/core/index.js';
import { fixtures } from '../helpers/fixtures.js';

function state(name: string): RunState {
  const fx = fixtures().find((f) => f.name === name)!;
  return fold(parseJournal(fx.journal));
}

function refusal(fn: () => void): { code: string; message: string; details: object } | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof LogbookError) return { code: err.code, message: err.message, details: err.details };
    throw err;
  }
}

describe('resume gates', () => {
  const suspended = state('paused-turn'); // one-shot, terminal: suspended
  const same = suspended.fingerprint;
  const otherProvider = { ...same, provider: 'openai' };
  const drifted = { ...same, model: 'claude-other', max_tokens: 9 };

  it('refuse a completed run before anything else, even with force and every other mismatch', () => {
    const completed = state('completed');
    expect(refusal(() => checkResume(completed, { fingerprint: { ...otherProvider, model: 'x' }, interactive: true, force: true }))?.code).toBe(
      'already_completed',
    );
  });

  it('let every other terminal reason through', () => {
    for (const reason of ['suspended', 'error', 'budget', 'max_iterations'] as const) {
      expect(refusal(() => checkResume({ ...suspended, status: reason }, { fingerprint: same, interactive: false, force: false }))).toBeNull();
    }
  });

  it('refuse an interactivity mismatch in both directions, before the provider check', () => {
    expect(refusal(() => checkResume(suspended, { fingerprint: otherProvider, interactive: true, force: true }))?.code).toBe('interactivity_mismatch');
    const chat = state('consecutive-users');
    const r = refusal(() => checkResume(chat, { fingerprint: chat.fingerprint, interactive: false, force: false }));
    expect(r?.code).toBe('interactivity_mismatch');
    expect(r?.message).toBe(`run ${chat.run_id} is an interactive chat`); // no command to type: a program reads it too
    expect(r?.details).toEqual({ runId: chat.run_id });
  });

  it('refuse a provider change even with force, before drift', () => {
    const r = refusal(() => checkResume(suspended, { fingerprint: { ...otherProvider, model: 'x' }, interactive: false, force: true }));
    expect(r?.code).toBe('provider_changed');
    expect(r?.message).toContain('anthropic');
    expect(r?.message).toContain('openai');
  });

  it('refuse other drift with the per-field diff, unless forced', () => {
    const r = refusal(() => checkResume(suspended, { fingerprint: drifted, interactive: false, force: false }));
    expect(r?.code).toBe('config_drift');
    expect(r?.message).toContain('model: claude-sonnet-4-5 -> claude-other');
    expect(r?.message).toContain('max_tokens: 4096 -> 9');
    expect(r?.message).not.toContain('--');
    expect(refusal(() => checkResume(suspended, { fingerprint: drifted, interactive: false, force: true }))).toBeNull();
  });

  it('accept an unchanged configuration', () => {
    expect(refusal(() => checkResume(suspended, { fingerprint: computeFingerprint({ provider: 'anthropic', model: same.model, systemPrompt: '', tools: [], thinkingMode: 'off', maxTokens: 4096, maxIterations: 20 }), interactive: false, force: true }))).toBeNull();
  });
});
