/**
 * Binding a stream: logbook never creates or edits one, because the operator
 * owns its durability (replicas, storage, placement). It only checks, when it
 * binds it, that the stream can hold what logbook keeps there, and each refusal
 * names the `nats` command that fixes it. The journal stream's rules are here;
 * the problems every stream logbook binds can have (memory storage, a message
 * size too small, no acks, limits that drop messages) are phrased here once for
 * all of them (the A2A task streams' rules use them too: agent/tasks/streams.ts).
 *
 * A journal stream's subject prefix is derived from its single `<prefix>.>`
 * wildcard subject rather than taken as an option, so the two can never disagree.
 */
import { LogbookError } from '../../core/index.js';

/**
 * The smallest per-message limit a stream may set: a record is one message, and a
 * tool result or an assistant turn can be large. This is the server's default
 * max_payload, so a stream at the floor takes any record a default server does.
 */
export const RECORD_FLOOR_BYTES = 1024 * 1024;

/** The stream configuration fields the checks read (a subset of the server's). */
export interface StreamShape {
  name: string;
  subjects?: string[];
  /** `limits`, `interest` or `workqueue`. */
  retention?: string;
  max_msgs_per_subject?: number;
  discard?: string;
  discard_new_per_subject?: boolean;
  /** Nanoseconds; 0 is no limit. */
  max_age?: number;
  /** Bytes; -1 or 0 is no limit. */
  max_msg_size?: number;
  /** The whole stream's limits; -1 or 0 is none. */
  max_bytes?: number;
  max_msgs?: number;
  /** `file` or `memory`. */
  storage?: string;
  num_replicas?: number;
  no_ack?: boolean;
}

export interface StreamBinding {
  stream: string;
  prefix: string;
}

/** The subject prefix a new stream gets in the suggested `nats stream add` line: named by the stream, so two journal streams never overlap (the docs' lines are these). */
export function suggestedPrefix(stream: string): string {
  return `logbook.${stream.toLowerCase()}`;
}

/** A ready-to-run command that creates a stream fit for journals (file storage, no limits: what `--defaults` gives). */
export function streamAddCommand(stream: string, prefix = suggestedPrefix(stream)): string {
  return (
    `nats stream add ${stream} --subjects '${prefix}.>' --max-msgs-per-subject=1 ` +
    `--discard=new --discard-per-subject --defaults`
  );
}

/** Where the stream requirements, and moving runs out of a stream that breaks them, are documented. */
export const STREAMS_DOC = 'docs/guide/stores.md';

/** The refusal for a stream that is not there: what it is for, and the `nats stream add` line that makes it. */
export function missingStream(stream: string, url: string, add: string = streamAddCommand(stream), by = 'the jetstream backend'): LogbookError {
  return new LogbookError('stream_config', `stream ${stream} does not exist on ${url}; ${by} never creates one, create it with: ${add}`);
}

/** `nats stream edit STREAM FLAG`: the fix of a setting that can be edited. */
export function editFix(stream: string, flag: string): string {
  return `nats stream edit ${stream} ${flag}`;
}

function isWildcardToken(token: string): boolean {
  return token === '*' || token === '>';
}

function editSubjects(stream: string, subjects: string[]): string {
  return `nats stream edit ${stream} ${subjects.map((s) => `--subjects '${s}'`).join(' ')}`;
}

/**
 * The prefix of the stream's one wildcard subject, which must be `<prefix>.>` with
 * literal tokens before it. Literal subjects are the operator's and are ignored.
 */
export function derivePrefix(stream: string, subjects: readonly string[]): string {
  const literal = subjects.filter((s) => !s.split('.').some(isWildcardToken));
  const wild = subjects.filter((s) => s.split('.').some(isWildcardToken));
  if (wild.length === 0) {
    const fix = editSubjects(stream, [...literal, `${suggestedPrefix(stream)}.>`]);
    throw new LogbookError(
      'stream_config',
      `stream ${stream} has no wildcard subject; journals need exactly one '<prefix>.>' subject, add one with: ${fix}`,
    );
  }
  if (wild.length > 1) {
    const fix = editSubjects(stream, [...literal, wild[0]!]);
    throw new LogbookError(
      'stream_config',
      `stream ${stream} has ${wild.length} wildcard subjects (${wild.join(', ')}); journals need exactly one '<prefix>.>' subject, keep one with: ${fix}`,
    );
  }
  const subject = wild[0]!;
  const tokens = subject.split('.');
  const head = tokens.slice(0, -1);
  if (tokens[tokens.length - 1] !== '>' || head.length === 0 || head.some((t) => t === '' || isWildcardToken(t))) {
    // Suggest the literal tokens before the first wildcard as the prefix.
    const cut = head.findIndex(isWildcardToken);
    const literalHead = (cut >= 0 ? head.slice(0, cut) : head).filter((t) => t !== '');
    const prefix = literalHead.length > 0 ? literalHead.join('.') : suggestedPrefix(stream);
    const fix = editSubjects(stream, [...literal, `${prefix}.>`]);
    throw new LogbookError(
      'stream_config',
      `stream ${stream} wildcard subject '${subject}' is not of the form '<prefix>.>'; replace it with: ${fix}`,
    );
  }
  return head.join('.');
}

function describeAge(nanos: number): string {
  const seconds = nanos / 1e9;
  return seconds >= 1 ? `${seconds}s` : `${nanos}ns`;
}

