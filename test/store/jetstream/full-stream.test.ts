/**
 * A stream with no room for a record: a limit set on it after the store bound
 * it (binding refuses one set before), its account's JetStream limit, or its
 * server's. The append fails with `stream_full` naming the limit and its fix,
 * never as another writer or an existing run, nothing counts as stored, and
 * once the limit is raised the same journal carries on. Against real
 * nats-servers this file starts, once per server version.
 */
import { jetstreamManager, type StreamInfo, type StreamState } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JetStreamStore, encodeRecord, type Journal } from '../../../src/index.js';
import { caught } from '../../helpers/errors.js';
import { addStream, journalStream } from '../../helpers/jetstream.js';
import { describeEachNatsServer, natsServerOfBlock, startNatsServer, type NatsServer } from '../../helpers/nats-server.js';
import { assistant, at, completed, meta, toolResult } from '../../helpers/records.js';

const nats = natsServerOfBlock();
let streams = 0;

/** A new journal stream on `url`, a store on it, and a run written up to seq 2. */
async function written(url: string, id: string): Promise<{ store: JetStreamStore; journal: Journal; stream: string }> {
  const stream = `FULL_${streams++}`;
  await addStream(url, journalStream(stream, `${stream.toLowerCase()}.runs`));
  const store = await JetStreamStore.connect({ stream, nats: { url }, timeoutMs: 2_000 });
  const journal = await store.create(id, meta(id));
  await journal.append(at(2, assistant(0, ['t1'])));
  return { store, journal, stream };
}

/** The stream's info now. */
async function info(url: string, stream: string): Promise<StreamInfo> {
  const nc = await connect({ servers: url });
  try {
    return await (await jetstreamManager(nc)).streams.info(stream);
  } finally {
    await nc.close();
  }
}

/** Changes a stream's configuration, as `nats stream edit` does. */
async function edit(url: string, stream: string, change: Record<string, unknown>): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    const { config } = await jsm.streams.info(stream);
    await jsm.streams.update(stream, { ...config, ...change });
  } finally {
    await nc.close();
  }
}

