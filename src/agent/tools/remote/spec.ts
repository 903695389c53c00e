/**
 * Another agent whose tools a run imports, as agent.yaml declares it (the
 * `remote_tools:` list, spelt as the reference spells it: `name` is the other
 * agent's identity, `alias` the prefix of the names its tools get, `include` and
 * `exclude` pick its tools by name), plus the policy logbook gives them.
 */
import type { ToolPolicyOverride } from '../mcp/spec.js';

/** An agent whose tools a run may call, over NATS (agent.yaml's `remote_tools:` entries). */
export interface RemoteToolHost {
  /** The other agent's identity on the wire. */
  name: string;
  /** Its tools reach the model as `<alias>_<tool>`; the identity when not given. */
  alias: string;
  /** Regular expressions matched against its tool names, anywhere in the name as the reference matches them: only matching tools are imported. */
  include?: string[];
  /** Likewise: matching tools are left out (after include). */
  exclude?: string[];
  /**
   * Whether its calls count as having side effects. True unless agent.yaml says
   * otherwise: nothing on the wire tells whether a call cut short took effect.
   */
  side_effects: boolean;
  /** Ask the operator before every call of its tools. */
  confirm: boolean;
  /** Seconds to wait for a reply (discovery and each call). */
  timeout: number;
  /** By the other agent's own tool name. */
  overrides: Record<string, ToolPolicyOverride>;
}

/** What a remote_tools entry is given when it leaves these out: a remote call has side effects unless said otherwise. */
export const REMOTE_DEFAULTS = { side_effects: true, confirm: false, timeout: 30 } as const;

/** The caller's identity on the wire when agent.yaml's `a2a.identity` names none. */
export const DEFAULT_CALLER_IDENTITY = 'logbook';

/** Who an agent is on the wire when it asks others: agent.yaml's `a2a.identity`, else DEFAULT_CALLER_IDENTITY. */
export function callerIdentity(a2a: { identity?: string | undefined }): string {
  return a2a.identity ?? DEFAULT_CALLER_IDENTITY;
}

/** The name the model sees for `tool` of a host with alias `alias`. */
export function importedName(alias: string, tool: string): string {
  return `${alias}_${tool}`;
}
