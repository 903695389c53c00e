import { LONGEST_TIMER_MS } from '../core/index.js';

/** The largest integer a journal records exactly (a JS number holds integers exactly up to here). */
const LARGEST_EXACT_INTEGER = Number.MAX_SAFE_INTEGER;

/**
 * The most each number in agent.yaml can be, so that the code can honour it,
 * with the unit and reason a refusal states. The schema below reads its bounds
 * from here.
 */
export const UPPER_BOUNDS = {
  max_tokens: { max: LARGEST_EXACT_INTEGER, why: 'the largest integer a journal records exactly' },
  max_iterations: { max: LARGEST_EXACT_INTEGER, why: 'the largest integer a journal records exactly' },
  budget: { max: LARGEST_EXACT_INTEGER, why: 'the largest integer a journal records exactly' },
  context_window: { max: LARGEST_EXACT_INTEGER, why: 'the largest integer a journal records exactly' },
  keep_turns: { max: 1000, why: 'exchanges kept word for word in a compacted run: more than this is no compaction' },
  compact_at: { max: 1, why: 'a fraction of the context window' },
  max_files: { max: LARGEST_EXACT_INTEGER, why: 'the largest integer a journal records exactly' },
  max_bytes: { max: LARGEST_EXACT_INTEGER, why: 'the largest integer a journal records exactly' },
  /** Seconds that reach a timer: at most the longest wait one holds (core/time.ts). */
  timeout: { max: Math.floor(LONGEST_TIMER_MS / 1000), why: 'seconds: the longest timer Node.js can set, about 24.8 days' },
  idle_timeout: { max: Math.floor(LONGEST_TIMER_MS / 1000), why: 'seconds: the longest timer Node.js can set, about 24.8 days' },
  /**
   * A result is one journal record, held as one string: at most 7 characters per
   * output byte once escaped twice (in the result body, then in the record), and a
   * string holds at most 2^29 - 24 characters.
   */
  max_output: { max: 64 * 1024 * 1024, why: "bytes (64 MiB): a tool's output must fit in one journal record" },
} as const;

/** The JSON Schema of agent.yaml; strict, so a misspelt key is an error, not a silent default. */
/**
 * How the config schema is compiled, here and by the build's standalone
 * validator (scripts/compile-validators.mjs). The schema is a constant checked
 * against the meta-schema by a test, so it is not checked again on each start.
 */
export const CONFIG_AJV_OPTIONS = { allErrors: true, strict: true, validateSchema: false } as const;

/** An identity on the A2A wire: one NATS subject token (the reference's rule). */
const IDENTITY = { type: 'string', pattern: '^[a-zA-Z0-9_-]+$' } as const;

/** A JetStream stream's name, as the server takes one. */
const STREAM_NAME = { type: 'string', pattern: '^[^\\s.*>/\\\\]{1,255}$' } as const;

/** Tools picked by name: regular expressions, as the reference's `tools:` filter (its `tags:` is refused with a reason). */
const TOOL_FILTER = {
  type: 'object',
  additionalProperties: false,
  properties: {
    tools: { type: 'array', items: { type: 'string', minLength: 1 } },
    tags: { type: 'array', items: { type: 'string' } },
  },
} as const;

/** USD per million tokens, as price tables give them. */
const USD_PER_MTOK = { type: 'number', minimum: 0 } as const;

/** A model's prices, overriding the price table's: input and output at least. */
const MODEL_PRICES = {
  type: 'object',
  additionalProperties: false,
  required: ['input', 'output'],
  properties: { input: USD_PER_MTOK, output: USD_PER_MTOK, cache_read: USD_PER_MTOK, cache_write: USD_PER_MTOK },
} as const;

const POLICY_OVERRIDES = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    additionalProperties: false,
    properties: { confirm: { type: 'boolean' }, side_effects: { type: 'boolean' } },
  },
} as const;

