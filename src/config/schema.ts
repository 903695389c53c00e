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
