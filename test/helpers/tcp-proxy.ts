/**
 * A loopback TCP proxy in front of a NATS server, for losing an ack on purpose:
 * armed with a subject, it forwards the client's publish to that subject, waits
 * until the server answers with a JetStream ack, and then cuts the connection
 * instead of passing the ack on. The record is stored; the client never hears so.
 * It can also refuse new connections, to keep a client away for a while, and
 * swallow the client's publishes to subjects under a prefix, as a cluster whose
 * API has no meta leader leaves JetStream API requests unanswered.
 */
import { createServer, connect, type Socket, type Server } from 'node:net';

export interface TcpProxy {
  readonly url: string;
  /** Drop the ack of the next publish to `subject`; resolves once the connection is cut. */
  dropAckOf(subject: string): Promise<void>;
  /** While on, new connections are closed at once. */
  refuseConnections(on: boolean): void;
  /** While set, the client's publishes to subjects starting with `prefix` never reach the server. */
  swallow(prefix: string | null): void;
  close(): Promise<void>;
}

/** Bytes kept from earlier chunks, enough to match a protocol line split across two. */
const WINDOW = 512;

/**
 * Cuts the client's side of the protocol into whole operations: a line, or a
 * PUB/HPUB line with its payload. Returns the whole ones and what is left over.
 */
function operations(buffer: Buffer): { ops: Buffer[]; rest: Buffer } {
  const ops: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buffer.indexOf('\r\n', at);
    if (eol < 0) break;
    const line = buffer.subarray(at, eol).toString('latin1');
    let end = eol + 2;
    if (/^H?PUB /i.test(line)) end += Number(line.trim().split(/\s+/).at(-1)) + 2;
    if (end > buffer.length) break;
    ops.push(buffer.subarray(at, end));
    at = end;
  }
  return { ops, rest: buffer.subarray(at) };
}

/** The subject of a PUB/HPUB operation, or null for any other. */
function publishedTo(op: Buffer): string | null {
  const m = /^H?PUB (\S+) /i.exec(op.subarray(0, Math.min(op.length, WINDOW)).toString('latin1'));
  return m ? m[1]! : null;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let refusing = false;
  let swallowing: string | null = null;
  let armed: { subject: string; published: boolean; cut: () => void } | null = null;

  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    const cut = (): void => {
      client.destroy();
      upstream.destroy();
    };
    let pending: Buffer = Buffer.alloc(0);
    let received = '';
    client.on('data', (chunk: Buffer) => {
      const { ops, rest } = operations(Buffer.concat([pending, chunk]));
      pending = rest;
      for (const op of ops) {
        const subject = publishedTo(op);
        if (swallowing !== null && subject?.startsWith(swallowing)) continue;
        if (armed && !armed.published && subject === armed.subject) {
          armed.published = true;
          received = '';
        }
        upstream.write(op);
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (armed?.published) {
        const seen = received + chunk.toString('latin1');
        received = seen.slice(-WINDOW);
        if (seen.includes('"stream":"')) {
          const done = armed.cut;
          armed = null;
          cut();
          done();
          return;
        }
      }
      client.write(chunk);
    });
    for (const s of [client, upstream]) {
      s.on('error', cut);
      s.on('close', () => {
        sockets.delete(s);
        cut();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  return {
    url: `nats://127.0.0.1:${port}`,
    dropAckOf(subject) {
      return new Promise<void>((resolve) => {
        armed = { subject, published: false, cut: resolve };
      });
    },
    refuseConnections(on) {
      refusing = on;
    },
    swallow(prefix) {
      swallowing = prefix;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
