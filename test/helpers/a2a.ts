/**
 * The A2A bodies the reference's own message code made (test/fixtures/a2a), and
 * checks of bodies against the reference's field lists.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { schemaProblem, type MessageKind } from '../../src/a2a/index.js';
import { elementSpans, memberSpans } from '../../src/core/index.js';

const FILE = resolve(import.meta.dirname, '../fixtures/a2a/caller-side.jsonl');

/** Each fixture line's body, as the exact text it holds, and its direction from the caller's side. */
export function fixtureBodies(): { dir: string; body: string }[] {
  return readFileSync(FILE, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      const [from, to] = memberSpans(line, 0).get('body')!;
      return { dir: (JSON.parse(line) as { dir: string }).dir, body: line.slice(from, to) };
    });
}

/**
 * The reference's field lists, from its Go message types: each kind's fields in
 * the order it writes them, `!` for one it always writes (no omitempty), `?` for
 * one omitted at its zero value, `*` for a pointer: omitted when absent, written
 * when present even at zero. The header comes first in every kind.
 */
export const REFERENCE_FIELDS: Record<string, string[]> = {
  header: ['protocol!', 'id!', 'request!', 'conversation!', 'parent?', 'sequence!', 'time!', 'sender!', 'recipient*', 'must_understand?'],
  request: ['prompt!', 'context?', 'tool_hints?', 'budget*', 'stream*'],
  event: ['block!'],
  result: ['stop_reason!', 'text?', 'usage*'],
  error: ['stop_reason?', 'error!', 'code?'],
  cancel: ['reason?'],
  ack: ['accepted!', 'reason?'],
  'tool.request': ['name!', 'input?'],
  'tool.reply': ['is_error?', 'output?', 'exec*'],
  'discovery.request': [],
  'discovery.reply': ['name!', 'version!', 'description?', 'protocols?', 'tools?'],
  identity: ['name!', 'instance?'],
  usage: ['input_tokens?', 'output_tokens?'],
  budget: ['max_tokens?', 'max_iterations?', 'call_timeout?'],
  exec: ['command?', 'exit_code?', 'truncated?'],
  tool_descriptor: ['name!', 'description?', 'input_schema?'],
  'block.thinking': ['text!', 'signature?', 'provider?'],
  'block.text': ['text!'],
  'block.tool_call': ['id!', 'name!', 'input?'],
  'block.tool_result': ['call_id!', 'is_error?', 'output?', 'exec*'],
  'block.agent_call': ['id!', 'name!', 'task!'],
  'block.status': ['iteration?', 'phase?', 'usage*'],
};

const names = (list: string[]): string[] => list.map((f) => f.slice(0, -1));

/** What is wrong with `value`'s keys against field list `list`; `sorted` for a block's (written through a map). */
function checkObject(where: string, text: string, start: number, list: string[], problems: string[], sorted = false): Map<string, [number, number]> {
  const spans = memberSpans(text, start);
  const keys = [...spans.keys()];
  const allowed = names(list);
  for (const k of keys) if (!allowed.includes(k)) problems.push(`${where}: ${k} is not a field of the reference's`);
  for (const f of list) if (f.endsWith('!') && !keys.includes(f.slice(0, -1))) problems.push(`${where}: ${f.slice(0, -1)} is always written by the reference`);
  const order = sorted ? [...keys].sort() : allowed.filter((k) => keys.includes(k));
  const known = keys.filter((k) => allowed.includes(k) || sorted);
  if (known.join(',') !== order.filter((k) => known.includes(k)).join(',')) problems.push(`${where}: keys ${known.join(',')} are not in the reference's order`);
  for (const f of list.filter((x) => x.endsWith('?'))) {
    const span = spans.get(f.slice(0, -1));
    if (span === undefined) continue;
    const raw = text.slice(span[0], span[1]);
    if (raw === 'false' || raw === '0' || raw === '""' || raw === '[]' || raw === 'null') problems.push(`${where}: ${f.slice(0, -1)} is ${raw}, which the reference omits`);
  }
  return spans;
}

