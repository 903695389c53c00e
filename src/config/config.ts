/**
 * agent.yaml: what a run is configured with. Everything a resume checks is
 * rebuilt from here, never stored in the journal (only its fingerprint is).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type * as Yaml from 'yaml';
import type { CommandToolSpec } from '../agent/tools/command-tool.js';
import { AGENT_DEFAULTS } from '../agent/agent.js';
import { ajvClass, precompiled, vendored, type YamlParser } from '../schema/precompiled.js';
import { COMMAND_TOOL_DEFAULTS, commandToolSpec, type CommandToolInput } from '../agent/tools/command-tool.js';
import { checkEnvRefs, envRefProblem } from '../agent/tools/env-refs.js';
import { checkInputSchema, inputSchemaCompiler } from '../agent/tools/input-schema.js';
import { MCP_DEFAULTS, mcpServerSpec, type McpServerInput, type McpServerSpec } from '../agent/tools/mcp/spec.js';
import { REMOTE_DEFAULTS, type RemoteToolHost } from '../agent/tools/remote/spec.js';
import { EXPOSE_DEFAULTS, type ExposeSettings } from '../agent/exposure.js';
import { TASK_DEFAULTS, askToolName, type RemoteAgent } from '../agent/tasks/spec.js';
import { LogbookError, redactUrlCredentials } from '../core/index.js';
import { CONFIG_AJV_OPTIONS, CONFIG_SCHEMA, UPPER_BOUNDS } from './schema.js';
import { cachedConfig, type ConfigCache } from './config-cache.js';
import { WORKSPACE_DEFAULTS, type WorkspaceSettings } from '../store/workspace/repo.js';

/** The config file's name: agent.yaml. */
export const DEFAULT_CONFIG_FILE = 'agent.yaml';

/** The providers a config can name. */
export type ProviderName = 'anthropic' | 'openai' | 'script';

/** A command tool as agent.yaml declares it (see CommandTool for what each field does). */
export type CommandToolConfig = CommandToolSpec;

/** A config file, checked: every default filled in, every relative path made absolute against its directory. */
export interface LogbookConfig {
  /** Absolute path of the file this came from. */
  path: string;
  /** Its directory: relative paths in the file resolve against it. */
  dir: string;
  provider: ProviderName;
  model: string;
  system: string;
  max_tokens: number;
  max_iterations: number;
  budget?: number;
  /** USD this run may spend (from its counters and the prices). */
  budget_usd?: number;
  /** USD the whole conversation may spend: every run of the run's lineage, the summary calls of its compactions included. */
  lineage_budget_usd?: number;
  /** Per-model prices (USD per million tokens) that win over the price table. */
  prices: Record<string, ModelPriceConfig>;
  /**
   * The model's context window in tokens; the price table's when absent.
   * Outside the fingerprint: it changes when a run is compacted, never what
   * the model is told in a request, so a run stopped by a wrong value can be
   * resumed with a right one.
   */
  context_window?: number;
  /** Compact when a request's input passes this fraction of the context window; false: only when asked. Outside the fingerprint. */
  compact_at: number | false;
  /** The exchanges a compacted run's continuation keeps word for word after the summary. Outside the fingerprint. */
  keep_turns: number;
  thinking: 'off' | 'summarized' | 'adaptive';
  prompt_cache: boolean;
  /** Give the model the project's instructions (AGENTS.md, LOGBOOK.md: agent/instructions.ts). Outside the fingerprint. */
  instructions: boolean;
  /** Seconds a model call may hear nothing from the API before it is tried again; the provider's default when absent. Outside the fingerprint. */
  idle_timeout?: number;
  base_url?: string;
  api_key_env?: string;
  /** Absolute path of the script file (provider `script`). */
  script?: string;
  tools: CommandToolConfig[];
  /** MCP tool servers, in the order given. */
  mcp: McpServerSpec[];
  session: { backend: string; options: Record<string, unknown> };
  nats?: { url: string; creds?: string };
  /**
   * This agent on the A2A wire: its identity (what `serve` answers as), its
   * description, and the operator's streams tasks go through.
   */
  a2a: { identity?: string; description?: string; tasks_stream: string; events_stream: string; http?: A2AHttpSettings };
  /** Other agents whose tools a run imports, in the order given. */
  remote_tools: RemoteToolHost[];
  /** Other agents a run may ask to do a task (a tool `ask_<alias>` each), in the order given. */
  remote_agents: RemoteAgent[];
  /** What `logbook serve` answers for. */
  expose: ExposeSettings;
  /** Where the run's OpenTelemetry spans go; header values may name variables (`${NAME}`), expanded when a run starts. */
  otel?: OtelBlock;
  /** What of a run's working directory is snapshotted beside its journal (`workspace:`); a relative `dir` made absolute. Outside the fingerprint. */
  workspace: WorkspaceSettings;
}

