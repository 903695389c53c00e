/**
 * The `script` provider plays model turns from a YAML or JSON file. It exists for
 * offline demos and tests, never for real work: nothing here calls a model.
 *
 * The turn played is chosen by position, not by call count: a request whose
 * conversation already holds N assistant turns gets turns[N]. A resumed run in a
 * new process therefore continues exactly where the journal left off.
 *
 *   turns:
 *     - thinking: "optional"
 *       text: "Let me look."
 *       tool_calls:
 *         - { name: list_files, input: { path: "." } }     # id defaults to toolu_<turn>_<i>
 *       stop_reason: tool_use          # default: tool_use with calls, else end_turn
 *       usage: { input: 120, output: 30, cache_read: 0, cache_create: 0 }
 *       delay_ms: 0                    # think for a while (interruptible)
 *
 * Given a log file, every request appends `{"turn":N}` to it, so a test can prove
 * which turns were asked for.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ajvClass, precompiled, vendored, type YamlParser } from '../../schema/precompiled.js';
import { LogbookError, RawJson, toByteField, type Block } from '../../core/index.js';
import type { ModelRequest, ModelResponse, Provider, StreamObserver } from '../provider.js';

/** One model turn the script provider plays: each field as in a script file (see above). */
export interface ScriptTurn {
  thinking?: string;
  text?: string;
  tool_calls?: { name: string; input?: unknown; id?: string }[];
  stop_reason?: string;
  usage?: { input?: number; output?: number; cache_read?: number; cache_create?: number };
  delay_ms?: number;
}

const count = { type: 'integer', minimum: 0 } as const;
/** How SCRIPT_SCHEMA is compiled, here and ahead of time by the build (precompiled.ts). */
export const SCRIPT_AJV_OPTIONS = { strict: true, validateSchema: false } as const;

export const SCRIPT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['turns'],
  properties: {
    turns: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          thinking: { type: 'string' },
          text: { type: 'string' },
          tool_calls: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['name'],
              properties: { name: { type: 'string', minLength: 1 }, input: {}, id: { type: 'string', minLength: 1 } },
            },
          },
          stop_reason: { type: 'string', minLength: 1 },
          usage: {
            type: 'object',
            additionalProperties: false,
            properties: { input: count, output: count, cache_read: count, cache_create: count },
          },
          delay_ms: count,
        },
      },
    },
  },
} as const;

export function loadScript(path: string): ScriptTurn[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new LogbookError('config', `cannot read script file ${path}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = vendored<YamlParser>('yaml').parse(text); // YAML is a superset of JSON: both kinds of file parse here
  } catch (err) {
    throw new LogbookError('config', `${path}: not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  return checkScript(doc, path);
}

/** The turns of a parsed script, checked against SCRIPT_SCHEMA; `where` names it in the error. */
function checkScript(doc: unknown, where: string): ScriptTurn[] {
  // A constant schema, checked against the meta-schema by a test rather than on every start.
  const validate = precompiled('script', () => new (ajvClass())(SCRIPT_AJV_OPTIONS).compile(SCRIPT_SCHEMA));
  if (!validate(doc)) {
    const e = validate.errors![0]!;
    const extra = e.keyword === 'additionalProperties' ? ` "${(e.params as { additionalProperty: string }).additionalProperty}"` : '';
    throw new LogbookError('config', `${where}: ${e.instancePath || 'script'} ${e.message}${extra}`);
  }
  return (doc as { turns: ScriptTurn[] }).turns;
}

/**
 * A provider that plays `turns` instead of calling a model, for programs and
 * tests that run offline: the Nth model call of a conversation gets turns[N],
 * so a run resumed in another process goes on where its journal left off.
 * Its fingerprint's provider is `script`, with `model` (default `script`).
 */
export function scriptProvider(turns: readonly ScriptTurn[], options: { model?: string } = {}): Provider {
  return new ScriptProvider(options.model ?? 'script', '(given turns)', checkScript({ turns }, 'the script'));
}

export class ScriptProvider implements Provider {
  readonly id = 'script';

  constructor(
    readonly model: string,
    private readonly path: string,
    private readonly turns: ScriptTurn[] = loadScript(path),
    /** A file that gets `{"turn":N}` appended for every request answered. */
    private readonly log?: string,
  ) {}

  async complete(request: ModelRequest, observer?: StreamObserver): Promise<ModelResponse> {
    const index = request.messages.filter((m) => m.role === 'assistant').length;
    if (this.log) appendFileSync(this.log, `{"turn":${index}}\n`);
    const turn = this.turns[index];
    if (turn === undefined) {
      throw new LogbookError('provider', `script ${this.path} has ${this.turns.length} turns; the conversation asks for turn ${index + 1}`);
    }
    if (turn.delay_ms) {
      try {
        await sleep(turn.delay_ms, undefined, { signal: request.signal });
      } catch (err) {
        throw new LogbookError('interrupted', 'model call interrupted', { cause: err });
      }
    }
    const content: Block[] = [];
    if (turn.thinking !== undefined && request.thinking !== 'off') {
      observer?.onThinking?.(turn.thinking, content.length);
      content.push({ thinking: { text: turn.thinking, signature: toByteField(`script-${index}`) } });
    }
    if (turn.text) {
      observer?.onText?.(turn.text, content.length);
      content.push({ text: { text: turn.text } });
    }
    const calls = turn.tool_calls ?? [];
    calls.forEach((call, i) => {
      content.push({
        tool_use: { id: call.id ?? `toolu_${index}_${i}`, name: call.name, input: RawJson.fromValue(call.input ?? {}) },
      });
    });
    const usage = turn.usage ?? {};
    return {
      message: { role: 'assistant', content },
      stopReason: turn.stop_reason ?? (calls.length > 0 ? 'tool_use' : 'end_turn'),
      usage: {
        inTokens: usage.input ?? 100 + 10 * index,
        outTokens: usage.output ?? 20,
        ...(usage.cache_read !== undefined ? { cacheReadTokens: usage.cache_read } : {}),
        ...(usage.cache_create !== undefined ? { cacheCreateTokens: usage.cache_create } : {}),
      },
    };
  }
}