export const CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['provider'],
  properties: {
    provider: { enum: ['anthropic', 'openai', 'script'] },
    model: { type: 'string', minLength: 1 },
    system: { type: 'string' },
    max_tokens: { type: 'integer', minimum: 1, maximum: UPPER_BOUNDS.max_tokens.max },
    max_iterations: { type: 'integer', minimum: 1, maximum: UPPER_BOUNDS.max_iterations.max },
    budget: { type: 'integer', minimum: 1, maximum: UPPER_BOUNDS.budget.max },
    // USD: this run's spend, and the whole conversation's (every run of its lineage)
    budget_usd: { type: 'number', exclusiveMinimum: 0 },
    lineage_budget_usd: { type: 'number', exclusiveMinimum: 0 },
    prices: { type: 'object', additionalProperties: MODEL_PRICES },
    context_window: { type: 'integer', minimum: 1, maximum: UPPER_BOUNDS.context_window.max },
    // a fraction of the context window, or false: no compaction unless asked for
    compact_at: { anyOf: [{ type: 'number', exclusiveMinimum: 0, maximum: UPPER_BOUNDS.compact_at.max }, { const: false }] },
    keep_turns: { type: 'integer', minimum: 0, maximum: UPPER_BOUNDS.keep_turns.max },
    thinking: { enum: ['off', 'summarized', 'adaptive'] },
    prompt_cache: { type: 'boolean' },
    // AGENTS.md or LOGBOOK.md given to the model after the system prompt (false: not)
    instructions: { type: 'boolean' },
    // seconds a model call may hear nothing from the API before it is tried again
    idle_timeout: { type: 'number', exclusiveMinimum: 0, maximum: UPPER_BOUNDS.idle_timeout.max },
    base_url: { type: 'string', minLength: 1 },
    api_key_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
    script: { type: 'string', minLength: 1 },
    tools: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'command'],
        properties: {
          name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
          description: { type: 'string' },
          input_schema: { type: 'object' },
          command: { type: 'array', minItems: 1, items: { type: 'string' } },
          timeout: { type: 'number', exclusiveMinimum: 0, maximum: UPPER_BOUNDS.timeout.max },
          max_output: { type: 'integer', minimum: 1, maximum: UPPER_BOUNDS.max_output.max },
          cwd: { type: 'string', minLength: 1 },
          env: { type: 'object', additionalProperties: { type: 'string' } },
          allow_leading_dash: { type: 'boolean' },
          confirm: { type: 'boolean' },
          side_effects: { type: 'boolean' },
        },
      },
    },
    mcp: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
          command: { type: 'array', minItems: 1, items: { type: 'string' } },
          env: { type: 'object', additionalProperties: { type: 'string' } },
          cwd: { type: 'string', minLength: 1 },
          url: { type: 'string', minLength: 1 },
          headers: { type: 'object', additionalProperties: { type: 'string' } },
          tools: { type: 'array', uniqueItems: true, items: { type: 'string', minLength: 1 } },
          // seconds; a Node timer holds at most 2^31 - 1 ms
          timeout: { type: 'number', exclusiveMinimum: 0, maximum: UPPER_BOUNDS.timeout.max },
          startup_timeout: { type: 'number', exclusiveMinimum: 0, maximum: UPPER_BOUNDS.timeout.max },
          max_output: { type: 'integer', minimum: 1, maximum: UPPER_BOUNDS.max_output.max },
          overrides: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              additionalProperties: false,
              properties: {
                confirm: { type: 'boolean' },
                side_effects: { type: 'boolean' },
                max_output: { type: 'integer', minimum: 1, maximum: UPPER_BOUNDS.max_output.max },
              },
            },
          },
        },
      },
    },
    // what of a run's working directory is snapshotted beside its journal (store/workspace)
    workspace: {
      type: 'object',
      additionalProperties: false,
      properties: {
        track: { type: 'boolean' },
        dir: { type: 'string', minLength: 1 },
        exclude: { type: 'array', items: { type: 'string', minLength: 1 } },
        max_files: { type: 'integer', minimum: 1, maximum: UPPER_BOUNDS.max_files.max },
        max_bytes: { type: 'integer', minimum: 1, maximum: UPPER_BOUNDS.max_bytes.max },
      },
    },
    session: {
      type: 'object',
      additionalProperties: false,
      properties: {
        backend: { type: 'string', minLength: 1 },
        options: { type: 'object' },
      },
    },
    otel: {
      type: 'object',
      additionalProperties: false,
      properties: {
        endpoint: { type: 'string', minLength: 1 },
        protocol: { enum: ['http/protobuf', 'http/json'] },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        capture_content: { type: 'boolean' },
      },
    },
    nats: {
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: {
        url: { type: 'string', minLength: 1 },
        creds: { type: 'string', minLength: 1 },
      },
    },
    a2a: {
      type: 'object',
      additionalProperties: false,
      properties: {
        identity: IDENTITY,
        description: { type: 'string' },
        tasks_stream: STREAM_NAME,
        events_stream: STREAM_NAME,
        http: {
          type: 'object',
          additionalProperties: false,
          properties: {
            listen: { type: 'string', minLength: 1 },
            token_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
            url: { type: 'string', minLength: 1 },
          },
        },
      },
    },
    remote_agents: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        // name (an agent over NATS) or url (over HTTP): config.ts says which is missing
        properties: {
          name: IDENTITY,
          // ask_<alias> is a tool name: at most 64 characters
          alias: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,60}$' },
          description: { type: 'string', minLength: 1 },
          timeout: { type: 'number', exclusiveMinimum: 0, maximum: UPPER_BOUNDS.timeout.max },
          url: { type: 'string', pattern: '^https?://[^\\s]+$' },
          token_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
        },
      },
    },
    remote_tools: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: IDENTITY,
          alias: IDENTITY,
          include: TOOL_FILTER,
          exclude: TOOL_FILTER,
          side_effects: { type: 'boolean' },
          confirm: { type: 'boolean' },
          timeout: { type: 'number', exclusiveMinimum: 0, maximum: UPPER_BOUNDS.timeout.max },
          overrides: POLICY_OVERRIDES,
        },
      },
    },
    expose: {
      type: 'object',
      additionalProperties: false,
      properties: {
        tools: {
          type: 'object',
          additionalProperties: false,
          properties: { include: TOOL_FILTER, exclude: TOOL_FILTER },
        },
        max_concurrent_tools: { type: 'integer', minimum: 1, maximum: 1024 },
        tool_timeout: { type: 'number', exclusiveMinimum: 0, maximum: UPPER_BOUNDS.timeout.max },
        tasks: { type: 'boolean' },
        // seconds; the server keeps it as nanoseconds
        task_ack_wait: { type: 'number', minimum: 1, maximum: UPPER_BOUNDS.timeout.max },
      },
    },
  },
} as const;
