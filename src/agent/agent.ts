/**
 * An agent: the model it talks to, the tools it may call, and the limits of a
 * run. Its fingerprint is what a journal records of it, so a resume can refuse
 * to continue a conversation under other terms.
 */
import { computeFingerprint, type Fingerprint } from '../core/index.js';
import type { Provider, ThinkingSetting } from './provider.js';
import type { ToolRegistry } from './tools/registry.js';

export interface Agent {
  provider: Provider;
  tools: ToolRegistry;
  system: string;
  maxTokens: number;
  /** Model calls allowed: in all for a one-shot run, per typed turn for a chat. */
  maxIterations: number;
  /** Tokens (in + out) the run may spend in all. */
  budget?: number;
  thinking: ThinkingSetting;
  /** Ask the provider to cache the prompt prefix. Outside the fingerprint: it never blocks a resume. */
  promptCache: boolean;
}

/**
 * The fingerprint of everything a resume must match: provider, model, system
 * prompt (hashed), tool set, thinking, max tokens and max iterations. Computed
 * from the agent as configured, before any advisory text (the resume reminder)
 * is added to the system prompt.
 */
export function fingerprintOf(agent: Agent): Fingerprint {
  return computeFingerprint({
    provider: agent.provider.id,
    model: agent.provider.model,
    systemPrompt: agent.system,
    tools: agent.tools.definitions(),
    thinkingMode: agent.thinking,
    maxTokens: agent.maxTokens,
    maxIterations: agent.maxIterations,
  });
}

/**
 * Told to the model on a resumed run only, appended after the fingerprint is
 * computed and never journaled. Advice, not enforcement.
 */
export const RESUME_REMINDER =
  '\n\nNote: this conversation was interrupted and is being resumed from its journal. ' +
  'Tool results in it may be stale: re-verify the current state before taking any state-changing action.';
