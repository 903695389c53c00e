/**
 * `confirm` and `side_effects` on a command tool: strict like every key, off by
 * default, carried to the tool's policy, and outside the fingerprint, so a run
 * journaled before they were set (or by a writer that has neither) resumes
 * without drift, and the fingerprint bytes of a config without them do not move.
 */
import { describe, expect, it } from 'vitest';
import { fingerprintOf, type Agent } from '../../src/agent/agent.js';
import { ScriptProvider } from '../../src/agent/providers/script.js';
import { toolsFromConfig } from '../../src/config/agent.js';
import { parseConfig } from '../../src/config/config.js';
import { encodeRecord } from '../../src/index.js';
import { computeFingerprint } from '../../src/core/index.js';

const TOOL = '{name: deploy, description: Deploy it, input_schema: {type: object, properties: {env: {type: string}}}, command: [deploy.sh, "{{env}}"]';
const config = (extra: string) => parseConfig(`provider: script\nscript: s.yaml\ntools: [${TOOL}${extra}}]\n`, '/cfg/agent.yaml');

function fingerprint(extra: string) {
  const tools = toolsFromConfig(config(extra), {});
  const agent: Agent = { provider: new ScriptProvider('script', 's.yaml', []), tools, system: 's', maxTokens: 1, maxIterations: 1, thinking: 'off', promptCache: false };
  return fingerprintOf(agent);
}

describe('a command tool\'s policy', () => {
  it('is off unless set, and set per key', () => {
    expect(toolsFromConfig(config(''), {}).get('deploy')?.policy).toEqual({ confirm: false, sideEffects: false });
    expect(toolsFromConfig(config(', confirm: true'), {}).get('deploy')?.policy).toEqual({ confirm: true, sideEffects: false });
    expect(toolsFromConfig(config(', side_effects: true'), {}).get('deploy')?.policy).toEqual({ confirm: false, sideEffects: true });
  });

  it('is checked strictly', () => {
    expect(() => config(', confirm: yes please')).toThrow(/tools\[0\]\.confirm must be boolean/);
    expect(() => config(', side_effect: true')).toThrow(/unknown key "side_effect" in tools\[0\]/);
  });

  it('is outside the fingerprint: the same bytes with or without it, the same as the tool set alone gives', () => {
    const without = fingerprint('');
    expect(fingerprint(', confirm: true, side_effects: true')).toEqual(without);
    expect(fingerprint(', confirm: false')).toEqual(without);
    const definitionsOnly = computeFingerprint({
      provider: 'script',
      model: 'script',
      systemPrompt: 's',
      tools: [{ name: 'deploy', description: 'Deploy it', input_schema: { type: 'object', properties: { env: { type: 'string' } } } }],
      thinkingMode: 'off',
      maxTokens: 1,
      maxIterations: 1,
    });
    expect(encodeRecord({ seq: 1, meta: { version: 3, run_id: 'r', created: 'c', fingerprint: without, prompt: 'p' } })).toBe(
      encodeRecord({ seq: 1, meta: { version: 3, run_id: 'r', created: 'c', fingerprint: definitionsOnly, prompt: 'p' } }),
    );
  });
});
