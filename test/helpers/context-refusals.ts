/**
 * The bodies servers people use refuse a request longer than the model's
 * context window with, as they send them (status 400): every one is recognised
 * by both providers, whichever API the server speaks.
 */
export const CONTEXT_REFUSALS: [server: string, body: string][] = [
  ['Anthropic (prompt is too long)', '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}'],
  [
    'Anthropic (input and max_tokens past the limit)',
    '{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again"}}',
  ],
  [
    'OpenAI (its code)',
    '{"error":{"message":"This model\'s maximum context length is 128000 tokens. However, your messages resulted in 130415 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}',
  ],
  // llama.cpp's server answers its Messages API and its Chat Completions alike.
  ["llama.cpp's server", '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4121,"n_ctx":4096}}'],
  [
    'vLLM (its words, no code)',
    '{"error":{"message":"This model\'s maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}}',
  ],
  [
    "vLLM's older releases (the error as the body itself)",
    '{"object":"error","message":"This model\'s maximum context length is 1500 tokens. However, you requested 1700 tokens (1600 in the messages, 100 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}',
  ],
];

/** A refusal as a fake server's raw reply. */
export function refusalReply(body: string): { raw: { status: number; headers: Record<string, string>; chunks: string[] } } {
  return { raw: { status: 400, headers: { 'content-type': 'application/json' }, chunks: [body] } };
}