/** `a2a.http:`: serving the agent over A2A 1.0 on HTTP (docs/guide/a2a-http.md). */
export interface A2AHttpSettings {
  /** HOST:PORT to listen on (`serve --http` wins); loopback unless said otherwise. */
  listen?: string;
  /** The environment variable holding the bearer token every request must carry; required off loopback. */
  token_env?: string;
  /** The base URL clients reach the server at (behind a proxy, or on every interface), which the agent card names. */
  url?: string;
}

/** agent.yaml's `otel:` block as written. */
export interface OtelBlock {
  endpoint?: string;
  protocol?: 'http/protobuf' | 'http/json';
  headers: Record<string, string>;
  capture_content: boolean;
}

/** A model's prices in agent.yaml, USD per million tokens; a cache price left out is the input price. */
export interface ModelPriceConfig {
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
}

export const DEFAULTS = {
  compact_at: 0.8,
  keep_turns: 2,
  max_tokens: AGENT_DEFAULTS.maxTokens,
  max_iterations: AGENT_DEFAULTS.maxIterations,
  tool_timeout: COMMAND_TOOL_DEFAULTS.timeout,
  tool_max_output: COMMAND_TOOL_DEFAULTS.max_output,
  mcp_timeout: MCP_DEFAULTS.timeout,
  mcp_startup_timeout: MCP_DEFAULTS.startup_timeout,
} as const;

/**
 * YAML and Ajv (both CommonJS) load when a config is first read, not when this
 * module is imported: commands that read no config (`session ls`) start without
 * them, and an import elsewhere shares the same loaded instance.
 */
const requireCjs = createRequire(import.meta.url);