/**
 * What a full stream does, for the refusal of a limit that fills it: nats-server
 * 2.9 checks the limit against the message alone, stores it with its overhead,
 * and then drops the oldest messages to fit (a finished run's meta among them)
 * even with discard new; later servers refuse the record, and the run fails.
 */
const WHEN_FULL = 'once full it refuses records, and nats-server 2.9 drops its oldest ones instead (a finished run among them)';

/**
 * Checks that the stream keeps every record, once, forever, and returns the
 * binding. Refuses a stream whose subjects are unusable, that keeps more than one
 * message per subject, that discards old messages or does not discard new ones
 * per subject, that expires messages, that limits its bytes or messages (it
 * would fill up: WHEN_FULL), that keeps them in memory (a server restart loses
 * them), whose message size limit is below RECORD_FLOOR_BYTES, or that does
 * not acknowledge publishes (the fence needs the ack). Every problem is named
 * with its fix, on one line.
 */
export function checkStreamConfig(config: StreamShape): StreamBinding {
  const stream = config.name;
  const prefix = derivePrefix(stream, config.subjects ?? []);
  const problems = streamProblems(config, prefix);
  if (problems.length > 0) {
    throw new LogbookError('stream_config', `stream ${stream} cannot hold journals: ${problems.join('; ')}`);
  }
  return { stream, prefix };
}

/** What keeps a stream with these settings from holding journals (its subjects aside), each with its fix; none when it can. */
export function streamProblems(config: StreamShape, prefix: string): string[] {
  const stream = config.name;
  const problems: string[] = [];
  const edit = (flag: string) => editFix(stream, flag);
  const perSubject = config.max_msgs_per_subject ?? 0;
  if (perSubject !== 1) {
    problems.push(
      `it keeps ${perSubject > 0 ? perSubject : 'unlimited'} messages per subject but records are write-once (fix: ${edit('--max-msgs-per-subject=1')})`,
    );
  }
  if (config.discard !== 'new') {
    problems.push(`its discard policy is ${config.discard ?? 'old'}, so records could be dropped (fix: ${edit('--discard=new')})`);
  }
  if (config.discard_new_per_subject !== true) {
    problems.push(`it does not discard new messages per subject, so a record could be overwritten (fix: ${edit('--discard-per-subject')})`);
  }
  problems.push(
    ...ageProblem(config, 'journals must not expire'),
    ...wholeLimitProblems(config, WHEN_FULL),
    ...memoryProblem(config, streamAddCommand(stream, prefix), 'every run in it', `move the runs to keep out first, as ${STREAMS_DOC} shows`),
    ...messageSizeProblem(config, RECORD_FLOOR_BYTES, 'record floor'),
    ...ackProblem(config, 'appends need'),
  );
  return problems;
}

/** A stream that expires its messages, where `why` says they must not. */
export function ageProblem(config: StreamShape, why: string): string[] {
  if ((config.max_age ?? 0) <= 0) return [];
  return [`it expires messages after ${describeAge(config.max_age!)} but ${why} (fix: ${editFix(config.name, '--max-age=0')})`];
}

/** A stream whose whole size or count is limited, with what happens once it is full. */
export function wholeLimitProblems(config: StreamShape, whenFull: string): string[] {
  const problems: string[] = [];
  if ((config.max_bytes ?? -1) > 0) problems.push(`it keeps at most ${config.max_bytes} bytes: ${whenFull} (fix: ${editFix(config.name, '--max-bytes=-1')})`);
  if ((config.max_msgs ?? -1) > 0) problems.push(`it keeps at most ${config.max_msgs} messages: ${whenFull} (fix: ${editFix(config.name, '--max-msgs=-1')})`);
  return problems;
}

/**
 * A stream kept in memory, which a server restart empties of `lost`. A stream's
 * storage cannot be edited: the fix creates it again with `add` (its replicas
 * kept) and file storage, then says `first` when there is something to do first.
 */
export function memoryProblem(config: StreamShape, add: string, lost: string, first?: string): string[] {
  if (config.storage !== 'memory') return [];
  const stream = config.name;
  const replicas = (config.num_replicas ?? 1) > 1 ? ` --replicas=${config.num_replicas}` : '';
  const again = add.replace(/ --defaults$/, `${replicas} --storage=file --defaults`);
  return [
    `it keeps its messages in memory, so a server restart loses ${lost} ` +
      `(fix: a stream's storage cannot be edited; create it again with file storage: nats stream rm ${stream}, then ${again}${first !== undefined ? `; ${first}` : ''})`,
  ];
}

/** A stream whose message size limit is below `floor` bytes (`floorName` says what the floor is). */
export function messageSizeProblem(config: StreamShape, floor: number, floorName: string): string[] {
  const size = config.max_msg_size ?? -1;
  if (size <= 0 || size >= floor) return [];
  return [`its max message size ${size} is below the ${floor}-byte ${floorName} (fix: ${editFix(config.name, '--max-msg-size=-1')})`];
}

/** A stream that does not acknowledge publishes, which `who` (a clause: "appends need") relies on. */
export function ackProblem(config: StreamShape, who: string): string[] {
  return config.no_ack === true ? [`it does not acknowledge publishes, which ${who} (fix: ${editFix(config.name, '--ack')})`] : [];
}
