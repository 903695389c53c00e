/**
 * The fingerprint records the configuration a journal was written against, so a
 * resume can refuse to continue a conversation the current config cannot honour.
 * The system prompt is only ever hashed: its text never reaches a journal.
 */
import { canonicalJson } from './json-text.js';
import type { Fingerprint } from './records.js';

/**
 * node:crypto, taken at its first use rather than imported: a command that
 * hashes nothing and draws no random bytes (`session ls`) starts without it.
 */
export function nodeCrypto(): typeof import('node:crypto') {
  return process.getBuiltinModule('node:crypto');
}

export function sha256Hex(text: string): string {
  return nodeCrypto().createHash('sha256').update(text, 'utf8').digest('hex');
}

export function systemHash(systemPrompt: string): string {
  return sha256Hex(systemPrompt);
}

/** What the model is told about a tool; all of it is part of the tool set's identity. */
export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: unknown;
}

/** What a tool set is, tool by tool: each tool's name and the hash of its definition. */
export type ToolSetManifest = Record<string, string>;

/** A tool set's manifest: enough to say later which tools were added, removed or changed. */
export function toolSetManifest(tools: readonly ToolDefinition[]): ToolSetManifest {
  const out: ToolSetManifest = {};
  for (const t of tools) out[t.name] = sha256Hex(canonicalJson({ name: t.name, description: t.description, input_schema: t.input_schema }));
  return out;
}

/** `mcp__fs__write_file removed, mcp__fs__move added, read changed`: how one tool set became another. */
export function toolSetChanges(recorded: ToolSetManifest, current: ToolSetManifest): string {
  const changes: string[] = [];
  for (const name of Object.keys(recorded).sort()) {
    if (!(name in current)) changes.push(`${name} removed`);
    else if (current[name] !== recorded[name]) changes.push(`${name} changed`);
  }
  for (const name of Object.keys(current).sort()) if (!(name in recorded)) changes.push(`${name} added`);
  return changes.join(', ');
}

/**
 * Hash of the tool set as the model sees it, independent of declaration order and
 * of key order inside schemas: the definitions sorted by name, each serialized
 * with sorted keys.
 */
export function toolsHash(tools: readonly ToolDefinition[]): string {
  const sorted = [...tools]
    .map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return sha256Hex(canonicalJson(sorted));
}

export interface FingerprintInput {
  provider: string;
  model: string;
  systemPrompt: string;
  tools: readonly ToolDefinition[];
  thinkingMode: string;
  maxTokens: number;
  maxIterations: number;
}

export function computeFingerprint(input: FingerprintInput): Fingerprint {
  return {
    provider: input.provider,
    model: input.model,
    system_hash: systemHash(input.systemPrompt),
    tools_hash: toolsHash(input.tools),
    thinking_mode: input.thinkingMode,
    max_tokens: input.maxTokens,
    max_iterations: input.maxIterations,
  };
}

/** The tool sets behind the two fingerprints, when known: they name the tools that changed. */
export interface ToolSets {
  recorded: ToolSetManifest | null;
  current: ToolSetManifest;
}

/**
 * One line per forceable difference, journal value first. The provider is left
 * out on purpose: a provider change is its own, unforceable gate.
 */
export function fingerprintDiff(recorded: Fingerprint, current: Fingerprint, toolSets?: ToolSets): string[] {
  const diff: string[] = [];
  if (recorded.model !== current.model) diff.push(`model: ${recorded.model} -> ${current.model}`);
  if (recorded.system_hash !== current.system_hash) diff.push('system prompt: changed');
  if (recorded.tools_hash !== current.tools_hash) {
    const changes = toolSets?.recorded ? toolSetChanges(toolSets.recorded, toolSets.current) : '';
    diff.push(changes === '' ? 'tool set: changed' : `tool set: changed (${changes})`);
  }
  if (recorded.thinking_mode !== current.thinking_mode) {
    diff.push(`thinking: ${recorded.thinking_mode} -> ${current.thinking_mode}`);
  }
  if (recorded.max_tokens !== current.max_tokens) diff.push(`max_tokens: ${recorded.max_tokens} -> ${current.max_tokens}`);
  if (recorded.max_iterations !== current.max_iterations) {
    diff.push(`max_iterations: ${recorded.max_iterations} -> ${current.max_iterations}`);
  }
  return diff;
}