/** The keys the schema allows in the object an error at `schemaPath` (`#/properties/tools/items/...`) is about. */
function keysAt(schemaPath: string): string[] {
  let node: unknown = CONFIG_SCHEMA;
  for (const step of schemaPath.split('/').slice(1, -1)) node = (node as Record<string, unknown> | undefined)?.[decodeURIComponent(step)];
  const properties = (node as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties ? Object.keys(properties) : [];
}

/** The allowed key an unknown one is most likely a misspelling of, if any is close. */
function didYouMean(key: string, allowed: readonly string[]): string {
  const { distance } = requireCjs('fastest-levenshtein') as typeof import('fastest-levenshtein');
  let best: { key: string; distance: number } | null = null;
  for (const candidate of allowed) {
    const d = distance(key, candidate);
    if (d <= 2 && d < key.length && (best === null || d < best.distance)) best = { key: candidate, distance: d };
  }
  return best ? ` (did you mean "${best.key}"?)` : '';
}

/**
 * The error to report of those Ajv found: an unknown key first, since a misspelt
 * key (`comand:`) also leaves the key it was meant to be missing, and naming the
 * missing one alone would hide the typo.
 */
function firstProblem(errors: readonly ErrorObject[]): ErrorObject {
  return errors.find((e) => e.keyword === 'additionalProperties') ?? errors[0]!;
}

/** The config schema's validator: compiled by the build (schema/precompiled.ts), else here. */
function configValidator(): ValidateFunction {
  return precompiled('config', () => new (ajvClass())(CONFIG_AJV_OPTIONS).compile(CONFIG_SCHEMA));
}

function describeError(e: ErrorObject): string {
  const where = e.instancePath
    ? e.instancePath
        .slice(1)
        .split('/')
        .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
        .join('')
        .replace(/^\./, '')
    : '';
  const at = where ? ` in ${where}` : ' at the top level';
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = (e.params as { additionalProperty: string }).additionalProperty;
      return `unknown key "${key}"${at}${didYouMean(key, keysAt(e.schemaPath))}`;
    }
    case 'required':
      return `missing key "${(e.params as { missingProperty: string }).missingProperty}"${at}`;
    case 'enum':
      return `${where || 'value'} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'maximum': {
      const key = e.instancePath.split('/').at(-1) as keyof typeof UPPER_BOUNDS;
      const why = UPPER_BOUNDS[key]?.why;
      return `${where} must be at most ${(e.params as { limit: number }).limit}${why ? ` (${why})` : ''}`;
    }
    case 'minimum':
      return `${where} must be at least ${(e.params as { limit: number }).limit}`;
    case 'exclusiveMinimum':
      return `${where} must be above ${(e.params as { limit: number }).limit}`;
    default:
      return `${where || 'config'} ${e.message ?? 'is invalid'}`;
  }
}

function resolveFrom(dir: string, p: string): string {
  return isAbsolute(p) ? p : resolve(dir, p);
}

/** Reads and checks a config file; every problem is one line naming the file. */
export function loadConfig(file: string): LogbookConfig {
  return loadConfigCached(file, undefined);
}

/**
 * loadConfig, the checked config taken from `cache` when it holds the file's
 * (config-cache.ts), and kept there when it does not: the command's.
 */
export function loadConfigCached(file: string, cache: ConfigCache | undefined): LogbookConfig {
  const path = resolve(file);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new LogbookError('config', `config file ${file} not found`, { cause: err });
    }
    throw new LogbookError('config', `cannot read config file ${file}: ${(err as Error).message}`);
  }
  const check = (): LogbookConfig => parseConfig(bytes.toString('utf8'), path);
  return cache === undefined ? check() : cachedConfig(cache, bytes, path, check);
}

/** The longest part of a config line a YAML error quotes. */
const QUOTED_LINE = 60;

/**
 * A YAML syntax error in one line: the parser's reason and where, with the text
 * of that line in place of the code frame its message ends with (`... at line
 * 3, column 17:` and the frame on the lines after).
 */
function yamlProblem(err: Yaml.YAMLParseError, text: string): string {
  const reason = err.message.replace(/ at line \d+, column \d+:[\s\S]*$/, '').trim();
  const at = err.linePos?.[0];
  if (at === undefined) return reason;
  const lines = text.split(/\r?\n/);
  const atEnd = at.line >= lines.length && (lines[at.line - 1] ?? '') === '';
  const chars = [...(lines[at.line - 1] ?? '').trim()];
  const shown = chars.length > QUOTED_LINE ? `${chars.slice(0, QUOTED_LINE).join('')}…` : chars.join('');
  return `${reason} at line ${at.line}, column ${at.col} (${atEnd ? 'the end of the file' : shown === '' ? 'an empty line' : JSON.stringify(shown)})`;
}

/** Checks config text as if read from `path`. */
export function parseConfig(text: string, path: string): LogbookConfig {
  const yaml = vendored<YamlParser>('yaml');
  let raw: unknown;
  try {
    raw = yaml.parse(text, { strict: true, uniqueKeys: true });
  } catch (err) {
    const detail = err instanceof yaml.YAMLParseError ? yamlProblem(err, text) : (err as Error).message;
    throw new LogbookError('config', `${path}: not valid YAML: ${detail}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new LogbookError('config', `${path}: expected a mapping of settings (provider, model, ...)`);
  }
  const validate = configValidator();
  if (!validate(raw)) {
    throw new LogbookError('config', `${path}: ${describeError(firstProblem(validate.errors!))}`);
  }
  const c = raw as Record<string, any>; // shape guaranteed by the schema above
  const dir = dirname(path);
  const provider = c.provider as ProviderName;
  if (provider !== 'script' && !c.model) {
    throw new LogbookError('config', `${path}: missing key "model" (provider ${provider} needs a model name)`);
  }
  if (provider === 'script' && !c.script) {
    throw new LogbookError('config', `${path}: missing key "script" (provider script reads its model turns from that file)`);
  }
  const names = new Set<string>();
  let compiler: Ajv | undefined;
  const tools: CommandToolConfig[] = (c.tools ?? []).map((t: Record<string, any>, i: number) => {
    if (names.has(t.name)) throw new LogbookError('config', `${path}: tools[${i}]: a second tool named "${t.name}"`);
    names.add(t.name);
    checkEnvRefs(t.env, `${path}: tools[${i}] (${t.name}): env`);
    const spec = commandToolSpec(t as CommandToolInput, dir);
    try {
      checkInputSchema(spec.name, spec.input_schema, () => (compiler ??= inputSchemaCompiler()));
    } catch (err) {
      throw new LogbookError('config', `${path}: ${(err as Error).message}`, { cause: err });
    }
    return spec;
  });
  const mcp = mcpServers(c.mcp ?? [], path, dir);
  const config: LogbookConfig = {
    path,
    dir,
    provider,
    model: c.model ?? 'script',
    system: c.system ?? '',
    max_tokens: c.max_tokens ?? DEFAULTS.max_tokens,
    max_iterations: c.max_iterations ?? DEFAULTS.max_iterations,
    thinking: c.thinking ?? 'off',
    prompt_cache: c.prompt_cache ?? false,
    instructions: c.instructions ?? true,
    prices: c.prices ?? {},
    compact_at: c.compact_at ?? DEFAULTS.compact_at,
    keep_turns: c.keep_turns ?? DEFAULTS.keep_turns,
    tools,
    mcp,
    session: { backend: c.session?.backend ?? 'file', options: c.session?.options ?? {} },
    a2a: {
      ...(c.a2a?.identity ? { identity: c.a2a.identity } : {}),
      ...(c.a2a?.description ? { description: c.a2a.description } : {}),
      tasks_stream: c.a2a?.tasks_stream ?? TASK_DEFAULTS.tasks_stream,
      events_stream: c.a2a?.events_stream ?? TASK_DEFAULTS.events_stream,
      ...(c.a2a?.http
        ? {
            http: {
              ...(c.a2a.http.listen ? { listen: c.a2a.http.listen } : {}),
              ...(c.a2a.http.token_env ? { token_env: c.a2a.http.token_env } : {}),
              ...(c.a2a.http.url ? { url: publicUrl(c.a2a.http.url, path) } : {}),
            },
          }
        : {}),
    },
    remote_tools: remoteToolHosts(c.remote_tools ?? [], path),
    remote_agents: remoteAgents(c.remote_agents ?? [], path, names),
    expose: exposeSettings(c.expose, path),
    workspace: {
      track: c.workspace?.track ?? WORKSPACE_DEFAULTS.track,
      exclude: c.workspace?.exclude ?? [],
      maxFiles: c.workspace?.max_files ?? WORKSPACE_DEFAULTS.maxFiles,
      maxBytes: c.workspace?.max_bytes ?? WORKSPACE_DEFAULTS.maxBytes,
      ...(c.workspace?.dir !== undefined ? { dir: resolveFrom(dir, c.workspace.dir) } : {}),
    },
  };
  if (c.budget !== undefined) config.budget = c.budget;
  if (c.budget_usd !== undefined) config.budget_usd = c.budget_usd;
  if (c.lineage_budget_usd !== undefined) config.lineage_budget_usd = c.lineage_budget_usd;
  if (c.context_window !== undefined) config.context_window = c.context_window;
  if (c.idle_timeout !== undefined) config.idle_timeout = c.idle_timeout;
  if (c.base_url !== undefined) config.base_url = c.base_url;
  if (c.api_key_env !== undefined) config.api_key_env = c.api_key_env;
  if (c.script !== undefined) config.script = resolveFrom(dir, c.script);
  if (c.nats !== undefined) {
    config.nats = { url: c.nats.url, ...(c.nats.creds ? { creds: resolveFrom(dir, c.nats.creds) } : {}) };
  }
  if (config.remote_tools.length > 0 && config.nats === undefined) {
    throw new LogbookError('config', `${path}: remote_tools needs a nats: block (url, and creds if the server wants them) to reach the agents`);
  }
  if (config.remote_agents.some((a) => a.url === undefined) && config.nats === undefined) {
    throw new LogbookError('config', `${path}: remote_agents needs a nats: block (url, and creds if the server wants them) to reach the agents`);
  }
  if (config.a2a.tasks_stream === config.a2a.events_stream) {
    throw new LogbookError('config', `${path}: a2a.tasks_stream and a2a.events_stream are both ${config.a2a.tasks_stream}; tasks and their events need a stream each`);
  }
  if (c.otel !== undefined) config.otel = otelBlock(c.otel, path);
  return config;
}

