/**
 * An agent: the model it talks to, the tools it may call, and the limits of a
 * run. Its fingerprint is what a journal records of it, so a resume can refuse
 * to continue a conversation under other terms.
 */
import { LogbookError, computeFingerprint, type Fingerprint } from '../core/index.js';
import type { ProjectInstructions } from './instructions.js';
import type { PriceBook } from './prices.js';
import type { Provider, ThinkingSetting } from './provider.js';
import { ToolRegistry } from './tools/registry.js';
import type { Tool } from './tools/tool.js';

/**
 * What runs a conversation: its provider, tools and limits. Everything but
 * `promptCache` and `budget` is in the fingerprint a journal records, so a
 * resume with another agent is refused (or, with force, let through) by name.
 */
export interface Agent {
  provider: Provider;
  tools: ToolRegistry;
  system: string;
  maxTokens: number;
  /** Model calls allowed: in all for a one-shot run, per typed turn for a chat. */
  maxIterations: number;
  /** Tokens (in + out) the run may spend in all. */
  budget?: number;
  /** USD the run may spend (its own model calls, priced by `prices`). */
  budgetUsd?: number;
  /** USD the whole conversation may spend: every run of the run's lineage, summary calls included. */
  lineageBudgetUsd?: number;
  /** What a model call costs; without it nothing is priced (and no USD cap can be set). */
  prices?: PriceBook;
  /**
   * The model's context window in tokens, when given (agent.yaml's
   * context_window); else `prices` is asked when a compaction is weighed
   * (contextWindowOf): what `compaction.at` is a fraction of. Outside the
   * fingerprint: it decides when a run is compacted, never what one request tells the model.
   */
  contextWindow?: number;
  /** When and how a long run is compacted; DEFAULT_COMPACTION when absent. */
  compaction?: CompactionSettings;
  thinking: ThinkingSetting;
  /** Ask the provider to cache the prompt prefix. Outside the fingerprint: it never blocks a resume. */
  promptCache: boolean;
  /**
   * The project's instructions (instructions.ts), given to the model after
   * `system`. Outside the fingerprint and never stored: a note beside the run
   * says which file and hash it was given.
   */
  instructions?: ProjectInstructions;
}

/** When a long run is compacted into a continuation run, and what the continuation keeps. */
export interface CompactionSettings {
  /**
   * Compact when a request's input passes this fraction of the context window
   * (or the API refuses one as too long); false: only when asked (a chat's
   * /compact, `logbook session compact`).
   */
  at: number | false;
  /** The exchanges the continuation keeps word for word after the summary. */
  keepTurns: number;
}

/** agent.yaml's defaults: compact at 80% of the context window, keep the last two exchanges. */
export const DEFAULT_COMPACTION: CompactionSettings = { at: 0.8, keepTurns: 2 };

/** An agent's limits when they are not given, as in agent.yaml. */
export const AGENT_DEFAULTS = { maxTokens: 4096, maxIterations: 20, thinking: 'off', promptCache: false } as const;

/** What defineAgent makes an agent of: a provider, and the rest as agent.yaml has it by default. */
export interface AgentOptions {
  provider: Provider;
  /** The tools it may call (default: none). */
  tools?: ToolRegistry | readonly Tool[];
  /** The system prompt (default: none). It is fingerprinted as a hash, never stored. */
  system?: string;
  maxTokens?: number;
  maxIterations?: number;
  budget?: number;
  thinking?: ThinkingSetting;
  promptCache?: boolean;
  /** As Agent.budgetUsd: needs `prices` that know the model. */
  budgetUsd?: number;
  /** As Agent.lineageBudgetUsd. */
  lineageBudgetUsd?: number;
  /** What a model call costs (loadPriceBook); without it nothing is priced. */
  prices?: PriceBook;
  /** The model's context window in tokens (default: what `prices` knows of the model, if anything). */
  contextWindow?: number;
  /** When and how a long run is compacted (default DEFAULT_COMPACTION). */
  compaction?: CompactionSettings;
}

/** An agent from a provider and tools, with agent.yaml's defaults for what is not given (AGENT_DEFAULTS). */
export function defineAgent(options: AgentOptions): Agent {
  const tools = options.tools instanceof ToolRegistry ? options.tools : new ToolRegistry(options.tools ?? []);
  return {
    provider: options.provider,
    tools,
    system: options.system ?? '',
    maxTokens: options.maxTokens ?? AGENT_DEFAULTS.maxTokens,
    maxIterations: options.maxIterations ?? AGENT_DEFAULTS.maxIterations,
    thinking: options.thinking ?? AGENT_DEFAULTS.thinking,
    promptCache: options.promptCache ?? AGENT_DEFAULTS.promptCache,
    ...(options.budget !== undefined ? { budget: options.budget } : {}),
    ...spendAndWindow(options),
  };
}

/**
 * The model's context window in tokens: the agent's own, else what its price
 * book knows (the price table, loaded only when it is first asked), else
 * undefined.
 */
export function contextWindowOf(agent: Pick<Agent, 'contextWindow' | 'prices' | 'provider'>): number | undefined {
  return agent.contextWindow ?? agent.prices?.contextWindow(agent.provider.id, agent.provider.model);
}

/** The long-run settings of an agent defineAgent makes: a USD cap needs a price for the model, as agent.yaml's does. */
function spendAndWindow(options: AgentOptions): Partial<Agent> {
  const { provider, prices, contextWindow } = options;
  const capped = options.budgetUsd !== undefined ? 'budgetUsd' : options.lineageBudgetUsd !== undefined ? 'lineageBudgetUsd' : undefined;
  if (capped !== undefined && prices?.prices(provider.id, provider.model) == null) {
    throw new LogbookError('usage', `${capped} needs prices that know model ${provider.model}: give loadPriceBook({ overrides: { ${JSON.stringify(provider.model)}: { input, output } } })`);
  }
  return {
    ...(prices !== undefined ? { prices } : {}),
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    ...(options.compaction !== undefined ? { compaction: options.compaction } : {}),
    ...(options.budgetUsd !== undefined ? { budgetUsd: options.budgetUsd } : {}),
    ...(options.lineageBudgetUsd !== undefined ? { lineageBudgetUsd: options.lineageBudgetUsd } : {}),
  };
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
 * Told to the model when a run that was interrupted goes on (runner.ts): a
 * text block after the last turn of its first request, kept there for the
 * rest of that execution, so the prompt before it (the system prompt, the
 * conversation the provider has cached) is the same bytes as before the
 * interruption. Outside the fingerprint, never journaled. Advice, not enforcement.
 */
export const RESUME_REMINDER =
  'Note: this conversation was interrupted and is being resumed from its journal. ' +
  'Tool results in it may be stale: re-verify the current state before taking any state-changing action.';
