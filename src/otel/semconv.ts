/**
 * The OpenTelemetry attribute names logbook's spans carry. The GenAI ones are
 * the GenAI semantic conventions as @opentelemetry/semantic-conventions 1.45.0
 * publishes them in its incubating entry point (GENAI_SEMCONV): copied here, as
 * that package asks of instrumentation, since incubating names may change in a
 * minor release. test/otel/semconv.test.ts checks each against the package.
 */

/** The semantic conventions followed: the GenAI conventions of this version of @opentelemetry/semantic-conventions. */
export const GENAI_SEMCONV = '@opentelemetry/semantic-conventions 1.45.0 (incubating GenAI conventions)';

export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = 'gen_ai.usage.cache_creation.input_tokens';
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';
export const ATTR_GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const ATTR_GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';

export const GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT = 'invoke_agent';
export const GEN_AI_OPERATION_NAME_VALUE_CHAT = 'chat';
export const GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL = 'execute_tool';
export const GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC = 'anthropic';
export const GEN_AI_PROVIDER_NAME_VALUE_OPENAI = 'openai';

/** Stable conventions (the package's main entry point). */
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_SERVICE_NAME = 'service.name';
export const ATTR_SERVICE_VERSION = 'service.version';

/** logbook's own, for what the conventions have no name for. */
export const ATTR_LOGBOOK_RUN_ID = 'logbook.run.id';
export const ATTR_LOGBOOK_RUN_STATUS = 'logbook.run.status';
export const ATTR_LOGBOOK_SEQ = 'logbook.seq';
export const ATTR_LOGBOOK_ITERATION = 'logbook.iteration';
export const ATTR_LOGBOOK_TOOL_REMOTE = 'logbook.tool.remote';
export const ATTR_LOGBOOK_TOOL_SIDE_EFFECTS = 'logbook.tool.side_effects';
export const ATTR_LOGBOOK_TOOL_CONFIRM = 'logbook.tool.confirm';
export const ATTR_LOGBOOK_TOOL_WITHHELD = 'logbook.tool.withheld';