/** Each pattern of a `tools:` filter compiles; the `tags:` part is refused, since nothing on the wire carries tags. */
function toolPatterns(filter: Record<string, any> | undefined, at: string): string[] | undefined {
  if (filter === undefined) return undefined;
  if (filter.tags !== undefined) {
    throw new LogbookError('config', `${at}.tags: tools cannot be picked by tag (an agent's card carries no tags); pick them by name with tools: [...]`);
  }
  const patterns = (filter.tools ?? []) as string[];
  if (patterns.length === 0) return undefined; // as the reference: a filter without patterns picks nothing out
  patterns.forEach((p, i) => {
    try {
      new RegExp(p);
    } catch (err) {
      throw new LogbookError('config', `${at}.tools[${i}]: ${JSON.stringify(p)} is not a regular expression (${(err as Error).message})`);
    }
  });
  return patterns;
}

/** The `remote_tools:` list, checked beyond what the schema can say. */
function remoteToolHosts(list: Record<string, any>[], path: string): RemoteToolHost[] {
  const names = new Set<string>();
  const aliases = new Map<string, string>();
  return list.map((h, i) => {
    const at = `${path}: remote_tools[${i}] (${h.name})`;
    if (names.has(h.name)) throw new LogbookError('config', `${at}: a second remote_tools entry for agent "${h.name}"`);
    names.add(h.name);
    const alias = (h.alias as string | undefined) ?? (h.name as string);
    const other = aliases.get(alias);
    if (other !== undefined) {
      throw new LogbookError('config', `${at}: alias "${alias}" is already the prefix of agent "${other}"'s tools; give each agent its own alias`);
    }
    aliases.set(alias, h.name);
    const include = toolPatterns(h.include, `${at}: include`);
    const exclude = toolPatterns(h.exclude, `${at}: exclude`);
    return {
      name: h.name,
      alias,
      ...(include !== undefined ? { include } : {}),
      ...(exclude !== undefined ? { exclude } : {}),
      side_effects: h.side_effects ?? REMOTE_DEFAULTS.side_effects,
      confirm: h.confirm ?? REMOTE_DEFAULTS.confirm,
      timeout: h.timeout ?? REMOTE_DEFAULTS.timeout,
      overrides: h.overrides ?? {},
    };
  });
}