describeEachNatsServer('jetstream: a stream with no room for the next record', (binary) => {
  nats.start({ binary });

  it.each([
    ['max_msgs', (state: StreamState) => ({ max_msgs: state.messages }), /it holds 2 messages and its max_msgs is 2 \(fix: nats stream edit STREAM --max-msgs=-1\)$/, { max_msgs: -1 }],
    ['max_bytes', (state: StreamState) => ({ max_bytes: state.bytes }), /it holds ([\d,]+) bytes and its max_bytes is \1 \(fix: nats stream edit STREAM --max-bytes=-1\)$/, { max_bytes: -1 }],
  ])('a %s set after the store bound the stream, met: stream_full naming it, and the journal carries on once it is raised', async (_name, limit, says, raised) => {
    const url = nats.server().url;
    const { store, journal, stream } = await written(url, 'filled');
    await edit(url, stream, limit((await info(url, stream)).state));
    const err = await caught(journal.append(at(3, toolResult('t1'))));
    expect(err.code).toBe('stream_full');
    const head = `^cannot append seq 3 to run filled in stream ${stream}: stream ${stream} is full: `;
    expect(err.message).toMatch(new RegExp(head + says.source.replace('STREAM', stream)));
    expect(journal.lastSeq).toBe(2);
    // A run created there meanwhile is refused the same way, not taken for one that exists.
    const other = await caught(store.create('newcomer', meta('newcomer')));
    expect(other.code).toBe('stream_full');
    expect(other.message).toMatch(new RegExp(`^cannot append seq 1 to run newcomer in stream ${stream}: stream ${stream} is full: `));

    await edit(url, stream, raised);
    await journal.append(at(3, toolResult('t1')));
    await journal.append(at(4, completed));
    await journal.close();
    expect((await store.load('filled')).records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect((await caught(store.load('newcomer'))).code).toBe('not_found');
    await store.close();
  });

  // nats-server 2.9 checks a new message against max_bytes without its overhead, stores it with it,
  // and then drops the oldest messages to fit, despite discard new: here the run's meta record.
  it.runIf(/^2\.9\./.test(binary.version))('a max_bytes set later that 2.9 fills past: the writer says the stream dropped the meta, naming the limit and its fix', async () => {
    const url = nats.server().url;
    const { store, journal, stream } = await written(url, 'dropped');
    const next = at(3, toolResult('t1'));
    // Room for the record and its headers (message id, fence), not for the store's own overhead.
    const room = Buffer.byteLength(encodeRecord(next)) + 110;
    await edit(url, stream, { max_bytes: (await info(url, stream)).state.bytes + room });
    // The meta is read alongside the append (before 2.11), so the loss may be found at once or as the writer lets go.
    const err = await caught(journal.append(next).then(() => journal.close()));
    expect(err.code).toBe('journal_gone');
    expect(err.message).toMatch(
      new RegExp(
        `^cannot (append seq 3 to|keep the last records of) run dropped in stream ${stream}: run dropped's meta record was dropped from stream ${stream} while the run was being written: ` +
          `the stream was changed since the run was opened, and it keeps at most \\d+ bytes: once full it refuses records, and nats-server 2\\.9 drops its oldest ones instead ` +
          `\\(a finished run among them\\) \\(fix: nats stream edit ${stream} --max-bytes=-1\\); seq 3 and what follows are not kept`,
      ),
    );
    await journal.close();
    await store.close();
  });

  describe('limits beyond the stream', () => {
    let small: NatsServer; // whose one account may store 8,000 bytes
    let tight: NatsServer; // which may store 40,000 bytes in all
    beforeAll(async () => {
      [small, tight] = await Promise.all([
        startNatsServer({
          binary,
          config: 'accounts { SMALL { jetstream { max_file: 8000 }, users: [{ user: small, password: small }] } }\nno_auth_user: small\n',
        }),
        startNatsServer({ binary, config: 'jetstream { max_file_store: 40000 }\n' }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([small?.dispose(), tight?.dispose()]);
    });

    it("the account's JetStream storage used up: stream_full naming the account's limit and its figures", async () => {
      const { store, journal, stream } = await written(small.url, 'account');
      let err: { code: string; message: string } = { code: 'no error', message: '' };
      for (let seq = 3; err.code === 'no error' && seq < 200; seq++) err = await caught(journal.append(at(seq, toolResult('t1', 'x'.repeat(400)))));
      expect(err.code).toBe('stream_full');
      expect(err.message).toMatch(
        new RegExp(
          `^cannot append seq \\d+ to run account in stream ${stream}: the JetStream file storage of the account is full: it uses [\\d,]+ bytes of the 8,000 it may ` +
            "\\(fix: raise the account's limit, `max_file` in its jetstream block of the server's configuration or `nsc edit account --js-disk-storage`, or remove runs\\)$",
        ),
      );
      await journal.close();
      await store.close();
    });

    it("the server's JetStream storage used up: stream_full naming the server's limit", async () => {
      const { store, journal, stream } = await written(tight.url, 'server');
      let err: { code: string; message: string } = { code: 'no error', message: '' };
      for (let seq = 3; err.code === 'no error' && seq < 500; seq++) err = await caught(journal.append(at(seq, toolResult('t1', 'x'.repeat(400)))));
      expect(err.code).toBe('stream_full');
      expect(err.message).toMatch(
        new RegExp(
          `^cannot append seq \\d+ to run server in stream ${stream}: the NATS server's JetStream file storage is full: its \`max_file_store\` limit is reached, ` +
            "or the disk under its store directory \\(fix: raise `max_file_store` in the jetstream block of the server's configuration, or free disk space\\)$",
        ),
      );
      await journal.close();
      await store.close();
    });
  });
});
