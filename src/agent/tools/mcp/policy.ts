/**
 * An MCP tool's policy, from the annotations its server reports and the
 * overrides in agent.yaml. The protocol's defaults assume a tool is destructive
 * and not idempotent, so only a tool that says `readOnlyHint: true` (it changes
 * nothing) or `idempotentHint: true` (a second call adds nothing) may be re-run
 * freely; the config's overrides win over anything a server says.
 */
import type { ToolPolicy } from '../tool.js';
import type { ToolPolicyOverride } from './spec.js';

/** The annotations of the protocol this reads (all hints optional). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** Where each half of a policy came from. */
export interface PolicyReasons {
  sideEffects: 'read-only' | 'idempotent' | 'annotations' | 'no annotations' | 'agent.yaml';
  confirm: 'default' | 'agent.yaml';
}

export function mcpToolPolicy(
  annotations: ToolAnnotations | undefined,
  override: ToolPolicyOverride | undefined,
): { policy: ToolPolicy; reasons: PolicyReasons } {
  let sideEffects = true;
  let sideReason: PolicyReasons['sideEffects'] =
    annotations?.readOnlyHint === undefined && annotations?.idempotentHint === undefined ? 'no annotations' : 'annotations';
  if (annotations?.readOnlyHint === true) {
    sideEffects = false;
    sideReason = 'read-only';
  } else if (annotations?.idempotentHint === true) {
    sideEffects = false;
    sideReason = 'idempotent';
  }
  if (override?.side_effects !== undefined) {
    sideEffects = override.side_effects;
    sideReason = 'agent.yaml';
  }
  const confirm = override?.confirm ?? false;
  return {
    policy: { confirm, sideEffects },
    reasons: { sideEffects: sideReason, confirm: override?.confirm === undefined ? 'default' : 'agent.yaml' },
  };
}
