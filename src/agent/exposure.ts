/**
 * Which of this agent's tools `logbook serve` answers for (agent.yaml's
 * `expose:`), by the reference's rules: never a tool that asks for a
 * confirmation (a served call has no operator to approve it), never one without
 * a description (a caller would not import it) or with a name the wire cannot
 * carry; and only those `expose.tools` picks.
 */
import { IDENTITY_PATTERN } from '../a2a/protocol.js';
import type { Tool } from './tools/tool.js';

export interface ExposeSettings {
  /** Regular expressions matched against tool names (anywhere in the name, as the reference matches them). */
  include?: string[];
  exclude?: string[];
  /** Calls run at once. */
  max_concurrent_tools: number;
  /** Seconds one served call may take. */
  tool_timeout: number;
}

export const EXPOSE_DEFAULTS = { max_concurrent_tools: 2, tool_timeout: 30 } as const;

export type NotExposedReason = 'confirm' | 'no description' | 'name' | 'include' | 'exclude';

export interface Exposure {
  exposed: Tool[];
  /** Every tool left out, with why. */
  withheld: { name: string; reason: NotExposedReason }[];
}

const matchesAny = (name: string, patterns: readonly string[] | undefined): boolean => (patterns ?? []).some((p) => new RegExp(p).test(name));

/** The tools `tools` serve under `settings`, in their order, and those left out. */
export function exposedTools(tools: readonly Tool[], settings: Pick<ExposeSettings, 'include' | 'exclude'>): Exposure {
  const out: Exposure = { exposed: [], withheld: [] };
  for (const tool of tools) {
    const { name, description } = tool.definition;
    const reason: NotExposedReason | null =
      settings.include !== undefined && !matchesAny(name, settings.include)
        ? 'include'
        : matchesAny(name, settings.exclude)
          ? 'exclude'
          : tool.policy?.confirm === true
            ? 'confirm'
            : description === ''
              ? 'no description'
              : !IDENTITY_PATTERN.test(name)
                ? 'name'
                : null;
    if (reason === null) out.exposed.push(tool);
    else out.withheld.push({ name, reason });
  }
  return out;
}
