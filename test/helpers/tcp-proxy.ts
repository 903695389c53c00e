/**
 * A loopback TCP proxy in front of a NATS server, for losing an ack on purpose:
 * armed with a subject, it forwards the client's publish to that subject, waits
 * until the server answers with a JetStream ack, and then cuts the connection
 * instead of passing the ack on. The record is stored; the client never hears so.
 * It can also refuse new connections, to keep a client away for a while.
 */
import { createServer, connect, type Socket, type Server } from 'node:net';

export interface TcpProxy {
  readonly url: string;
  /** Drop the ack of the next publish to `subject`; resolves once the connection is cut. */
  dropAckOf(subject: string): Promise<void>;
  /** While on, new connections are closed at once. */
  refuseConnections(on: boolean): void;
  close(): Promise<void>;
}

/** Bytes kept from earlier chunks, enough to match a protocol line split across two. */
const WINDOW = 512;

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let refusing = false;
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
    let sent = '';
    let received = '';
    client.on('data', (chunk: Buffer) => {
      const seen = sent + chunk.toString('latin1');
      sent = seen.slice(-WINDOW);
      if (armed && !armed.published && (seen.includes(`HPUB ${armed.subject} `) || seen.includes(`PUB ${armed.subject} `))) {
        armed.published = true;
        received = '';
      }
      upstream.write(chunk);
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
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