/** What is wrong with a body against the reference's field lists (empty when nothing). */
export function fieldListProblems(body: string): string[] {
  const problems: string[] = [];
  const value = JSON.parse(body) as { protocol: string };
  const kind = value.protocol.replace('io.choria.fisk-ai.v1.', '');
  const own = REFERENCE_FIELDS[kind];
  if (own === undefined) return [`unknown kind ${kind}`];
  const spans = checkObject(kind, body, 0, [...REFERENCE_FIELDS.header!, ...own], problems);
  const at = (key: string): number | undefined => spans.get(key)?.[0];
  for (const key of ['sender', 'recipient']) if (at(key) !== undefined) checkObject(`${kind}.${key}`, body, at(key)!, REFERENCE_FIELDS.identity!, problems);
  if (at('exec') !== undefined) checkObject(`${kind}.exec`, body, at('exec')!, REFERENCE_FIELDS.exec!, problems);
  if (at('usage') !== undefined) checkObject(`${kind}.usage`, body, at('usage')!, REFERENCE_FIELDS.usage!, problems);
  if (at('budget') !== undefined) checkObject(`${kind}.budget`, body, at('budget')!, REFERENCE_FIELDS.budget!, problems);
  if (kind === 'discovery.reply' && at('tools') !== undefined) {
    for (const [i, [s]] of elementSpans(body, at('tools')!).entries()) checkObject(`${kind}.tools[${i}]`, body, s, REFERENCE_FIELDS.tool_descriptor!, problems);
  }
  if (kind === 'event') {
    const type = (value as unknown as { block: { type: string } }).block.type;
    const list = REFERENCE_FIELDS[`block.${type}`];
    if (list === undefined) problems.push(`event: unknown block type ${type}`);
    else {
      const block = checkObject(`event.block`, body, at('block')!, [...list, 'type!'], problems, true);
      if (block.has('exec')) checkObject('event.block.exec', body, block.get('exec')![0], REFERENCE_FIELDS.exec!, problems);
      if (block.has('usage')) checkObject('event.block.usage', body, block.get('usage')![0], REFERENCE_FIELDS.usage!, problems);
    }
  }
  return problems;
}

/** One message the tap saw. */
export interface Tapped {
  subject: string;
  body: string;
  /** The micro service error code, on an error reply. */
  errorCode?: string;
}

/**
 * Everything on the A2A subjects and the reply inboxes of a NATS server, as
 * seen by a plain subscriber: the requests logbook sends and the replies it
 * gets, so a test can hold every body to the reference's field lists.
 */
export async function tapWire(url: string): Promise<{ seen: Tapped[]; bodies: () => string[]; close: () => Promise<void> }> {
  const { connect } = await import('@nats-io/transport-node');
  const nc = await connect({ servers: url });
  const seen: Tapped[] = [];
  for (const subject of ['choria.fisk-ai.>', '_INBOX.>']) {
    nc.subscribe(subject, {
      callback: (_err, msg) => {
        const code = msg.headers?.get('Nats-Service-Error-Code');
        seen.push({ subject: msg.subject, body: msg.string(), ...(code ? { errorCode: code } : {}) });
      },
    });
  }
  await nc.flush();
  return {
    seen,
    bodies: () => seen.map((m) => m.body).filter((b) => b.startsWith('{"protocol":"io.choria.fisk-ai.v1.')),
    close: () => nc.close(),
  };
}

/** What is wrong with bodies against logbook's schemas and the reference's field lists (empty when nothing). */
export function wireProblems(bodies: readonly string[]): string[] {
  const bad: string[] = [];
  for (const body of bodies) {
    const value = JSON.parse(body) as { protocol: string };
    const kind = value.protocol.replace('io.choria.fisk-ai.v1.', '') as MessageKind;
    const problem = schemaProblem(kind, value);
    if (problem !== null) bad.push(`${kind}: ${problem}`);
    bad.push(...fieldListProblems(body));
  }
  return bad;
}