/** The `remote_agents:` list, checked beyond what the schema can say; `taken`: the command tools' names. */
function remoteAgents(list: Record<string, any>[], path: string, taken: ReadonlySet<string>): RemoteAgent[] {
  const names = new Set<string>();
  const tools = new Map<string, string>();
  return list.map((a, i) => {
    const at = `${path}: remote_agents[${i}] (${a.name ?? a.url})`;
    if (a.name === undefined && a.url === undefined) throw new LogbookError('config', `${path}: remote_agents[${i}]: name the agent: name: IDENTITY (over NATS) or url: URL (over HTTP)`);
    if (a.name === undefined && a.alias === undefined) throw new LogbookError('config', `${at}: an agent named by its url needs an alias (its tool is ask_<alias>) or a name`);
    if (a.token_env !== undefined && a.url === undefined) throw new LogbookError('config', `${at}: token_env is for an agent named by its url`);
    a = { ...a, name: a.name ?? a.alias };
    if (names.has(a.name)) throw new LogbookError('config', `${at}: a second remote_agents entry for agent "${a.name}"`);
    names.add(a.name);
    const alias = (a.alias as string | undefined) ?? (a.name as string);
    const tool = askToolName(alias);
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool)) {
      throw new LogbookError('config', `${at}: its tool would be named ${tool}, longer than the 64 characters a tool name may have; give it a shorter alias`);
    }
    const other = tools.get(tool);
    if (other !== undefined) throw new LogbookError('config', `${at}: alias "${alias}" is already agent "${other}"'s; give each agent its own alias`);
    if (taken.has(tool)) throw new LogbookError('config', `${at}: its tool ${tool} has the name of a tool in tools:; give it another alias`);
    tools.set(tool, a.name);
    return {
      name: a.name,
      alias,
      ...(a.description !== undefined ? { description: a.description as string } : {}),
      timeout: (a.timeout as number | undefined) ?? TASK_DEFAULTS.timeout,
      ...(a.url !== undefined ? { url: a.url as string } : {}),
      ...(a.token_env !== undefined ? { token_env: a.token_env as string } : {}),
    };
  });
}

