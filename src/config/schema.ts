/** The longest timeout in whole seconds a Node timer can honour (2^31 - 1 ms). */
export const MAX_TIMER_SECONDS = 2_147_483;

/** The JSON Schema of agent.yaml; strict, so a misspelt key is an error, not a silent default. */
export const CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['provider'],
  properties: {
    provider: { enum: ['anthropic', 'openai', 'script'] },
    model: { type: 'string', minLength: 1 },
    system: { type: 'string' },
    max_tokens: { type: 'integer', minimum: 1 },
    max_iterations: { type: 'integer', minimum: 1 },
    budget: { type: 'integer', minimum: 1 },
    thinking: { enum: ['off', 'summarized'] },
    prompt_cache: { type: 'boolean' },
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
          timeout: { type: 'number', exclusiveMinimum: 0 },
          max_output: { type: 'integer', minimum: 1 },
          cwd: { type: 'string', minLength: 1 },
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
          timeout: { type: 'number', exclusiveMinimum: 0, maximum: MAX_TIMER_SECONDS },
          startup_timeout: { type: 'number', exclusiveMinimum: 0, maximum: MAX_TIMER_SECONDS },
          overrides: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              additionalProperties: false,
              properties: { confirm: { type: 'boolean' }, side_effects: { type: 'boolean' } },
            },
          },
        },
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
    nats: {
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: {
        url: { type: 'string', minLength: 1 },
        creds: { type: 'string', minLength: 1 },
      },
    },
  },
} as const;
