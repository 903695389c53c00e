/**
 * What the openai provider uses of the OpenAI SDK: the build bundles this
 * module with the SDK into one file (scripts/bundle.mjs).
 */
export { default as OpenAI, APIConnectionError, APIError, APIUserAbortError } from 'openai';