function exposeSettings(e: Record<string, any> | undefined, path: string): ExposeSettings {
  const include = toolPatterns(e?.tools?.include, `${path}: expose.tools.include`);
  const exclude = toolPatterns(e?.tools?.exclude, `${path}: expose.tools.exclude`);
  return {
    ...(include !== undefined ? { include } : {}),
    ...(exclude !== undefined ? { exclude } : {}),
    max_concurrent_tools: e?.max_concurrent_tools ?? EXPOSE_DEFAULTS.max_concurrent_tools,
    tool_timeout: e?.tool_timeout ?? EXPOSE_DEFAULTS.tool_timeout,
    tasks: e?.tasks ?? EXPOSE_DEFAULTS.tasks,
    task_ack_wait: e?.task_ack_wait ?? EXPOSE_DEFAULTS.task_ack_wait,
  };
}

/** The `otel:` block, checked beyond what the schema can say: a URL, and well-formed `${NAME}` references. */
function otelBlock(o: Record<string, any>, path: string): OtelBlock {
  if (o.endpoint !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(o.endpoint);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new LogbookError('config', `${path}: otel.endpoint ${JSON.stringify(o.endpoint)} is not an http(s) URL (the collector's OTLP/HTTP address, as http://localhost:4318)`);
    }
  }
  const headers = (o.headers ?? {}) as Record<string, string>;
  for (const [k, v] of Object.entries(headers)) {
    const problem = envRefProblem(v);
    if (problem !== null) throw new LogbookError('config', `${path}: otel.headers.${k}: ${problem}`);
  }
  return {
    ...(o.endpoint !== undefined ? { endpoint: o.endpoint as string } : {}),
    ...(o.protocol !== undefined ? { protocol: o.protocol as OtelBlock['protocol'] & string } : {}),
    headers,
    capture_content: o.capture_content === true,
  };
}

/** The `mcp:` list: each entry checked as any MCP server spec is (mcpServerSpec), and no name twice. */
function mcpServers(list: Record<string, any>[], path: string, dir: string): McpServerSpec[] {
  const names = new Set<string>();
  return list.map((s, i) => {
    const at = `${path}: mcp[${i}] (${s.name})`;
    if (names.has(s.name)) throw new LogbookError('config', `${at}: a second MCP server named "${s.name}"`);
    names.add(s.name);
    return mcpServerSpec(s as McpServerInput, { at, dir });
  });
}

/**
 * `a2a.http.url`, checked: an http(s) base URL a client can use, with no
 * credentials, query or fragment; without its trailing slash.
 */
function publicUrl(text: string, path: string): string {
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {
    /* said below */
  }
  const problem =
    url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')
      ? 'is not an http:// or https:// URL'
      : url.username !== '' || url.password !== ''
        ? 'names credentials, which a client cannot use from a card'
        : url.search !== '' || url.hash !== ''
          ? 'has a query or a fragment; give the base URL the server is reached at'
          : null;
  if (problem !== null) throw new LogbookError('config', `${path}: a2a.http.url ${JSON.stringify(redactUrlCredentials(text))} ${problem} (e.g. https://agents.example.com/researcher)`);
  return url!.href.replace(/\/+$/, '');
}
