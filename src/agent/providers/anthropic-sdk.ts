/**
 * What the anthropic provider uses of the Anthropic SDK, and nothing else: the
 * build bundles this module with the SDK into one file (scripts/bundle.mjs),
 * and what is not named here is left out of it. The SDK's full client makes
 * every resource of the API, four times the code of the two the provider calls.
 */
export { APIConnectionError, APIError, APIUserAbortError, type Middleware } from '@anthropic-ai/sdk';
import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';
import { Models } from '@anthropic-ai/sdk/resources/models';

/** The SDK's client with the Messages API (a run's calls) and the Models API (a chat's /model list) alone. */
export class SdkClient extends BaseAnthropic {
  readonly messages = new Messages(this);
  readonly models = new Models(this);
}
