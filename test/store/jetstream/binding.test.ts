import { describe, expect, it } from 'vitest';
import { RECORD_FLOOR_BYTES, checkStreamConfig, derivePrefix, streamAddCommand, type StreamShape } from '../../../src/store/jetstream/binding.js';
import { supportsTailFence } from '../../../src/store/jetstream/connection.js';
import { runIdOfMetaSubject, recordSubject } from '../../../src/store/jetstream/subjects.js';

function failure(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('expected a failure');
}

const good: StreamShape = {
  name: 'RUNS',
  subjects: ['logbook.runs.>'],
  max_msgs_per_subject: 1,
  discard: 'new',
  discard_new_per_subject: true,
  max_age: 0,
  max_msg_size: -1,
};

describe('subject prefix derivation', () => {
  it('takes the literal tokens of the one `<prefix>.>` subject and ignores literal subjects', () => {
    expect(derivePrefix('S', ['logbook.>'])).toBe('logbook');
    expect(derivePrefix('S', ['a.b.c.>'])).toBe('a.b.c');
    expect(derivePrefix('S', ['ops.alerts', 'runs.>', 'ops.audit'])).toBe('runs');
  });

  it('refuses a stream without a wildcard subject, suggesting one', () => {
    const err = failure(() => derivePrefix('S', ['a.b']));
    expect(err.code).toBe('stream_config');
    expect(err.message).toContain('no wildcard subject');
    expect(err.message).toContain("nats stream edit S --subjects 'a.b' --subjects 'logbook.s.>'");
    expect(failure(() => derivePrefix('S', [])).message).toContain('no wildcard subject');
  });

  it('refuses several wildcard subjects, naming them', () => {
    const err = failure(() => derivePrefix('S', ['a.>', 'lit', 'b.*']));
    expect(err.code).toBe('stream_config');
    expect(err.message).toContain('2 wildcard subjects (a.>, b.*)');
    expect(err.message).toContain("nats stream edit S --subjects 'lit' --subjects 'a.>'");
  });

  it.each([
    ['a.*', 'a.>'],
    ['>', 'logbook.s.>'],
    ['a.*.>', 'a.>'],
    ['a.>.b', 'a.>'],
    ['*.b', 'logbook.s.>'],
  ])('refuses the malformed wildcard subject %s, suggesting %s', (subject, suggestion) => {
    const err = failure(() => derivePrefix('S', [subject]));
    expect(err.code).toBe('stream_config');
    expect(err.message).toContain(`'${subject}' is not of the form '<prefix>.>'`);
    expect(err.message).toContain(`--subjects '${suggestion}'`);
  });
});

describe('stream configuration check', () => {
  it('binds a stream fit for journals', () => {
    expect(checkStreamConfig(good)).toEqual({ stream: 'RUNS', prefix: 'logbook.runs' });
    expect(checkStreamConfig({ ...good, max_msg_size: RECORD_FLOOR_BYTES })).toEqual({ stream: 'RUNS', prefix: 'logbook.runs' });
  });

  it.each<[string, Partial<StreamShape>, string]>([
    ['more than one message per subject', { max_msgs_per_subject: 5 }, 'nats stream edit RUNS --max-msgs-per-subject=1'],
    ['unlimited messages per subject', { max_msgs_per_subject: -1 }, 'nats stream edit RUNS --max-msgs-per-subject=1'],
    ['discard old', { discard: 'old' }, 'nats stream edit RUNS --discard=new'],
    ['no discard new per subject', { discard_new_per_subject: false }, 'nats stream edit RUNS --discard-per-subject'],
    ['a max age', { max_age: 3600e9 }, 'nats stream edit RUNS --max-age=0'],
    ['a small max message size', { max_msg_size: 1000 }, 'nats stream edit RUNS --max-msg-size=-1'],
    ['a max bytes', { max_bytes: 5100 }, 'nats stream edit RUNS --max-bytes=-1'],
    ['a max messages', { max_msgs: 1000 }, 'nats stream edit RUNS --max-msgs=-1'],
    ['no acks', { no_ack: true }, 'nats stream edit RUNS --ack'],
  ])('refuses %s with its fix', (_name, change, fix) => {
    const err = failure(() => checkStreamConfig({ ...good, ...change }));
    expect(err.code).toBe('stream_config');
    expect(err.message).toMatch(/^stream RUNS cannot hold journals: /);
    expect(err.message).toContain(`(fix: ${fix})`);
    expect(err.message.split('(fix:')).toHaveLength(2);
  });

  it('takes no limit on bytes or messages (-1 or 0) and file storage', () => {
    for (const none of [-1, 0]) expect(checkStreamConfig({ ...good, max_bytes: none, max_msgs: none, storage: 'file' }).stream).toBe('RUNS');
  });

  it('says a full stream is refused because it would drop or refuse records', () => {
    const err = failure(() => checkStreamConfig({ ...good, max_bytes: 5100 }));
    expect(err.message).toBe(
      'stream RUNS cannot hold journals: it keeps at most 5100 bytes: once full it refuses records, and nats-server 2.9 drops its oldest ones instead ' +
        '(a finished run among them) (fix: nats stream edit RUNS --max-bytes=-1)',
    );
  });

  it('refuses memory storage, saying how to create the stream again with file storage', () => {
    const add = "nats stream add RUNS --subjects 'logbook.runs.>' --max-msgs-per-subject=1 --discard=new --discard-per-subject";
    const err = failure(() => checkStreamConfig({ ...good, storage: 'memory' }));
    expect(err.code).toBe('stream_config');
    expect(err.message).toBe(
      'stream RUNS cannot hold journals: it keeps its messages in memory, so a server restart loses every run in it ' +
        `(fix: a stream's storage cannot be edited; create it again with file storage: nats stream rm RUNS, then ${add} --storage=file --defaults; ` +
        'move the runs to keep out first, as docs/guide/stores.md shows)',
    );
    // Its replicas are kept.
    expect(failure(() => checkStreamConfig({ ...good, storage: 'memory', num_replicas: 3 })).message).toContain(`${add} --replicas=3 --storage=file --defaults;`);
  });

  it('names every problem on one line', () => {
    const err = failure(() => checkStreamConfig({ ...good, discard: 'old', discard_new_per_subject: false, max_age: 60e9 }));
    expect(err.message).not.toContain('\n');
    expect(err.message.split('(fix:')).toHaveLength(4);
  });

  it('suggests a ready-to-run command for a missing stream', () => {
    expect(streamAddCommand('RUNS')).toBe(
      "nats stream add RUNS --subjects 'logbook.runs.>' --max-msgs-per-subject=1 --discard=new --discard-per-subject --defaults",
    );
  });
});

describe('subjects and server versions', () => {
  it('puts meta on _meta and every other record on its seq', () => {
    expect(recordSubject('p.q', 'run-1', 1)).toBe('p.q.run-1._meta');
    expect(recordSubject('p.q', 'run-1', 12)).toBe('p.q.run-1.12');
    expect(runIdOfMetaSubject('p.q', 'p.q.run-1._meta')).toBe('run-1');
    expect(runIdOfMetaSubject('p.q', 'p.q.run-1.2')).toBeNull();
    expect(runIdOfMetaSubject('p.q', 'x.q.run-1._meta')).toBeNull();
  });

  it('fences on the tail from server 2.11 on', () => {
    expect(supportsTailFence('2.9.10')).toBe(false);
    expect(supportsTailFence('2.10.24')).toBe(false);
    expect(supportsTailFence('2.11.0')).toBe(true);
    expect(supportsTailFence('2.12.1')).toBe(true);
    expect(supportsTailFence('3.0.0')).toBe(true);
    expect(supportsTailFence(undefined)).toBe(false);
  });
});
